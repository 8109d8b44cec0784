"""Queries that are queries: one test (kit/fields.query_problem) reads every method's
search queries, so what SmolLM2 searched behind llama-cpp-python's server is refused by each of them: the
claim plus filler (MERMAID), the first words of the agent's own answer (Tool-MAD), a label (DPD), and the
prompt's own instructions."""

from __future__ import annotations

import json

import pytest

from factdebate.llm.ask import Unreadable
from factdebate.llm.base import Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.kit.fields import QUERY_MAX_WORDS, instruction_words, query_problem, searchable
from factdebate.methods.kit.formats import grounded_query
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, debate_script, make_resources
from tests.methods.kit.test_fields import QUERIES, READERS, unreadable

ANSWER = ("Tweet: \"The claim is a lie, Paris has been the capital of France for centuries\" and the records "
          "show it plainly.")


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
@pytest.mark.parametrize("value", [
    f"{CLAIM} You can find evidence about it here",  # MERMAID's 2 of 2
    "Let me search for the capital of France",
])
def test_filler_is_no_query_in_any_method(prompt: str, field: str, value: str) -> None:
    assert unreadable(prompt, field, value)


SENTENCE = ("The official records of the French government show that the city of Paris has served as the capital "
            "of France since the late tenth century under the Capetian kings")  # 29 words, as small models write


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
def test_a_sentence_is_read_in_every_method_and_searched_as_its_key_words(prompt: str, field: str) -> None:
    """Not refused and lost (MERMAID lost 6 steps in 3 claims that way): the sentence's names are the search."""
    assert len(SENTENCE.split()) > QUERY_MAX_WORDS
    read = READERS[prompt](field, SENTENCE)
    if prompt == "factool_queries":  # its reader only checks, and returns nothing
        assert read is None
        return
    assert read is not None
    searched = searchable(SENTENCE, CLAIM)
    assert searched == ("official records French government show city Paris served capital France since late "
                        "tenth century under Capetian kings")
    assert searched in json.dumps(read, default=vars)


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
def test_a_plain_query_reads_in_every_method(prompt: str, field: str) -> None:
    if prompt == "factool_queries":  # its reader only checks, and returns nothing
        assert READERS[prompt](field, "capital city of France") is None
        return
    assert not unreadable(prompt, field, "capital city of France")


def test_a_query_that_copies_the_agents_own_answer_is_refused() -> None:
    copied = f"[{ANSWER[:100]}]"
    with pytest.raises(Unreadable, match="an earlier answer of the debate"):
        grounded_query(copied, CLAIM, earlier=[ANSWER])
    assert grounded_query("[capital of France history]", CLAIM, earlier=[ANSWER]).text == "capital of France history"


def test_a_run_the_claim_itself_has_is_no_copy_of_the_answer() -> None:
    claim = "Paris has been the capital of France for centuries."
    assert query_problem("Paris has been the capital of France for centuries", "query_select", claim=claim,
                         earlier=[ANSWER]) is None


def test_a_copy_that_starts_with_the_claims_own_words_is_still_a_copy() -> None:
    # benchmarks/served.py, issue 65 round 6: Tool-MAD searched this (an answer of the debate) twice; its first
    # six words are the claim's, and only that first shared run was looked at.
    claim = "The Eiffel Tower is located in Rome."
    answer = "The Eiffel Tower is located in Paris, France. The claim has been verified to be false."
    problem = query_problem("The Eiffel Tower is located in Paris, France. The claim has been verified to be",
                            "query_select", claim=claim, earlier=[answer])
    assert problem is not None and '("eiffel tower is located in paris")' in problem
    assert query_problem("Eiffel Tower is located in Rome or Paris", "query_select", claim=claim,
                         earlier=[answer]) is None


def test_the_prompts_own_words_are_no_query() -> None:
    assert "_" in instruction_words("query_select")  # Jinja's parts are cut out, so no run spans them
    problem = query_problem("Write the search query that will find the evidence", "query_select", claim=CLAIM)
    assert problem is not None and "repeats the instructions" in problem


def test_a_claim_worded_like_the_instructions_is_still_a_query() -> None:
    fixed = [w for w in instruction_words("query_select") if w != "_"]
    claim = " ".join(fixed[:5])
    assert query_problem(claim, "query_select", claim=claim) is None


@pytest.mark.parametrize(("answer", "searched"), [
    # A fact the other side asserted is looked up: the debate's adaptive retrieval.
    ("The capital of France is Paris and the records have long shown it plainly to every reader.", True),
    # SmolLM2 behind llama-cpp-python's server searched the other agents' answers with their verdicts in them.
    ("The Eiffel Tower is located in Paris, France. The claim has been verified to be false.", False),
])
async def test_tool_mad_searches_another_agents_fact_but_not_its_comment_on_the_claim(answer: str,
                                                                                       searched: bool) -> None:
    labels = {("rag", r): "SUPPORTS" for r in (1, 2)} | {("search", r): "REFUTES" for r in (1, 2)}
    query = answer[:80].rsplit(" ", 1)[0]

    def copying(call: CallInfo, messages: list[Message]) -> str | None:
        if call.prompt == "debate_answer" and call.agent == "search" and call.round == 1:
            return f"{answer}\nREFUTES"
        if call.prompt.startswith("query_select") and call.agent == "rag" and call.round == 2:
            return f"[{query}]"
        return None

    resources, _, tools = make_resources(debate_script(labels, overrides=copying), rounds=2)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert tools["rag"].queries == ([CLAIM, query] if searched else [CLAIM])  # refused: round 1's query is kept
    assert verdict.parse_counts["query"].lost == (0 if searched else 1)
