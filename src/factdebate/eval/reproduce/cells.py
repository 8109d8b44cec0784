"""What a reproduction runs: one eval run (a "cell") per run and dataset the chosen tables need, in
``OUT/<dataset>/<run>/``, so it resumes like ``eval`` and tables share it.

A column with the authors' own sample set runs that file whole, fetched and checked (hub/github.py); where it
cannot be had, the paper's draw runs instead, declared; a failed checksum skips the cell. A cell whose dataset
cannot be had is skipped with how to supply it. Samples are drawn as the paper drew them, in a seeded order,
so ``--limit N`` takes the first N."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factdebate.core.deviations import Deviation
from factdebate.eval.datasets import Dataset, Sample, select
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.reproduce.spec import DatasetSpec, Paper, RunSpec, Table
from factdebate.eval.runner import Plan, check_resume, make_plan
from factdebate.hub.errors import ChecksumMismatch, HubError, NotDownloaded
from factdebate.util.errors import FactDebateError, InputError

RUN_DIR = "{run_dir}"
SAMPLE_SET = "sample_set"  # the deviation of a run that could not have the authors' own sample set


@dataclass
class Request:
    """What the user asked for."""

    paper: Paper
    tables: list[Table]
    output: Path
    limit: int | None = None
    seed: int = 0
    data: dict[str, str] = field(default_factory=dict)  # dataset key (or bare name) -> FORMAT:PATH
    options: dict[str, Any] = field(default_factory=dict)  # the user's flags, over the paper's settings
    config: Path | None = None
    rows: set[str] | None = None  # only these runs
    paper_model: str | None = None
    datasets: set[str] | None = None  # only these datasets (the tables' column keys)


@dataclass
class Cell:
    run: RunSpec
    dataset: DatasetSpec
    folder: Path
    plan: Plan | None = None
    status: str = "planned"  # planned, skipped, done, failed
    reason: str = ""  # skipped or failed: why, and what to do about it
    source: str = ""  # the dataset spec it loads (bare name, or --data's FORMAT:PATH)
    loaded: int | None = None  # samples the dataset holds; None: it could not be loaded
    notes: list[str] = field(default_factory=list)  # where the draw differs from the paper's
    overrides: list[str] = field(default_factory=list)  # the user's flags that replaced a paper setting
    errored: int = 0
    origin: dict[str, Any] = field(default_factory=dict)  # the authors' sample set it runs: URL, commit, sha256

    @property
    def key(self) -> str:
        return f"{self.dataset.key}/{self.run.name}"

    def record(self, root: Path) -> dict[str, Any]:
        """The cell as reproduce.json lists it."""
        return {"run": self.run.name, "method": self.run.method, "dataset": self.dataset.key,
                "folder": self.folder.relative_to(root).as_posix(), "status": self.status, "reason": self.reason,
                "spec": self.plan.dataset.spec if self.plan else None,
                "samples": len(self.plan.samples) if self.plan else 0, "paper_n": self.dataset.n,
                "notes": self.notes, "overrides": self.overrides, "errored": self.errored,
                **({"origin": self.origin} if self.origin else {})}


def parse_data(values: list[str]) -> dict[str, str]:
    """``--data KEY=FORMAT:PATH`` (repeatable) into {KEY: FORMAT:PATH}."""
    out: dict[str, str] = {}
    for value in values:
        key, sep, spec = value.partition("=")
        if not sep or not key.strip() or not spec.strip():
            raise InputError(f"--data {value!r}: expected DATASET=FORMAT:PATH, e.g. --data fever=fever:dev.jsonl")
        out[key.strip()] = spec.strip()
    return out


def pairs(request: Request) -> list[tuple[RunSpec, DatasetSpec]]:
    """(run, dataset) of every cell the tables need, in table order, each once."""
    seen: dict[tuple[str, str], tuple[RunSpec, DatasetSpec]] = {}
    for table in request.tables:
        for row in table.rows:
            if request.rows is not None and row.run not in request.rows:
                continue
            for column in table.columns:
                if request.datasets is not None and column not in request.datasets:
                    continue
                seen.setdefault((row.run, column), (request.paper.runs[row.run], request.paper.datasets[column]))
    return list(seen.values())


def draw(dataset: Dataset, spec: DatasetSpec, seed: int, limit: int | None) -> tuple[list[Sample], list[str]]:
    """The paper's draw of ``spec.n`` samples in a seeded (or the file's) order, then the first ``limit``; notes."""
    if spec.unit != dataset.unit:
        raise InputError(f"the paper checks {spec.unit}s here, and {dataset.spec} holds {dataset.unit}s: "
                         f"pass --data {spec.name}={spec.supply}")
    samples = dataset.samples
    if spec.group is not None:
        samples = [s for s in samples if s.meta.get("group") == spec.group]
        if not samples:
            raise InputError(f"{dataset.spec} has no sample of the group '{spec.group}' (the paper's column "
                             f"{spec.label}): pass --data {spec.name}={spec.supply}")
    if spec.labels:
        samples = [s for s in samples if s.gold in spec.labels]
    order = select(samples, None, seed, shuffle=spec.order == "shuffled")
    notes: list[str] = []
    if spec.draw == "balanced":
        left = dict(spec.quota)
        chosen = []
        for sample in order:
            if left.get(sample.gold, 0) > 0:
                chosen.append(sample)
                left[sample.gold] -= 1
        notes += [f"only {spec.quota[g] - k} of the paper's {spec.quota[g]} {g} samples" for g, k in left.items() if k]
    else:
        chosen = order if spec.draw == "all" else order[:spec.n]
    if len(chosen) < spec.n and spec.draw != "balanced":
        notes.append(f"{len(chosen)} samples available, the paper used {spec.n}")
    if not chosen:
        raise InputError(f"{dataset.spec} has no sample the paper's draw can take "
                         f"(labels {', '.join(spec.quota or spec.labels)})")
    if limit is not None and limit < len(chosen):
        notes.append(f"--limit {limit}: {limit} of the paper's {spec.n} samples")
        chosen = chosen[:limit]
    return chosen, notes


def cell_options(request: Request, run: RunSpec, dataset: DatasetSpec, folder: Path
                 ) -> tuple[dict[str, Any], list[str]]:
    """The run's flat options (the paper's, the user's flags over them), and the paper settings replaced."""
    paper: dict[str, Any] = {"method": run.method}
    for name, value in {**dataset.options, **run.options}.items():
        paper[name] = value.replace(RUN_DIR, str(folder)) if isinstance(value, str) else value
    overrides = [f"{name}: {paper[name]!r} (paper) -> {value!r}" for name, value in request.options.items()
                 if name in paper and paper[name] != value]
    return {**paper, **request.options}, overrides


class _Datasets:
    """Each dataset loaded once, or the reason it cannot be."""

    def __init__(self) -> None:
        self.cache: dict[str, Dataset | str] = {}
        self.fetched: dict[str, Dataset | HubError] = {}

    def authors(self, name: str) -> Dataset | HubError:
        """An authors' sample set by its registry name, or why it could not be had (kept apart: a file that
        fails its checksum is refused, one out of reach is replaced by the paper's draw)."""
        if name not in self.fetched:
            try:
                self.fetched[name] = self.cache[name] = load_dataset(name)
            except HubError as exc:
                self.fetched[name] = exc
        return self.fetched[name]

    def get(self, spec: str) -> Dataset | str:
        if spec not in self.cache:
            try:
                self.cache[spec] = load_dataset(spec)
            except FactDebateError as exc:  # the first line, without eval's flags or every built-in name
                reason = str(exc).splitlines()[0].split("; built in:")[0].split(": --dataset")[0]
                self.cache[spec] = f"cannot load '{spec}': {reason}"
        return self.cache[spec]


@dataclass
class _Source:
    """What a cell loads and how it draws from it."""

    spec: DatasetSpec
    name: str
    notes: list[str] = field(default_factory=list)
    deviations: list[Deviation] = field(default_factory=list)
    origin: dict[str, Any] = field(default_factory=dict)
    refused: str = ""  # the authors' file failed its checksum: the cell is skipped with this reason
    missing: str = ""  # why the authors' file could not be had (the draw from ``name`` replaces it)


def sample_source(spec: DatasetSpec, given: str | None, datasets: _Datasets) -> _Source:
    """The authors' sample set where the column has one (unless ``--data``), else the paper's draw, declared."""
    if given or spec.authors is None:
        return _Source(spec, given or spec.name)
    got = datasets.authors(spec.authors)
    if isinstance(got, Dataset):
        origin = got.origin
        whole = spec.model_copy(update={"name": spec.authors, "draw": "all", "order": "file",
                                        "split": origin.get("split") or spec.split})
        note = (f"the authors' own sample set, every record in the file's order: {origin.get('url')} "
                f"(sha256 {str(origin.get('sha256'))[:16]}…, checked against the {origin.get('checked_against')})")
        return _Source(whole, spec.authors, [note], origin=origin)
    if isinstance(got, ChecksumMismatch):
        return _Source(spec, spec.authors, refused=f"the authors' sample set was refused: {got}")
    if isinstance(got, NotDownloaded):  # a dry run: planned without its file, never replaced by another draw
        reason = str(got).split(". To use a copy of your own")[0]
        return _Source(spec, spec.authors, refused=f"{reason}; `factdebate datasets fetch {spec.authors}` "
                                                   "fetches it")
    from factdebate.hub.registry import datasets as registry

    entry = registry()[spec.authors]
    reason = str(got).split(". To use a copy of your own")[0].removeprefix(f"dataset '{spec.authors}': ")
    deviation = Deviation(
        key=SAMPLE_SET,
        paper=f"the authors' own {spec.n} claims of {spec.label} ({entry.files[0].path} of GitHub "
              f"{entry.repo}@{entry.revision[:7]})",
        here=f"a {spec.draw} draw of {spec.n} claims from '{spec.name}' ({spec.split}), since the authors' file could "
             f"not be had: {reason}",
        restore=f"factdebate datasets fetch {spec.authors} while online (later runs read the verified copy offline)")
    return _Source(spec, spec.name, [f"differs from the paper: {deviation.here}"], [deviation], missing=reason)


def plan_cells(request: Request) -> list[Cell]:
    """Every cell, planned or skipped with its reason; a cell folder holding a different run is an error."""
    from factdebate.settings.load import settings_from

    datasets = _Datasets()
    cells = []
    root = request.output.resolve()
    for run, spec in pairs(request):
        chosen = sample_source(spec, request.data.get(spec.key) or request.data.get(spec.name), datasets)
        cell = Cell(run, chosen.spec, root / spec.key / run.name, origin=chosen.origin)
        cells.append(cell)
        source = cell.source = chosen.name
        if chosen.refused:
            cell.status, cell.reason = "skipped", f"{chosen.refused} — supply it: --data {spec.name}={spec.supply}"
            continue
        loaded = datasets.get(source)
        if isinstance(loaded, str):
            authors = f" (nor the authors' sample set {spec.authors}: {chosen.missing})" if chosen.missing else ""
            cell.status, cell.reason = "skipped", f"{loaded}{authors} — supply it: --data {spec.name}={spec.supply}"
            continue
        spec = chosen.spec
        cell.loaded = len(loaded.samples)
        options, cell.overrides = cell_options(request, run, spec, cell.folder)
        settings = settings_from(options, request.config)  # a bad flag is a usage error for the whole command
        try:
            samples, notes = draw(loaded, spec, request.seed, request.limit)
            cell.notes = [*chosen.notes, *notes]
            view = dataclasses.replace(loaded, labels=tuple(spec.labels)) if spec.labels else loaded
            cell.plan = make_plan(settings, view, cell.folder, limit=request.limit, seed=request.seed,
                                  name=cell.key, options=options, samples=samples, split=spec.split,
                                  order=spec.order)
        except InputError as exc:
            cell.status, cell.reason = "skipped", str(exc)
            continue
        cell.plan.deviations = list(chosen.deviations)
        check_resume(cell.plan)
    return cells
