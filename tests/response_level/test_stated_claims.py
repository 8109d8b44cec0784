"""Only what the text states becomes a claim, as a response check reports it: the junk
SmolLM2's extractor wrote behind llama-cpp-python's server ("date_published", a fact the text does not make)
is dropped and counted, the uncovered-sentence fallback never makes a subject of "I", "Hi" or "Sure" (the
sentence is listed unchecked, said why), and the headline never says "every claim" over unchecked sentences."""

from __future__ import annotations

import json

import pytest

from factdebate.core.types import Label
from tests.cli.test_main import run
from tests.response_level.test_check_response import check, script

PARIS = "It is located in Paris, the capital of France."


@pytest.mark.parametrize("opening", ["I looked into this for you.", "Hi!", "Sure."])
async def test_an_it_after_a_greeting_or_an_i_is_unchecked_not_given_a_subject(opening: str) -> None:
    text = f"{opening} {PARIS}"
    # The extractor writes no claim (as a backend that does not hold the schema may): the fallback reads the
    # text's own sentences, and "It" has no antecedent there.
    verdict, _, _ = await check(script(extractor=[json.dumps({"claims": []})]), response=text)
    assert verdict.claims == []  # never "I is located in Paris, ..." (SUPPORTS) as before
    assert (PARIS, "unresolved") in [(u.text, u.reason) for u in verdict.unchecked]
    assert verdict.label == Label.NOT_ENOUGH_INFO and verdict.decided_by == "no-claims"


async def test_keys_and_facts_the_text_does_not_state_are_dropped_and_counted() -> None:
    text = "Romeo and Juliet is a tragedy by Shakespeare. The play was first published in 1597."
    written = ["Romeo and Juliet is a tragedy by Shakespeare.", "date_published", "story_origin",
               "The play was banned in 1597."]
    verdict, _, _ = await check(script(extractor=[json.dumps({"claims": written})]), response=text)
    checked = [c.claim for c in verdict.claims]
    assert "Romeo and Juliet is a tragedy by Shakespeare." in checked
    assert not {"date_published", "story_origin", "The play was banned in 1597."} & set(checked)
    assert verdict.extraction is not None
    assert {"date_published", "story_origin", "The play was banned in 1597."} <= set(verdict.extraction.ungrounded)


def test_the_cli_headline_says_how_many_sentences_went_unchecked() -> None:
    result = run("check-response", "Hello! Paris is the capital of France.", "--llm", "scripted:agree",
                 "--method", "single", "--no-cache")
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())  # the console wraps long lines
    headline = said[said.index("Response:"):]
    assert "every claim is supported" not in headline
    assert "every claim checked is supported, but 1 of 2 sentences were not checked" in headline
    assert "not checked: greeting: Hello!" in said
