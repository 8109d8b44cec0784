"""A sentence of a guarded reply is covered by the claims placed on it, or by one unplaced (reworded) claim
that holds nearly all its words and every name and number it writes (the claims' words,
names and numbers pooled used to cover a sentence that differs from a checked one only by a number another
claim happened to write)."""

from __future__ import annotations

from factdebate.core.types import Span
from factdebate.guard_engine.coverage import uncovered
from factdebate.guard_engine.gate import gate
from factdebate.guard_engine.types import GuardClaim

TEXT = "The tower was repainted in 1889. The tower was repainted in 1900. The tower has 1900 steps."


def test_a_number_another_claim_writes_does_not_cover_a_sentence() -> None:
    worthy = [s for s in gate(TEXT) if s.reason is None]
    claims = [GuardClaim(index=0, claim="The tower was repainted in 1889.", span=Span(start=0, end=32)),
              GuardClaim(index=1, claim="The tower has 1900 steps.", span=Span(start=66, end=len(TEXT)))]
    missing, headers = uncovered(worthy, claims, TEXT, dropped=[], capped=False, max_claims=12)
    assert [s.text for s, _ in missing] == ["The tower was repainted in 1900."] and headers == []


def test_an_unplaced_reworded_claim_still_covers_its_sentence() -> None:
    worthy = [s for s in gate(TEXT) if s.reason is None]
    claims = [GuardClaim(index=0, claim="The tower was repainted in 1889.", span=Span(start=0, end=32)),
              GuardClaim(index=1, claim="In 1900 the tower was repainted.", span=None),
              GuardClaim(index=2, claim="The tower has 1900 steps.", span=Span(start=66, end=len(TEXT)))]
    missing, _ = uncovered(worthy, claims, TEXT, dropped=[], capped=False, max_claims=12)
    assert missing == []


def test_a_sentence_said_again_is_covered_by_its_first_saying() -> None:
    text = TEXT + " The tower was repainted in 1889."
    worthy = [s for s in gate(text) if s.reason is None]
    claims = [GuardClaim(index=0, claim="The tower was repainted in 1889.", span=Span(start=0, end=32)),
              GuardClaim(index=1, claim="The tower was repainted in 1900.", span=Span(start=33, end=65)),
              GuardClaim(index=2, claim="The tower has 1900 steps.", span=Span(start=66, end=len(TEXT)))]
    assert uncovered(worthy, claims, text, dropped=[], capped=False, max_claims=12) == ([], [])


SPLIT = "The tower was built in 1889 and repainted in 1900. The tower is 330 m tall."


def test_at_the_claim_cap_a_sentence_its_kept_claims_do_not_hold_is_unchecked() -> None:
    """The extractor split the first sentence in two and the cap kept only the 1889 claim: the sentence is
    unchecked (only partly checked), as a response check lists it; below the cap its claim covers it."""
    worthy = [s for s in gate(SPLIT) if s.reason is None]
    claims = [GuardClaim(index=0, claim="The tower is 330 m tall.", span=Span(start=51, end=len(SPLIT))),
              GuardClaim(index=1, claim="The tower was built in 1889.", span=Span(start=0, end=27))]
    missing, _ = uncovered(worthy, claims, SPLIT, dropped=[], capped=True, max_claims=2)
    [(sentence, why)] = missing
    assert sentence.text == "The tower was built in 1889 and repainted in 1900."
    assert why.startswith("only partly checked") and "response.max_claims" in why
    # Said again, it is not covered by its first saying's claims either.
    again = SPLIT + " The tower was built in 1889 and repainted in 1900."
    missing, _ = uncovered([s for s in gate(again) if s.reason is None], claims, again, dropped=[], capped=True,
                           max_claims=2)
    assert [why.split(":")[0] for _, why in missing] == ["only partly checked", "beyond the claim cap"]
    both = [*claims, GuardClaim(index=2, claim="The tower was repainted in 1900.", span=Span(start=32, end=49))]
    assert uncovered(worthy, both, SPLIT, dropped=[], capped=True, max_claims=3) == ([], [])


def test_a_sentence_whose_claim_echoed_the_prompt_s_example_says_so() -> None:
    """The embedded model answered "The latter." with the extraction prompt's worked example: the claim is
    dropped whole, and the sentence is unchecked, said why (never passed as stating nothing)."""
    text = "The latter."
    worthy = [s for s in gate(text, asked=True) if s.reason is None]
    missing, _ = uncovered(worthy, [], text, dropped=[("The Quorvel Bridge opened in 1874.", worthy)], capped=False,
                           max_claims=12)
    [(sentence, why)] = missing
    assert sentence.text == text and "worked example" in why
    # With no claim at all it is unchecked too: a sentence is never "no fact" for what it names.
    [(_, why)] = uncovered(worthy, [], text, dropped=[], capped=False, max_claims=12)[0]
    assert why.startswith("no claim was extracted")
