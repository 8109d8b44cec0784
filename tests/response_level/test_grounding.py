"""Claim extraction keeps only claims taken from the text (issue 30): every name and number a claim writes
appears in the text, the prompt's worked example is never kept for a text that does not name it, and a
claim in the first person is an opinion, not a fact to check."""

from __future__ import annotations

from factdebate.response_level.extract import grounded

TEXT = ("The Brandenburg Gate stands in Berlin. It is 26 metres tall, 3.5 km from the Spree, and was finished "
        "in 1,791 days. I think it is the most beautiful building.")


def test_claims_with_the_texts_names_and_numbers_are_kept() -> None:
    claims = ["The Brandenburg Gate stands in Berlin.", "The Brandenburg Gate is 26 metres tall.",
              "The Brandenburg Gate is 3.5 km from the Spree.", "It took 1791 days to finish the Brandenburg Gate."]
    assert grounded(claims, TEXT) == (claims, [])


def test_invented_names_numbers_the_prompt_example_and_opinions_are_dropped() -> None:
    invented = "The Brandenburg Gate was founded in 1788 by Captain James Cook."
    example = "Mount Fuji is the tallest mountain in Japan."
    opinion = "I think the Brandenburg Gate is the most beautiful building."
    assert grounded([invented, example, opinion], TEXT) == ([], [invented, example, opinion])
    # One shared word ("mountain") no longer keeps the example.
    assert grounded([example], "I really love mountains.") == ([], [example])
