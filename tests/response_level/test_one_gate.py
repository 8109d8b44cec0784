"""One check-worthiness gate for a response check and the guard: "Hello!" and a question
are not handed to the extractor, so no claim is made of them, and they are listed as not checked with the
guard's reasons; framing that holds a statement ("I think the tower is in Berlin.") still goes through."""

from __future__ import annotations

import json
from typing import Any

from factdebate.guard_engine.gate import gate
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.response_level.worthiness import gated
from tests.response_level.test_check_response import check

TEXT = "Hello! The Eiffel Tower is in Paris. What is its height? I think the tower is in Berlin."


def echoing(seen: list[str]) -> Any:
    """An extractor that writes every sentence it is given as a claim (as a small model may: "Hello!" too);
    every claim is supported."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("claims_extract"):
            text = messages[0]["content"]
            seen.append(text)
            return json.dumps({"claims": [s for s in ("Hello!", "The Eiffel Tower is in Paris.",
                                                      "What is its height?", "The tower is in Berlin.")
                                          if s.rstrip("!?.").casefold() in text.casefold()]})
        return "SUPPORTS"

    return respond


async def test_greetings_and_questions_are_not_extracted_from() -> None:
    seen: list[str] = []
    verdict, _, _ = await check(echoing(seen), response=TEXT)
    assert "Hello" not in seen[0] and "What is its height" not in seen[0]
    assert [c.claim for c in verdict.claims] == ["The Eiffel Tower is in Paris.", "The tower is in Berlin."]
    assert [(u.text, u.reason) for u in verdict.unchecked] == [("Hello!", "greeting"),
                                                               ("What is its height?", "question")]


async def test_a_response_that_states_nothing_makes_no_extraction_call() -> None:
    seen: list[str] = []
    verdict, _, _ = await check(echoing(seen), response="Hello! What is its height?")
    assert seen == [] and verdict.claims == [] and verdict.decided_by == "no-claims"
    assert [u.reason for u in verdict.unchecked] == ["greeting", "question"]


def test_the_guard_reads_the_same_gate() -> None:
    text = TEXT + " Is the Eiffel Tower in Berlin? No."
    assert [(s.start, s.end, s.reason) for s in gate(text)] == gated(text)
    assert gated(text)[-1][2] is None  # a question answered "No." is a statement


def test_a_comment_in_a_code_block_is_read_alike_by_both_gates() -> None:
    """A ``#`` line inside a fenced block is a comment judged by its words; outside one it is a heading. The
    response check's gate and the guard's read a reply the same way, so both check the comment's statement."""
    reply = "Here is the script:\n\n```bash\n# Apollo 11 landed in 1972\necho done\n```\n\n# Apollo 11\n"
    pieces = gated(reply, asked=True)
    guard = [(s.start, s.end, s.reason) for s in gate(reply, asked=True)]
    assert pieces == guard
    reasons = {reply[start:end].strip(): reason for start, end, reason in pieces}
    assert reasons["# Apollo 11 landed in 1972"] is None  # a statement: checked
    assert reasons["# Apollo 11"] == "heading"  # outside the block: a Markdown heading
