"""The number note under a debater's documents: what it says, when it is silent, and the setting that turns it off."""

from __future__ import annotations

import pytest

from factdebate.core.types import Document
from factdebate.prompts import render
from factdebate.prompts.numbers import number_note, numbers_in

TOWER = Document(id="Eiffel Tower#0", title="Eiffel Tower", source="wiki",
                 text="The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France. It is named after "
                      "the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.")
EIFFEL = Document(id="Gustave Eiffel#0", title="Gustave Eiffel", source="wiki",
                  text="Alexandre Gustave Eiffel was a French civil engineer. He is best known for the Eiffel Tower, "
                       "built for the 1889 Universal Exposition in Paris.")
DUBAI = Document(id="Burj Khalifa#0", title="Burj Khalifa", source="wiki",
                 text="The Burj Khalifa is a skyscraper in Dubai. It has been the tallest building since 2009.")


def test_a_year_no_document_writes_is_named_with_the_years_the_closest_sentences_give() -> None:
    note = number_note("The Eiffel Tower was finished in 1899.", [TOWER, EIFFEL, DUBAI])
    assert note == ("Check the numbers: the claim says 1899, and no document writes 1899. The documents' sentences "
                    "closest to the claim say 1887 [1] and 1889 [1, 2], which are not 1899.")


@pytest.mark.parametrize("claim", ["The Eiffel Tower was finished in 1889.", "The Eiffel Tower stands in Paris.",
                                   "The tower was built from 1887 to 1889."])
def test_silent_when_every_number_is_written_or_there_is_none(claim: str) -> None:
    assert number_note(claim, [TOWER, EIFFEL]) == ""


def test_silent_without_documents() -> None:
    assert number_note("The Eiffel Tower was finished in 1899.", []) == ""


def test_numbers_compare_without_their_separators_and_show_as_written() -> None:
    fuji = Document(id="Fuji#0", title="Mount Fuji", source="wiki",
                    text="Mount Fuji is 3,776 metres (12,389 ft) tall, the highest mountain of Japan.")
    assert numbers_in("It is 4,776 m or 2.04 km, not 12389.") == ["4776", "2.04", "12389"]
    assert number_note("Mount Fuji is 3776 m tall.", [fuji]) == ""
    assert number_note("Mount Fuji is 4,776 m tall.", [fuji]) == (
        "Check the numbers: the claim says 4,776, and no document writes 4,776. The documents' sentences closest "
        "to the claim say 3,776 [1] and 12,389 [1], which are not 4,776.")


def test_a_missing_year_is_shown_beside_years_only() -> None:
    paris = Document(id="Paris#0", title="Paris", source="wiki",
                     text="Paris hosted the Universal Exposition of 1889, with 32 million visitors.")
    note = number_note("Paris hosted the Universal Exposition of 1899.", [paris])
    assert note.endswith("say 1889 [1], which is not 1899.")


@pytest.mark.parametrize(("template", "extra"), [
    ("madke_answer", {"agent_desc": "the first debater", "others": []}),
    ("madke_judge", {"history": "debater-1: SUPPORTS"}),
    ("debate_answer", {"agent_desc": "RAG agent", "others": [], "answer_sentences": 5, "score_note": None}),
])
def test_the_debaters_prompts_carry_the_note_only_while_the_setting_is_on(template: str,
                                                                          extra: dict[str, object]) -> None:
    claim = "The Eiffel Tower was finished in 1899."
    on = render(template, claim=claim, documents=[TOWER, EIFFEL], number_notes=True, **extra)
    off = render(template, claim=claim, documents=[TOWER, EIFFEL], number_notes=False, **extra)
    assert "no document writes 1899" in on.text
    assert "no document writes" not in off.text
    assert "1899" not in on.fixed  # the note is a value of the rendering, not the prompt's own words
