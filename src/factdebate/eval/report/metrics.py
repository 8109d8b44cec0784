"""Metrics over one run: exact-match accuracy, per-class precision/recall/F1, macro-F1, a confusion matrix,
confidence intervals and cost per claim.

Every sample counts: unparsed, errored (and, in ``compare``, missing) samples are wrong and listed. Accuracy's
interval is Wilson's, macro-F1's a seeded bootstrap over the dataset's labels in every resample."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from factdebate.eval.report.intervals import wilson

UNPARSED = "UNPARSED"
ERROR = "ERROR"
MISSING = "MISSING"
INTERVALS = {"accuracy": "Wilson score", "macro_f1": "percentile bootstrap"}
# speculative: calls of discarded speculative rounds, not in llm_calls; reasoning: of completion_tokens, a
# reasoning model's hidden thinking (billed as completion, so a run on o-series or GPT-5 shows where it went)
COST_FIELDS = ("llm_calls", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tool_calls", "seconds",
               "cached_calls", "speculative_calls")
Status = Literal["ok", "unparsed", "error", "missing"]


@dataclass(frozen=True)
class Outcome:
    id: str
    gold: str
    predicted: str | None  # in the dataset's label set (or a label outside it); None unless status is ok
    status: Status
    usage: dict[str, float] | None = None
    # The same usage by model (core/types.py ModelUsage); None: a record written before it was kept.
    usage_by_model: dict[str, dict[str, float]] | None = None
    group: str | None = None
    decided_by: str | None = None
    error: str | None = None

    @property
    def shown(self) -> str:
        """The predicted class as the confusion matrix shows it."""
        if self.status == "error":
            return ERROR
        if self.status == "missing":
            return MISSING
        return self.predicted if self.predicted is not None else UNPARSED

    @property
    def correct(self) -> bool:
        return self.status == "ok" and self.predicted == self.gold


def outcome_from_record(record: dict[str, Any]) -> Outcome:
    if record.get("error"):
        status: Status = "error"
    else:
        status = "ok" if record.get("predicted") is not None else "unparsed"
    # An errored record carries what the sample spent before it failed (eval/runner.py spent_fields); one
    # written before that, or failing before any call, carries none.
    usage = record.get("usage") if isinstance(record.get("usage"), dict) else None
    by_model = record.get("usage_by_model") if usage is not None else None
    return Outcome(id=str(record["id"]), gold=str(record["gold"]),
                   predicted=record.get("predicted") if status == "ok" else None, status=status, usage=usage,
                   usage_by_model=by_model if isinstance(by_model, dict) else None,
                   group=record.get("group"), decided_by=record.get("decided_by"),
                   error=record.get("error"))


def percentile_nearest_rank(values: list[float], q: float) -> float:
    """The smallest value with at least ``q`` percent of the values at or below it (no interpolation)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return float(ordered[rank - 1])


def per_class(outcomes: list[Outcome], labels: tuple[str, ...]) -> dict[str, dict[str, float]]:
    gold = Counter(o.gold for o in outcomes)
    predicted = Counter(o.shown for o in outcomes)
    hits = Counter(o.gold for o in outcomes if o.correct)
    table = {}
    for label in labels:
        precision = hits[label] / predicted[label] if predicted[label] else 0.0
        recall = hits[label] / gold[label] if gold[label] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        table[label] = {"precision": precision, "recall": recall, "f1": f1, "support": gold[label],
                        "predicted": predicted[label]}
    return table


def macro_labels(outcomes: list[Outcome], labels: tuple[str, ...]) -> list[str]:
    """The classes macro-F1 averages over: the dataset's labels, whichever occur."""
    return list(labels)


def macro_f1(outcomes: list[Outcome], labels: tuple[str, ...]) -> float:
    table = per_class(outcomes, labels)
    used = macro_labels(outcomes, labels)
    return sum(table[label]["f1"] for label in used) / len(used) if used else 0.0


def confusion(outcomes: list[Outcome], labels: tuple[str, ...]) -> dict[str, Any]:
    """Rows: gold labels; columns: the dataset's labels, other predictions, UNPARSED, ERROR (and MISSING)."""
    rows = list(labels) + sorted({o.gold for o in outcomes} - set(labels))
    extra = sorted({o.shown for o in outcomes} - set(labels) - {UNPARSED, ERROR, MISSING})
    columns = list(labels) + extra + [UNPARSED, ERROR] + ([MISSING] if any(o.status == "missing" for o in outcomes)
                                                        else [])
    counts = Counter((o.gold, o.shown) for o in outcomes)
    return {"gold": rows, "predicted": columns, "matrix": [[counts[(g, p)] for p in columns] for g in rows]}


def bootstrap(outcomes: list[Outcome], labels: tuple[str, ...], *, seed: int, resamples: int = 1000,
              confidence: float = 0.95) -> dict[str, list[float]]:
    """Accuracy's Wilson interval and macro-F1's seeded percentile bootstrap over samples."""
    n = len(outcomes)
    if n == 0:
        return {"accuracy": [math.nan, math.nan], "macro_f1": [math.nan, math.nan]}
    index = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    f1s = resampled_macro_f1(outcomes, labels, index)
    tail = (1 - confidence) / 2 * 100
    return {"accuracy": list(wilson(sum(o.correct for o in outcomes), n, confidence)),
            "macro_f1": [float(np.percentile(f1s, tail)), float(np.percentile(f1s, 100 - tail))]}


def resampled_macro_f1(outcomes: list[Outcome], labels: tuple[str, ...], index: np.ndarray) -> np.ndarray:
    """Macro-F1 of each resample (a row of ``index``: positions into ``outcomes``) over the dataset's labels."""
    classes = list(labels)
    k = len(classes)
    gold = np.array([classes.index(o.gold) if o.gold in classes else k for o in outcomes])
    pred = np.array([classes.index(o.shown) if o.shown in classes else k + 1 for o in outcomes])
    f1s = np.empty(len(index))
    for b in range(len(index)):
        g, p = gold[index[b]], pred[index[b]]
        tp = np.bincount(g[g == p], minlength=k + 2)[:k]
        support = np.bincount(g, minlength=k + 2)[:k]
        predicted = np.bincount(p, minlength=k + 2)[:k]
        precision = np.divide(tp, predicted, out=np.zeros(k), where=predicted > 0)
        recall = np.divide(tp, support, out=np.zeros(k), where=support > 0)
        denominator = precision + recall
        f1 = np.divide(2 * precision * recall, denominator, out=np.zeros(k), where=denominator > 0)
        f1s[b] = f1.mean() if k else 0.0
    return f1s


def paired_macro_f1(a: list[Outcome], b: list[Outcome], labels: tuple[str, ...], *, seed: int,
                    resamples: int = 1000, confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """macro-F1(A) - macro-F1(B) on the same claims, with ``paired.paired_bootstrap``'s draws."""
    if len(a) != len(b):
        raise ValueError("a paired bootstrap needs both runs' outcomes of the same claims")
    n = len(a)
    if n == 0:
        return math.nan, (math.nan, math.nan)
    index = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    differences = resampled_macro_f1(a, labels, index) - resampled_macro_f1(b, labels, index)
    tail = (1 - confidence) / 2 * 100
    return (macro_f1(a, labels) - macro_f1(b, labels),
            (float(np.percentile(differences, tail)), float(np.percentile(differences, 100 - tail))))


def cost(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """Mean, p95 and total of each usage field over the samples whose record carries usage."""
    usages = [o.usage for o in outcomes if o.usage is not None]
    out = {}
    for name in COST_FIELDS:
        values = [float(u.get(name, 0) or 0) for u in usages]
        out[name] = {"mean": sum(values) / len(values) if values else math.nan,
                     "p95": percentile_nearest_rank(values, 95), "total": sum(values)}
    return out


def compute(outcomes: list[Outcome], labels: tuple[str, ...], *, seed: int = 0,
            resamples: int = 1000) -> dict[str, Any]:
    n = len(outcomes)
    correct = sum(o.correct for o in outcomes)
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.group is not None:
            groups.setdefault(str(o.group), []).append(o)
    return {
        "n": n,
        "correct": correct,
        "accuracy": correct / n if n else math.nan,
        "macro_f1": macro_f1(outcomes, labels),
        "macro_f1_labels": macro_labels(outcomes, labels),
        "ci": {"confidence": 0.95, "resamples": resamples, "seed": seed, "methods": dict(INTERVALS),
               **bootstrap(outcomes, labels, seed=seed, resamples=resamples)},
        "per_class": per_class(outcomes, labels),
        "confusion": confusion(outcomes, labels),
        "unparsed": sorted(o.id for o in outcomes if o.status == "unparsed"),
        "errored": {o.id: o.error or "" for o in sorted(outcomes, key=lambda o: o.id) if o.status == "error"},
        "decided_by": dict(Counter(o.decided_by or o.status for o in outcomes)),
        "by_group": {g: {"n": len(v), "accuracy": sum(o.correct for o in v) / len(v)}
                     for g, v in sorted(groups.items())},
        "cost": cost(outcomes),
        # Only where a sample errored: a run without errors has nothing to say here (and its summary stays as it was).
        **({"errored_spend": errored_spend(outcomes)} if any(o.status == "error" for o in outcomes) else {}),
    }


def errored_spend(outcomes: list[Outcome]) -> dict[str, int]:
    """The errored samples whose spend the cost includes, and those whose record carries none."""
    errored = [o for o in outcomes if o.status == "error"]
    return {"included": sum(o.usage is not None for o in errored),
            "without_usage": sum(o.usage is None for o in errored)}
