"""The papers' experiments as typed data from ``papers.toml`` (datasets, runs, tables, reported numbers),
checked against itself on loading, so a typo is an error here rather than a wrong comparison later."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.util.errors import ConfigError, InputError

DATA = Path(__file__).with_name("papers.toml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DatasetSpec(_Strict):
    """A column of the paper's tables: what the paper evaluated on, and how to get it here."""

    key: str
    name: str = Field(description="Bare dataset name for load_dataset (--data KEY=FORMAT:PATH replaces it).")
    label: str = Field(description="The column's header in the paper.")
    split: str
    n: int = Field(ge=1, description="The paper's sample size.")
    draw: Literal["random", "balanced", "all"] = "random"
    order: Literal["shuffled", "file"] = Field(default="shuffled", description="file: the samples in the file's "
                                               "order (a paper that ran them in sequence), so --limit takes "
                                               "the first ones.")
    quota: dict[str, int] = Field(default_factory=dict, description="balanced: samples per gold label.")
    group: str | None = Field(default=None, description="Only samples of this group (HoVer's hop count).")
    labels: list[str] = Field(default_factory=list, description="Only samples with these gold labels.")
    unit: Literal["claim", "response"] = "claim"
    supply: str = Field(description="How to pass the dataset: FORMAT:PATH and what the file is.")
    authors: str | None = Field(default=None, description="The registry name (hub/datasets.toml) of the paper "
                                "authors' own sample set: when it can be had, every record of it is run in the "
                                "file's order in place of the draw from `name`; else that draw runs, declared.")
    options: dict[str, Any] = Field(default_factory=dict, description="Options of every run on this dataset.")
    note: str = ""


class RunSpec(_Strict):
    """A row of ours: one method with the options that make it the paper's row."""

    name: str
    method: str
    options: dict[str, Any] = Field(default_factory=dict)
    note: str = ""


class PaperFigures(_Strict):
    """One row of a table for one backbone: its label, values by column and metric, and the paper's intervals."""

    label: str
    values: dict[str, dict[str, float]]
    ci: dict[str, tuple[float, float]] = Field(default_factory=dict)


class TableRow(_Strict):
    run: str
    paper: dict[str, PaperFigures]


class Excluded(_Strict):
    row: str
    why: str


class Table(_Strict):
    name: str
    caption: str
    columns: list[str]
    metrics: list[str]
    scale: float = 1.0
    digits: int | None = Field(default=None, ge=0, le=4, description="Decimals the paper prints its figures with "
                               "(default: 1 for percentages, 2 for fractions; counts none).")
    figure_digits: dict[str, int] = Field(default_factory=dict, description="Figures the paper prints with other "
                                          "decimals than the table's, by 'run/column/metric'.")
    rows: list[TableRow]
    excluded: list[Excluded] = Field(default_factory=list)
    note: str = ""


class Paper(_Strict):
    key: str
    method: str = Field(description="The paper's own method (its other runs are baselines and ablations).")
    title: str
    short: str
    seed_file: str
    model: str = Field(description="The backbone whose figures the report shows by default.")
    models: dict[str, str]
    main: list[str] = Field(description="The tables run when --table is not given.")
    note: str = ""
    own_settings: dict[str, str] = Field(default_factory=dict, description="Deviation keys a method declares "
                                         "against its reference paper that are this paper's own setting (the ACL "
                                         "draft's consistency score), each with what this paper does.")
    datasets: dict[str, DatasetSpec]
    runs: dict[str, RunSpec]
    tables: list[Table]

    @field_validator("datasets", "runs", mode="before")
    @classmethod
    def _keys(cls, value: Any, info: Any) -> Any:
        field = "key" if info.field_name == "datasets" else "name"
        return {k: {field: k, **v} for k, v in value.items()} if isinstance(value, dict) else value

    def table(self, name: str) -> Table:
        wanted = _table_name(name)
        for table in self.tables:
            if table.name == wanted:
                return table
        # each table with its caption, so one asking for the paper's Table II sees where EM is
        listed = "; ".join(f"{t.name} ({t.caption})" for t in self.tables)
        raise InputError(f"{self.key} has no table '{name}' that this reproduces; tables: {listed}")

    def figures(self, row: TableRow, model: str) -> tuple[str, PaperFigures] | None:
        """(model key, figures) of the row for ``model``, or its only backbone; None when it has none for it."""
        if model in row.paper:
            return model, row.paper[model]
        if len(row.paper) == 1:
            return next(iter(row.paper.items()))
        return None

    def cite(self, table: Table, figures: PaperFigures, column: str, metric: str) -> str:
        from factdebate.eval.reproduce.measure import METRICS

        return (f"{self.short}, {table.caption.split(':')[0]}, row '{figures.label}', "
                f"column '{self.datasets[column].label}', {METRICS[metric].label}")


def _normalise_values(raw: dict[str, Any], metrics: list[str]) -> tuple[dict[str, dict[str, float]],
                                                                        dict[str, tuple[float, float]]]:
    """A column's value is a number (the table's one metric) or {metric: number, ci: [lo, hi]}."""
    values: dict[str, dict[str, float]] = {}
    cis: dict[str, tuple[float, float]] = {}
    for column, value in raw.items():
        if isinstance(value, dict):
            if "ci" in value:
                low, high = value["ci"]
                cis[column] = (float(low), float(high))
            values[column] = {m: float(v) for m, v in value.items() if m != "ci"}
        else:
            values[column] = {metrics[0]: float(value)}
    return values, cis


def _parse(key: str, raw: dict[str, Any]) -> Paper:
    tables = []
    for table in raw.get("tables", []):
        rows = []
        for row in table.get("rows", []):
            paper = {}
            for model, figures in row.get("paper", {}).items():
                values, cis = _normalise_values(figures.get("values", {}), table["metrics"])
                paper[model] = {"label": figures["label"], "values": values, "ci": cis}
            rows.append({**row, "paper": paper})
        tables.append({**table, "rows": rows})
    return Paper.model_validate({**raw, "key": key, "tables": tables})


def _check(paper: Paper) -> None:
    from factdebate.eval.reproduce.measure import METRICS
    from factdebate.hub.registry import datasets as registry_datasets
    from factdebate.methods.base import Method
    from factdebate.settings.options import all_options

    problems: list[str] = []
    fetchable = registry_datasets()
    options, methods = all_options(), Method.registered()
    for where, given in [*((f"run {r.name}", r.options) for r in paper.runs.values()),
                         *((f"dataset {d.key}", d.options) for d in paper.datasets.values())]:
        problems += [f"{where}: unknown option '{o}'" for o in given if o not in options]
    problems += [f"run {r.name}: unknown method '{r.method}'" for r in paper.runs.values() if r.method not in methods]
    problems += [f"dataset {d.key}: draw balanced needs a quota" for d in paper.datasets.values()
                 if d.draw == "balanced" and not d.quota]
    problems += [f"dataset {d.key}: authors' sample '{d.authors}' is not in the dataset registry"
                 for d in paper.datasets.values() if d.authors is not None and d.authors not in fetchable]
    problems += [f"main table '{t}' does not exist" for t in paper.main if t not in {x.name for x in paper.tables}]
    if paper.model not in paper.models:
        problems.append(f"default model '{paper.model}' is not among the models")
    for table in paper.tables:
        where = f"{paper.key} {table.name}"
        problems += [f"{where}: unknown column '{c}'" for c in table.columns if c not in paper.datasets]
        problems += [f"{where}: unknown metric '{m}'" for m in table.metrics if m not in METRICS]
        for row in table.rows:
            if row.run not in paper.runs:
                problems.append(f"{where}: unknown run '{row.run}'")
            for model, figures in row.paper.items():
                if model not in paper.models:
                    problems.append(f"{where} {row.run}: unknown model '{model}'")
                for column, values in figures.values.items():
                    if column not in table.columns:
                        problems.append(f"{where} {row.run}: value for '{column}', not a column")
                    problems += [f"{where} {row.run} {column}: '{m}' is not a metric of the table"
                                 for m in values if m not in table.metrics]
    if problems:
        raise ConfigError(f"{DATA.name}: " + "; ".join(problems))


@cache
def papers() -> dict[str, Paper]:
    """Every paper of the data file, checked."""
    try:
        raw = tomllib.loads(DATA.read_text(encoding="utf-8"))
        loaded = {key: _parse(key, value) for key, value in raw.items()}
    except (OSError, tomllib.TOMLDecodeError, ValidationError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"cannot read the papers' data file {DATA}: {exc}") from exc
    for paper in loaded.values():
        _check(paper)
    return loaded


_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}


def _table_name(name: str) -> str:
    """``table3`` as given, or as the paper prints it: ``3``, ``III``, ``Table III``, ``table-3``."""
    bare = re.sub(r"^table[-_ ]?", "", name.strip().lower())
    number = _ROMAN.get(bare, bare)
    return f"table{number}" if str(number).isdigit() else name


def _spelling(key: str) -> str:
    return re.sub(r"[-_ ]", "", key.lower())


def get_paper(key: str) -> Paper:
    """A paper by its key, or by the method's own spelling (``tool-mad``, ``Tool-MAD-draft``)."""
    known = papers()
    if key in known:
        return known[key]
    same = [paper for name, paper in known.items() if _spelling(name) == _spelling(key)]
    if len(same) == 1:
        return same[0]
    raise InputError(f"unknown paper '{key}'; papers: {', '.join(known)}")
