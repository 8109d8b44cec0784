"""Comparisons that hold at small n, recomputed from hand-made runs with numpy, scipy
and scikit-learn: one denominator, Wilson intervals, Holm's correction and the detectable difference, κ
without failures as answers, cost ratios and dollars with enough digits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from factdebate.eval.compare import compare_runs
from factdebate.eval.compare.cost import dollars_text
from factdebate.eval.compare.verdict import mark_pairs, sentence
from factdebate.eval.pricing import parse_prices
from tests.eval.compare.test_compare import GOLD, A, R, S, two_runs, write_run

# scipy and scikit-learn are imported by the tests that use them: at the top, every xdist worker paid about
# 1.4 CPU-seconds for them while collecting.

USAGE = {"llm_calls": 1, "prompt_tokens": 10, "completion_tokens": 2}


def compared(tmp_path: Path, runs: list[Path], **options: Any) -> tuple[dict[str, Any], str]:
    out = tmp_path / "out"
    compare_runs(runs, out, **options)
    return json.loads((out / "compare.json").read_text()), (out / "compare.md").read_text()


def test_a_run_missing_samples_is_measured_over_the_same_denominator(tmp_path: Path) -> None:
    from scipy.stats import binomtest

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
    from scipy.stats import binomtest

    # 3 right of 3 has the Wilson interval [0.44, 1], not the bootstrap's [1, 1].
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



def holm_by_hand(p_values: list[float]) -> list[float]:
    order = np.argsort(p_values, kind="stable")
    m = len(p_values)
    stepped = np.maximum.accumulate([min(1.0, (m - rank) * p_values[i]) for rank, i in enumerate(order)])
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return list(adjusted)


def detectable_by_hand(n: int, discordant: int, m: int) -> float:
    from scipy.stats import binomtest, norm

    alpha = 0.05 / m
    fewest = next(k for k in range(1, 60) if binomtest(k, k).pvalue < alpha)
    normal = (norm.ppf(1 - alpha / 2) + norm.ppf(0.8)) * np.sqrt(discordant / n / n)
    return float(min(1.0, max(normal, fewest / n)))


def test_holm_the_front_marks_and_the_detectable_difference(tmp_path: Path) -> None:
    from scipy.stats import binomtest

    # Item 9. 40 samples; each run right on a set of them, at a cost in tokens per claim:
    # cheap 24 right (12 tokens), mid 22 (60), pricey 36 (120), bad 8 (72).
    gold = [S] * 20 + [R] * 20
    right = {"cheap": set(range(24)), "mid": set(range(20)) | {24, 25}, "pricey": set(range(36)), "bad": set(range(8))}
    tokens = {"cheap": 10, "mid": 50, "pricey": 100, "bad": 60}
    ids = [f"s{i}" for i in range(40)]
    folders = [write_run(tmp_path / name, name, [g if i in right[name] else (R if g == S else S)
                                                 for i, g in enumerate(gold)],
                         {"llm_calls": 1, "prompt_tokens": tokens[name], "completion_tokens": 2}, "openai:m",
                         ids=ids, gold=gold) for name in right]
    data, text = compared(tmp_path, folders)
    pairs = data["pairs"]
    assert len(pairs) == 6
    raw = [binomtest(p["only_a"], p["only_a"] + p["only_b"], 0.5).pvalue for p in pairs]
    assert [p["mcnemar_p"] for p in pairs] == pytest.approx(raw, rel=1e-12)
    adjusted = holm_by_hand(raw)
    assert [p["mcnemar_p_holm"] for p in pairs] == pytest.approx(adjusted, rel=1e-12)
    for p in pairs:
        assert p["differs"] == (p["mcnemar_p_holm"] < 0.05)
        assert p["detectable_difference"] == pytest.approx(detectable_by_hand(40, p["only_a"] + p["only_b"], 6))
    cheap_mid = next(p for p in pairs if (p["a"], p["b"]) == ("cheap", "mid"))
    assert (cheap_mid["only_a"], cheap_mid["only_b"], cheap_mid["differs"]) == (4, 2, False)
    # cheap and pricey are on the front; mid is beaten by cheap, not significantly in accuracy, but cheap costs
    # a fifth on every claim (a paired cost interval of one point below 1): behind on cost;
    # bad is beaten significantly by cheap (16 to 0) and on cost.
    pareto = data["pareto"]
    assert pareto["front"] == ["cheap", "pricey"]
    assert pareto["not_distinguishable"] == []
    assert pareto["behind"] == {
        "mid": {"beaten_by": ["cheap"], "same_cost": [], "significantly": [], "significantly_cheaper": ["cheap"]},
        "bad": {"beaten_by": ["cheap"], "same_cost": [], "significantly": ["cheap"],
                "significantly_cheaper": ["cheap"]}}
    assert "- mid: behind the front; cheap is cheaper and at least as accurate on the point estimates, and cheap " \
           "is significantly cheaper" in text
    assert data["verdict"].startswith("5 of 6 pair(s) differ at 0.05 after Holm's correction: ")
    assert "The other 1 do not; at n = 40 a difference in accuracy of about" in data["verdict"]
    assert data["verdict"] in text


def test_the_verdict_in_words_when_nothing_differs() -> None:
    from scipy.stats import binomtest, norm

    pair = {"a": "x", "b": "y", "n": 40, "only_a": 9, "only_b": 5, "difference": 0.1,
            "mcnemar_p": binomtest(5, 14).pvalue}
    mark_pairs([pair])
    # 14 of 40 discordant: (z_0.975 + z_0.8) * sqrt(0.35 / 40) = 0.262.
    assert pair["detectable_difference"] == pytest.approx((norm.ppf(0.975) + norm.ppf(0.8)) * np.sqrt(14 / 40 / 40))
    assert sentence([pair], 40) == (
        "No pair differs at 0.05 (one comparison, nothing to correct) (smallest adjusted McNemar p = 0.42); at "
        "n = 40 a difference in accuracy of about 26 points could be seen (80% power, two-sided 0.05/1); a smaller "
        "one may be there unseen.")
    tiny = {**pair, "n": 5, "only_a": 1, "only_b": 0, "mcnemar_p": 1.0}
    mark_pairs([tiny])
    assert "at n = 5 no difference can be significant: McNemar's exact test needs at least 6 samples" in sentence(
        [tiny], 5)


def test_kappa_is_over_the_labelled_answers_and_failures_are_kept_apart(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    # Both runs errored on s0-s3 (a server outage). With ERROR as an answer they "agree" on four
    # samples they never judged; κ is over the six samples both answered with a label.
    answers_a = ["error"] * 4 + [S, R, R, S, R, R]
    answers_b = ["error"] * 4 + [S, S, R, R, R, S]
    a = write_run(tmp_path / "a", "a", answers_a, USAGE, "openai:m")
    b = write_run(tmp_path / "b", "b", answers_b, USAGE, "openai:m")
    data, _ = compared(tmp_path, [a, b])
    (pair,) = data["pairs"]
    assert pair["kappa"] == pytest.approx(cohen_kappa_score(answers_a[4:], answers_b[4:]))
    assert pair["kappa_n"] == 6
    shown_a = ["ERROR" if x == "error" else x for x in answers_a]
    shown_b = ["ERROR" if x == "error" else x for x in answers_b]
    assert pair["kappa_failures_as_answers"] == pytest.approx(cohen_kappa_score(shown_a, shown_b))
    assert pair["kappa_failures_as_answers"] > pair["kappa"]


def test_cost_ratios_errored_spend_and_dollars_with_enough_digits(tmp_path: Path) -> None:
    # Item 10. A: 120 tokens on each of its 10 samples; B: 60 on 9, its errored sample s6 with no usage.
    a, b = two_runs(tmp_path)
    data, text = compared(tmp_path, [a, b], prices=parse_prices(["m-a=0.15,0.60", "m-b=0.15,0.60"]))
    ra, rb = data["runs"]
    assert (ra["cost"]["errored_without_usage"], rb["cost"]["errored_without_usage"]) == (0, 1)
    # gpt-4o-mini's prices: 100 x $0.15/M + 20 x $0.60/M = $0.000027 a claim, once printed $0.0000.
    assert ra["cost"]["dollars_per_claim"] == pytest.approx(27e-6)
    assert "| 0.0000270 | 0.0000386 | 0 |" in text  # $ / claim, $ / correct (0.00027 / 7), errored unpriced
    (pair,) = data["pairs"]
    ratio = pair["cost_ratio"]
    # Dollars axis (every run priced), on the 9 samples both have a cost for: 27e-6 / 15e-6 per claim.
    per_a = np.full(9, 27e-6)
    per_b = np.full(9, (50 * 0.15 + 10 * 0.60) / 1e6)
    index = np.random.default_rng(0).integers(0, 9, size=(1000, 9))
    resampled = per_a[index].sum(axis=1) / per_b[index].sum(axis=1)
    assert ratio["axis"] == "dollars" and ratio["n"] == 9
    assert ratio["ratio"] == pytest.approx(per_a.sum() / per_b.sum())
    assert ratio["ci"] == pytest.approx([np.percentile(resampled, 2.5), np.percentile(resampled, 97.5)])
    assert "| a | b | 2.00 [2.00, 2.00] | 9 |" in text


@pytest.mark.parametrize(("value", "text"), [(27e-6, "0.0000270"), (0.004, "0.00400"), (0.0820, "0.0820"),
                                             (12.34, "12.3400"), (0.0, "0.0000"), (None, "n/a")])
def test_dollars_keep_three_significant_digits(value: float | None, text: str) -> None:
    assert dollars_text(value) == text


def test_a_sample_no_run_holds_counts_wrong_in_every_run(tmp_path: Path) -> None:
    """Two runs cut to 7 of a 10-sample draw: measured over 10, as reproduce measures them;
    the 3 have no gold label here and enter no class of precision, recall or F1."""
    ids = [f"s{i}" for i in range(10)]
    a = write_run(tmp_path / "a", "a", [S, S, S, S, S, R, R], USAGE, "openai:m", ids=ids)
    b = write_run(tmp_path / "b", "b", [S, S, S, S, R, R, R], USAGE, "openai:m", ids=ids)
    data, text = compared(tmp_path, [a, b])
    assert data["samples"]["n"] == 10 and "- samples: **10**" in text
    ra, rb = data["runs"]
    assert (ra["n"], ra["correct"], ra["accuracy"]) == (10, 7, 0.7)
    assert (rb["n"], rb["correct"], rb["missing"]) == (10, 6, ["s7", "s8", "s9"])
    assert data["samples"]["left_out"] == []
    assert "3 sample(s) no run holds a record for count wrong in every run" in text
    assert "none is missing" not in text  # it was said beside the 3 missing samples
    assert ra["per_class"][R]["recall"] == pytest.approx(1.0)  # gold of s7-s9 unknown: in no class


def test_equal_costs_are_not_called_cheaper_and_the_cost_interval_counts(tmp_path: Path) -> None:
    """'cheaper' only where the cost is lower; a front run as accurate and cheaper with a
    paired cost interval below 1 leaves the other behind on cost."""
    gold = [S] * 10 + [R] * 10
    ids = [f"s{i}" for i in range(20)]
    answers = {"best": gold, "same-cost": [S] * 20, "dear": gold}
    tokens = {"best": 10, "same-cost": 10, "dear": 50}
    folders = [write_run(tmp_path / name, name, answers[name],
                         {"llm_calls": 1, "prompt_tokens": tokens[name], "completion_tokens": 2}, "openai:m",
                         ids=ids, gold=gold) for name in answers]
    data, text = compared(tmp_path, folders)
    behind = data["pareto"]["behind"]
    assert behind["same-cost"]["same_cost"] == ["best"] and behind["dear"]["same_cost"] == []
    assert behind["dear"]["significantly_cheaper"] == ["best"] and behind["dear"]["significantly"] == []
    assert "dear" not in data["pareto"]["not_distinguishable"]
    (line,) = [x for x in text.splitlines() if x.startswith("- same-cost: behind the front")]
    assert "cheaper" not in line and "best costs the same and is more accurate" in line
    (line,) = [x for x in text.splitlines() if x.startswith("- dear: behind the front")]
    assert "best is significantly cheaper" in line


def test_compare_md_keeps_the_base_rate_warning_each_runs_summary_gives(tmp_path: Path) -> None:
    """A run answering SUPPORTS to all 10 claims measures the base rate: its summary.md says so, and compare.md
    now says it too, word for word (compare.md dropped it); the other run gets none."""
    ids = [f"s{i}" for i in range(10)]
    always = write_run(tmp_path / "always", "always", [S] * 10, USAGE, "openai:m", ids=ids)
    mixed = write_run(tmp_path / "mixed", "mixed", A, USAGE, "openai:m", ids=ids)
    summary_line = next(line for line in (always / "summary.md").read_text().splitlines()
                        if line.startswith("- **warning**: 100% of the predictions are SUPPORTS"))
    data, text = compared(tmp_path, [always, mixed])
    assert data["runs"][0]["base_rate_warning"] == summary_line.removeprefix("- **warning**: ")
    assert data["runs"][1]["base_rate_warning"] is None
    assert f"- **warning** (always): {data['runs'][0]['base_rate_warning']}" in text
    assert "- **warning** (mixed)" not in text
