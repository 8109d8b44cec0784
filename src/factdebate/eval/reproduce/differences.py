"""The "differences from the papers" table of docs/reproduce.md, generated from the methods' own
declarations (``Method.paper_deviations``): one source, so the page cannot drift from what runs report.

Each cell is declared as ``reproduce`` runs it offline. Rewrite the page with ``python -m
factdebate.eval.reproduce.differences docs/reproduce.md``; a test checks it is current."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import BINARY_LABELS, Dataset
from factdebate.eval.datasets.medical_setup import with_medical
from factdebate.eval.reproduce.spec import Paper, papers
from factdebate.methods.base import Method
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.settings.options import Option

START, END = "<!-- differences:start -->", "<!-- differences:end -->"
# The machine the table describes: nothing from the environment, search on the local index.
OFFLINE = {"search": "local"}


def cell_settings(paper: Paper, run: str, dataset: str, flags: dict[str, Any] | None = None) -> Settings:
    """The settings one cell's samples run with under the paper's options (and ``flags`` over them), offline."""
    spec, column = paper.runs[run], paper.datasets[dataset]
    options = {"method": spec.method, **OFFLINE, **column.options, **spec.options, **(flags or {})}
    options = {k: v.replace("{run_dir}", "RUN_DIR") if isinstance(v, str) else v for k, v in options.items()}
    settings = load_settings(overrides=Option.overrides(options), environ={})
    stub = Dataset(kind=column.name, labels=BINARY_LABELS, samples=[], unit=column.unit)
    return Method.named(spec.method).sample_settings(settings, stub)


def cell_deviations(paper: Paper, run: str, dataset: str) -> list[dict[str, Any]]:
    """The deviations of one cell (run, dataset) under the paper's options, offline."""
    settings = cell_settings(paper, run, dataset)
    method = Method.named(settings.method)
    found = with_medical(paper.datasets[dataset].name, settings, method.tools(settings),
                         method.paper_deviations(settings))
    return [d.model_dump() for d in found]


def cells(paper: Paper) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for table in paper.tables:
        for row in table.rows:
            for column in table.columns:
                seen.setdefault((row.run, column), None)
    return list(seen)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(paper: Paper) -> list[str]:
    """One row per difference, with the runs that have it (and the datasets, where not all of the run's)."""
    pairs = cells(paper)
    columns: dict[str, list[str]] = {}
    for run, dataset in pairs:
        columns.setdefault(run, []).append(dataset)
    grouped: dict[tuple[str, str, str, str], dict[str, list[str]]] = {}
    own: dict[str, dict[str, None]] = {}  # the paper's own settings a method declares against its reference
    for run, dataset in pairs:
        for d in cell_deviations(paper, run, dataset):
            if d["key"] in paper.own_settings:
                own.setdefault(d["key"], {})[run] = None
                continue
            grouped.setdefault((d["key"], d["paper"], d["here"], d["restore"]), {}).setdefault(run, []).append(dataset)
    lines = [f"### {paper.short}", "", "| difference | runs | the paper | here | the paper's way |",
             "|---|---|---|---|---|"]
    for (key, was, here, restore), runs in grouped.items():
        named = ", ".join(run if found == columns[run] else
                          f"{run} ({', '.join(paper.datasets[d].label for d in found)})" for run, found in runs.items())
        lines.append(f"| `{key}` | {named} | {_cell(was)} | {_cell(here)} | {_cell(restore) or '—'} |")
    for key, own_runs in own.items():
        lines += ["", f"Not a difference: `{key}` ({', '.join(own_runs)}) is this paper's own setting, "
                      f"{paper.own_settings[key]}; the method declares it against its reference paper."]
    return lines


def section() -> str:
    lines = [START, ""]
    for paper in papers().values():
        lines += [*table(paper), ""]
    return "\n".join([*lines, END])


def rewrite(page: Path) -> bool:
    """Replace the section between the markers; True if the page changed."""
    text = page.read_text(encoding="utf-8")
    start, end = text.index(START), text.index(END) + len(END)
    new = text[:start] + section() + text[end:]
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    print("rewritten" if rewrite(Path(sys.argv[1])) else "current")
