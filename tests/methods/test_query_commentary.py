"""A query that comments on the claim is no search. SmolLM2 behind llama-cpp-python's server wrote Tool-MAD
queries such as "The Eiffel Tower is located in Rome, the claim has been verified to be false.": the claim
with a verdict on it, which the query check let through (it shares the claim's words, is short enough and
addresses no one) and the search engine was sent. The one query check (kit/fields.query_problem) now refuses
a query that speaks of "the claim" or states a verdict as a clause ("is true", "has been verified"), in words
the claim itself lacks, in every method; key words such as "<claim> false" (a rebuttal's search) are still
searched. Tool-MAD then re-asks once and, still refused, searches the claim, and the loss is counted."""

from __future__ import annotations

import pytest

from factdebate.core.types import Label
from factdebate.methods.kit.fields import commentary, query_problem
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.kit.test_fields import QUERIES, unreadable
from tests.methods.test_echo_kept import _with

# SmolLM2's query, on this suite's claim.
COMMENTED = f"{CLAIM}, the claim has been verified to be false."


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
@pytest.mark.parametrize("value", [COMMENTED, f"{CLAIM} is true", "capital of France, which is not true",
                                   "the claims about the capital of France"])
def test_a_query_that_comments_on_the_claim_is_no_query_in_any_method(prompt: str, field: str, value: str) -> None:
    assert unreadable(prompt, field, value)


@pytest.mark.parametrize(("query", "claim"), [
    ("Is it true that Paris is the capital of France?", CLAIM),  # a question may ask whether it is true
    (f"{CLAIM} false", CLAIM),  # key words: a side looking for a rebuttal (DPD's) may search for fact checks
    ("Golden Gate Bridge is supported by cables", "The Golden Gate Bridge hangs from two cables."),
    ("False Bay location", "False Bay lies in South Africa."),  # the claim's own word
    ("true cost of the Channel Tunnel", "The true cost of the Channel Tunnel was 9 billion pounds."),
    ("What city is the Eiffel Tower located in?", "The Eiffel Tower is located in Rome."),
    ("capital of France", CLAIM),
])
def test_a_search_for_what_the_claim_says_is_still_a_query(query: str, claim: str) -> None:
    assert commentary(query, claim) == "" and query_problem(query, "query_select", claim=claim) is None


def test_the_problem_names_the_comment() -> None:
    problem = query_problem(COMMENTED, "query_select", claim=CLAIM)
    assert problem is not None and 'comments on the claim ("claim")' in problem


async def test_tool_mad_searches_the_claim_for_a_commented_query_and_counts_the_loss() -> None:
    replies = {"query_select": f"[{COMMENTED}]", "query_select:reask": f"[{COMMENTED}]"}
    resources, _, tools = resources_for(_with(replies), methods={"tool-mad": {"rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    searched = [q for tool in tools.values() for q in tool.queries]
    assert searched and set(searched) == {CLAIM}  # the existing fallback: round 1 searches the claim
    counts = verdict.parse_counts["query"]
    assert counts.reasked == counts.lost == counts.asked == len(verdict.rounds[0].turns)
    assert all(t.query == CLAIM for t in verdict.rounds[0].turns)
    assert verdict.label == Label.SUPPORTS and verdict.decided_by == "consensus"


async def test_a_reask_that_drops_the_comment_is_searched() -> None:
    replies = {"query_select": f"[{COMMENTED}]", "query_select:reask": "[capital of France]"}
    resources, _, tools = resources_for(_with(replies), methods={"tool-mad": {"rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert {q for tool in tools.values() for q in tool.queries} == {"capital of France"}
    counts = verdict.parse_counts["query"]
    assert counts.recovered == counts.reasked >= 1 and counts.lost == 0
