"""An answer's conclusion, as a capable debater writes it, is told apart from the facts it read: the claim
negated and what the answer says about the claim or the verdict are left out of faithfulness;
the claim stated plainly and every fact with content of its own stay."""

from __future__ import annotations

import pytest

from factdebate.scoring.conclusions import conclusion, facts

ROME = "The Eiffel Tower is located in Rome."


@pytest.mark.parametrize("statement", [
    "The Eiffel Tower is not located in Rome.",
    "The Eiffel Tower isn't in Rome.",
    "The Eiffel Tower is located in Paris, not Rome.",  # negated, with the value that replaces the claim's
    "The claim that the Eiffel Tower is located in Rome is false.",
    "The evidence contradicts the claim.",
    "The answer is REFUTES.",
    "These locations are different.",
    "The location in the documents does not match.",
])
def test_a_refutations_conclusion_is_left_out(statement: str) -> None:
    assert conclusion(statement, ROME)


@pytest.mark.parametrize("statement", [
    "The Eiffel Tower is located in Paris, France.",
    "The Eiffel Tower stands on the Champ de Mars.",
    "The Eiffel Tower is located in Rome.",  # the claim itself: what a supporting answer must have backed
    "Rome is not the capital of France.",  # negated, but with content the claim does not hold
    "The documents state that the Eiffel Tower is located in Paris.",  # a fact the documents must hold
])
def test_facts_and_the_claim_itself_are_checked(statement: str) -> None:
    assert not conclusion(statement, ROME)


def test_a_negated_claim_restated_without_its_negation_is_no_conclusion() -> None:
    claim = "Pluto is not a planet."
    assert not conclusion("Pluto is not a planet.", claim)


def test_facts_splits_and_an_answer_of_conclusions_only_keeps_them_all() -> None:
    statements = ["The Eiffel Tower is located in Paris.", "The Eiffel Tower is not located in Rome.",
                  "The claim is false."]
    assert facts(statements, ROME) == (statements[:1], statements[1:])
    only = ["The Eiffel Tower is not located in Rome.", "The claim is false."]
    assert facts(only, ROME) == (only, [])


def test_the_claim_negated_with_a_value_of_a_few_words_in_its_place_is_a_conclusion() -> None:
    claim = "The Eiffel Tower is located in Rome."
    # The offline model's refutation with the label guide: no document says "not Rome".
    assert conclusion("The Eiffel Tower is located in Paris, France, not Rome.", claim)
    assert not conclusion("Documents state that the Eiffel Tower is located in Paris, France.", claim)
    # More than the replacing value is a fact of its own, checked against the documents.
    assert not conclusion("The Eiffel Tower, not Rome's Colosseum, stands on the Champ de Mars beside the Seine.",
                          claim)
