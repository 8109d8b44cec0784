"""Metrics against hand-computed cases; the bootstrap is reproducible with a seed."""

from __future__ import annotations

import math

import pytest

from factdebate.eval.metrics import (
    ERROR,
    UNPARSED,
    Outcome,
    bootstrap,
    compute,
    outcome_from_record,
    percentile_nearest_rank,
)

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
LABELS = (S, R, N)


def ok(i: int, gold: str, predicted: str, **usage: float) -> Outcome:
    return Outcome(str(i), gold, predicted, "ok", usage=usage or {"llm_calls": 1})


def five() -> list[Outcome]:
    """gold S S R R N; predicted S R R (unparsed) (error)."""
    return [ok(1, S, S), ok(2, S, R), ok(3, R, R), Outcome("4", R, None, "unparsed", usage={"llm_calls": 2}),
            Outcome("5", N, None, "error", error="boom")]


def test_hand_computed_accuracy_per_class_macro_f1_and_confusion() -> None:
    m = compute(five(), LABELS, seed=1, resamples=200)
    assert m["n"] == 5 and m["correct"] == 2 and m["accuracy"] == pytest.approx(0.4)
    s, r, n = (m["per_class"][label] for label in LABELS)
    # SUPPORTS: predicted once, right once; 2 gold -> P 1, R 0.5, F1 2/3
    assert (s["precision"], s["recall"], s["f1"]) == pytest.approx((1.0, 0.5, 2 / 3))
    # REFUTES: predicted twice (one right), 2 gold -> P 0.5, R 0.5, F1 0.5
    assert (r["precision"], r["recall"], r["f1"]) == pytest.approx((0.5, 0.5, 0.5))
    # NOT ENOUGH INFO: never predicted (the error is not a prediction) -> 0
    assert (n["precision"], n["recall"], n["f1"], n["support"], n["predicted"]) == (0.0, 0.0, 0.0, 1, 0)
    assert m["macro_f1"] == pytest.approx((2 / 3 + 0.5 + 0) / 3)
    assert m["confusion"] == {"gold": [S, R, N], "predicted": [S, R, N, UNPARSED, ERROR],
                              "matrix": [[1, 1, 0, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 1]]}
    # failures are counted wrong and listed, never dropped
    assert m["unparsed"] == ["4"] and m["errored"] == {"5": "boom"}
    assert m["decided_by"] == {"ok": 3, "unparsed": 1, "error": 1}


def test_prediction_outside_a_two_way_label_set_is_wrong_and_not_a_class() -> None:
    outcomes = [ok(1, S, S), ok(2, R, N), ok(3, R, R), ok(4, S, R)]
    m = compute(outcomes, (S, R), seed=0, resamples=50)
    assert m["accuracy"] == 0.5
    assert m["macro_f1_labels"] == [S, R]
    # S: P 1/1, R 1/2 -> 2/3; R: P 1/2, R 1/2 -> 1/2
    assert m["macro_f1"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert m["confusion"]["predicted"] == [S, R, N, UNPARSED, ERROR]
    assert m["confusion"]["matrix"] == [[1, 1, 0, 0, 0], [0, 1, 1, 0, 0]]


def test_macro_f1_skips_classes_absent_from_gold_and_predictions() -> None:
    m = compute([ok(1, S, S), ok(2, R, S)], LABELS, resamples=10)
    assert m["macro_f1_labels"] == [S, R]
    assert m["macro_f1"] == pytest.approx((2 / 3 + 0.0) / 2)  # S: P 1/2, R 1 -> 2/3


def test_cost_mean_and_nearest_rank_p95_over_finished_samples() -> None:
    outcomes = [ok(i, S, S, llm_calls=i, prompt_tokens=10 * i) for i in range(1, 21)]
    outcomes.append(Outcome("x", S, None, "error", usage=None, error="down"))
    cost = compute(outcomes, LABELS, resamples=10)["cost"]
    assert cost["llm_calls"]["mean"] == pytest.approx(10.5)  # the errored sample has no usage
    assert cost["llm_calls"]["p95"] == 19  # ceil(0.95 * 20) = 19th smallest
    assert cost["prompt_tokens"]["total"] == 2100
    assert percentile_nearest_rank([7.0], 95) == 7.0
    assert percentile_nearest_rank([3, 1, 2, 4], 50) == 2
    assert math.isnan(percentile_nearest_rank([], 95))


def test_bootstrap_is_reproducible_with_a_seed_and_brackets_the_estimate() -> None:
    outcomes = [ok(i, S, S if i % 3 else R) for i in range(60)]
    first = bootstrap(outcomes, LABELS, seed=42, resamples=500)
    assert first == bootstrap(outcomes, LABELS, seed=42, resamples=500)
    accuracy = sum(o.correct for o in outcomes) / len(outcomes)
    lo, hi = first["accuracy"]
    assert 0 <= lo < accuracy < hi <= 1
    perfect = bootstrap([ok(i, S, S) for i in range(10)], LABELS, seed=0, resamples=100)
    assert perfect == {"accuracy": [1.0, 1.0], "macro_f1": [1.0, 1.0]}


def test_groups_and_records() -> None:
    records = [{"id": 1, "gold": S, "predicted": S, "group": "capital", "usage": {"llm_calls": 1}},
               {"id": 2, "gold": R, "predicted": None, "group": "capital"},
               {"id": 3, "gold": R, "predicted": None, "error": "timeout", "group": "border"}]
    outcomes = [outcome_from_record(r) for r in records]
    assert [o.status for o in outcomes] == ["ok", "unparsed", "error"]
    m = compute(outcomes, LABELS, resamples=10)
    assert m["by_group"] == {"border": {"n": 1, "accuracy": 0.0}, "capital": {"n": 2, "accuracy": 0.5}}
