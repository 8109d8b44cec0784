"""Issue 38, items 7-11: comparisons that hold at small n, recomputed from hand-made runs with numpy, scipy
and scikit-learn: one denominator, Wilson intervals, Holm's correction and the detectable difference, κ
without failures as answers, cost ratios and dollars with enough digits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest

from factdebate.eval.compare import compare_runs
from tests.eval.test_compare import GOLD, A, R, S, write_run

USAGE = {"llm_calls": 1, "prompt_tokens": 10, "completion_tokens": 2}


def compared(tmp_path: Path, runs: list[Path], **options: Any) -> tuple[dict[str, Any], str]:
    out = tmp_path / "out"
    compare_runs(runs, out, **options)
    return json.loads((out / "compare.json").read_text()), (out / "compare.md").read_text()


def test_a_run_missing_samples_is_measured_over_the_same_denominator(tmp_path: Path) -> None:
    # Item 7. C ran 7 of the draw's 10 samples and got all 7 right: 1.000 over what it has, 0.700 over the
    # draw. A has all 10 (7 right).
    ids = [f"s{i}" for i in range(10)]
    a = write_run(tmp_path / "a", "a", A, USAGE, "openai:m")
    c = write_run(tmp_path / "c", "c", [S, S, S, S, S, R, R], USAGE, "openai:m", ids=ids)
    data, text = compared(tmp_path, [a, c])
    ra, rc = data["runs"]
    assert (rc["n"], rc["correct"], rc["accuracy"], rc["missing"]) == (10, 7, 0.7, ["s7", "s8", "s9"])
    assert ra["n"] == rc["n"] == 10
    assert rc["confusion"]["predicted"][-1] == "MISSING" and rc["confusion"]["matrix"][1][-1] == 3
    assert data["samples"]["missing"] == "counted wrong"
    assert "a sample a run holds no record for counts as wrong (MISSING) — c 3" in text
    assert "over the whole draw, the 3 not run counted wrong: 0.700 (7/10)" in (c / "summary.md").read_text()
    (pair,) = data["pairs"]
    # On all 10: A right where C is missing on s7 (A: R on s7, gold R); both wrong on s8 and s9.
    correct_a = [x == g for x, g in zip(A, GOLD, strict=True)]
    correct_c = [True] * 7 + [False] * 3
    only_a = sum(x and not y for x, y in zip(correct_a, correct_c, strict=True))
    only_c = sum(y and not x for x, y in zip(correct_a, correct_c, strict=True))
    assert (pair["n"], pair["only_a"], pair["only_b"]) == (10, only_a, only_c)
    assert pair["mcnemar_p"] == pytest.approx(binomtest(only_a, only_a + only_c, 0.5).pvalue)
    # With --intersection: only the 7 samples both hold; A gets s4 (gold S, answered R) wrong there.
    data, text = compared(tmp_path / "i", [a, c], intersection=True)
    ra, rc = data["runs"]
    assert (ra["n"], ra["correct"], rc["n"], rc["correct"], rc["missing"]) == (7, 6, 7, 7, [])
    assert data["samples"]["missing"] == "left out" and data["samples"]["left_out"] == ["s7", "s8", "s9"]
    assert "the 7 samples every run holds a record for (--intersection); 3 left out of every run" in text


def test_accuracy_intervals_are_wilsons_and_never_a_point(tmp_path: Path) -> None:
    # Item 8: 3 right of 3 has the Wilson interval [0.44, 1], not the bootstrap's [1, 1].
    ids = ["s0", "s1", "s2"]
    a = write_run(tmp_path / "a", "a", [S, S, S], USAGE, "openai:m", ids=ids)
    b = write_run(tmp_path / "b", "b", [S, R, None], USAGE, "openai:m", ids=ids)
    data, text = compared(tmp_path, [a, b])
    for row, k in zip(data["runs"], (3, 1), strict=True):
        expected = binomtest(k, 3).proportion_ci(confidence_level=0.95, method="wilson")
        assert row["ci"]["accuracy"] == pytest.approx([expected.low, expected.high], abs=1e-12)
    assert data["runs"][0]["ci"]["accuracy"][0] < 0.5
    assert data["intervals"]["accuracy"] == "Wilson score"
    assert data["intervals"]["macro_f1"] == "percentile bootstrap"
    assert "95% intervals: accuracy, Wilson score; macro-F1 and the paired differences, percentile bootstrap" in text

