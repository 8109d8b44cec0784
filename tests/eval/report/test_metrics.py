"""Metrics against hand-computed cases; the bootstrap is reproducible with a seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from factdebate.eval.report.metrics import (
    ERROR,
    UNPARSED,
    Outcome,
    bootstrap,
    compute,
    outcome_from_record,
    percentile_nearest_rank,
)

# scipy and scikit-learn are imported by the tests that use them: at the top, every xdist worker paid about
# 1.4 CPU-seconds for them while collecting.

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


def test_macro_f1_averages_over_the_datasets_labels_in_every_resample() -> None:
    from sklearn.metrics import f1_score

    # The label set is the dataset's, not the labels a run or a resample happens to show,
    # so a resample without NOT ENOUGH INFO is not averaged over two classes where the others use three.
    outcomes = [ok(1, S, S), ok(2, R, S), ok(3, N, N), ok(4, R, R), ok(5, S, None)]
    m = compute([ok(1, S, S), ok(2, R, S)], LABELS, resamples=10)
    assert m["macro_f1_labels"] == [S, R, N]
    assert m["macro_f1"] == pytest.approx((2 / 3 + 0.0 + 0.0) / 3)  # S: P 1/2, R 1 -> 2/3; N absent -> 0
    m = compute(outcomes, LABELS, seed=3, resamples=400)
    gold, shown = [o.gold for o in outcomes], [o.shown for o in outcomes]
    assert m["macro_f1"] == pytest.approx(f1_score(gold, shown, labels=list(LABELS), average="macro",
                                                   zero_division=0))
    index = np.random.default_rng(3).integers(0, 5, size=(400, 5))
    resampled = [f1_score([gold[i] for i in row], [shown[i] for i in row], labels=list(LABELS), average="macro",
                          zero_division=0) for row in index]
    assert m["ci"]["macro_f1"] == pytest.approx([np.percentile(resampled, 2.5), np.percentile(resampled, 97.5)])
    assert m["ci"]["methods"] == {"accuracy": "Wilson score", "macro_f1": "percentile bootstrap"}


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
    from scipy.stats import binomtest

    outcomes = [ok(i, S, S if i % 3 else R) for i in range(60)]
    first = bootstrap(outcomes, LABELS, seed=42, resamples=500)
    assert first == bootstrap(outcomes, LABELS, seed=42, resamples=500)
    accuracy = sum(o.correct for o in outcomes) / len(outcomes)
    lo, hi = first["accuracy"]
    assert 0 <= lo < accuracy < hi <= 1
    # Accuracy's interval is Wilson's, never a point: 10 of 10 right is not [1, 1].
    # Macro-F1 (fixed over S, R, N; only S occurs) is still the bootstrap: every resample gives 1/3.
    perfect = bootstrap([ok(i, S, S) for i in range(10)], LABELS, seed=0, resamples=100)
    wilson = binomtest(10, 10).proportion_ci(method="wilson")
    assert perfect["accuracy"] == pytest.approx([wilson.low, 1.0]) and perfect["accuracy"][0] < 0.75
    assert perfect["macro_f1"] == pytest.approx([1 / 3, 1 / 3])


@pytest.mark.parametrize(("k", "n"), [(0, 3), (1, 3), (3, 3), (7, 10), (12, 40), (40, 40), (1, 1)])
def test_accuracy_interval_is_wilsons_as_scipy_computes_it(k: int, n: int) -> None:
    from scipy.stats import binomtest

    outcomes = [ok(i, S, S if i < k else R) for i in range(n)]
    lo, hi = compute(outcomes, LABELS, resamples=100)["ci"]["accuracy"]
    expected = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (lo, hi) == pytest.approx((expected.low, expected.high), abs=1e-12)
    assert lo < hi and lo <= k / n <= hi


def test_groups_and_records() -> None:
    records = [{"id": 1, "gold": S, "predicted": S, "group": "capital", "usage": {"llm_calls": 1}},
               {"id": 2, "gold": R, "predicted": None, "group": "capital"},
               {"id": 3, "gold": R, "predicted": None, "error": "timeout", "group": "border"}]
    outcomes = [outcome_from_record(r) for r in records]
    assert [o.status for o in outcomes] == ["ok", "unparsed", "error"]
    m = compute(outcomes, LABELS, resamples=10)
    assert m["by_group"] == {"border": {"n": 1, "accuracy": 0.0}, "capital": {"n": 2, "accuracy": 0.5}}
