"""A claims list ends early once it repeats itself after holding every sentence: what the offline model wrote for
a three-sentence answer about C# from Factcheck-Bench, before it reworded its claims up to the call's room."""

from __future__ import annotations

import json

from factdebate.response_level.repeats import end_when_repeating, repeats, written_claims

SENTENCES = [
    "C# is a modern, multi-paradigm programming language developed by Microsoft as part of the .NET platform.",
    "It is designed to be simple, powerful, and object-oriented, with features such as type safety, garbage "
    "collection, and simplified and efficient memory management.",
    "C# can be used for a variety of purposes, including web and mobile app development, game development, and "
    "desktop application development.",
]


def item(claim: str, sentence: int) -> dict[str, object]:
    return {"claim": claim, "sentences": [sentence], "label": "SUPPORTS", "passage": 4, "quote": "", "correction": ""}


WRITTEN = [item(SENTENCES[0], 4), item(SENTENCES[1], 4), item(SENTENCES[2], 4),
           item("It is a modern programming language.", 1)]


def prefixes(text: str) -> list[str]:
    """``text`` as a model writes it: each time it closes a brace."""
    return [text[:i + 1] for i, char in enumerate(text) if char == "}"]


def test_the_list_ends_after_the_last_new_claim_once_every_sentence_is_held() -> None:
    reply = json.dumps({"claims": WRITTEN})
    ended = end_when_repeating(SENTENCES)
    kept = next(k for k in map(ended, prefixes(reply)) if k is not None)
    assert [c["claim"] for c in json.loads(kept)["claims"]] == SENTENCES


def test_a_repeat_before_every_sentence_is_held_does_not_end_it() -> None:
    reply = json.dumps({"claims": [WRITTEN[0], item("C# is a programming language.", 1), WRITTEN[1]]})
    assert all(end_when_repeating(SENTENCES)(p) is None for p in prefixes(reply))


def test_a_claim_with_a_new_name_or_number_is_not_a_repeat() -> None:
    said = ["The Eiffel Tower was finished in 1889."]
    assert repeats("The tower was finished.", said)
    assert not repeats("The Eiffel Tower was finished in 1899.", said)
    assert not repeats("Gustave Eiffel finished the tower.", ["The tower was finished."])


def test_only_closed_objects_are_read() -> None:
    text = '{"claims": [{"claim": "A.", "sentences": [1]}, {"claim": "B is'
    assert [c for c, _ in written_claims(text)] == ["A."]


EIFFEL = ["The Eiffel Tower was finished in 1899.", "It stands in Paris."]


def test_the_list_ends_at_a_claim_no_sentence_states_once_every_sentence_is_held() -> None:
    """The offline model's window answer for the proxy quick start's two sentences, as it wrote it: after the two
    claims that hold both sentences it went on with claims from the passages ("a lattice tower", "a tall
    structure"), which grounding drops; the list ends before them."""
    reply = json.dumps({"claims": [item("The Eiffel Tower was finished in 1899.", 1),
                                   item("The Eiffel Tower stands in Paris.", 1),
                                   item("The Eiffel Tower is a lattice tower.", 2),
                                   item("The Eiffel Tower is a tall structure.", 2)]})
    kept = next(k for k in map(end_when_repeating(EIFFEL), prefixes(reply)) if k is not None)
    assert [c["claim"] for c in json.loads(kept)["claims"]] == [
        "The Eiffel Tower was finished in 1899.", "The Eiffel Tower stands in Paris."]


def test_a_claim_beyond_the_sentences_before_every_sentence_is_held_does_not_end_it() -> None:
    reply = json.dumps({"claims": [item("The Eiffel Tower was finished in 1899.", 1),
                                   item("The Eiffel Tower is a lattice tower.", 1),
                                   item("The Eiffel Tower stands in Paris.", 2)]})
    assert all(end_when_repeating(EIFFEL)(p) is None for p in prefixes(reply))
