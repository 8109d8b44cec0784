"""MERMAID reads no placeholder as an answer (issue 39, item 2): a decomposition that copies the prompt's
"..." or names entities the claim does not mention is re-asked, then lost (no memory key comes of it), and
an executor step whose thought is the prompt's "your reasoning" is re-asked like any unreadable step."""

from __future__ import annotations

import json

import pytest

from factdebate.core.types import Label
from factdebate.llm.ask import Unreadable
from factdebate.llm.calls import CallInfo
from factdebate.methods.mermaid.decomposer import parse_decomposition
from factdebate.methods.mermaid.executor import parse_step
from tests.methods.mermaid.support import action, answer, decomposition
from tests.methods.mermaid.test_method import CLAIM, verify

ECHO = json.dumps({"triplets": [{"subject": "...", "relation": "...", "object": "...", "attributes": ""}],
                   "topic": "..."})


@pytest.mark.parametrize("reply", [
    ECHO,
    decomposition("Geography", "Economics"),  # names the claim does not contain: no memory key
    decomposition("Paris", "France", topic="..."),
    json.dumps({"triplets": [{"subject": "Paris", "relation": "...", "object": "France", "attributes": ""}],
                "topic": "Geography"}),
])
def test_a_decomposition_that_says_nothing_is_unreadable(reply: str) -> None:
    with pytest.raises(Unreadable):
        parse_decomposition(reply, CLAIM)


def test_a_faithful_decomposition_reads() -> None:
    found = parse_decomposition(decomposition("Paris", "France", topic="Geography"), CLAIM)
    assert found is not None and found.entities == ["Paris", "France"]


@pytest.mark.parametrize("reply", [
    answer("True", thought="Your reasoning"),
    answer("True", thought="..."),
    action("search_facts", "capital of France", thought="your reasoning."),
    action("search_facts", "true"),
    action("search_facts", "zorblat"),
    json.dumps({"thought": "look", "action": {"name": "search_facts", "reason": "why this tool",
                                              "input": {"query": "capital of France"}}}),
])
def test_a_step_with_a_placeholder_field_is_unreadable(reply: str) -> None:
    with pytest.raises(Unreadable):
        parse_step(reply, False, claim=CLAIM)


async def test_an_echoed_decomposition_is_lost_and_keys_no_memory() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt.startswith("mermaid_decompose"):
            return ECHO if call.prompt == "mermaid_decompose" else decomposition("Geography", "Economics")
        return answer("True")

    verdict, _, _, events = await verify(replies)
    assert verdict.parse_counts["decomposition"].lost == 1
    decomposed = next(e for e in events if e["event"] == "decomposition")
    assert decomposed["parsed"] is False and not decomposed.get("entities")


async def test_a_placeholder_thought_is_reasked_and_the_step_recovers() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_step":
            return answer("True", thought="Your reasoning")
        return answer("True", thought="The capital of France is Paris.")

    verdict, _, _, _ = await verify(replies)
    assert verdict.label == Label.SUPPORTS
    counts = verdict.parse_counts["mermaid_step"]
    assert (counts.reasked, counts.recovered, counts.lost) == (1, 1, 0)
    assert verdict.rounds[0].turns[0].steps[0].thought == "The capital of France is Paris."
