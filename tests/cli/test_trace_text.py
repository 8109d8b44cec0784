"""``verify --trace --trace-text``: the trace's llm_call lines carry each call's prompt and reply; the flag
alone (nothing to write the text to) is a one-line error, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_main import NO_TOOLS, assert_clean_error, run

CLAIM = "Paris is the capital of France."


def test_trace_text_writes_each_calls_prompt_and_reply(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    result = run("verify", CLAIM, *NO_TOOLS, "--no-scoring", "--rounds", "1", "--json", "--trace", str(trace),
                 "--trace-text")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    calls = [e for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "llm_call"]
    assert calls and all(c["messages"] and c["reply"] for c in calls)
    answers = [c for c in calls if c["prompt"] == "debate_answer"]
    assert all(CLAIM in c["messages"][-1]["content"] for c in answers)
    responses = {t["response"] for t in verdict["rounds"][0]["turns"]}
    assert responses <= {c["reply"] for c in answers}  # each turn's answer is the reply its call got


def test_trace_text_needs_a_trace() -> None:
    result = run("verify", CLAIM, *NO_TOOLS, "--trace-text")
    assert result.returncode == 2
    assert_clean_error(result, "--trace-text adds the text of model calls to the trace: give --trace FILE too")
