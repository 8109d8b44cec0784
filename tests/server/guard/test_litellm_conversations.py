"""LiteLLM's guardrail route keeps the conversation its ``pre_call`` check showed for the ``post_call`` check of
the same call's reply (server/guard/litellm.py, issue 57 item 1; the route end to end: tests/guard/conformance/
test_conversations.py's LiteLLM door). Here the keeping itself: by caller and call id, so another API key
never reads it; taken once; gone after its time; the oldest dropped past the byte budget."""

from __future__ import annotations

import pytest

from factdebate.server.guard.chat_request import ChatRequest
from factdebate.server.guard.litellm import Conversations


def _chat(question: str) -> ChatRequest:
    return ChatRequest(model="m", messages=[{"role": "user", "content": question}])


def test_a_conversation_is_read_once_by_its_own_caller_and_call() -> None:
    kept = Conversations()
    asked = _chat("Which city is Australia's capital?")
    kept.keep(("key-a", "call-1"), asked, 100)
    assert kept.take(("key-b", "call-1")) is None  # another API key's reply check
    assert kept.take(("key-a", "call-2")) is None  # another call
    assert kept.take(("key-a", "call-1")) is asked
    assert kept.take(("key-a", "call-1")) is None and kept.bytes == 0


def test_conversations_expire_and_stay_within_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr("factdebate.server.guard.litellm.time.monotonic", lambda: now[0])
    kept = Conversations(max_bytes=250, ttl_s=60)
    for number in range(3):
        kept.keep(("key-a", f"call-{number}"), _chat(f"question {number}"), 100)
    assert kept.bytes <= 250 and kept.take(("key-a", "call-0")) is None  # the oldest dropped for the budget
    assert kept.take(("key-a", "call-1")) is not None
    kept.keep(("key-a", "call-3"), _chat("question 3"), 300)  # larger than the whole budget: not kept
    assert kept.take(("key-a", "call-3")) is None
    now[0] += 61
    assert kept.take(("key-a", "call-2")) is None and kept.bytes == 0  # past its time
