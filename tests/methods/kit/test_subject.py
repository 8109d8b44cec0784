"""Whether the documents shown name the claim's subject (methods/kit/subject.py), on claims and pages as the
Tool-MAD authors' FEVER sample and the built-in corpus give them: the label guide goes only where they do."""

from __future__ import annotations

import pytest

from factdebate.core.types import Document
from factdebate.methods.kit.subject import claim_names, names_subject, page_name


def pages(*titles: str, text: str = "") -> list[Document]:
    return [Document(id=str(i), title=title, text=text) for i, title in enumerate(titles)]


@pytest.mark.parametrize(("claim", "titles"), [
    # FEVER claims shown their gold built-in pages
    ("Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.", ("Fox Broadcasting Company",)),
    ("Austria's largest city is Budapest.", ("Austria",)),
    ("The Rolling Stones' original line-up included Michael Jackson.", ("The Rolling Stones",)),
    ("Walt Disney is unknown in America.", ("Disneyland", "The Walt Disney Company")),
    # a web page's title carries its site's name, a built-in one a parenthetical
    ("Telemundo is an English-language television network.", ("Telemundo - Wikipedia",)),
    ("Mercury has no moons.", ("Mercury (planet)",)),
])
def test_a_page_on_the_claim_s_subject_names_it(claim: str, titles: tuple[str, ...]) -> None:
    assert names_subject(claim, pages(*titles))


@pytest.mark.parametrize(("claim", "titles"), [
    # what the full-text search returned for FEVER's NOT ENOUGH INFO claims
    ("Steve Coogan produced What Maisie Knew.", ("Steve Wozniak", "Steve Jobs", "Steve Biko")),
    ("Chris Hardwick hosted a live hour talk show on AMC in 1999.", ("Talk show", "Hour", "Game show")),
    ("The Directors Guild of America was founded in Rome.", ("Guild", "Emile Berliner")),
    ("Anil Kapoor has a dog.", ("Raj Kapoor", "Herding dog", "Dog")),
    ("Borussia Dortmund's colors are pink and green.", ("Pink", "Green", "RGB color model")),
])
def test_pages_on_other_things_do_not(claim: str, titles: tuple[str, ...]) -> None:
    assert not names_subject(claim, pages(*titles, text="A page about something else."))


def test_a_page_whose_text_writes_the_claim_s_full_name_names_it() -> None:
    claim = "Steve Coogan produced What Maisie Knew."
    assert names_subject(claim, pages("Alan Partridge", text="Alan Partridge is played by Steve Coogan."))
    # a first name alone is not the name
    assert not names_subject(claim, pages("Apple Inc.", text="Steve founded it in a garage."))


def test_a_claim_that_writes_no_name_misses_nothing() -> None:
    assert names_subject("A crown colony is also known as a country.", pages("Country music"))


def test_names_are_read_as_claims_write_them() -> None:
    assert claim_names("The Ten Commandments is an epic film by Cecil B. DeMille.") == [
        "ten commandments", "cecil b demille"]
    assert claim_names("In 1620 the Pilgrims landed at Plymouth Rock.") == ["pilgrims", "plymouth rock"]
    assert claim_names("Leonardo da Vinci painted the Mona Lisa.") == ["leonardo da vinci", "mona lisa"]
    assert page_name("Paris | Britannica") == "paris"
