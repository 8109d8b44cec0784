"""server/guard/openai_chat/chunks.py, the stream policy over OpenAI chunks (chunks in, chunks out), without
the relay: a
chunk goes out untouched (None) or changed, waits, or is bounded by bytes. The text's own policy is the
streaming check's (here a stand-in that keeps what it is fed: the relay's tests run the real one)."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.guard_engine.types import ResolvedGuardOptions
from factdebate.server.guard.openai_chat.chunks import AnswerTooLong, ChatChunks

HEAD = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}


class Kept:
    """Stands in for GuardedStream: its mode, and the text fed to it."""

    def __init__(self, mode: str) -> None:
        self.mode, self.text = mode, ""

    def feed(self, delta: str) -> str:
        self.text += delta
        return delta


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {**HEAD, "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def chunks_for(policy: str, mode: str, held_limit: int = 10_000) -> tuple[ChatChunks, Kept]:
    kept = Kept(mode)
    options = ResolvedGuardOptions(policy=policy, deadline_s=5, tier="fast", max_tier="fast", method="single",
                                   evidence=[], evidence_mode="retrieved", on_unchecked="pass",
                                   conversation_id=None)
    return ChatChunks(kept, options, block_finish="content_filter", held_limit=held_limit), kept  # type: ignore[arg-type]


def test_annotate_passes_each_chunk_untouched_and_feeds_its_text() -> None:
    chunks, kept = chunks_for("annotate", "pass")
    assert chunks.feed(chunk({"role": "assistant", "content": "Paris "})) is None
    assert chunks.feed(chunk({"content": "is nice."}, "stop")) is None
    assert kept.text == "Paris is nice." and chunks.spoke and chunks.passes_comments


def test_flag_sends_the_last_text_now_and_holds_the_ending() -> None:
    chunks, _ = chunks_for("flag", "footnote")
    out = chunks.feed(chunk({"content": "The end."}, "stop"))
    assert out == [chunk({"content": "The end."})] and chunks.held[0]["choices"][0]["finish_reason"] == "stop"
    assert chunks.feed({**HEAD, "choices": [], "usage": {"total_tokens": 3}}) == []  # after the end: waits


def test_block_holds_everything_and_ends_a_blocked_reply_without_its_tool_calls() -> None:
    chunks, kept = chunks_for("block", "whole")
    call = {"index": 0, "function": {"name": "lookup", "arguments": "{}"}}
    assert chunks.feed(chunk({"role": "assistant", "content": "Rome."})) == []
    assert chunks.feed(chunk({"tool_calls": [call]}, "tool_calls")) == []
    assert kept.text == "Rome." and chunks.tool_calls == 1 and not chunks.passes_comments
    chunks.last = "I can't answer that."

    class Blocked:
        action_taken = "blocked"
        answer_format = "text"

    closing = chunks.closing(Blocked())  # type: ignore[arg-type]
    assert closing[0]["choices"][0]["delta"] == {"role": "assistant", "content": "I can't answer that."}
    assert closing[-1]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "content_filter"}


def test_another_choice_is_left_out_and_what_waits_is_bounded_by_bytes() -> None:
    chunks, _ = chunks_for("annotate", "pass")
    assert chunks.feed(chunk({"content": "other"}, index=1)) == []
    assert chunks.choices == 2
    small, _ = chunks_for("block", "whole", held_limit=500)
    call = {"index": 0, "function": {"name": "lookup", "arguments": "x" * 150}}
    small.feed(chunk({"tool_calls": [call]}))
    with pytest.raises(AnswerTooLong, match="more than 500 bytes"):
        small.feed(chunk({"tool_calls": [call]}))
