"""The text of model calls in llm_call events: only inside ``transcribing()``, each text cut after its bound
with a marker, URLs redacted, a cached answer's text shown as a fresh one's, and no other task touched."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.events import parse_event
from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import Completion, ToolCall
from factdebate.llm.cache import ResponseCache
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.transcript import call_text, clip, transcribing, transcript_chars

MESSAGES = [{"role": "system", "content": "You check claims."},
            {"role": "user", "content": "Claim: The Eiffel Tower was completed in 1889."}]


def calls_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "llm_call"]


async def complete(llm: LLM, messages: list[Any] = MESSAGES) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    with recording(RunRecorder([events.append])):
        await llm.complete(messages, agent="rag", round=1, prompt="debate_answer")
    return calls_of(events)


def test_a_text_over_the_bound_is_cut_with_a_marker_saying_how_long_it_was() -> None:
    assert clip("short", 10) == "short"
    assert clip("x" * 10, 10) == "x" * 10
    cut = clip("abcdefghijklmnop", 5)
    assert cut == "abcde\n[… cut after 5 of 16 characters]"


def test_every_message_and_the_reply_are_bounded_and_tool_calls_are_named() -> None:
    long = [{"role": "user", "content": "a" * 50}, {"role": "assistant", "content": "b" * 3}]
    completion = Completion(text="c" * 40, tool_calls=[ToolCall("search_local", {"query": "Eiffel"})])
    text = call_text(long, completion, 20)  # type: ignore[arg-type]
    assert text["messages"][0] == {"role": "user", "content": "a" * 20 + "\n[… cut after 20 of 50 characters]"}
    assert text["messages"][1] == {"role": "assistant", "content": "bbb"}
    assert text["reply"].startswith("c" * 20 + "\n[… cut after 20 of ")
    whole = call_text(long, completion, 1000)["reply"]  # type: ignore[arg-type]
    assert whole == "c" * 40 + '\n→ search_local({"query": "Eiffel"})'


def test_a_credential_in_a_quoted_link_is_masked() -> None:
    messages = [{"role": "user", "content": "Source: https://user:hunter2@example.org/page?api_key=s3cret&id=4"}]
    content = call_text(messages, Completion(text="ok"), 1000)["messages"][0]["content"]  # type: ignore[arg-type]
    assert "hunter2" not in content and "s3cret" not in content and "id=4" in content


async def test_llm_call_carries_the_text_only_inside_transcribing() -> None:
    llm = LLM(ScriptedBackend(lambda call, messages, params: "The tower opened in 1889.\nSUPPORTS"), "debater")
    (plain,) = await complete(llm)
    assert "messages" not in plain and "reply" not in plain  # a trace line as it was before
    with transcribing(chars=500):
        assert transcript_chars() == 500
        (full,) = await complete(llm)
    assert transcript_chars() == 0
    assert full["messages"] == MESSAGES
    assert full["reply"] == "The tower opened in 1889.\nSUPPORTS"
    assert full["prompt"] == "debate_answer" and full["agent"] == "rag"
    assert parse_event(full).model_dump(mode="json") == full  # the event reads back as written


async def test_a_cached_answer_shows_its_text(tmp_path: Path) -> None:
    replies = iter(["first answer", "second answer"])
    llm = LLM(ScriptedBackend(lambda call, messages, params: next(replies)), "debater",
              cache=ResponseCache(tmp_path / "cache.sqlite"))
    with transcribing():
        (fresh,) = await complete(llm)
        (cached,) = await complete(llm)
    assert not fresh["cached"] and cached["cached"]
    assert cached["reply"] == fresh["reply"] == "first answer" and cached["messages"] == MESSAGES


async def test_a_concurrent_run_without_a_transcript_gets_none() -> None:
    """Two requests served by one process at once: only the one that asked gets the text."""
    llm = LLM(ScriptedBackend(lambda call, messages, params: "answer", latency=0.01), "debater")

    async def asked() -> list[dict[str, Any]]:
        with transcribing():
            return await complete(llm)

    with_text, without = await asyncio.gather(asked(), complete(llm))
    assert with_text[0]["reply"] == "answer" and "reply" not in without[0]


def test_a_transcript_keeps_at_least_one_character() -> None:
    with pytest.raises(ValueError), transcribing(chars=0):
        pass


def test_one_calls_texts_together_are_bounded_keeping_the_first_and_latest_messages() -> None:
    """A tool-using agent's tenth step resends the nine before it: over the call's total, the reply, the first
    message and the newest ones are kept and the ones just after the first are left out and counted."""
    steps = [{"role": "system", "content": "s" * 300}] + [
        {"role": "assistant" if i % 2 else "user", "content": str(i % 10) * 1000} for i in range(1, 11)]
    text = call_text(steps, Completion(text="r" * 500), 1000, call_chars=3000)  # type: ignore[arg-type]
    assert text["reply"] == "r" * 500
    kept = [m["content"] for m in text["messages"]]
    # 3000 - 500 (reply) - 300 (first) = 2200: the two newest whole, then 200 of the third newest.
    assert kept[0] == "s" * 300 and kept[-2:] == ["9" * 1000, "0" * 1000]
    assert kept[1] == "8" * 200 + "\n[… cut after 200 of 1000 characters]"
    assert text["messages_cut"] == 10 - 3 and len(kept) == 4
    assert sum(len(m.split("\n[…")[0]) for m in kept) + len(text["reply"]) <= 3000
    # Under the total, nothing is left out and the field is absent.
    assert "messages_cut" not in call_text(steps, Completion(text="ok"), 1000, call_chars=20_000)  # type: ignore[arg-type]


async def test_a_call_over_its_total_says_so_in_its_event() -> None:
    llm = LLM(ScriptedBackend(lambda call, messages, params: "done"), "debater")
    many = [{"role": "user", "content": f"step {i} " + "x" * 400} for i in range(12)]
    with transcribing(chars=500, call_chars=1500):
        (event,) = await complete(llm, many)
    assert event["messages_cut"] == 12 - len(event["messages"]) > 0
    first, last = event["messages"][0]["content"], event["messages"][-1]["content"]
    assert first.startswith("step 0 ") and last.startswith("step 11 ")
    assert parse_event(event).model_dump(mode="json") == event
    with pytest.raises(ValueError), transcribing(chars=500, call_chars=100):
        pass
