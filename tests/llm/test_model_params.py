"""OpenAI's reasoning models (o-series, GPT-5) refuse ``max_tokens`` and a ``temperature`` other than the
default with HTTP 400; the backend sends ``max_completion_tokens`` (with room for hidden reasoning), learns
a refused parameter once per model, leaves it out from then on, counts reasoning tokens and traces what it
changed. The fake server answers those parameters as OpenAI does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.llm.model_params import ModelParams, reasoning_family
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.util.errors import FactDebateError
from tests.fake_openai import REASONING_TOKENS, FakeOpenAI, from_schema
from tests.readiness import run as run_to_end

USER: list[Message] = [{"role": "user", "content": "Claim: Paris is in France."}]


def llm(server: FakeOpenAI, model: str, reasoning_tokens: int = 1000) -> LLM:
    return LLM(OpenAIBackend(model, base_url=server.base_url, reasoning_tokens=reasoning_tokens), "debater")


def sent(server: FakeOpenAI) -> list[dict[str, object]]:
    """What each request carried besides the model, the messages and the stream fields (every call is asked
    as a stream by default, llm/openai_stream.py; this server answers each one plainly)."""
    return [{k: v for k, v in r["body"].items() if k not in ("model", "messages", "stream", "stream_options")}
            for r in server.requests]


async def test_a_reasoning_model_gets_max_completion_tokens_and_learns_once_that_it_refuses_temperature(
        caplog: pytest.LogCaptureFixture) -> None:
    events: list[dict[str, object]] = []
    with FakeOpenAI(reply="SUPPORTS") as server, recording(RunRecorder([events.append])) as run:
        model = llm(server, "gpt-5-mini")
        first = await model.complete(USER, GenParams(temperature=0.0, max_tokens=12))
        second = await model.complete(USER, GenParams(temperature=0.0, max_tokens=12))
    assert first.text == second.text == "SUPPORTS"
    # The first call is refused once for its temperature and sent again without it; the second call is
    # sent without it from the start. The cap is the answer's 12 tokens plus the room for reasoning.
    assert sent(server) == [{"temperature": 0.0, "max_completion_tokens": 1012}, {"max_completion_tokens": 1012},
                            {"max_completion_tokens": 1012}]
    adjusted = [(e["param"], e["change"]) for e in events if e["event"] == "llm_params_adjusted"]
    assert adjusted == [("max_tokens", "renamed to max_completion_tokens"), ("temperature", "dropped")]
    refusal = next(e for e in events if e.get("param") == "temperature")
    assert "Only the default (1) value is supported" in str(refusal["reason"])
    calls = [e for e in events if e["event"] == "llm_call"]
    assert [c["reasoning_tokens"] for c in calls] == [REASONING_TOKENS] * 2
    assert run.total().reasoning_tokens == 2 * REASONING_TOKENS
    logged = [r.getMessage() for r in caplog.records if r.name == "factdebate.llm"]
    assert len(logged) == 2 and "'temperature' is left out" in logged[1]


async def test_what_was_learned_is_kept_for_the_process_and_traced_in_each_run() -> None:
    with FakeOpenAI(reply="SUPPORTS") as server:
        await llm(server, "o3-mini").complete(USER, GenParams())
        events: list[dict[str, object]] = []
        with recording(RunRecorder([events.append])):  # a later run, another backend of the same model
            await llm(server, "o3-mini").complete(USER, GenParams())
            await llm(server, "o3-mini").complete(USER, GenParams())
    # Three calls, one refusal: the temperature was sent once and never again.
    assert len(server.requests) == 4 and sum("temperature" in r["body"] for r in server.requests) == 1
    assert [e["param"] for e in events if e["event"] == "llm_params_adjusted"] == ["max_tokens", "temperature"]


async def test_a_model_unknown_by_name_learns_max_completion_tokens_from_the_400() -> None:
    # An Azure deployment, say, named by its owner: only the server's answer says it is a reasoning model.
    with FakeOpenAI(reply="SUPPORTS", reasoning=r"^team-thinker$") as server:
        reply = await llm(server, "team-thinker", reasoning_tokens=500).complete(USER, GenParams(max_tokens=20))
    assert reply.text == "SUPPORTS" and reply.reasoning_tokens == REASONING_TOKENS
    assert sent(server) == [{"temperature": 0.0, "max_tokens": 20},
                            {"temperature": 0.0, "max_completion_tokens": 520},
                            {"max_completion_tokens": 520}]


async def test_other_models_are_sent_what_the_call_asks_for_and_other_400s_stay_errors() -> None:
    with FakeOpenAI(reply="SUPPORTS", failures=[(400, None)]) as server:
        with pytest.raises(FactDebateError, match="HTTP 400"):
            await llm(server, "gpt-4o-mini").complete(USER, GenParams(temperature=0.3, max_tokens=20))
        await llm(server, "gpt-4o-mini").complete(USER, GenParams(temperature=0.3, max_tokens=20))
    assert sent(server) == [{"temperature": 0.3, "max_tokens": 20}] * 2


async def test_reasoning_that_eats_the_whole_cap_says_once_which_setting_to_raise(
        caplog: pytest.LogCaptureFixture) -> None:
    with FakeOpenAI(reply="") as server:
        model = llm(server, "gpt-5-nano", reasoning_tokens=100)
        replies = [await model.complete(USER, GenParams(temperature=1.0, max_tokens=20)) for _ in range(2)]
    assert [(r.text, r.reasoning_tokens) for r in replies] == [("", 120)] * 2
    said = [r.getMessage() for r in caplog.records if "raise llm.reasoning_tokens" in r.getMessage()]
    assert len(said) == 1 and "120 of it reasoning" in said[0]


def test_a_model_refusing_both_token_fields_is_an_error_not_a_loop() -> None:
    params = ModelParams("local-model")
    asked = params.arguments(GenParams(max_tokens=10), 100)
    assert params.learn("max_tokens", "unsupported_parameter", "no", asked)
    assert params.arguments(GenParams(max_tokens=10), 100) == {"temperature": 0.0, "max_completion_tokens": 110}
    again = params.arguments(GenParams(max_tokens=10), 100)
    assert not params.learn("max_completion_tokens", "unsupported_parameter", "no", again)
    assert not params.learn("response_format", "unsupported_parameter", "no", {**again, "response_format": {}})
    assert not params.learn("temperature", "invalid_type", "no", again)  # not a refusal of the parameter


def test_reasoning_families_by_name() -> None:
    assert all(map(reasoning_family, ["o1", "o1-mini", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini",
                                      "gpt-5.1", "openai/gpt-5-nano", "o3-2025-04-16"]))
    assert not any(map(reasoning_family, ["gpt-4o-mini", "gpt-4.1", "llama3", "olmo-2", "local-model", "gpt-50"]))


@pytest.mark.parametrize("method, flags", [
    ("tool-mad", ["--agents", "none,none", "--no-scoring"]),
    ("mermaid", ["--mermaid-servers", "search", "--mermaid-memory", "off"]),
    ("dpd", ["--dpd-tools", "search", "--dpd-min-rounds", "0", "--dpd-max-rounds", "0"]),
])
def test_verify_runs_each_method_on_gpt_5_mini(method: str, flags: list[str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
                                               caplog: pytest.LogCaptureFixture) -> None:
    trace = tmp_path / "trace.jsonl"
    with FakeOpenAI(reply=from_schema("The documents agree with the claim.")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = run(["verify", "Paris is the capital of France.", "--method", method, "--llm", "openai:gpt-5-mini",
                    "--no-cache", "--json", "--trace", str(trace), *flags])
    out = capfd.readouterr()
    assert code == 0, out.err
    verdict = json.loads(out.out)
    assert verdict["label"] is not None and verdict["usage"]["reasoning_tokens"] > 0
    refused = [r for r in server.requests if "temperature" in r["body"]]
    assert len(refused) == 1 and not [r for r in server.requests if "max_tokens" in r["body"]]
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    adjusted = {(e["param"], e["change"]) for e in events if e["event"] == "llm_params_adjusted"}
    assert adjusted == {("max_tokens", "renamed to max_completion_tokens"), ("temperature", "dropped")}
    assert [r.getMessage() for r in caplog.records if "'temperature' is left out" in r.getMessage()]


def test_the_command_line_says_once_on_stderr_what_the_model_refused(tmp_path: Path) -> None:
    import os
    import sys

    exe = str(Path(sys.executable).with_name("factdebate"))
    with FakeOpenAI(reply=from_schema("The documents agree with the claim.")) as server:
        result = run_to_end([exe, "verify", "Paris is the capital of France.", "--llm", "openai:gpt-5-mini",
                             "--agents", "none,none", "--no-scoring", "--no-cache", "--json"],
                            env={**os.environ, "OPENAI_BASE_URL": server.base_url}, what="factdebate verify")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "openai:gpt-5-mini" in line]
    assert len(said) == 2 and "'temperature' is left out" in said[1], result.stderr


def test_an_evaluation_on_a_reasoning_model_reports_its_hidden_reasoning(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Reasoning tokens are billed as completion tokens: the run's cost, summary and report say how many."""
    out = tmp_path / "run"
    with FakeOpenAI(reply=from_schema("The documents agree with the claim.")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = run(["eval", "--method", "cot", "--dataset", "countries", "--limit", "2", "--llm",
                    "openai:gpt-5-mini", "--no-cache", "-o", str(out)])
    assert code == 0
    calls = len([r for r in server.requests if "temperature" not in r["body"]])  # answered, not refused
    cost = json.loads((out / "summary.json").read_text())["metrics"]["cost"]["reasoning_tokens"]
    assert cost["total"] == calls * REASONING_TOKENS and calls >= 2
    assert f"| reasoning_tokens | {calls * REASONING_TOKENS / 2:.1f} |" in (out / "summary.md").read_text()
    assert code == run(["report", str(out), "-o", str(tmp_path / "report")])
    lines = (tmp_path / "report" / "report.md").read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| run |"))
    column = lines[head].split(" | ").index("tokens/claim (reasoning)")
    assert lines[head + 2].split(" | ")[column].endswith(f" ({calls * REASONING_TOKENS / 2:.0f})")
