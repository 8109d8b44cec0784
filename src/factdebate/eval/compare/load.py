"""Run directories read back for ``factdebate compare``, and the check that they hold the same samples.

Runs are the same draw when they list the same sample ids and ``samples_sha256``; anything else is refused
unless ``--intersection`` asks for the shared samples. Every run is measured over one denominator."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factdebate.core.runfiles import iter_run_lines, json_line
from factdebate.eval.report.metrics import Outcome, outcome_from_record
from factdebate.eval.report.run_folder import read_run_provenance
from factdebate.eval.report.side_by_side import RunData, load_run
from factdebate.eval.report.summary import RESULTS
from factdebate.util.errors import InputError


@dataclass
class LoadedRun:
    name: str
    directory: Path
    data: RunData
    ids: list[str]  # the samples the run was asked to evaluate, in its draw's order
    draw_sha256: str | None  # None: a run written before run.json kept it
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # id -> line of its record in results.jsonl (1-based)

    @property
    def summary(self) -> dict[str, Any]:
        return self.data.summary


def record_lines(directory: Path) -> dict[str, int]:
    """The line of each id's last record (the one that counts) in the run's results.jsonl."""
    lines: dict[str, int] = {}
    for number, line in enumerate(iter_run_lines(directory, RESULTS), start=1):  # streamed, bounded
        try:
            row = json_line(line, directory / RESULTS, number) if line.strip() else None
        except ValueError:  # a torn line; one nested past any record is refused
            continue
        if isinstance(row, dict) and "id" in row:
            lines[str(row["id"])] = number
    return lines


def _draw_sha256(directory: Path) -> str | None:
    provenance = read_run_provenance(directory)
    dataset = provenance.get("dataset") if isinstance(provenance, dict) else None
    value = dataset.get("samples_sha256") if isinstance(dataset, dict) else None
    return str(value) if value else None


def load(directory: Path) -> LoadedRun:
    if not directory.is_dir():
        raise InputError(f"{directory} is not a run directory (one with summary.json, written by `factdebate eval`)")
    data = load_run(directory)
    ids = [str(i) for i in data.summary.get("ids") or [r["id"] for r in data.records]]
    run = LoadedRun(data.name, directory, data, ids, _draw_sha256(directory))
    run.outcomes = {o.id: o for o in (outcome_from_record(r) for r in data.records)}
    run.lines = record_lines(directory)
    return run


def _distinct(directories: list[Path]) -> None:
    """One folder named twice (through a link, or as ``a`` and ``./a/``) would be compared with itself."""
    seen: dict[Path, Path] = {}
    for directory in directories:
        real = directory.resolve()
        if real in seen:
            raise InputError(f"{seen[real]} and {directory} are the same run directory: give each run once")
        seen[real] = directory


def load_all(directories: list[Path]) -> list[LoadedRun]:
    if len(directories) < 2:
        raise InputError("give at least two run directories to compare")
    _distinct(directories)
    runs = [load(d) for d in directories]
    names = [r.name for r in runs]
    if len(set(names)) < len(names):  # the same method twice (two datasets, two models): name them by folder
        for run in runs:
            run.name = os.path.normpath(run.directory).replace(os.sep, "/")
    if len({r.name for r in runs}) < len(runs):
        raise InputError("the same run directory is given twice")
    return runs


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "unrecorded"


def common_samples(runs: list[LoadedRun], *, intersection: bool) -> tuple[list[str], str | None]:
    """The ids to compare on, in the first run's order, and a sentence when that is not every run's draw."""
    id_sets = [set(r.ids) for r in runs]
    shas = {r.draw_sha256 for r in runs}
    same = all(s == id_sets[0] for s in id_sets) and len(shas - {None}) <= 1
    note = None
    if not same:
        if not intersection:
            described = "; ".join(f"{r.name}: {len(r.ids)} samples, sha256 {_short(r.draw_sha256)}" for r in runs)
            shared = len(set.intersection(*id_sets))
            raise InputError(f"these runs are not on the same samples ({described}); compare them on the "
                             f"{shared} samples they share with --intersection, or run them on one draw")
        common = set.intersection(*id_sets)
        if not common:
            raise InputError("these runs share no sample: there is nothing to compare")
        ids = [i for i in runs[0].ids if i in common]
        note = (f"compared on the intersection: the {len(ids)} samples all the runs share ("
                + ", ".join(f"{r.name} drew {len(r.ids)}" for r in runs) + ")")
    else:
        ids = list(runs[0].ids)
        if None in shas:
            unknown = [r.name for r in runs if r.draw_sha256 is None]
            note = f"same sample ids; the draw's sha256 is not recorded by {', '.join(unknown)}"
    _check_gold(runs, ids)
    return ids, note


@dataclass(frozen=True)
class Denominator:
    """The samples every run is measured over, and what a sample without a run's record counts as."""

    ids: list[str]
    missing: str  # "counted wrong" or "left out"
    sentence: str
    dropped: list[str]  # draw samples no run (or, with --intersection, some run) holds a record for


def denominator(runs: list[LoadedRun], ids: list[str], *, intersection: bool) -> Denominator:
    """One denominator for every run: the draw, a sample a run has no record for counting wrong (MISSING), or
    with ``intersection`` only the samples every run holds."""
    held = [i for i in ids if any(i in r.outcomes for r in runs)]
    if intersection:
        kept = [i for i in held if all(i in r.outcomes for r in runs)]
        if not kept:
            raise InputError("no sample has a record in every run: there is nothing to compare")
        dropped = [i for i in ids if i not in kept]
        sentence = (f"denominator: the {len(kept)} samples every run holds a record for (--intersection)"
                    + (f"; {len(dropped)} left out of every run: {', '.join(dropped)}" if dropped else ""))
        return Denominator(kept, "left out", sentence, dropped)
    unheld = [i for i in ids if i not in held]
    lacking = {r.name: sum(1 for i in held if i not in r.outcomes) for r in runs}
    sentence = (f"denominator: the same {len(ids)} samples in every run; a sample a run holds no record for "
                "counts as wrong (MISSING)"
                + (" — " + ", ".join(f"{name} {k}" for name, k in lacking.items() if k) if any(lacking.values())
                   # "none is missing" only when no sample is: not beside the samples no run holds
                   else "" if unheld else ", and none is missing")
                + (f"; {len(unheld)} sample(s) no run holds a record for count wrong in every run (gold label "
                   "unknown: in no class of precision, recall or F1): " + ", ".join(unheld) if unheld else ""))
    if not held:
        raise InputError("no run holds a record of any sample: there is nothing to compare")
    return Denominator(list(ids), "counted wrong", sentence, [])


def _check_gold(runs: list[LoadedRun], ids: list[str]) -> None:
    """Runs that agree on ids but not on a sample's gold label did not read the same data."""
    for sample_id in ids:
        golds = {r.outcomes[sample_id].gold for r in runs if sample_id in r.outcomes}
        if len(golds) > 1:
            raise InputError(f"sample {sample_id} has different gold labels in these runs ({', '.join(sorted(golds))}):"
                             " they did not read the same data")
