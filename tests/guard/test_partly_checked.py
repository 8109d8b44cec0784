"""A sentence whose claims leave part of it out is unchecked for that part, never passed as checked: the
offline checker wrote "The Eiffel Tower was finished in 1899." of the README's "It was finished in 1899 and is
made of wrought iron.", and the wrought iron went unsaid. A claim that rewords, resolves or translates its
sentence leaves nothing out."""

from __future__ import annotations

import pytest

from factdebate.core.types import Document
from factdebate.response_level.grounding import left_unsaid
from tests.guard.support import run_check, script

FAST_ONLY = {"tier": "fast", "max_tier": "fast"}
SAID = "The Eiffel Tower stands in Paris. It was finished in 1889 and is made of wrought iron."
GUIDE = [Document(id="g", title="Eiffel Tower", text="The Eiffel Tower is a wrought-iron lattice tower in Paris. "
                                                      "It was finished in 1889.")]


async def test_the_part_no_claim_writes_is_unchecked_and_named() -> None:
    # As the offline checker answers: each claim with the sentence it says it was drawn from.
    claims = [{"claim": "The Eiffel Tower stands in Paris.", "sentences": [1]},
              {"claim": "The Eiffel Tower was finished in 1889.", "sentences": [2]}]
    result, _ = await run_check(script(claims=claims), SAID, guard=FAST_ONLY, docs=GUIDE)
    [left] = [c for c in result.claims if c.status == "unchecked"]
    assert left.claim == "It was finished in 1889 and is made of wrought iron."
    assert left.reason is not None and left.reason.startswith("only partly checked")
    assert '"is made of wrought iron"' in left.reason
    assert result.label is None or result.label.value != "SUPPORTS"  # never passed as checked throughout


async def test_claims_that_hold_every_part_leave_nothing_unchecked() -> None:
    claims = [{"claim": "The Eiffel Tower stands in Paris.", "sentences": [1]},
              {"claim": "The Eiffel Tower was finished in 1889.", "sentences": [2]},
              {"claim": "The Eiffel Tower is made of wrought iron.", "sentences": [2]}]
    result, _ = await run_check(script(claims=claims), SAID, guard=FAST_ONLY, docs=GUIDE)
    assert [c.status for c in result.claims] == ["checked"] * 3


@pytest.mark.parametrize("sentence, claims", [
    ("Happy to help with the RMS Titanic, which sank in 1912.", ["The RMS Titanic sank in 1912."]),
    ("1. The RMS Titanic sank in 1912.", ["The RMS Titanic sank in 1912."]),
    ("It sank the following year.", ["The RMS Titanic sank in 1913."]),
    ("According to NASA, the Moon is about 384,000 km from Earth.", ["The Moon is about 384,000 km from Earth."]),
    ("La tour Eiffel se trouve à Paris et mesure 330 mètres.",
     ["The Eiffel Tower is in Paris.", "The Eiffel Tower is 330 metres tall."]),
    ("Barack Obama served two terms, and Donald Trump was the 45th president.",
     ["Barack Obama served two terms.", "Donald Trump was the 45th president of the United States."]),
], ids=["framing", "numbered", "resolved year", "attribution", "translated", "both halves"])
def test_a_reworded_resolved_or_translated_claim_leaves_nothing_out(sentence: str, claims: list[str]) -> None:
    assert left_unsaid(sentence, claims) == []


@pytest.mark.parametrize("sentence, claims, unsaid", [
    ("Barack Obama served two terms, and Donald Trump was the 45th president.", ["Barack Obama served two terms."],
     ["Donald Trump was the 45th president"]),
    ("The tower is 330 m tall and was the tallest structure until 1930.", ["The Eiffel Tower is 330 m tall."],
     ["1930"]),
    ("| The RMS Titanic | sank | 1912 | Mount Everest | 1953 |", ["The RMS Titanic sank in 1912."], ["1953"]),
], ids=["second statement", "a number", "a table row's other cells"])
def test_what_the_claims_leave_out_is_named(sentence: str, claims: list[str], unsaid: list[str]) -> None:
    assert left_unsaid(sentence, claims) == unsaid
