"""The reproduction's report: per table, every paper figure beside ours with its 95% interval, a plot, the
runs' deviations and the user's changes, and what was skipped; read back from the output folder alone."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.core.deviations import Deviation
from factdebate.core.runfiles import read_run_json
from factdebate.eval.report.reply_counts import lost_warning, short_text
from factdebate.eval.report.summary import EMBEDDED, RUN, SUMMARY_JSON, base_rate_warning
from factdebate.eval.reproduce.measure import METRICS, Measured, measure_run
from factdebate.eval.reproduce.spec import Paper, Table, get_paper
from factdebate.methods.kit.backbones import backbone_of, served_name

REPORT = "report.md"
INTERVALS_NOTE = ("95% intervals: Wilson score for accuracy, precision and recall (proportions, each over its own "
                  "denominator); percentile bootstrap (1,000 resamples, the run's seed) for F1, macro-F1 and tool "
                  "calls. A sample of the draw not run yet counts wrong in accuracy.")
TINY = EMBEDDED  # the embedded model or a scripted one
CAPABLE = ("**A capable model is needed for the paper's numbers.** The papers used GPT-4o-mini, GPT-4o, GPT-5-mini, "
           "Llama-3.3-70B, Qwen-2.5 and ChatGPT; the embedded model is SmolLM2-135M, a 135-million-parameter model "
           "that keeps the pipeline running offline and answers close to the base rate. Run with a served model "
           "(`--llm openai:MODEL`, any OpenAI-compatible server) to compare with the paper.")
SCRIPTED_NOTE = ("a scripted model (`scripted:...`) answers from a fixed script, without reading the claim's "
                 "evidence: it tests the pipeline")


def capable_note(models: Iterable[str]) -> str:
    """CAPABLE, naming the small models that ran: the embedded one, a scripted one, or both."""
    ran = list(models)
    embedded = any(m.startswith(EMBEDDED[0]) for m in ran)
    scripted = any(m.startswith("scripted:") for m in ran)
    if scripted and not embedded:
        return CAPABLE.replace("the embedded model is SmolLM2-135M, a 135-million-parameter model that keeps the "
                               "pipeline running offline and answers close to the base rate", SCRIPTED_NOTE)
    if scripted:
        return CAPABLE.replace(" Run with", f"; {SCRIPTED_NOTE}. Run with")
    return CAPABLE


@dataclass
class Line:
    """One paper figure and ours."""

    label: str  # for the plot: row / column / metric
    row: str
    run: str
    column: str
    metric: str
    paper: float | None
    paper_ci: tuple[float, float] | None
    model: str
    cite: str
    ours: Measured | None
    status: str
    paper_n: int = 0  # the paper's number of samples in the column
    other_backbone: str = ""  # our run's debater when it is not this row's backbone (the figure is another model's)

    @property
    def partial(self) -> bool:
        """A tool-call total measured on part of the paper's claims: "mean x n" stands for the paper's total
        only over all of them in sequence (a part reuses less of the memory), so it is not scaled."""
        return self.metric == "tool_calls_total" and self.ours is not None and self.ours.n < self.paper_n


def _num(value: float | None, digits: int) -> str:
    """``value`` at ``digits`` decimals; a difference that rounds to zero is 0.00, never -0.00."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _digits(table: Table, metric: str, run: str = "", column: str = "") -> int:
    """The paper's own precision (DPD prints 74.25, Tool-MAD 62.0), which ours follows."""
    if metric == "tool_calls_total":
        return 0
    if (found := table.figure_digits.get(f"{run}/{column}/{metric}")) is not None:
        return found
    return table.digits if table.digits is not None else (1 if table.scale == 100 else 2)


def _scaled(table: Table, metric: str, value: float | None) -> float | None:
    return None if value is None or metric == "tool_calls_total" else value * table.scale


def _ours(table: Table, line: Line) -> tuple[float | None, tuple[float, float] | None]:
    if line.ours is None:
        return None, None
    if line.metric == "tool_calls_total":
        return line.ours.value, line.ours.ci
    ci = line.ours.ci
    return _scaled(table, line.metric, line.ours.value), (ci[0] * table.scale, ci[1] * table.scale) if ci else None


def _debater(root: Path, cell: dict[str, Any] | None) -> str | None:
    """The debater's model of a finished cell's run, from its run.json (None: not run or not recorded)."""
    if cell is None or cell.get("status") != "done":
        return None
    provenance = (_cell_json(root, cell, RUN) or {}).get("provenance")
    models = provenance.get("models") if isinstance(provenance, dict) else None
    debater = models.get("debater") if isinstance(models, dict) else None
    return debater if isinstance(debater, str) else None


def _other_backbone(model_key: str, debater: str | None) -> str:
    """``debater`` when it is a served model other than the backbone ``model_key`` names, else ""."""
    if debater is None or model_key == "unstated" or served_name(debater) is None:
        return ""
    return debater if backbone_of(debater) != model_key.replace("_", ".") else ""


def table_lines(paper: Paper, table: Table, cells: dict[str, dict[str, Any]], root: Path, model: str) -> list[Line]:
    lines = []
    measured: dict[str, dict[str, Measured] | None] = {}
    for row in table.rows:
        found = paper.figures(row, model)
        for column in table.columns:
            cell = cells.get(f"{column}/{row.run}")
            folder = root / cell["folder"] if cell else None
            key = str(folder)
            if folder is not None and key not in measured:
                measured[key] = measure_run(folder, table.metrics, paper.datasets[column].n)
            other = _other_backbone(found[0], _debater(root, cell)) if found else ""
            for metric in table.metrics:
                figures = found[1] if found else None
                value = figures.values.get(column, {}).get(metric) if figures else None
                ours = (measured.get(key) or {}).get(metric) if folder is not None else None
                lines.append(Line(
                    label=f"{row.run} / {paper.datasets[column].label}",
                    row=figures.label if figures else f"({row.run}: no figure for {paper.models[model]})",
                    run=row.run, column=column, metric=metric, paper=value,
                    paper_ci=figures.ci.get(column) if figures else None,
                    model=found[0] if found else model,
                    cite=paper.cite(table, figures, column, metric) if figures else "",
                    ours=ours, status=cell["status"] if cell else "not selected", paper_n=paper.datasets[column].n,
                    other_backbone=other))
    return lines


def backbone_mismatches(root: Path, manifest: dict[str, Any]) -> list[str]:
    """One line per paper row whose figures stand beside a run of another backbone."""
    paper = get_paper(manifest["paper"])
    model = manifest.get("paper_model") or paper.model
    cells = {f"{c['dataset']}/{c['run']}": c for c in manifest["cells"]}
    found: dict[str, set[str]] = {}
    for name in manifest["tables"]:
        for line in table_lines(paper, paper.table(name), cells, root, model):
            if line.other_backbone:
                found.setdefault(f"{paper.table(name).caption.split(':')[0]}, row '{line.row}' "
                                 f"({paper.models.get(line.model, line.model)})", set()).add(line.other_backbone)
    return [f"{row}: the paper's figures are for its backbone, our run's debater is {', '.join(sorted(runs))}"
            for row, runs in found.items()]


def _table_markdown(paper: Paper, table: Table, lines: list[Line]) -> list[str]:
    out = [f"## {table.caption}", ""]
    if table.note:
        out += [table.note, ""]
    out += [INTERVALS_NOTE, ""]
    out += ["| paper row (backbone) | our run | column | metric | paper | ours [95% CI] | ours − paper | "
            "paper inside our CI | n |", "|---|---|---|---|---|---|---|---|---|"]
    for line in lines:
        digits = _digits(table, line.metric, line.run, line.column)
        value, ci = _ours(table, line)
        paper_text = _num(line.paper, digits) + (
            f" ({_num(line.paper_ci[0], digits)}, {_num(line.paper_ci[1], digits)})" if line.paper_ci else "")
        if line.ours is None or value is None:
            ours = f"not run ({line.status})" if line.ours is None else "n/a"
            diff = inside = "n/a"
        elif line.partial:
            ours = (f"partial: {value / line.paper_n:.2f} per claim over {line.ours.n} of {line.paper_n} claims "
                    "(not scaled)")
            diff = inside = "n/a"
        else:
            ours = _num(value, digits) + (f" [{_num(ci[0], digits)}, {_num(ci[1], digits)}]" if ci else "")
            diff = _num(value - line.paper, digits) if line.paper is not None else "n/a"
            inside = _inside(line, ci)
        if line.other_backbone:
            inside = "n/a (another backbone)"
        n = str(line.ours.n) if line.ours else "0"
        if line.ours and line.ours.missing:
            n += f" ({line.ours.missing} not run, counted wrong)"
        other = (f"; **our run's debater is {line.other_backbone}, not this row's backbone**"
                 if line.other_backbone else "")
        out.append(f"| {line.row} ({paper.models.get(line.model, line.model)}{other}) | {line.run} | "
                   f"{paper.datasets[line.column].label} | {METRICS[line.metric].label} | {paper_text} | {ours} | "
                   f"{diff} | {inside} | {n} |")
    if table.excluded:
        out += ["", "Rows of the paper not run here: " + "; ".join(f"{e.row} ({e.why})" for e in table.excluded) + "."]
    return out


def _inside(line: Line, ci: tuple[float, float] | None) -> str:
    """Whether the paper's figure lies in our interval ("yes", "no", or "n/a" with why)."""
    if ci is None or line.paper is None or line.ours is None:
        return "n/a"
    if ci[0] == ci[1] and line.ours.interval == "bootstrap":
        return f"n/a (the bootstrap interval is one point at n = {line.ours.n})"
    return "yes" if ci[0] <= line.paper <= ci[1] else "no"


def _plot(table: Table, lines: list[Line], path: Path) -> Path | None:
    from factdebate.eval.report import plots

    if not any(line.ours is not None for line in lines):
        return None
    nan = float("nan")
    panels = []
    for metric in table.metrics:
        chosen = [line for line in lines if line.metric == metric]
        ours = [_ours(table, line) if not line.partial else (None, None) for line in chosen]
        panels.append((METRICS[metric].label, [line.label for line in chosen],
                       [v if v is not None else nan for v, _ in ours], [ci or (nan, nan) for _, ci in ours],
                       [line.paper if line.paper is not None else nan for line in chosen]))
    return plots.paper_vs_ours(panels, path, title=table.caption, ylabel="%" if table.scale == 100 else "value")


def _models(root: Path, cells: list[dict[str, Any]]) -> dict[str, str]:
    models: dict[str, str] = {}
    for cell in cells:
        run = _cell_json(root, cell, RUN) if cell["status"] == "done" else None
        provenance = (run or {}).get("provenance")
        found = provenance.get("models") if isinstance(provenance, dict) else None
        models.update(found if isinstance(found, dict) else {})
    return models


def _cell_json(root: Path, cell: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A cell's run.json or summary.json, read as a regular file inside the reproduction (core/runfiles.py)."""
    return read_run_json(root, f"{cell['folder']}/{name}", what=f"the {name} of an eval run")


def _cost_cells(cost: dict[str, Any]) -> tuple[str, str]:
    """What a run cost, for report.md's cost and time per run: means per claim, and its seconds."""
    def mean(name: str) -> float | None:
        value = (cost.get(name) or {}).get("mean")
        return value if isinstance(value, int | float) and value == value else None

    calls, prompt, completion, seconds = (mean(n) for n in ("llm_calls", "prompt_tokens", "completion_tokens",
                                                             "seconds"))
    if calls is None:
        return "n/a", "n/a"
    tokens = (prompt or 0) + (completion or 0)
    total = (cost.get("seconds") or {}).get("total")
    return (f"{calls:.1f}, {tokens:,.0f}, {seconds or 0:.1f}",
            f"{total:,.0f}" if isinstance(total, int | float) else "n/a")


def _runs_markdown(root: Path, cells: list[dict[str, Any]], paper: Paper) -> list[str]:
    out = ["## Runs", "", "| run | dataset | method | status | samples (paper's n) | unparsed | errored | "
           "replies re-asked/recovered/lost | per claim: model calls, tokens, seconds | seconds in all | folder |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    details: list[str] = []
    for cell in cells:
        summary = _cell_json(root, cell, SUMMARY_JSON)
        unparsed, replies, spent, seconds = "n/a", "n/a", "n/a", "n/a"
        if summary is not None:
            metrics = summary["metrics"]
            unparsed = str(len(metrics["unparsed"]))
            spent, seconds = _cost_cells(metrics.get("cost") or {})
            counts = metrics.get("replies")
            if counts is not None:  # summaries written before the counts have none
                replies = short_text(counts).removeprefix("replies re-asked/recovered/lost: ")
                if warning := lost_warning(counts):
                    details += [f"- **{cell['dataset']}/{cell['run']}**: warning: {warning}"]
            if warning := base_rate_warning(metrics):  # as the run's summary.md says it
                details += [f"- **{cell['dataset']}/{cell['run']}**: warning: {warning}"]
        out.append(f"| {cell['run']} | {cell['dataset']} | {cell['method']} | {cell['status']} | {cell['samples']} "
                   f"({cell['paper_n']}) | {unparsed} | {cell['errored']} | {replies} | {spent} | {seconds} | "
                   f"`{cell['folder']}` |")
        deviations = (_cell_json(root, cell, RUN) or {}).get("deviations", [])
        notes = [f"  - {n}" for n in cell["notes"]] + [f"  - your flag: {o}" for o in cell["overrides"]]
        # a paper's own setting that its method declares against the reference paper (the ACL draft's score)
        own = [d for d in deviations if d.get("key") in paper.own_settings]
        deviations = [d for d in deviations if d.get("key") not in paper.own_settings]
        notes += [f"  - differs from the paper: {Deviation.model_validate(d).line()}" for d in deviations]
        notes += [f"  - the paper's own setting, not a difference: {paper.own_settings[d['key']]} ({d['key']})"
                  for d in own]
        if cell["status"] == "done" and not deviations:
            notes.append("  - no deviation from the paper listed by the method")
        if notes:
            details += [f"- **{cell['dataset']}/{cell['run']}**", *notes]
    return [*out, "", "Per run: the draw, your flags that replaced a paper setting, and the deviations in force:",
            "", *details]


def build_report(root: Path, manifest: dict[str, Any]) -> list[Path]:
    """Write report.md and one plot per table into ``root``; returns the files written."""
    paper = get_paper(manifest["paper"])
    model = manifest.get("paper_model") or paper.model
    cells = {f"{c['dataset']}/{c['run']}": c for c in manifest["cells"]}
    models = _models(root, manifest["cells"])
    tiny = any(m.startswith(TINY) for m in models.values())
    md = [f"# Reproducing {paper.short}", "", f"*{paper.title}* (`{paper.seed_file}` in the seed papers)", ""]
    if tiny:  # said only where the embedded (or scripted) model ran: a served model's runs are not near chance
        md += [capable_note(models.values()), "", "**These runs used the embedded or scripted model**: their "
               "numbers show that the pipeline runs, not how well the method checks facts.", ""]
    md += [f"- our models by role: {', '.join(f'{r} `{m}`' for r, m in models.items()) or 'none ran'}",
           f"- the paper's figures shown: {paper.models.get(model, model)} (`--paper-model` picks another of: "
           f"{', '.join(paper.models)}); a baseline row the paper ran with one backbone shows that one",
           f"- samples: the paper's draw, seed {manifest['seed']}"
           + (f", first {manifest['limit']} of each (`--limit`)" if manifest.get("limit") else ""),
           f"- setup: {paper.note}", ""]
    if mismatched := backbone_mismatches(root, manifest):
        md += ["**Warning: figures for another backbone.** These rows of the paper ran on another model than our "
               "runs did, so the two numbers are not the same experiment (no interval verdict is given for them; "
               "`--paper-model` picks whose figures are shown, `--llm` the model that runs):", "",
               *[f"- {line}" for line in mismatched], ""]
    written: list[Path] = []
    for name in manifest["tables"]:
        table = paper.table(name)
        every = table_lines(paper, table, cells, root, model)
        # --rows/--datasets narrowed the run: its cells only, and a count of the rest (not a row each)
        lines = [line for line in every if line.status != "not selected"]
        left = len({(line.run, line.column) for line in every}) - len({(line.run, line.column) for line in lines})
        if not lines:
            md += [f"## {table.caption}", "", f"None of this table's {left} cells was selected (--rows/--datasets).",
                   ""]
            continue
        md += [*_table_markdown(paper, table, lines), ""]
        if left:
            md += [f"{left} cell(s) of this table were not selected (--rows/--datasets): a run without those "
                   "options lists every cell.", ""]
        plot = _plot(table, lines, root / f"{table.name}.png")
        if plot is not None:
            written.append(plot)
            md += [f"![{table.name}]({plot.name})", ""]
        md += ["Citations:", ""] + [
            f"- {line.cite}: {_num(line.paper, _digits(table, line.metric, line.run, line.column))}"
            for line in lines if line.cite and line.paper is not None] + [""]
    md += _runs_markdown(root, manifest["cells"], paper)
    skipped = [c for c in manifest["cells"] if c["status"] in ("skipped", "failed")]
    if skipped:
        md += ["", "## Not run", ""] + [f"- {c['dataset']}/{c['run']} ({c['status']}): {c['reason']}" for c in skipped]
    if manifest.get("rerun"):
        md += ["", "## Rerun of an earlier reproduction", "", *manifest["rerun"]]
    path = root / REPORT
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return [path, *written]
