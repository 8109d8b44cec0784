"""A claim's sentences as the extractor numbers them are corrected only where they plainly are not the ones it
copies: a small model numbers claims by their place in its own list, which would mark the sentence it names
covered and leave the sentence it copies unchecked."""

from __future__ import annotations

import json

from factdebate.response_level.extract import Drawn, placed_right
from factdebate.response_level.spans import sentences
from tests.response_level.test_check_response import check, script

# An answer from Factcheck-Bench, and the claims the offline model drew from it, numbered 1 and 2.
TEXT = ("The Parliamentary Commissioner for Standards is appointed by the Speaker of the House of Commons for a "
        "five-year term with the agreement of the House of Commons. The appointment can be renewed for a further "
        "five years. The appointment is non-partisan, and the Commissioner is independent in the exercise of their "
        "functions.")
RENEWED = "The appointment can be renewed for a further five years"
NEUTRAL = "The appointment is non-partisan, and the Commissioner is independent in the exercise of their functions"


def test_a_claim_numbered_by_its_place_in_the_list_is_placed_on_the_sentence_it_copies() -> None:
    units = sentences(TEXT)
    assert placed_right(Drawn(RENEWED, (1,)), TEXT, units).sentences == (2,)
    assert placed_right(Drawn(NEUTRAL, (2,)), TEXT, units).sentences == (3,)


def test_a_claim_its_sentence_mostly_holds_keeps_its_number() -> None:
    units = sentences(TEXT)
    rewritten = Drawn("The Speaker of the House of Commons appoints the Commissioner for Standards.", (1,))
    assert placed_right(rewritten, TEXT, units) == rewritten
    # A claim that draws on two sentences keeps the numbers it was given.
    both = Drawn("The Commissioner for Standards is appointed for five years, renewable once.", (1, 2))
    assert placed_right(both, TEXT, units) == both


async def test_the_sentence_no_claim_copies_is_checked_and_the_copied_ones_are_not_listed_unchecked() -> None:
    reply = json.dumps({"claims": [{"claim": RENEWED, "sentences": [1]}, {"claim": NEUTRAL, "sentences": [2]}]})
    verdict, _, _ = await check(script(extractor=[reply]), response=TEXT)
    checked = [c.claim for c in verdict.claims]
    assert RENEWED in checked and NEUTRAL in checked
    # The first sentence, which neither claim states, is checked as it stands rather than passed as covered.
    assert any("appointed by the Speaker" in c for c in checked)
    assert [u.text for u in verdict.unchecked] == []
