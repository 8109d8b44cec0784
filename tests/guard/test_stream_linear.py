"""A streamed answer is read once: each delta is searched for sentence ends from where the last
search stopped, and only the part up to the newest end is gated; the sentences handed to the checks are
those the old stream handed them (tests/response_level/test_linear_spans.py compares them on many texts)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from factdebate.guard_engine import GuardOptions, StreamingCheck
from factdebate.guard_engine.stream import CONTEXT_CHARS, AnswerSoFar, gated
from factdebate.settings.model import Settings
from tests.guard.support import REPLY, script
from tests.helpers import resources_for

FAST = {"tier": "fast", "max_tier": "fast"}


def _gated(answer: AnswerSoFar, end: int, resume: int) -> list[tuple[int, int, str | None]]:
    start, part = answer.take(end, resume)
    return [(s.start, s.end, s.reason) for s in gated(part, start)]


def stream_chunks(deltas: list[str]) -> list[list[tuple[int, int, str | None]]]:
    """What the streaming check hands to the gate at each sentence end, and at the end, for ``deltas``."""
    answer, out = AnswerSoFar(), []
    for delta in deltas:
        if (end := answer.add(delta)) is not None:
            out.append(_gated(answer, *end))
    if answer.cursor < len(answer.index):
        out.append(_gated(answer, len(answer.index), len(answer.index)))
    return out


def test_the_reply_in_word_deltas_is_gated_sentence_by_sentence() -> None:
    words = REPLY.split(" ")
    chunks = stream_chunks([w + " " for w in words[:-1]] + [words[-1]])
    said = [[REPLY[a:b] for a, b, _ in chunk] for chunk in chunks]
    assert said == [["Hi!"], ["Great question."], ["Paris is the capital of France."], ["The Eiffel Tower is in Rome."],
                    ["I think Paris is lovely in spring."], ["Visit the Louvre early to avoid queues."],
                    ["Would you like more?"]]


def test_a_long_answer_in_small_deltas_is_read_once() -> None:
    # 200,000 characters of short sentences, one character per delta: the old stream searched the whole answer
    # again at each delta and gated all of it at each sentence (hours here); each delta is now read once.
    answer = AnswerSoFar()
    text = "It is. " * 30_000
    handed = 0
    for char in text:
        if (end := answer.add(char)) is not None:
            handed += len(_gated(answer, *end))
    assert handed == 30_000
    assert answer.index.text == text


async def test_a_flood_of_short_sentences_is_checked_without_holding_the_loop_for_long() -> None:
    # Many deltas, each a sentence: the check goes on while the loop keeps answering (a ticker task runs
    # between the deltas); every sentence is gated once.
    resources, _, _ = resources_for(script(claims=[]), method="single", guard=FAST)
    async with resources:
        assert isinstance(resources.settings, Settings)  # what resources_for builds
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        beat = asyncio.create_task(ticker())
        for n in range(10_000):
            check.feed("Hi. " if n % 2 else "Hello there. ")
            if n % 500 == 0:
                await asyncio.sleep(0)
        result = await check.finish()
        beat.cancel()
    assert len(result.skipped) == 10_000 and not result.degraded
    assert ticks >= 20


def test_a_part_of_a_long_answer_is_extracted_with_the_opening_and_the_last_part_before_it() -> None:
    # The whole answer so far went with every part: a long answer's extraction prompts grew with the square
    # of its length. The opening sentence (what the answer is about) and the last CONTEXT_CHARS go now.
    answer = AnswerSoFar()
    opening = "The Eiffel Tower is a tower in Paris. "
    answer.add(opening + "It is made of iron and it is very tall. " * 500)
    start = len(answer.index)
    assert answer.context(100) == answer.index.text[:100].strip()
    context = answer.context(start)
    assert context is not None and context.startswith("The Eiffel Tower is a tower in Paris. [...] It is made")
    assert len(context) <= len(opening) + len(" [...] ") + CONTEXT_CHARS
    assert answer.index.text[:start].rstrip().endswith(context.split(" [...] ")[1])


async def test_a_long_part_of_a_stream_is_gated_in_a_worker_thread(monkeypatch: Any) -> None:
    # An upstream may send one long delta (an event holds up to 4 MB): its part is gated off the event loop.
    from factdebate.guard_engine import stream

    threads: list[bool] = []

    def gate(text: str, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(text, **kwargs)

    real = stream.gate
    monkeypatch.setattr(stream, "gate", gate)
    resources, _, _ = resources_for(script(), method="single", guard=FAST)
    async with resources:
        assert isinstance(resources.settings, Settings)  # what resources_for builds
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        check.feed("Hello. ")
        check.feed("Paris is the capital of France. The Eiffel Tower is in Rome. " * 200)
        result = await check.finish()
    assert threads == [True, False]  # the short part on the loop, the long one in a worker thread
    assert [c.claim for c in result.claims] == ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]
