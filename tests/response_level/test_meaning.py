"""Grounding by meaning, not spelling: a claim that writes another form of the conversation's verb, noun or name
is kept (its lemmas are the conversation's), and a claim the text does not state is still dropped; the prompt's
worked example is caught whole, and no word of it is banned."""

from __future__ import annotations

import pytest

from factdebate.response_level.grounding import grounded, holds
from factdebate.response_level.lemmas import lemmas

# The twenty verbs whose past form the grounding filter used to drop: (base, past, the rest of the statement).
VERBS = [
    ("sink", "sank", "the Titanic", "in 1912"), ("fall", "fell", "the Berlin Wall", "in 1989"),
    ("win", "won", "Marie Curie", "the Nobel Prize in 1903"), ("build", "built", "Gustave Eiffel", "the tower"),
    ("write", "wrote", "Jane Austen", "Emma in 1815"), ("lose", "lost", "Napoleon", "at Waterloo"),
    ("give", "gave", "Lincoln", "the Gettysburg Address in 1863"),
    ("speak", "spoke", "Churchill", "to Parliament in 1940"), ("run", "ran", "Roger Bannister", "the mile in 1954"),
    ("hold", "held", "Greece", "the Olympics in 2004"), ("leave", "left", "Darwin", "England in 1831"),
    ("bring", "brought", "Columbus", "horses to America"), ("rise", "rose", "the Nile", "in July"),
    ("fly", "flew", "Lindbergh", "to Paris in 1927"), ("sell", "sold", "Russia", "Alaska in 1867"),
    ("teach", "taught", "Aristotle", "Alexander"), ("die", "died", "Marie Curie", "in 1934"),
    ("marry", "married", "Frida Kahlo", "Diego Rivera in 1929"), ("study", "studied", "Einstein", "in Zurich"),
    ("stop", "stopped", "the Orient Express", "in Vienna"),
]


@pytest.mark.parametrize(("base", "past", "subject", "rest"), VERBS, ids=[v[0] for v in VERBS])
def test_a_claim_in_the_past_of_the_question_s_verb_is_kept(base: str, past: str, subject: str, rest: str) -> None:
    """"Did the Titanic sink in 1912?" -> "Yes.": the claim writes "sank", the conversation "sink"."""
    question = f"Did {subject} {base} {rest}?"
    claim = f"{subject[0].upper()}{subject[1:]} {past} {rest}."
    assert grounded([claim], f"Yes. {question}") == ([claim], [])
    assert base in lemmas(past)


def test_plurals_and_regular_forms_meet() -> None:
    for a, b in (("countries", "country"), ("studied", "studies"), ("married", "marries"), ("stopped", "stops"),
                 ("bridges", "bridge"), ("tallest", "tall")):
        assert lemmas(a) & lemmas(b), (a, b)
    assert "leave" in lemmas("left") and "rise" in lemmas("rose")
    assert not lemmas("sank") & lemmas("sold")


def test_another_verb_is_still_not_the_text_s() -> None:
    """Meaning, not leniency: a predicate the conversation does not state is dropped whatever its form."""
    claim = "The Titanic was sold in 1912."
    assert grounded([claim], "Yes. Did the Titanic sink in 1912?") == ([], [claim])
    invented = "The Titanic sank near Iceland in 1912."
    assert grounded([invented], "Yes. Did the Titanic sink in 1912?") == ([], [invented])


def test_names_in_shorter_and_longer_forms() -> None:
    everest = "Mount Everest is 9,500 m tall."
    assert grounded([everest], "It is 9,500 m tall. How tall is Everest?") == ([everest], [])
    short = "Everest is 9,500 m tall."
    assert grounded([short], "It is 9,500 m tall. How tall is Mount Everest?") == ([short], [])
    # A longer name that only shares a generic word with the conversation's is another name.
    other = "Mount Kilimanjaro is 9,500 m tall."
    assert grounded([other], "It is 9,500 m tall. How tall is Mount Everest?") == ([], [other])


def test_the_worked_example_is_caught_whole() -> None:
    echoed = "The Quorvel Bridge opened in 1874."
    assert grounded([echoed], "The bridge in our town opened in 1874 and spans the river.") == ([], [echoed])


def test_coverage_by_words_reads_lemmas_too() -> None:
    assert holds("The Titanic sank in 1912.", ["The Titanic sinks in 1912."])
    assert not holds("The Titanic sank in 1912.", ["The Titanic sank in 1915."])
