"""Which of the lines a claim was drawn from states it, and which only names its subject
(response_level/placing.py): the guard places the claim on the first and does not withhold the second."""

from __future__ import annotations

from factdebate.core.types import Span
from factdebate.guard_engine.types import GuardClaim
from factdebate.response_level.placing import names_only, stated_in

CURIE = ["Marie Curie was born in Warsaw in 1867.", "She won two Nobel Prizes."]
TABLE = ["| | Eiffel Tower |", "| City | Rome |"]


def test_the_line_that_states_the_claim_is_chosen_over_the_one_naming_its_subject() -> None:
    assert stated_in("Marie Curie won two Nobel Prizes.", CURIE) == 1
    assert stated_in("The Eiffel Tower is in Rome.", TABLE) == 1
    assert stated_in("Marie Curie was born in Warsaw in 1867.", CURIE) == 0
    assert stated_in("The Eiffel Tower was completed in 1899.", ["The Eiffel Tower was completed in", "1899."]) == 0
    assert stated_in("Nothing here.", ["a", "b"]) == 0 and stated_in("Nothing here.", []) == 0


def test_a_line_that_gives_only_the_claims_subject_names_it_only() -> None:
    assert names_only("The Eiffel Tower is in Rome.", TABLE[0])
    assert names_only("Marie Curie won two Nobel Prizes.", CURIE[0])
    assert not names_only("The Eiffel Tower is in Rome.", TABLE[1])
    assert not names_only("The Eiffel Tower was completed in 1899.", "The Eiffel Tower was completed in")
    assert not names_only("Apollo 11 landed in 1972.", "| Apollo 11 |")  # its number is part of what it states
    assert not names_only("The Eiffel Tower is in Rome.", "| Height | 330 m |")  # shares nothing: not known


def test_a_claims_places_are_its_span_and_the_other_lines_it_was_drawn_from_in_order() -> None:
    claim = GuardClaim(index=0, claim="The Eiffel Tower is in Rome.", span=Span(start=29, end=44),
                       sources=[Span(start=0, end=18), Span(start=29, end=44)])
    assert claim.places() == [Span(start=0, end=18), Span(start=29, end=44)]
    assert GuardClaim(index=0, claim="x").places() == []
