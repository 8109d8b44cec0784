"""DPD's gatherer searches only queries that say something: a query that is a verdict
label, the prompt's own ``<query>`` or words the claim does not contain is re-asked, then lost, and the
claim is searched instead; the reply counts say so."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.llm.ask import Unreadable
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.dpd.team import parse_queries
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.dpd.test_method import dpd_script, run, unanimous


def gatherer_replies(first: str, again: str) -> Any:
    plain = dpd_script(unanimous())

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "dpd_queries":
            return first
        if call.prompt == "dpd_queries:reask":
            return again
        return plain(call, messages, params)

    return respond


@pytest.mark.parametrize("reply", [
    '{"support": "true", "refute": "false"}',
    '{"support": "<query>", "refute": "capital of France"}',
    '{"support": "capital of France", "refute": "SUPPORTS"}',
    '{"support": "zorblat quexity", "refute": "capital of France"}',
    '{"support": "...", "refute": "capital of France"}',
])
def test_a_query_that_says_nothing_is_unreadable(reply: str) -> None:
    with pytest.raises(Unreadable):
        parse_queries(reply, CLAIM)


async def test_label_and_placeholder_queries_are_reasked_then_lost_and_the_claim_is_searched() -> None:
    script = gatherer_replies('{"support": "true", "refute": "<query>"}', '{"support": "query", "refute": "false"}')
    resources, _, tools = resources_for(script, method="dpd", methods={"dpd": {"min_rounds": 1,
                                                                                    "max_rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert set(tools["rag"].queries) == {CLAIM}
    counts = verdict.parse_counts["query"]
    assert (counts.asked, counts.reasked, counts.recovered, counts.lost) == (2, 2, 0, 2)


async def test_a_grounded_reask_recovers_the_queries() -> None:
    script = gatherer_replies('{"support": "zorblat", "refute": "quexity"}',
                              '{"support": "capital of France", "refute": "Paris capital city"}')
    resources, _, tools = resources_for(script, method="dpd", methods={"dpd": {"min_rounds": 1, "max_rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert set(tools["rag"].queries) == {"capital of France", "Paris capital city"}
    counts = verdict.parse_counts["query"]
    assert (counts.reasked, counts.recovered, counts.lost) == (2, 2, 0)


async def test_the_scripted_run_still_searches_its_queries() -> None:
    _, _, tools = await run(unanimous(), min_rounds=1, max_rounds=1)
    assert tools["rag"].queries == ["capital of France", "France capital"] * 2
