"""``llm_started`` means sent: it is emitted once the role's concurrency and the
server's in-flight limit admit the call, so with one slot no two calls are ever started at once in the
trace, and the server never sees two requests overlap."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import Message
from factdebate.run.build import build_resources
from tests.fake_openai import FakeOpenAI
from tests.llm.test_in_flight import settings_for

MSG: list[Message] = [{"role": "user", "content": "Is Paris in France?"}]


async def test_with_one_slot_each_call_starts_after_the_last_one_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[dict[str, object]] = []
    with FakeOpenAI(reply="ok", one_at_a_time=True, delay=0.1) as server, \
            recording(RunRecorder([events.append])):
        settings = settings_for(server, monkeypatch, timeout=30, max_in_flight=1)
        resources = build_resources(settings)  # type: ignore[arg-type]
        llms = [resources.llm("debater"), resources.llm("judge")]
        await asyncio.gather(*(llm.complete(MSG, agent=str(i)) for i in range(3) for llm in llms))
    kinds = [e["event"] for e in events if e["event"] in ("llm_started", "llm_call")]
    assert kinds == ["llm_started", "llm_call"] * 6  # never two started before one ended
    assert server.peak == 1
