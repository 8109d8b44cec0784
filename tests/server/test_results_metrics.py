"""The results viewer's figures (static/results-metrics.js), run under Node as the module the page imports
(skipped without Node), against what the evaluation harness (eval/report/metrics.py) computes for the same records:
accuracy, per-label precision/recall/F1, macro-F1, the confusion matrix with unparsed and errored runs in
columns of their own, and the cost of the runs that finished."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.eval.report.metrics import compute, outcome_from_record
from tests.server.page.test_page_scripts import pytestmark, run_module  # noqa: F401

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
LABELS = (S, R, N)
# gold, predicted ("unparsed": no label read; "error": the run failed)
CASES = [(S, S), (S, S), (S, R), (S, "unparsed"), (R, R), (R, S), (R, "error"), (N, S), (N, N), (S, "error"), (R, R)]


def records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, (gold, answer) in enumerate(CASES):
        record: dict[str, Any] = {"id": f"c{i}", "gold": gold, "claim": f"Claim {i}.", "method": "cot"}
        if answer == "error":
            record.update(error="model unreachable", predicted=None, usage={"llm_calls": 9, "seconds": 9.0})
        else:
            label = None if answer == "unparsed" else answer
            record.update(predicted=label, label=label,
                          usage={"llm_calls": 1 + i % 3, "prompt_tokens": 100 + i, "completion_tokens": 7 * i,
                                 "seconds": 0.25 * i})
        out.append(record)
    return out


def page_figures(rows: list[dict[str, Any]], labels: list[str] | None = None) -> Any:
    return run_module("results-metrics.js", "(() => { const o = data.rows.map(r => m.rowOutcome(r)); "
                      "return {metrics: m.metrics(o, data.labels), cost: m.cost(o)}; })()",
                      {"rows": rows, "labels": labels})


def test_the_page_computes_what_the_harness_computes() -> None:
    rows = records()
    python = compute([outcome_from_record(r) for r in rows], LABELS, resamples=10)
    page = page_figures(rows, list(LABELS))
    got = page["metrics"]
    assert (got["n"], got["correct"]) == (python["n"], python["correct"]) == (11, 5)
    assert got["accuracy"] == pytest.approx(python["accuracy"])
    assert got["labels"] == python["macro_f1_labels"] == [S, R, N]
    assert got["macroF1"] == pytest.approx(python["macro_f1"])
    for label in LABELS:
        for field in ("precision", "recall", "f1", "support", "predicted"):
            assert got["perClass"][label][field] == pytest.approx(python["per_class"][label][field]), (label, field)
    # Hand-worked for REFUTES: 2 right of 3 predicted, of 4 gold (one errored) -> P 2/3, R 1/2.
    assert got["perClass"][R]["precision"] == pytest.approx(2 / 3) and got["perClass"][R]["recall"] == 0.5
    # The matrix, cell by cell, named as the harness names its rows and columns; failures have their own.
    confusion = python["confusion"]
    assert got["confusion"]["predicted"] == [S, R, N, "UNPARSED", "ERROR"]
    for g, line in zip(got["confusion"]["gold"], got["confusion"]["matrix"], strict=True):
        for p, count in zip(got["confusion"]["predicted"], line, strict=True):
            assert count == confusion["matrix"][confusion["gold"].index(g)][confusion["predicted"].index(p)], (g, p)
    assert got["unparsed"] == len(python["unparsed"]) == 1 and got["errors"] == len(python["errored"]) == 2
    # Accuracy's interval is Wilson's, as the harness's (a bootstrap of 3 right of 3 would be the point [1, 1]).
    assert got["accuracyCi"] == pytest.approx(python["ci"]["accuracy"], abs=1e-12)
    # Cost: the mean over the rows that carry usage, errored ones with what they spent before failing.
    cost = page["cost"]
    assert cost["withUsage"] == 11 and cost["erroredIncluded"] == 2 and cost["erroredWithout"] == 0
    assert python["errored_spend"] == {"included": 2, "without_usage": 0}
    assert cost["calls"]["mean"] == pytest.approx(python["cost"]["llm_calls"]["mean"])
    assert cost["calls"]["total"] == pytest.approx(python["cost"]["llm_calls"]["total"])
    assert cost["seconds"]["mean"] == pytest.approx(python["cost"]["seconds"]["mean"])
    tokens = python["cost"]["prompt_tokens"]["total"] + python["cost"]["completion_tokens"]["total"]
    assert cost["tokens"]["total"] == pytest.approx(tokens)


def test_rows_of_verify_output_are_read_through_the_label_aliases() -> None:
    # No `predicted`: a verdict's `label` and the gold are both normalised; no label is unparsed.
    rows = [{"claim": "A", "gold": "supports", "label": "SUPPORTS"}, {"claim": "B", "gold": "Refutes", "label": None},
            {"claim": "C", "label": "REFUTES"}, {"claim": "D", "gold": "REFUTES", "error": "boom"}]
    got = page_figures(rows)["metrics"]
    assert (got["n"], got["correct"], got["unparsed"], got["errors"]) == (3, 1, 1, 1)  # C has no gold: not counted
    assert got["confusion"] == {"gold": [S, R], "predicted": [S, R, "UNPARSED", "ERROR"],
                                "matrix": [[1, 0, 0, 0], [0, 0, 1, 1]]}
    # REFUTES is seen only as a gold label: F1 0, still in the macro average (as macro_labels does).
    assert got["macroF1"] == pytest.approx(0.5)


def test_sorting_puts_missing_values_last_either_way() -> None:
    expression = ("['ascending', 'descending'].map(d => m.sortedBy(data, x => x.v, d).map(x => x.id))")
    values = [{"id": "a", "v": 10}, {"id": "b", "v": None}, {"id": "c", "v": 2}, {"id": "d", "v": 10}]
    assert run_module("results-metrics.js", expression, values) == [["c", "a", "d", "b"], ["a", "d", "c", "b"]]
    text = [{"id": "a", "v": "claim 10"}, {"id": "b", "v": "Claim 9"}, {"id": "c", "v": ""}]
    assert run_module("results-metrics.js", expression, text) == [["b", "a", "c"], ["a", "b", "c"]]


def test_macro_f1_averages_over_the_dataset_labels_the_file_names_else_those_seen_and_says_so() -> None:
    # Nothing is gold or answered NOT ENOUGH INFO: over the dataset's three labels it scores 0 and counts, as
    # eval/report/metrics.py does; over the two seen it would not, and the figure would change with the file.
    rows = [r for r in records() if r["gold"] != N and r.get("predicted") != N]
    python = compute([outcome_from_record(r) for r in rows], LABELS, resamples=10)
    got = page_figures(rows, list(LABELS))["metrics"]
    assert got["labelsFrom"] == "dataset" and got["labels"] == python["macro_f1_labels"] == [S, R, N]
    assert got["macroF1"] == pytest.approx(python["macro_f1"], abs=1e-12)
    assert got["confusion"] == python["confusion"]  # rows and columns as the harness names them
    seen = page_figures(rows)["metrics"]
    assert seen["labelsFrom"] == "seen" and seen["labels"] == [S, R]
    assert seen["macroF1"] == pytest.approx(python["macro_f1"] * 3 / 2)
    # What a results file's run.json or summary.json gives; anything else gives none.
    expression = "data.map(v => m.datasetLabels(v))"
    values = [{"dataset": "fever:x", "labels": [S, R]}, {"labels": [S, R]}, {"dataset": "x", "labels": []}, [S]]
    assert run_module("results-metrics.js", expression, values) == [[S, R], None, None, None]


def test_an_errored_row_without_usage_is_counted_beside_the_cost() -> None:
    rows = records()
    for r in rows:
        if r.get("error"):
            r.pop("usage")
    python = compute([outcome_from_record(r) for r in rows], LABELS, resamples=10)
    cost = page_figures(rows, list(LABELS))["cost"]
    assert (cost["withUsage"], cost["erroredIncluded"], cost["erroredWithout"]) == (9, 0, 2)
    assert python["errored_spend"] == {"included": 0, "without_usage": 2}
    assert cost["calls"]["mean"] == pytest.approx(python["cost"]["llm_calls"]["mean"])
