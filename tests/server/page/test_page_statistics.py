"""9 and 11 on the page: the paired view of several results files (static/paired.js) and
its statistics (static/stats.js), run under Node as the modules the page imports (skipped without Node),
against what ``factdebate compare`` writes for the same hand-made runs (eval/compare/__init__.py) and the harness's
own functions (eval/report/intervals.py, eval/compare/cost.py): accuracy's Wilson interval, McNemar's p with
Holm's adjustment, whether a pair differs, the detectable difference, κ over the samples both runs
labelled with that n, and the verdict sentence, word for word."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest

from factdebate.eval.compare import compare_runs
from factdebate.eval.compare.cost import dollars_text
from factdebate.eval.report.intervals import holm, minimum_detectable_difference, wilson
from tests.eval.compare.test_compare import R, S, write_run
from tests.server.page.test_page_scripts import pytestmark, run_module  # noqa: F401

USAGE = {"llm_calls": 1, "prompt_tokens": 10, "completion_tokens": 2}
# Three runs on ten samples, failures among them: no pair differs after Holm at this n.
GOLD = [S] * 5 + [R] * 5
SMALL = {"a": [S, S, S, S, R, R, R, R, S, None],
         "b": [S, R, R, S, R, R, "error", S, S, R],
         "c": [S, S, None, "error", R, S, R, R, R, "error"]}
# Forty samples: "good" right on all but two, "poor" wrong on most: that pair differs after Holm.
GOLD_40 = [S] * 20 + [R] * 20
LARGE = {"good": [S] * 19 + [R] + [R] * 19 + [S],
         "poor": [R] * 14 + [S] * 6 + [S] * 12 + ["error"] * 2 + [R] * 6,
         "even": [S] * 10 + [R] * 10 + [R] * 10 + [S] * 10}


def runs_of(tmp_path: Path, answers: dict[str, list[Any]], gold: list[str]) -> tuple[dict[str, Any], list[Any]]:
    """compare.json for the runs, and the page's figures for their results files opened together."""
    dirs = [write_run(tmp_path / name, name, rows, USAGE, "openai:m", gold=gold) for name, rows in answers.items()]
    compare_runs(dirs, tmp_path / "out")
    python = json.loads((tmp_path / "out" / "compare.json").read_text())
    files = [[json.loads(line) for line in (d / "results.jsonl").read_text().splitlines()] for d in dirs]
    page = run_module("paired.js", "(() => { const runs = data.names.map((n, i) => m.pairedRun(n, data.files[i])); "
                      "return m.pairedFigures(runs, m.sharedIds(runs)); })()",
                      {"names": list(answers), "files": files})
    return python, page


@pytest.mark.parametrize(("answers", "gold"), [(SMALL, GOLD), (LARGE, GOLD_40)], ids=["n10", "n40"])
def test_the_paired_view_computes_what_compare_writes(tmp_path: Path, answers: dict[str, list[Any]],
                                                      gold: list[str]) -> None:
    python, page = runs_of(tmp_path, answers, gold)
    for mine, theirs in zip(page["runs"], python["runs"], strict=True):
        assert (mine["name"], mine["n"], mine["correct"]) == (theirs["name"], theirs["n"], theirs["correct"])
        assert mine["accuracy"] == pytest.approx(theirs["accuracy"], abs=1e-12)
        assert mine["ci"] == pytest.approx(theirs["ci"]["accuracy"], abs=1e-12)  # Wilson, not a bootstrap
    for mine, theirs in zip(page["pairs"], python["pairs"], strict=True):
        assert (mine["a"], mine["b"], mine["n"], mine["only_a"], mine["only_b"], mine["differs"], mine["kappa_n"]) == (
            theirs["a"], theirs["b"], theirs["n"], theirs["only_a"], theirs["only_b"], theirs["differs"],
            theirs["kappa_n"])
        for field in ("difference", "mcnemar_p", "mcnemar_p_holm", "detectable_difference", "kappa"):
            assert mine[field] == pytest.approx(theirs[field], abs=1e-12), field
    assert page["verdict"] == python["verdict"]


def test_the_small_runs_are_what_the_test_means_them_to_be(tmp_path: Path) -> None:
    small, _ = runs_of(tmp_path / "small", SMALL, GOLD)
    large, _ = runs_of(tmp_path / "large", LARGE, GOLD_40)
    assert not any(p["differs"] for p in small["pairs"]) and small["verdict"].startswith("No pair differs")
    assert any(p["differs"] for p in large["pairs"]) and "is more accurate than" in large["verdict"]
    # κ leaves out the samples either run failed on: a-b share 8 labelled samples of 10 (a's s9, b's s6).
    assert small["pairs"][0]["kappa_n"] == 8


def test_the_page_statistics_are_the_harness_statistics() -> None:
    cases = [(k, n) for n in (1, 3, 7, 40, 333) for k in sorted({0, 1, n // 2, n - 1, n}) if 0 <= k <= n]
    ps = [0.04, 0.01, 0.5, 0.03, 0.01, 1.0]
    mdd = [(n, share, alpha) for n in (10, 40, 400) for share in (0.0, 0.1, 0.35) for alpha in (0.05, 0.05 / 6)]
    quantiles = [1e-12, 0.001, 0.02425, 0.2, 0.5, 0.8, 0.975, 0.9999, 1 - 1e-10]
    money = [None, 0.0, 2.7e-5, 0.000123, 0.004, 0.0125, 12.34, 1234.5]
    page = run_module("stats.js", "({wilson: data.cases.map(([k, n]) => m.wilson(k, n)), holm: m.holm(data.ps), "
                      "mdd: data.mdd.map(([n, s, a]) => m.minimumDetectableDifference(n, s, a)), "
                      "q: data.q.map(p => m.normalQuantile(p)), money: data.money.map(v => m.dollarsText(v))})",
                      {"cases": cases, "ps": ps, "mdd": mdd, "q": quantiles, "money": money})
    for (k, n), got in zip(cases, page["wilson"], strict=True):
        assert got == pytest.approx(list(wilson(k, n)), abs=1e-12), (k, n)
    assert page["wilson"][cases.index((3, 3))][0] < 1  # never the degenerate [1, 1]
    assert page["holm"] == pytest.approx(holm(ps), abs=1e-15)
    for (n, share, alpha), got in zip(mdd, page["mdd"], strict=True):
        assert got == pytest.approx(minimum_detectable_difference(n, share, alpha=alpha), abs=1e-12)
    assert page["q"] == pytest.approx([NormalDist().inv_cdf(p) for p in quantiles], rel=1e-13)
    assert page["money"] == [dollars_text(v) for v in money]
