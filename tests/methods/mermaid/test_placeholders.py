"""MERMAID reads no placeholder as an answer: a decomposition that copies the prompt's
"..." or names entities the claim does not mention is re-asked, then lost (no memory key comes of it), and a
step's search query that is a placeholder, a label or no word of the claim is re-asked like any unreadable
step. A thought or reason that copies its placeholder is dropped and counted as echoed while the step's
answer or action is read (10 usable steps and answers were refused for it)."""

from __future__ import annotations

import json

import pytest

from factdebate.core.runtime import RunRecorder, recording
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
    action("search_facts", "true"),
    action("search_facts", "zorblat"),
    action("search_facts", "capital of France, you can find it here"),
])
def test_a_step_whose_query_is_no_search_is_unreadable(reply: str) -> None:
    with pytest.raises(Unreadable):
        parse_step(reply, False, claim=CLAIM)


@pytest.mark.parametrize("reply", [
    answer("True", thought="Your reasoning"),
    answer("True", thought="..."),
    action("search_facts", "capital of France", thought="your reasoning."),
    json.dumps({"thought": "look", "action": {"name": "search_facts", "reason": "why this tool",
                                              "input": {"query": "capital of France"}}}),
])
def test_a_step_with_a_placeholder_thought_or_reason_is_read_without_it(reply: str) -> None:
    run = RunRecorder([])
    with recording(run):
        step = parse_step(reply, False, claim=CLAIM)
    assert step is not None and (step.label == Label.SUPPORTS or step.tool == "search_facts")
    assert "reason" not in (step.thought + step.reason).lower() and run.parse_counts["mermaid_step"].echoed == 1


async def test_an_echoed_decomposition_is_lost_and_keys_no_memory() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt.startswith("mermaid_decompose"):
            return ECHO if call.prompt == "mermaid_decompose" else decomposition("Geography", "Economics")
        return answer("True")

    verdict, _, _, events = await verify(replies)
    assert verdict.parse_counts["decomposition"].lost == 1
    decomposed = next(e for e in events if e["event"] == "decomposition")
    assert decomposed["parsed"] is False and not decomposed.get("entities")


async def test_a_placeholder_thought_is_not_reasked_and_its_answer_counts() -> None:
    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_step":
            return answer("True", thought="Your reasoning")
        return answer("True", thought="The capital of France is Paris.")

    verdict, _, _, _ = await verify(replies)
    assert verdict.label == Label.SUPPORTS
    counts = verdict.parse_counts["mermaid_step"]
    assert (counts.reasked, counts.recovered, counts.lost, counts.echoed) == (0, 0, 0, 1)
    assert verdict.rounds[0].turns[0].steps[0].thought == ""
