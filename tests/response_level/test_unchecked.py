"""A response's sentences that no claim covers come back with why they were not checked:
greetings, questions, opinions and advice, a claim the extractor wrote that the text does not ground, the
claim limit; a sentence a claim covers, even reworded, is not listed."""

from __future__ import annotations

import json

from factdebate.core.types import ClaimExtraction, Span
from factdebate.response_level.spans import claim_spans
from factdebate.response_level.unchecked import unchecked_sentences
from tests.response_level.test_check_response import check, script

TEXT = ("Hello! Paris is the capital of France. Honestly, nothing compares to it at night. You should visit the "
        "Louvre. Is it worth it? The Louvre opened in 1793. The city is calm.")


def reasons(text: str, claims: list[str], ungrounded: list[str] | None = None, most: int = 12) -> dict[str, str]:
    spans = [place for place, _ in claim_spans(claims, text)]
    extraction = ClaimExtraction(claims=claims, ungrounded=ungrounded or [])
    found = unchecked_sentences(text, claims, spans, extraction, most)
    for item in found:
        assert text[item.span.start:item.span.end] == item.text
    return {item.text: item.reason for item in found}


def test_each_sentence_no_claim_covers_says_why() -> None:
    assert reasons(TEXT, ["Paris is the capital of France.", "The Louvre opened in 1793."]) == {
        "Hello!": "greeting", "Honestly, nothing compares to it at night.": "opinion",
        "You should visit the Louvre.": "opinion", "Is it worth it?": "question", "The city is calm.": "no claim"}


def test_a_reworded_claim_covers_its_sentence_and_the_limit_is_named() -> None:
    text = "Paris is the capital of France. The Louvre opened in 1793."
    assert reasons(text, ["France's capital city is Paris."], most=1) == {"The Louvre opened in 1793.": "claim limit"}


def test_a_dropped_claim_is_the_note_of_its_sentence() -> None:
    text = "Paris is the capital of France. The Louvre opened in 1793."
    spans = [place for place, _ in claim_spans(["Paris is the capital of France."], text)]
    dropped = "The Louvre opened in 1793 in Lyon."
    extraction = ClaimExtraction(claims=["Paris is the capital of France."], ungrounded=[dropped])
    [item] = unchecked_sentences(text, ["Paris is the capital of France."], spans, extraction, 12)
    assert (item.reason, item.note, item.span) == ("ungrounded", dropped, Span(start=32, end=len(text)))


def test_nothing_is_listed_when_the_claims_could_not_be_read() -> None:
    assert unchecked_sentences(TEXT, [], [], ClaimExtraction(parsed=False), 12) == []


async def test_the_response_verdict_carries_them() -> None:
    text = "Hi there! Paris is the capital of France. I think Paris is lovely in spring."
    verdict, _, _ = await check(script(["Paris is the capital of France.", "I love Paris."]), response=text)
    assert [c.claim for c in verdict.claims] == ["Paris is the capital of France."]
    assert verdict.extraction.ungrounded == ["I love Paris."]
    assert [(u.text, u.reason) for u in verdict.unchecked] == [
        ("Hi there!", "greeting"), ("I think Paris is lovely in spring.", "opinion")]
    assert json.loads(verdict.model_dump_json())["unchecked"][0]["span"] == {"start": 0, "end": 9}


def test_a_sentence_said_again_is_named_as_repeated() -> None:
    text = "The Louvre is a museum in Paris. Rome is in Italy. The Louvre is a museum in Paris."
    assert reasons(text, ["The Louvre is a museum in Paris.", "Rome is in Italy."]) == {
        "The Louvre is a museum in Paris.": "repeated"}


SPLIT = "The tower was built in 1889 and repainted in 1900. The tower is 330 m tall."


def test_a_sentence_the_claim_limit_left_partly_checked_is_listed_with_the_claims_checked_of_it() -> None:
    """The extractor split the first sentence in two and the limit kept only the 1889 claim; the
    claim's span in it used to count the whole sentence as covered, 1900 unchecked and unsaid."""
    claims = ["The tower is 330 m tall.", "The tower was built in 1889."]
    spans = [place for place, _ in claim_spans(claims, SPLIT)]
    [item] = unchecked_sentences(SPLIT, claims, spans, ClaimExtraction(claims=claims), 2)
    assert (item.text, item.reason, item.note, item.partly) == (
        "The tower was built in 1889 and repainted in 1900.", "claim limit", "The tower was built in 1889.", True)
    # Said again, neither saying is "repeated" (that would say it was checked): the limit left both unchecked,
    # the one the claim was placed on in part.
    again = SPLIT + " The tower was built in 1889 and repainted in 1900."
    spans = [place for place, _ in claim_spans(claims, again)]
    found = unchecked_sentences(again, claims, spans, ClaimExtraction(claims=claims), 2)
    assert sorted((u.reason, u.partly) for u in found) == [("claim limit", False), ("claim limit", True)]
    spans = [place for place, _ in claim_spans(claims, SPLIT)]
    # Below the limit the same claims still leave the repainting out: partly checked, not for the limit.
    [item] = unchecked_sentences(SPLIT, claims, spans, ClaimExtraction(claims=claims), 3)
    assert (item.reason, item.note, item.partly) == ("partly checked", "The tower was built in 1889.", True)
    # Both halves kept: the sentence is covered.
    both = [*claims, "The tower was repainted in 1900."]
    spans = [place for place, _ in claim_spans(both, SPLIT)]
    assert unchecked_sentences(SPLIT, both, spans, ClaimExtraction(claims=both), 3) == []


async def test_check_response_counts_a_partly_checked_sentence_as_not_checked() -> None:
    from factdebate.response_level.aggregate import coverage_line

    extractor = [json.dumps({"claims": ["The tower is 330 m tall.", "The tower was built in 1889.",
                                        "The tower was repainted in 1900."]})]
    verdict, _, _ = await check(script(extractor=extractor), response=SPLIT, sections={"response": {"max_claims": 2}})
    assert [c.claim for c in verdict.claims] == ["The tower is 330 m tall.", "The tower was built in 1889."]
    assert [(u.reason, u.partly) for u in verdict.unchecked] == [("claim limit", True)]
    # The claims come from both sentences; the one they check in part is named apart, never as checked.
    assert coverage_line(verdict) == "2 claims from 2 of 2 sentences; 1 partly checked: claim limit"


async def test_check_response_names_the_sentence_an_extractor_filled_its_room_on() -> None:
    """One sentence of more facts than its parts: room for four claims, and an extractor that writes five (the
    false fifth dropped by the room) has filled it. The sentence is listed as partly checked, with the claims
    checked of it, not counted as covered by the four; an extractor that stays within the room is taken at its
    reading."""
    dense = ("The Eiffel Tower opened in 1889 in Paris on the Champ de Mars for the World's Fair and was the "
             "tallest structure in the world until 1950.")
    five = ["The Eiffel Tower opened in 1889.", "The Eiffel Tower is in Paris.",
            "The Eiffel Tower is on the Champ de Mars.", "The Eiffel Tower opened for the World's Fair.",
            "The Eiffel Tower was the tallest structure in the world until 1950."]

    def drawn(claims: list[str]) -> list[str]:
        return [json.dumps({"claims": [{"claim": claim, "sentences": [1]} for claim in claims]})]

    verdict, _, _ = await check(script(extractor=drawn(five)), response=dense)
    assert [c.claim for c in verdict.claims] == five[:4]
    assert [(u.text, u.reason, u.partly) for u in verdict.unchecked] == [(dense, "claim limit", True)]
    fewer = five[:2] + five[4:]  # within the room: the extractor's reading of the sentence is taken
    verdict, _, _ = await check(script(extractor=drawn(fewer)), response=dense)
    assert [c.claim for c in verdict.claims] == fewer and verdict.unchecked == []
