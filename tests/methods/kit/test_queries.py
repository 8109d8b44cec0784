"""Queries that are queries (issue 65, item 4): one test (kit/fields.query_problem) reads every method's
search queries, so what SmolLM2 searched behind llama-cpp-python's server is refused by each of them: the
claim plus filler (MERMAID), the first words of the agent's own answer (Tool-MAD), a label (DPD), and the
prompt's own instructions."""

from __future__ import annotations

import pytest

from factdebate.llm.ask import Unreadable
from factdebate.methods.kit.fields import QUERY_MAX_WORDS, instruction_words, query_problem
from factdebate.methods.kit.formats import grounded_query
from tests.helpers import CLAIM
from tests.methods.kit.test_fields import QUERIES, READERS, unreadable

ANSWER = ("Tweet: \"The claim is a lie, Paris has been the capital of France for centuries\" and the records "
          "show it plainly.")


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
@pytest.mark.parametrize("value", [
    f"{CLAIM} You can find evidence about it here",  # MERMAID's 2 of 2
    "Let me search for the capital of France",
    " ".join(["capital of France"] * (QUERY_MAX_WORDS // 3 + 3)),  # a sentence, not a search
])
def test_filler_and_sentences_are_no_query_in_any_method(prompt: str, field: str, value: str) -> None:
    assert unreadable(prompt, field, value)


@pytest.mark.parametrize(("prompt", "field"), QUERIES)
def test_a_plain_query_reads_in_every_method(prompt: str, field: str) -> None:
    if prompt == "factool_queries":  # its reader only checks, and returns nothing
        assert READERS[prompt](field, "capital city of France") is None
        return
    assert not unreadable(prompt, field, "capital city of France")


def test_a_query_that_copies_the_agents_own_answer_is_refused() -> None:
    copied = f"[{ANSWER[:100]}]"
    with pytest.raises(Unreadable, match="your own earlier answer"):
        grounded_query(copied, CLAIM, earlier=[ANSWER])
    assert grounded_query("[capital of France history]", CLAIM, earlier=[ANSWER]).text == "capital of France history"


def test_a_run_the_claim_itself_has_is_no_copy_of_the_answer() -> None:
    claim = "Paris has been the capital of France for centuries."
    assert query_problem("Paris has been the capital of France for centuries", "query_select", claim=claim,
                         earlier=[ANSWER]) is None


def test_the_prompts_own_words_are_no_query() -> None:
    assert "_" in instruction_words("query_select")  # Jinja's parts are cut out, so no run spans them
    problem = query_problem("Write the search query that will find the evidence", "query_select", claim=CLAIM)
    assert problem is not None and "repeats the instructions" in problem


def test_a_claim_worded_like_the_instructions_is_still_a_query() -> None:
    fixed = [w for w in instruction_words("query_select") if w != "_"]
    claim = " ".join(fixed[:5])
    assert query_problem(claim, "query_select", claim=claim) is None
