"""``compare`` on two runs whose outcomes are known, every statistic checked against a value worked out by
hand; the refusal of runs on other samples; the same bytes from the same folders."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from factdebate.eval.compare import compare_runs
from factdebate.eval.compare.plots import _shown_names
from factdebate.eval.pricing import parse_prices
from factdebate.eval.report.metrics import macro_f1, outcome_from_record
from factdebate.eval.report.summary import RESULTS, RUN, summarize
from factdebate.util.errors import InputError

GOLD = ["SUPPORTS"] * 5 + ["REFUTES"] * 5
S, R = "SUPPORTS", "REFUTES"
# None: unparsed; "error": the sample errored. A gets 7 of 10 right, B 4 of 10.
A = [S, S, S, S, R, R, R, R, S, None]
B = [S, R, R, S, R, R, "error", S, S, R]


def write_run(directory: Path, name: str, answers: list[str | None], usage: dict[str, float], model: str,
              ids: list[str] | None = None, sha: str = "draw-1", gold: list[str] | None = None) -> Path:
    """A run directory as `factdebate eval` leaves it: run.json, results.jsonl, summary.json."""
    ids = ids or [f"s{i}" for i in range(len(answers))]
    directory.mkdir(parents=True)
    settings = {"method": "cot", "llm": {"debater": model}, "retrieval": {"evidence": "given"}}
    info: dict[str, Any] = {"name": name, "method": "cot", "dataset": "hand", "labels": [S, R], "seed": 0,
                            "limit": None, "unit": "claim", "settings": settings, "deviations": [],
                            "evidence": {"used": "given", "provided": "own"}}
    (directory / RUN).write_text(json.dumps({**info, "provenance": {"dataset": {"samples_sha256": sha}}}))
    lines = []
    for sample_id, gold_label, answer in zip(ids, gold or GOLD, answers, strict=False):
        record: dict[str, Any] = {"id": sample_id, "gold": gold_label, "claim": f"Claim {sample_id} | with a bar"}
        if answer == "error":
            record.update(error="model timed out", predicted=None, correct=False)
        else:
            record.update(predicted=answer, correct=answer == gold_label, usage=usage)
        lines.append(json.dumps(record))
    (directory / RESULTS).write_text("\n".join(lines) + "\n")
    summarize(directory, info, ids, complete=True)
    return directory


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    a = write_run(tmp_path / "a", "a", A, {"llm_calls": 2, "prompt_tokens": 100, "completion_tokens": 20,
                                            "reasoning_tokens": 5, "tool_calls": 1, "seconds": 1.5}, "openai:m-a")
    b = write_run(tmp_path / "b", "b", B, {"llm_calls": 3, "prompt_tokens": 50, "completion_tokens": 10,
                                            "reasoning_tokens": 0, "tool_calls": 0, "seconds": 0.5}, "openai:m-b")
    return a, b


def test_every_statistic_matches_the_hand_computation(tmp_path: Path) -> None:
    a, b = two_runs(tmp_path)
    compare_runs([a, b], tmp_path / "out", prices=parse_prices(["m-a=2,10"]), seed=0)
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    ra, rb = data["runs"]
    assert (ra["correct"], ra["accuracy"], rb["correct"], rb["accuracy"]) == (7, 0.7, 4, 0.4)
    assert ra["unparsed"] == ["s9"] and rb["errored"] == {"s6": "model timed out"}
    # A's SUPPORTS: predicted 5 (s0-s3, s8), right 4 -> P 4/5, R 4/5; REFUTES: predicted 4, right 3 of 5.
    assert ra["per_class"][S]["precision"] == pytest.approx(0.8) and ra["per_class"][R]["recall"] == pytest.approx(0.6)
    assert ra["confusion"]["matrix"] == [[4, 1, 0, 0], [1, 3, 1, 0]]  # columns S, R, UNPARSED, ERROR
    (pair,) = data["pairs"]
    # Both right s0 s3 s5; A only s1 s2 s6 s7; B only s9; both wrong s4 s8.
    assert (pair["both_right"], pair["only_a"], pair["only_b"], pair["both_wrong"]) == (3, 4, 1, 2)
    assert pair["difference"] == pytest.approx(0.3)
    assert pair["mcnemar_p"] == 12 / 32  # 2 * P(X <= 1 | n=5, p=1/2) = 2 * 6/32
    # κ over the 8 samples both answered with a label (not s6, s9): agree on s0 s3 s4 s5 s8, p_o = 5/8;
    # A: S 5, R 3; B: S 4, R 4; p_e = (5*4 + 3*4) / 64 = 1/2; kappa = (5/8 - 1/2) / (1/2) = 1/4.
    assert (pair["kappa"], pair["kappa_n"]) == (pytest.approx(1 / 4), 8)
    # With UNPARSED and ERROR as answers of their own: p_o = 1/2; A: S 5, R 4, UNPARSED 1; B: S 4, R 5,
    # ERROR 1; p_e = (5*4 + 4*5) / 100 = 0.4; kappa = 0.1 / 0.6.
    assert pair["kappa_failures_as_answers"] == pytest.approx(1 / 6)
    assert pair["failed_either"] == 2  # s6 (B errored), s9 (A unparsed)
    delta = np.array([a_ok - b_ok for a_ok, b_ok in zip(
        [x == g for x, g in zip(A, GOLD, strict=True)], [x == g for x, g in zip(B, GOLD, strict=True)], strict=True)],
        dtype=float)
    resampled = delta[np.random.default_rng(0).integers(0, 10, size=(1000, 10))].mean(axis=1)
    assert pair["ci"] == [float(np.percentile(resampled, 2.5)), float(np.percentile(resampled, 97.5))]
    # Macro-F1, A: SUPPORTS P 4/5 R 4/5 F1 4/5, REFUTES P 3/4 R 3/5 F1 2/3 -> 11/15; B: SUPPORTS P 2/4 R 2/5
    # F1 4/9, REFUTES (s1 s2 s4 s5 s9, right s5 s9) P 2/5 R 2/5 F1 2/5 -> 19/45. The paired interval
    # resamples the same claims for both, each resample's macro-F1 as metrics.macro_f1 defines it (checked
    # here claim list by claim list).
    assert pair["macro_f1_difference"] == pytest.approx(11 / 15 - 19 / 45)
    outcomes = {name: [outcome_from_record(json.loads(line)) for line in (d / RESULTS).read_text().splitlines()]
                for name, d in (("a", a), ("b", b))}
    index = np.random.default_rng(0).integers(0, 10, size=(1000, 10))
    f1_deltas = [macro_f1([outcomes["a"][i] for i in row], (S, R)) - macro_f1([outcomes["b"][i] for i in row], (S, R))
                 for row in index]
    assert pair["macro_f1_ci"] == pytest.approx([float(np.percentile(f1_deltas, 2.5)),
                                                 float(np.percentile(f1_deltas, 97.5))])
    # Cost per correct verdict: A spent 10 x 2 calls on 7 correct; B 9 x 3 (the errored sample reports none)
    # on 4 correct.
    assert ra["cost"]["per_correct"]["llm_calls"] == pytest.approx(20 / 7)
    assert rb["cost"]["per_correct"]["llm_calls"] == pytest.approx(27 / 4)
    assert rb["cost"]["per_correct"]["seconds"] == pytest.approx(4.5 / 4)
    assert ra["cost"]["per_claim"]["reasoning_tokens"] == 5 and rb["cost"]["per_claim"]["llm_calls"] == 3
    # Dollars: only A's model has a price; 1000 prompt x $2/M + 200 completion x $10/M = $0.004.
    assert ra["cost"]["dollars"] == pytest.approx(0.004)
    assert ra["cost"]["dollars_per_correct"] == pytest.approx(0.004 / 7)
    assert rb["cost"]["dollars"] is None and rb["cost"]["dollars_note"] == "no --price for openai:m-b"
    # Tokens per claim: A 120 at 0.7, B 60 at 0.4: neither beats the other on both, both on the front.
    assert data["pareto"] == {"cost_axis": "tokens", "front": ["a", "b"], "not_distinguishable": [], "behind": {}}
    assert [d["id"] for d in data["disagreements"]] == ["s1", "s2", "s6", "s7", "s9"]
    assert data["disagreements"][2]["answers"]["b"] == {"answer": "ERROR", "correct": False,
                                                        "record": "../b/results.jsonl#L7"}
    text = (tmp_path / "out" / "compare.md").read_text()
    assert "| a | b | 10 | 4 | 1 | 3 | 2 | 0.300 [" in text and "| 0.375 | 0.375 |" in text
    assert "| 0.250 (n = 8) | 2 |" in text
    assert f"| {11 / 15 - 19 / 45:.3f} [" in text
    assert "[ERROR ✗](../b/results.jsonl#L7)" in text and "Claim s6 \\| with a bar" in text
    assert "b: no dollars, no --price for openai:m-b" in text
    assert "llm.debater" in text and "differ" in text  # the two runs used different models: said


def test_the_same_folders_give_the_same_bytes(tmp_path: Path) -> None:
    a, b = two_runs(tmp_path)
    first = compare_runs([a, b], tmp_path / "one")
    second = compare_runs([a, b], tmp_path / "two")
    assert {p.name for p in first} == {"compare.md", "compare.json", "cost_vs_accuracy.png", "cost_vs_accuracy.svg",
                                       "paired_differences.png", "paired_differences.svg"}
    for x, y in zip(first, second, strict=True):
        assert x.read_bytes() == y.read_bytes(), x.name


def test_runs_on_other_samples_are_refused_unless_the_intersection_is_asked_for(tmp_path: Path) -> None:
    a, _ = two_runs(tmp_path)
    other = write_run(tmp_path / "c", "c", B[:6], {"llm_calls": 1}, "openai:m-b",
                      ids=["s0", "s1", "s2", "s3", "s4", "x5"], sha="draw-2")
    with pytest.raises(InputError, match=r"not on the same samples .* 5 samples they share with --intersection"):
        compare_runs([a, other], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    compare_runs([a, other], tmp_path / "out", intersection=True)
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert data["samples"]["n"] == 5 and data["samples"]["intersection"] is True
    assert data["runs"][0]["n"] == 5 and data["pairs"][0]["n"] == 5
    assert "compared on the intersection: the 5 samples" in (tmp_path / "out" / "compare.md").read_text()


def test_same_ids_but_another_draw_is_refused(tmp_path: Path) -> None:
    a, _ = two_runs(tmp_path)
    other = write_run(tmp_path / "c", "c", B, {"llm_calls": 1}, "openai:m-b", sha="draw-2")
    with pytest.raises(InputError, match="sha256 draw-2"):
        compare_runs([a, other], tmp_path / "out")


def test_bad_prices_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="expected MODEL=IN,OUT"):
        parse_prices(["gpt-4o=2"])
    with pytest.raises(InputError, match="cannot be negative"):
        parse_prices(["gpt-4o=-1,2"])
    assert parse_prices(["openai:gpt-4o=2.5,10"])["openai:gpt-4o"].completion == 10.0


def test_runs_named_by_long_paths_are_drawn_by_their_folders_names(tmp_path: Path) -> None:
    """Two runs with one name are told apart by their paths; as tick labels the whole paths left no room for the
    axes, and matplotlib warned "Tight layout not applied" on the user's terminal."""
    deep = tmp_path / "experiments" / "a-rather-long-project-folder-name" / "runs-of-november"
    usage = {"llm_calls": 2, "prompt_tokens": 100, "completion_tokens": 20, "seconds": 1.5}
    first = write_run(deep / "baseline", "same", A, usage, "openai:m-a")
    second = write_run(deep / "with-the-new-prompt", "same", B, usage, "openai:m-a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_runs([first, second], tmp_path / "out")
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert {run["name"] for run in data["runs"]} == {str(first), str(second)}  # the record keeps the paths
    assert _shown_names([str(first), str(second)]) == {str(first): "baseline",
                                                       str(second): "with-the-new-prompt"}
    twins = [str(deep / "x" / "run"), str(deep / "y" / "run")]  # folders of one name: the paths, ends kept
    shown = _shown_names(twins)
    assert all(len(text) <= 40 and text.endswith("/run") for text in shown.values()) and len(set(shown.values())) == 2
