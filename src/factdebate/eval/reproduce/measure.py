"""Our side of each comparison: a paper's metric measured on one run folder, with a 95% interval, computed
the way the paper defines it.

A proportion gets Wilson's interval, the others a seeded bootstrap; unparsed, errored and missing samples are
wrong. Tool calls are the paper's totals: our mean per claim times the paper's number of claims."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from factdebate.eval.report.intervals import wilson
from factdebate.eval.report.metrics import Outcome, macro_f1, outcome_from_record, per_class
from factdebate.eval.report.paper_metrics import positive_class
from factdebate.eval.report.run_folder import read_summary
from factdebate.eval.report.summary import RESULTS
from factdebate.eval.response_eval import claim_outcomes
from factdebate.run.results_file import latest_records

RESAMPLES = 1000


@dataclass(frozen=True)
class Context:
    labels: tuple[str, ...]
    paper_n: int


Compute = Callable[[list[Outcome], Context], float | None]
Counts = Callable[[list[Outcome]], tuple[int, int] | None]  # a proportion's (successes, trials)


@dataclass(frozen=True)
class Metric:
    label: str
    level: str  # "sample": one outcome per sample; "claim": one per gold-labelled claim of a response
    compute: Compute
    counts: Counts | None = None  # a proportion: its interval is Wilson's over these counts


@dataclass(frozen=True)
class Measured:
    value: float | None
    ci: tuple[float, float] | None
    n: int
    interval: str = ""  # "Wilson" or "bootstrap"
    missing: int = 0  # samples of the draw without a record, counted wrong


def _accuracy(outcomes: list[Outcome], _: Context) -> float | None:
    return sum(o.correct for o in outcomes) / len(outcomes) if outcomes else None


def _correct(outcomes: list[Outcome]) -> tuple[int, int] | None:
    return (sum(o.correct for o in outcomes), len(outcomes)) if outcomes else None


def _positive_counts(field: str) -> Counts:
    def counts(outcomes: list[Outcome]) -> tuple[int, int] | None:
        row = positive_class(outcomes)
        if row is None:
            return None
        trials = row["tp"] + (row["fp"] if field == "precision" else row["fn"])
        return (row["tp"], trials) if trials else None

    return counts


def _class_f1(label: str) -> Compute:
    def compute(outcomes: list[Outcome], ctx: Context) -> float | None:
        return per_class(outcomes, ctx.labels)[label]["f1"] if outcomes and label in ctx.labels else None

    return compute


def _positive(field: str) -> Compute:
    """Precision, recall or F1 of the factual class, as DPD reports them (eval/report/paper_metrics.py)."""

    def compute(outcomes: list[Outcome], _: Context) -> float | None:
        row = positive_class(outcomes)
        return None if row is None else row[field]

    return compute


def _tool_calls_total(outcomes: list[Outcome], ctx: Context) -> float | None:
    # Figure 3 counts the tool calls of answered claims; an errored one's spend is the cost's, not the figure's.
    calls = [float((o.usage or {}).get("tool_calls", 0) or 0) for o in outcomes
             if o.usage is not None and o.status != "error"]
    return sum(calls) / len(calls) * ctx.paper_n if calls else None


METRICS: dict[str, Metric] = {
    "accuracy": Metric("accuracy", "sample", _accuracy, _correct),
    "macro_f1": Metric("macro-F1", "sample", lambda outcomes, ctx: macro_f1(outcomes, ctx.labels)),
    "f1_true": Metric("True F1", "sample", _class_f1("SUPPORTS")),
    "f1_false": Metric("False F1", "sample", _class_f1("REFUTES")),
    "precision": Metric("precision (factual class)", "sample", _positive("precision"), _positive_counts("precision")),
    "recall": Metric("recall (factual class)", "sample", _positive("recall"), _positive_counts("recall")),
    "f1": Metric("F1 (factual class)", "sample", _positive("f1")),
    "claim_accuracy": Metric("claim-level accuracy", "claim", _accuracy, _correct),
    "claim_precision": Metric("claim-level precision", "claim", _positive("precision"), _positive_counts("precision")),
    "claim_recall": Metric("claim-level recall", "claim", _positive("recall"), _positive_counts("recall")),
    "claim_f1": Metric("claim-level F1", "claim", _positive("f1")),
    "response_accuracy": Metric("response-level accuracy", "sample", _accuracy, _correct),
    "response_precision": Metric("response-level precision", "sample", _positive("precision"),
                                 _positive_counts("precision")),
    "response_recall": Metric("response-level recall", "sample", _positive("recall"), _positive_counts("recall")),
    "response_f1": Metric("response-level F1", "sample", _positive("f1")),
    "tool_calls_total": Metric("tool calls (total over the paper's claims)", "sample", _tool_calls_total),
}


def bootstrap(outcomes: list[Outcome], compute: Compute, ctx: Context, seed: int) -> tuple[float, float] | None:
    """95% percentile interval of ``compute`` over resampled outcomes; None when it cannot be computed."""
    if not outcomes:
        return None
    index = np.random.default_rng(seed).integers(0, len(outcomes), size=(RESAMPLES, len(outcomes)))
    values = [v for row in index if (v := compute([outcomes[i] for i in row], ctx)) is not None]
    if not values:
        return None
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def interval(metric: Metric, outcomes: list[Outcome], ctx: Context, seed: int
             ) -> tuple[tuple[float, float] | None, str]:
    """The metric's 95% interval and its kind: Wilson's for a proportion, else the bootstrap."""
    if metric.counts is None:
        found = bootstrap(outcomes, metric.compute, ctx, seed)
        return found, "bootstrap" if found else ""
    counts = metric.counts(outcomes)
    if counts is None:
        return None, ""
    low, high = wilson(*counts)
    return ((low, high), "Wilson") if math.isfinite(low) else (None, "")


def measure_run(folder: Path, metrics: list[str], paper_n: int) -> dict[str, Measured] | None:
    """The metrics over a run folder's summarised samples; None when the run has no summary yet."""
    summary = read_summary(folder)  # checked: a crafted labels or ids is one line, not a crash
    if summary is None:
        return None
    records = latest_records(folder / RESULTS)  # streamed and bounded line by line (run/results_file.py)
    ids = [str(i) for i in summary.get("ids", [])]
    chosen = [records[i] for i in ids if i in records]
    # A sample of the draw with no record yet counts wrong: the run is measured over its whole draw. Without
    # a record its gold label is unknown; MISSING is never right whatever the gold, and "?" is in no class.
    missing = [Outcome(i, "?", None, "missing") for i in ids if i not in records]
    levels = {"sample": [outcome_from_record(r) for r in chosen] + missing, "claim": claim_outcomes(chosen)}
    ctx = Context(tuple(summary["labels"]), paper_n)
    seed = int(summary.get("seed", 0))
    out: dict[str, Measured] = {}
    for name in metrics:
        metric = METRICS[name]
        outcomes = levels[metric.level]
        ci, kind = interval(metric, outcomes, ctx, seed)
        out[name] = Measured(metric.compute(outcomes, ctx), ci, len(outcomes), kind,
                             len(missing) if metric.level == "sample" else 0)
    return out
