"""A request the server is slow to answer is slow, not hung: however much faster the endpoint's
other answers were, a try is never given up within its own timeout (``llm.timeout``), and a request that
never answers is ended by that timeout and tried again behind the others. With nobody
waiting, a slow answer keeps its whole timeout. The speed itself is measured in
benchmarks/hung_calls.py; these tests check the behaviour with the patience shortened."""

from __future__ import annotations

import asyncio
import time

import pytest

from factdebate.llm import hung_calls
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from tests.fake_openai import FakeOpenAI

MSG = [{"role": "user", "content": "Is Paris in France?"}]
WARM = hung_calls.MIN_ANSWERS  # answers the endpoint gives before a try may be given up


@pytest.fixture(autouse=True)
def short_patience(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hung_calls, "MIN_PATIENCE", 0.5)
    monkeypatch.setattr(hung_calls, "POLL", 0.05)


def llm_for(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, timeout: float) -> object:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    settings = load_settings(overrides={"llm": {"debater": "openai:a", "cache": False, "constrain": "none",
                                                "timeout": timeout}}, environ={})
    return build_resources(settings).llm("debater")


async def test_a_request_within_its_timeout_is_not_given_up_because_others_were_faster(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # DPD gave up on judges the server answered in full at 133-334 s, within the 600 s timeout,
    # because the endpoint's earlier answers were fast. The request after the warm-up takes 1.5 s with a
    # 3 s timeout while four calls wait behind it: its patience (0.5 s here) has long passed, yet it is not
    # given up, and it is the one request the server was sent for it.
    with FakeOpenAI(reply="ok", delays=[0.0] * WARM + [1.5]) as server:
        llm = llm_for(server, monkeypatch, timeout=3.0)
        for i in range(WARM):
            await llm.complete(MSG, agent=f"warm-{i}")  # type: ignore[attr-defined]
        calls = [llm.complete(MSG, agent=f"a{i}") for i in range(5)]  # type: ignore[attr-defined]
        answers = await asyncio.gather(*calls)
    assert [a.text for a in answers] == ["ok"] * 5
    assert len(server.requests) == WARM + 5  # nothing given up, nothing sent twice


async def test_calls_waiting_behind_a_hung_request_go_on_at_its_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    # A request that never answers is ended by its timeout (not sooner), then tried again behind the
    # others, which go on meanwhile.
    with FakeOpenAI(reply="ok", delays=[0.0] * WARM + [120.0]) as server:
        llm = llm_for(server, monkeypatch, timeout=1.0)
        for i in range(WARM):
            await llm.complete(MSG, agent=f"warm-{i}")  # type: ignore[attr-defined]
        started = time.monotonic()
        calls = [llm.complete(MSG, agent=f"a{i}") for i in range(5)]  # type: ignore[attr-defined]
        answers = await asyncio.gather(*calls)
        seconds = time.monotonic() - started
    assert [a.text for a in answers] == ["ok"] * 5
    assert seconds >= 1.0  # held for its whole timeout, not given up at its 0.5 s patience


async def test_a_slow_answer_with_nobody_waiting_keeps_its_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="ok", delays=[0.0] * WARM + [1.5]) as server:
        llm = llm_for(server, monkeypatch, timeout=5.0)
        for i in range(WARM):
            await llm.complete(MSG, agent=f"warm-{i}")  # type: ignore[attr-defined]
        answer = await llm.complete(MSG, agent="slow")  # type: ignore[attr-defined]
    assert answer.text == "ok" and len(server.requests) == WARM + 1  # not given up: nobody waited


async def test_a_long_call_given_up_gets_more_patience_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every try of this call takes 1.5 s; others keep waiting. Patience 0.5 s, then 1 s, then 2 s: it finishes.
    # 1.5 s leaves 0.5 s each side of the last two patiences, so a loaded event loop cannot change the count.
    state = hung_calls.Endpoint()
    state.recent.extend([0.01] * WARM)
    state.waiting = 1

    async def slow() -> str:
        await asyncio.sleep(1.5)
        return "done"

    given_up = 0
    while True:
        try:
            result = await hung_calls.watched(state, slow(), given_up)
            break
        except hung_calls.HungCall:
            given_up += 1
    assert result == "done" and given_up == 2


async def test_no_try_is_given_up_before_its_own_timeout() -> None:
    # The same 1.5 s call with a 2 s request timeout: its patience (0.5 s) would give it up twice, but a try
    # within its timeout is slow, not hung.
    state = hung_calls.Endpoint()
    state.recent.extend([0.01] * WARM)
    state.waiting = 1

    async def slow() -> str:
        await asyncio.sleep(1.5)
        return "done"

    assert await hung_calls.watched(state, slow(), 0, timeout=2.0) == "done"
