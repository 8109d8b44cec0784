"""Dollars per model in ``compare``: runs whose roles used models at different prices are priced model by
model, discarded speculative work included; a model without a price gives no total and is named; a run
recorded before usage was kept per model keeps the old rule. Values checked against sums done by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.runtime import RunRecorder, SpeculativeRecorder
from factdebate.eval.compare import compare_runs
from factdebate.eval.pricing import parse_prices
from factdebate.eval.report.summary import RESULTS
from tests.eval.compare.test_compare import A, B, write_run

USAGE = {"llm_calls": 5, "prompt_tokens": 3000, "completion_tokens": 300, "reasoning_tokens": 0, "tool_calls": 0,
         "seconds": 1.0}
# Run A (a debate on a small model judged by a big one): per sample, 4 small calls plus one discarded
# speculative call, and 1 big call.
A_MODELS = {"openai:small": {"llm_calls": 4, "prompt_tokens": 1000, "completion_tokens": 200,
                             "speculative_calls": 1, "speculative_prompt_tokens": 300,
                             "speculative_completion_tokens": 50},
            "openai:big": {"llm_calls": 1, "prompt_tokens": 2000, "completion_tokens": 100}}
# Run B: the small model and one nobody priced.
B_MODELS = {"openai:small": {"llm_calls": 2, "prompt_tokens": 500, "completion_tokens": 100},
            "openai:other": {"llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10}}


def with_usage_by_model(directory: Path, by_model: dict[str, Any]) -> Path:
    """Adds the per-model usage to every finished record (an errored one reports no usage)."""
    file = directory / RESULTS
    rows = [json.loads(line) for line in file.read_text().splitlines()]
    file.write_text("".join(json.dumps({**r, **({} if r.get("error") else {"usage_by_model": by_model})}) + "\n"
                            for r in rows))
    return directory


def test_each_model_is_priced_at_its_own_rate(tmp_path: Path) -> None:
    a = with_usage_by_model(write_run(tmp_path / "a", "a", A, USAGE, "openai:small"), A_MODELS)
    b = with_usage_by_model(write_run(tmp_path / "b", "b", B, USAGE, "openai:small"), B_MODELS)
    compare_runs([a, b], tmp_path / "out", prices=parse_prices(["small=1,2", "openai:big=3,4"]))
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    ra, rb = data["runs"]
    # A, per sample: small (1000 + 300) x $1/M + (200 + 50) x $2/M = $0.0018; big 2000 x $3/M + 100 x $4/M
    # = $0.0064; $0.0082 a sample, 10 samples (the unparsed one was paid for too), 7 correct.
    assert ra["cost"]["dollars_basis"] == "per model"
    assert ra["cost"]["by_model"]["openai:small"]["dollars"] == pytest.approx(0.018)
    assert ra["cost"]["by_model"]["openai:big"]["dollars"] == pytest.approx(0.064)
    assert ra["cost"]["by_model"]["openai:small"]["speculative_prompt_tokens"] == 3000
    assert ra["cost"]["dollars"] == pytest.approx(0.082)
    assert ra["cost"]["dollars_per_claim"] == pytest.approx(0.0082)
    assert ra["cost"]["dollars_per_correct"] == pytest.approx(0.082 / 7)
    # B: 9 samples with usage (one errored); small 9 x (500 x 1 + 100 x 2) / 1M = $0.0063; other: no price,
    # so no total, rather than one that leaves a model out.
    assert rb["cost"]["by_model"]["openai:small"]["dollars"] == pytest.approx(0.0063)
    assert rb["cost"]["by_model"]["openai:other"]["dollars"] is None
    assert rb["cost"]["dollars"] is None and rb["cost"]["dollars_note"] == "no --price for openai:other"
    text = (tmp_path / "out" / "compare.md").read_text()
    assert "- a: $0.0820 in all: openai:big $0.0640 (20000 prompt / 1000 completion tokens); openai:small " \
           "$0.0180 (10000 prompt / 2000 completion tokens + 3000 / 500 speculative)" in text
    assert "- b: no dollars, no --price for openai:other: " in text
    assert "the tokens of discarded speculative work included" in text


def test_a_run_recorded_before_usage_by_model_keeps_the_old_rule(tmp_path: Path) -> None:
    """Two models at different prices and only totals: no dollars, and why; one model: priced from totals."""
    a = write_run(tmp_path / "a", "a", A, USAGE, "openai:small")
    b = write_run(tmp_path / "b", "b", B, USAGE, "openai:small")
    summary = b / "summary.json"  # where compare reads a run's settings
    info = json.loads(summary.read_text())
    info["settings"]["llm"]["judge"] = "openai:big"
    summary.write_text(json.dumps(info))
    compare_runs([a, b], tmp_path / "out", prices=parse_prices(["small=1,2", "big=3,4"]))
    ra, rb = json.loads((tmp_path / "out" / "compare.json").read_text())["runs"]
    # A: 10 x (3000 x $1/M + 300 x $2/M) = $0.036 from its totals.
    assert ra["cost"]["dollars_basis"] == "run totals" and ra["cost"]["by_model"] is None
    assert ra["cost"]["dollars"] == pytest.approx(0.036)
    assert rb["cost"]["dollars"] is None and "usage is not kept per model" in rb["cost"]["dollars_note"]
    text = (tmp_path / "out" / "compare.md").read_text()
    assert "- a: $0.0360 in all (recorded before usage was kept per model: priced from its totals, its " \
           "speculative tokens left out)" in text


def test_discarded_speculation_is_booked_per_model_split_into_prompt_and_completion() -> None:
    parent = RunRecorder()
    kept, dropped = SpeculativeRecorder(parent), SpeculativeRecorder(parent)
    for recorder, model in ((kept, "m-kept"), (dropped, "m-dropped")):
        used = recorder.model_usage(model)
        used.llm_calls, used.prompt_tokens, used.completion_tokens = 2, 70, 9
        recorder.role_usage("debater").llm_calls = 2
    # A third request sent, then cancelled in flight: counted when sent (llm_calls counts requests sent,
    # as llm/model.py books them), its tokens unknown.
    dropped.model_usage("m-dropped").llm_calls += 1
    dropped.role_usage("debater").llm_calls += 1
    dropped.call_cancelled("debater", "m-dropped")
    kept.commit()
    dropped.discard()
    assert parent.usage_by_model["m-kept"].model_dump(include={"llm_calls", "prompt_tokens", "speculative_calls"}) \
        == {"llm_calls": 2, "prompt_tokens": 70, "speculative_calls": 0}
    wasted = parent.usage_by_model["m-dropped"]
    assert (wasted.llm_calls, wasted.prompt_tokens, wasted.speculative_calls, wasted.speculative_prompt_tokens,
            wasted.speculative_completion_tokens) == (0, 0, 3, 70, 9)
    assert parent.usage_by_role["debater"].speculative_calls == 3  # the per-role count agrees
