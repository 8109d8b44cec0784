"""Our side of a comparison, measured on a run folder the way the papers measure it, with an interval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.report.summary import RESULTS, summarize
from factdebate.eval.reproduce.measure import measure_run
from factdebate.run.results_file import ResultWriter


def _record(i: int, gold: str, predicted: str | None, tools: int, claims: list[tuple[str, str]] | None = None
            ) -> dict[str, Any]:
    record: dict[str, Any] = {"id": f"s{i}", "gold": gold, "predicted": predicted, "correct": gold == predicted,
                              "usage": {"llm_calls": 2, "tool_calls": tools}}
    if claims is not None:
        record["claim_results"] = [{"index": k, "gold": g, "predicted": p} for k, (g, p) in enumerate(claims)]
    return record


async def _folder(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    writer = ResultWriter(tmp_path / RESULTS)
    for record in records:
        await writer.write(record)
    writer.close()
    run = {"name": "t", "method": "m", "dataset": "d", "labels": ["SUPPORTS", "REFUTES"], "seed": 0, "limit": None}
    summarize(tmp_path, run, [r["id"] for r in records], complete=True)
    return tmp_path


async def test_accuracy_class_f1_positive_class_and_tool_calls(tmp_path: Path) -> None:
    S, R = "SUPPORTS", "REFUTES"
    folder = await _folder(tmp_path, [_record(0, S, S, 1), _record(1, S, R, 3), _record(2, R, R, 2),
                                      _record(3, R, S, 0), _record(4, S, None, 4)])
    got = measure_run(folder, ["accuracy", "f1_true", "precision", "recall", "tool_calls_total"], paper_n=100)
    assert got is not None
    assert got["accuracy"].value == pytest.approx(2 / 5) and got["accuracy"].n == 5
    assert got["precision"].value == pytest.approx(1 / 2)  # S predicted twice, right once
    assert got["recall"].value == pytest.approx(1 / 3)  # three S, the unparsed one a miss
    assert got["f1_true"].value == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert got["tool_calls_total"].value == pytest.approx(2.0 * 100)  # mean per claim times the paper's claims
    for name, measured in got.items():
        assert measured.ci is not None, name
        low, high = measured.ci
        assert low <= (measured.value or 0) <= high, name


async def test_claim_level_metrics_read_the_responses_claims(tmp_path: Path) -> None:
    S, R = "SUPPORTS", "REFUTES"
    folder = await _folder(tmp_path, [_record(0, R, R, 0, [(S, S), (R, R)]), _record(1, S, S, 0, [(S, S), (S, R)])])
    got = measure_run(folder, ["claim_accuracy", "claim_recall", "response_accuracy"], paper_n=50)
    assert got is not None
    assert got["claim_accuracy"].value == pytest.approx(3 / 4) and got["claim_accuracy"].n == 4
    assert got["claim_recall"].value == pytest.approx(2 / 3)
    assert got["response_accuracy"].value == 1.0 and got["response_accuracy"].n == 2


def test_a_run_without_a_summary_measures_nothing(tmp_path: Path) -> None:
    assert measure_run(tmp_path, ["accuracy"], paper_n=10) is None


async def test_proportions_get_wilson_intervals_and_unrun_samples_count_wrong(tmp_path: Path) -> None:
    # 3 right of 3 is [0.44, 1] (Wilson), not the bootstrap's point [1, 1], so a paper's
    # 62.0 is inside it; a draw of 5 with 3 records is measured over all 5, the 2 not run counted wrong.
    from scipy.stats import binomtest

    from factdebate.eval.reproduce.report import Line, _inside

    S = "SUPPORTS"
    folder = await _folder(tmp_path / "three", [_record(i, S, S, 1) for i in range(3)])
    got = measure_run(folder, ["accuracy", "recall", "f1"], paper_n=100)
    assert got is not None
    wilson = binomtest(3, 3).proportion_ci(method="wilson")
    assert got["accuracy"].ci == pytest.approx((wilson.low, 1.0)) and got["accuracy"].interval == "Wilson"
    assert got["recall"].ci == pytest.approx((wilson.low, 1.0))  # 3 of 3 factual samples found
    assert got["f1"].ci == (1.0, 1.0) and got["f1"].interval == "bootstrap"
    line = Line("x", "row", "run", "col", "accuracy", 0.62, None, "m", "", got["accuracy"], "done")
    assert _inside(line, got["accuracy"].ci) == "yes"
    f1_line = Line("x", "row", "run", "col", "f1", 0.62, None, "m", "", got["f1"], "done")
    assert _inside(f1_line, got["f1"].ci) == "n/a (the bootstrap interval is one point at n = 3)"
    short = tmp_path / "short"
    await _folder(short, [_record(i, S, S, 1) for i in range(3)])
    summary = json.loads((short / "summary.json").read_text())
    summary["ids"] += ["s3", "s4"]
    (short / "summary.json").write_text(json.dumps(summary))
    got = measure_run(short, ["accuracy"], paper_n=100)
    assert got is not None
    assert (got["accuracy"].value, got["accuracy"].n, got["accuracy"].missing) == (3 / 5, 5, 2)
    wilson = binomtest(3, 5).proportion_ci(method="wilson")
    assert got["accuracy"].ci == pytest.approx((wilson.low, wilson.high))
