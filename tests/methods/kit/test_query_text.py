"""Model-written search queries lose list numbering, bullets, wrapping quotes and a "query:" label, and
nothing else (SmolLM2 behind llama-cpp-python's server wrote "1. capital of France")."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.types import Label
from factdebate.llm.base import Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.baselines.react import parse_action
from factdebate.methods.dpd.team import parse_queries
from factdebate.methods.kit.query_text import clean_query
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, debate_script, make_resources


@pytest.mark.parametrize(("written", "searched"), [
    ("1. capital of France", "capital of France"),
    ("2) capital of France", "capital of France"),
    ("(3) capital of France", "capital of France"),
    ("- capital of France", "capital of France"),
    ("* capital of France", "capital of France"),
    ("• capital of France", "capital of France"),
    ('"capital of France"', "capital of France"),
    ("“capital of France”", "capital of France"),
    ("'capital of France'", "capital of France"),
    ("Query: capital of France", "capital of France"),
    ("search query: capital of France", "capital of France"),
    ("**Query:** capital of France", "capital of France"),
    ('1. Query: "capital of France"', "capital of France"),
    ('- "1. capital of France"', "capital of France"),
])
def test_the_wrapping_comes_off_and_the_model_text_is_kept(written: str, searched: str) -> None:
    query = clean_query(written)
    assert (query.text, query.written) == (searched, written)


@pytest.mark.parametrize("written", [
    "capital of France",
    "3.14 digits of pi",  # a number, not numbering
    "1984 Summer Olympics host",
    "-5 degrees Celsius record",
    '"Hamlet" author "Shakespeare"',  # quotes inside, not around the whole
    "queryset in Django",
    "France: capital city",
])
def test_everything_else_is_kept_as_written(written: str) -> None:
    query = clean_query(written)
    assert (query.text, query.written) == (written, None)


def test_surrounding_blanks_are_not_a_change_worth_recording() -> None:
    assert clean_query("  capital of France \n") == clean_query("capital of France")
    assert clean_query("  capital of France ").written is None


@pytest.mark.parametrize("written", ["1.", "- ", "Query:", '""', '1. ""'])
def test_a_query_that_is_only_wrapping_is_left_empty(written: str) -> None:
    assert clean_query(written).text == ""


def test_the_react_and_dpd_readers_clean_and_an_emptied_query_is_no_query() -> None:
    action = parse_action("Thought: look.\nAction: search[1. capital of France]")
    assert action is not None and action.argument == "capital of France"
    assert action.written == "1. capital of France"
    assert parse_action("Thought: look.\nAction: search[1.]") is None
    assert parse_action("Action: finish[SUPPORTS]").label is Label.SUPPORTS  # type: ignore[union-attr]
    pair = parse_queries('{"support": "1. capital of France", "refute": "Query: Lyon capital"}')
    assert pair is not None and [q.text for q in pair] == ["capital of France", "Lyon capital"]
    assert parse_queries('{"support": "- ", "refute": "Lyon"}') is None


async def test_tool_mad_searches_the_cleaned_query_and_traces_what_the_model_wrote() -> None:
    """A scripted model rewrites its query as a list item: the tool gets the query, the trace both."""
    labels = {("rag", r): "SUPPORTS" for r in (1, 2)} | {("search", r): "REFUTES" for r in (1, 2)}

    def numbered(call: CallInfo, messages: list[Message]) -> str | None:
        rewrite = call.prompt == "query_select" and call.agent == "rag" and call.round == 2  # round 1: the claim
        return "[1. capital of France]" if rewrite else None

    resources, _, tools = make_resources(debate_script(labels, overrides=numbered), rounds=2)
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    assert tools["rag"].queries == [CLAIM, "capital of France"]
    assert verdict.rounds[1].turns[0].query == "capital of France"
    calls = [e for e in events if e["event"] == "tool_call" and e["tool"] == "rag"]
    assert [c.get("query_written") for c in calls] == [None, "1. capital of France"]
    assert "query_written" not in calls[0]  # absent, not null, when nothing was cleaned
    assert verdict.parse_counts["query"].reasked == 0


async def test_tool_mad_counts_a_query_that_cleaning_empties_as_unreadable() -> None:
    labels = {("rag", r): "SUPPORTS" for r in (1, 2)} | {("search", r): "REFUTES" for r in (1, 2)}

    def bullet_only(call: CallInfo, messages: list[Message]) -> str | None:
        return "[- ]" if call.prompt.startswith("query_select") and call.agent == "rag" and call.round == 2 else None

    resources, _, tools = make_resources(debate_script(labels, overrides=bullet_only), rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.parse_counts["query"].lost == 1  # re-asked once, still empty: the previous query is kept
    assert tools["rag"].queries == [CLAIM]
    assert verdict.rounds[1].turns[0].query == CLAIM


def test_mermaid_cleans_a_query_argument_and_leaves_titles_alone() -> None:
    from factdebate.methods.mermaid.method import _cleaned, _same_action

    assert _cleaned({"query": "1. capital of France", "k": 3}) == ({"query": "capital of France", "k": 3},
                                                                   "1. capital of France")
    assert _cleaned({"title": "1. France"}) == ({"title": "1. France"}, None)
    # The executor stops at a repeated action: a numbered copy of an earlier query is one.
    assert _same_action({"query": "1. capital of France"}) == _same_action({"query": "capital of France"})
    assert _same_action('"capital of France"') == _same_action("capital of France")
