"""The response-level re-asks show the reply they replace, as the methods' re-asks do: the extractor's
(``claims_reask``) and the subjective filter's (``subjective_reask``) quote the unreadable reply beside why it
could not be read and ask for something else. A re-ask answered with the same reply again is recorded as a
repeat, and the extraction as unparsed: no claim is made up."""

from __future__ import annotations

import json
from typing import Any

from factdebate.llm.ask import brief
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from tests.response_level.test_check_response import CLAIMS, check, script

PROSE = "The response says that Paris is the capital of France and that the Eiffel Tower stands in Rome"


def reask_prompt(backend: Any, name: str, failed: str) -> str:
    """The re-ask's prompt, asked in the conversation that holds the failed reply."""
    [messages] = [m for c, m in backend.calls if c.prompt == name]
    assert messages[1] == {"role": "assistant", "content": failed}
    return str(messages[-1]["content"])


async def test_the_extractors_reask_quotes_its_unreadable_reply() -> None:
    verdict, backend, events = await check(script(extractor=[PROSE]))
    asked_again = reask_prompt(backend, "claims_extract:reask", PROSE)
    assert asked_again.startswith(f'Your reply "{PROSE}" could not be read: no JSON object in the reply. '
                                  "Do not write that reply again.")
    assert '{"claims": [{"claim": "first claim", "sentences": [1]}' in asked_again
    # Its answer is read: the claims are checked, the first reply is on record as recovered.
    assert [c.claim for c in verdict.claims] == CLAIMS and verdict.extraction.parse_retries == 1
    [recovered] = [e for e in events if e["event"] == "parse_recovered"]
    assert recovered["what"] == "claims" and recovered["reply"] == PROSE


async def test_a_long_unreadable_reply_is_quoted_by_its_start_and_end() -> None:
    long = " ".join([PROSE] * 4)
    _, backend, _ = await check(script(extractor=[long]))
    asked_again = reask_prompt(backend, "claims_extract:reask", long)
    quoted = brief(long)
    assert f'Your reply "{quoted}" could not be read' in asked_again and " … " in quoted
    assert long not in asked_again


async def test_an_extractor_that_repeats_its_reply_is_recorded_as_a_repeat() -> None:
    verdict, _, events = await check(script(extractor=[PROSE, PROSE]))
    assert verdict.extraction.parsed is False and verdict.claims == [] and verdict.decided_by == "unparsed"
    [failure] = [e for e in events if e["event"] == "parse_failure"]
    assert failure["what"] == "claims" and failure["reask_reply"] == PROSE
    assert failure["reask_problem"].startswith("it repeated the reply it was asked to replace")


async def test_the_subjective_filters_reask_quotes_its_unreadable_reply() -> None:
    kept = "Paris is the capital of France."
    unreadable = "Paris is the capital of France is a fact; the rest is an opinion"
    seen: list[str] = []
    extract = script()

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "subjective_filter":
            return unreadable
        if call.prompt == "subjective_filter:reask":
            seen.append(messages[-1]["content"])
            # Only a re-ask that shows the reply to avoid is answered in the format.
            return json.dumps({"sentences": [kept]}) if f'"{unreadable}"' in seen[-1] else unreadable
        return str(extract(call, messages, params))

    verdict, _, _ = await check(respond, sections={"response": {"drop_subjective": True}})
    [asked_again] = seen
    assert asked_again.startswith(f'Your reply "{unreadable}" could not be read: no JSON object in the reply. '
                                  "Do not write that reply again.")
    assert verdict.extraction.subjective_removed is True and verdict.extraction.checked_text == kept
