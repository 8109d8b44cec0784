"""``policy: hold`` through ``factdebate.aguard_stream`` when the false statement sits in a Markdown heading, a list
item, a table cell or a code comment (tests/guard/hold_formats.py): the client never receives it, the notice
stands in its place and nowhere else, and the true line after it is shown. And a reply is cut into the same
sentences, with the same spans, whole and streamed in pieces of any size."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

import factdebate as fd
from factdebate.guard_engine import GuardResult
from factdebate.guard_engine.gate import gate
from factdebate.guard_engine.policy import WITHHELD
from factdebate.response_level.spans import TextIndex, sentences
from tests.guard.hold_formats import FALSE_CLAIM, FORMATS, SLOW, TRUE_LINE, Format, cases, checker
from tests.guard.support import SlowBackend

OFFLINE: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False, "method": "single",
                           "tier": "fast", "evidence_mode": "given",
                           "evidence": ["Apollo 11 landed on the Moon in 1969. It carried three astronauts."]}
ASKED = [{"role": "user", "content": "Tell me about Apollo 11."}]
FOOTNOTES = "\n\n---\nFact check:"


async def _pieces(text: str, size: int, delay: float = 0.0) -> AsyncIterator[str]:
    for at in range(0, len(text), size):
        if delay:
            await asyncio.sleep(delay)
        yield text[at:at + size]


async def _streamed(reply: str, size: int, *, numbered: bool = True, delay: float = 0.0,
                    **options: Any) -> tuple[list[str], GuardResult]:
    backend = SlowBackend(checker(numbered=numbered), SLOW)
    texts: list[str] = []
    result: GuardResult | None = None
    async for out in fd.aguard_stream(_pieces(reply, size, delay), messages=ASKED, backends={"debater": backend},
                                      **{**OFFLINE, **options}):
        if out.kind == "text":
            texts.append(out.text)
        elif out.kind == "result":
            result = out.result
    assert result is not None
    return texts, result


async def _plain(reply: str, *, numbered: bool = True, **options: Any) -> GuardResult:
    """The reply checked whole (``factdebate.aguard``), in the same conversation."""
    return await fd.aguard([*ASKED, {"role": "assistant", "content": reply}],
                           backends={"debater": SlowBackend(checker(numbered=numbered), {})}, **{**OFFLINE, **options})


@pytest.mark.parametrize(("form", "numbered"), cases())
async def test_hold_never_streams_the_false_line_and_withholds_only_it(form: Format, numbered: bool) -> None:
    texts, result = await _streamed(form.reply, 3, numbered=numbered, delay=0.002, policy="hold")
    received = "".join(texts)
    answer = received.split(FOOTNOTES)[0]
    assert form.false not in answer and "1972" not in answer, received
    assert TRUE_LINE in answer
    assert answer == form.held  # the notice stands for the false line, and for nothing else
    assert answer.count(WITHHELD) == 1
    assert result.action_taken == "held" and result.text == received
    wrong = next(c for c in result.claims if c.claim == FALSE_CLAIM)
    assert wrong.label == "REFUTES" and wrong.span is not None
    assert form.reply[wrong.span.start:wrong.span.end] in form.false


@pytest.mark.parametrize(("form", "numbered"), cases())
async def test_the_plain_check_under_hold_withholds_the_same_line(form: Format, numbered: bool) -> None:
    plain = await _plain(form.reply, numbered=numbered, policy="hold")
    assert plain.text.split(FOOTNOTES)[0] == form.held
    _, streamed = await _streamed(form.reply, 5, numbered=numbered, policy="hold")
    assert streamed.text == plain.text


# Replies laid out as chat replies are: lists (with soft line breaks inside an item, numbered inline), headings
# over lists, tables, code, quotes, a question answered yes, abbreviations and numbers with points.
LAID_OUT = [form.reply for form in FORMATS] + [
    "Facts about Apollo 11:\n- It landed in 1969.\n- It carried three\n  astronauts.\n- Its crew came home.",
    "Steps:\n1. Launch from Florida.\n2. Land on the Moon.\n   It took four days.\n3. Return.",
    "The crew was chosen in 1969. 2. Armstrong went first. 3. Aldrin followed.",
    "## Crew\n\n| Name | Role |\n|---|---|\n| Armstrong | Commander |\n| Aldrin | Pilot |\n\nAll came back.",
    "```\nx = 1\n# the module landed in 1969\n```\nDone. It was launched\nfrom Florida.",
    'Armstrong said "That\'s one small step." It was 1969. (The landing was live.) Is that right? Yes.',
    "Dr. Smith wrote about the U.S. program in 1969. It cost 25.4 billion dollars.\n\n  1. First item.\n",
    "**Apollo 11**\n> It landed in 1969.\n> It carried three astronauts.\n\n---\nThanks!",
]


@pytest.mark.parametrize("reply", LAID_OUT, ids=[f"reply{n}" for n in range(len(LAID_OUT))])
async def test_plain_and_streamed_replies_are_cut_into_the_same_sentences_and_spans(reply: str) -> None:
    plain = await _plain(reply)

    def cut(result: GuardResult) -> tuple[list[Any], list[Any]]:
        claims = sorted((c.claim, c.span and (c.span.start, c.span.end), c.status, c.label) for c in result.claims)
        skipped = [(s.span.start, s.span.end, s.reason) for s in result.skipped]
        return claims, skipped

    for size in (1, 2, 7, len(reply)):
        _, streamed = await _streamed(reply, size)
        assert cut(streamed) == cut(plain), f"pieces of {size}"


@pytest.mark.parametrize("reply", LAID_OUT, ids=[f"reply{n}" for n in range(len(LAID_OUT))])
def test_the_sentences_of_a_text_read_in_pieces_are_those_of_the_whole(reply: str) -> None:
    for size in (1, 3, 11):
        index = TextIndex()
        for at in range(0, len(reply), size):
            index.extend(reply[at:at + size])
            index.sentences()  # read as it grows
        assert index.sentences() == sentences(reply)


@pytest.mark.parametrize(("text", "cut"), [
    # a list's marker starts a sentence: at a line's start, after indentation, or after a sentence's end
    ("1. Russia\n2. China", ["1. Russia", "2. China"]),
    ("  1. Russia", ["1. Russia"]),
    ("It was chosen. 2. Armstrong went first.", ["It was chosen.", "2. Armstrong went first."]),
    # a number that ends a sentence is no marker
    ("The answer is 2. Lyon is old.", ["The answer is 2.", "Lyon is old."]),
    # the closing quote or bracket belongs to the sentence before it
    ('He said "Paris is big." Then he left.', ['He said "Paris is big."', "Then he left."]),
])
def test_sentences_are_cut_by_what_comes_before_them(text: str, cut: list[str]) -> None:
    assert [text[a:b] for a, b in sentences(text)] == cut


def test_a_comment_in_a_code_block_is_a_statement_and_a_part_is_gated_in_its_block() -> None:
    reply = "```python\n# Apollo 11 landed in 1972\nlanded = True\n```\n# Apollo 11"
    reasons = {s.text: s.reason for s in gate(reply)}
    assert reasons["# Apollo 11 landed in 1972"] is None  # a comment: its words are a statement
    assert reasons["# Apollo 11"] == "heading"  # outside the block: a heading again
    # A stream's part that starts inside the block is gated as the whole reply gates it.
    inside = reply.index("# Apollo 11 landed")
    part = [(s.text, s.reason) for s in gate(reply[inside:], fenced=True)]
    assert part == [(s.text, s.reason) for s in gate(reply) if s.start >= inside]
    assert re.search(r"heading", str(gate(reply[inside:])[0].reason))  # without the block: read as a heading
