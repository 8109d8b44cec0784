"""A line's label, a list item's number and a citation marker say nothing the check must find in a passage:
the statement after "Answer:" is checked as written, and "3." or "[1]" is never a number the claim left out."""

from __future__ import annotations

import pytest

from factdebate.response_level.grounding import numbers, without_label
from tests.guard.support import run_check, script

PARIS = "Paris is the capital of France."


@pytest.mark.parametrize(("text", "claims"), [
    ("Answer: Paris is the capital of France.", [PARIS]),
    ("Answer: Paris is the capital of France.", ["Answer: Paris is the capital of France."]),  # the label copied
    ("**Note:** Paris is the capital of France.", []),  # nothing extracted: the statement itself is checked
    ("**3.** Paris is the capital of France.", [PARIS]),
    ("Paris is the capital of France [1].", [PARIS]),
    ("Paris is the capital of France.[2][3]", [PARIS]),
    ("Paris is the capital of France.[^1]\n\n[^1]: Britannica, 2020.", [PARIS]),
])
async def test_the_statement_is_checked_and_nothing_else_is_asked_of_it(text: str, claims: list[str]) -> None:
    result, _ = await run_check(script(claims=claims), text, tier="fast")
    checked = [c.claim for c in result.claims if c.status == "checked"]
    assert checked == [PARIS], [(c.claim, c.status, c.reason) for c in result.claims]
    assert not [c for c in result.claims if c.status != "checked" and "Paris" in c.claim]


def test_a_label_is_left_only_before_a_statement_and_a_subject_key_stays() -> None:
    assert without_label("Fun fact: The Louvre opened in 1793.") == "The Louvre opened in 1793."
    assert without_label("Sweden: Stockholm is the capital.") == "Sweden: Stockholm is the capital."
    assert without_label("Answer: Paris") == "Answer: Paris"  # no statement after it: left as it is


def test_list_numbers_and_citation_markers_are_not_stated_numbers() -> None:
    assert numbers("3. The Louvre opened in 1793.") == {"1793"}
    assert numbers("The wall fell in 1989 [12].") == {"1989"}
    assert numbers("It costs 3.5 euros and weighs 7 kg.") == {"3.5", "7"}  # a decimal is one value
    assert numbers("Hawking (1942) wrote it.") == {"1942"}
