"""A slow model server that serves one request at a time (a laptop's llama.cpp or Ollama) must not fail
claims: requests in flight are limited per endpoint, for every role and every set of resources of the
process, and the wait for a slot never counts against a request's timeout; a timeout is retried; when
the retries run out, the error names the settings to change; resuming accepts a changed limit."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.llm.in_flight import default_limit
from factdebate.run.build import build_resources
from factdebate.run.resume import settings_changes
from factdebate.settings.load import load_settings
from factdebate.settings.options import options_to_overrides
from tests.fake_openai import FakeOpenAI

MSG = [{"role": "user", "content": "Is Paris in France?"}]


def settings_for(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, **llm: object) -> object:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    return load_settings(overrides={"llm": {"debater": "openai:a", "judge": "openai:b", "cache": False,
                                            "constrain": "none", **llm}}, environ={})


async def test_many_concurrent_calls_to_a_one_slot_server_all_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each answer takes 0.3 s and the client waits 1.5 s for one: 8 calls queued at the server would time out
    # (the last would wait 2.4 s), while one answer on a loaded machine keeps 1.2 s of room.
    with FakeOpenAI(reply="ok", one_at_a_time=True, delay=0.3) as server:
        settings = settings_for(server, monkeypatch, timeout=1.5, retry_budget=1.5)
        # Two models, two roles each, and two sets of resources (as the service keeps per settings): one limit.
        first, second = build_resources(settings), build_resources(settings)  # type: ignore[arg-type]
        llms = [first.llm("debater"), first.llm("judge"), second.llm("debater"), second.llm("judge")]
        completions = await asyncio.gather(*(llm.complete(MSG, agent=str(i)) for i in range(2) for llm in llms))
    assert [c.text for c in completions] == ["ok"] * 8
    assert server.peak == 1 and len(server.requests) == 8  # one at a time, none retried


async def test_a_timed_out_try_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first answer comes after the timeout, which is as long as the retry budget (120 s each by default).
    # The second try must answer within that timeout too: 0.5 s was too short for a loopback answer on a
    # loaded machine (1 failure in 20 at load 16), so 2 s, the first answer held back twice as long.
    with FakeOpenAI(reply="ok", delays=[4.0]) as server:
        settings = settings_for(server, monkeypatch, timeout=2.0, retry_budget=2.0)
        completion = await build_resources(settings).llm("debater").complete(MSG)  # type: ignore[arg-type]
    assert completion.text == "ok" and len(server.requests) >= 1


async def test_when_timeouts_exhaust_the_retries_the_error_names_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delay=1.0) as server:
        settings = settings_for(server, monkeypatch, timeout=0.2, retries=2)
        with pytest.raises(EndpointUnavailableError) as caught:
            await build_resources(settings).llm("debater").complete(MSG)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "after 2 attempt(s)" in message and "llm.timeout" in message and "0.2 s" in message, message
    assert "llm.max_in_flight" in message and "--llm-max-in-flight" in message, message


def test_the_default_limit_suits_a_local_server_and_a_hosted_api() -> None:
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1"):
        assert default_limit(local) == 1, local
    assert default_limit("https://api.openai.com/v1") == 64
    assert default_limit("http://gpu-box.internal:8000/v1") == 64


def test_the_limit_is_a_flag_and_a_speed_only_setting() -> None:
    overrides = options_to_overrides({"llm_max_in_flight": 4})
    assert overrides == {"llm": {"max_in_flight": 4}}
    before = load_settings(environ={}).model_dump(mode="json")
    after = load_settings(overrides=overrides, environ={}).model_dump(mode="json")
    assert after["llm"]["max_in_flight"] == 4
    assert settings_changes(before, after) == []  # a run may resume with another limit
