"""More of the generated conformance world (test_generated.py, whose machinery and invariants these families
share): the shapes real conversations have, each false reply with its all-true twin.

- short answers whose question is one to three exchanges back: "Yes." / "No.", a name ("Berlin."), and a
  lettered choice ("B.", "(b)", "Option B") among options the question listed;
- negations ("The Titanic did not sink in 1912." is false); bounds ("before 1940", "after 1900", "in the
  late 1800s", "in the 20th century", "in the 1910s");
- comparatives in other words than the world's fact ("K2 is lower than Mount Everest." of "Mount Everest is
  taller than K2."; "twice as tall" against "three times the height");
- numbers written otherwise: Eastern Arabic and Devanagari digits in Arabic and Hindi replies, full-width
  digits in Japanese, thousands grouped by a thin, narrow, no-break or plain space ("8 849 m"), ISO dates
  ("1912-04-15") and years in words ("nineteen twelve");
- citations: markers after a sentence ("[1]", "[^1]"), a "References:" or "Sources:" block, footnote
  definitions ("[^1]: https://..."), a hedge ("You may want to double-check this."): lines that state nothing,
  which need no claim and are never facts left out;
- an FAQ whose answer line ("A: In 1912.") is grounded by the reply's own question line;
- a transposed table: the subjects in its header row, their values in the rows below.

The checker double is the world's (conversations.WorldChecker): it writes each statement's claim as a capable
model does, only when its prompt shows what the statement needs (the question for "No.", the options for
"B.", the question line for "A: In 1912.", the header row for a table's value), and decides by the world's
truth; where the evidence states the fact in other words than the claim (negations, bounds, comparatives), its
passage is the world's own statement of the fact. A family that fails for a cause outside how a reply's lines
are read is marked ``xfail(strict=True)`` with that cause (``KNOWN_DEFECTS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.guard.conformance.conversations import Conversation, Said
from tests.guard.conformance.test_generated import (
    FACTS,
    GENERATED,
    Doors,
    Fact,
    _ask,
    _cap,
    check,
)
from tests.guard.conformance.test_generated import doors as doors  # the fixtures, opened on this module's world
from tests.guard.conformance.test_generated import mcp as mcp
from tests.guard.conformance.test_generated import world as world


def _convo(name: str, turns: list[dict[str, Any]], false: str, true: str, wrong: str, said: list[Said],
           passage: str = "") -> Conversation:
    return Conversation(name, turns, false, true, wrong, tuple(said), passage=passage)


# -- short answers whose question is turns back ------------------------------------------------------------

@dataclass(frozen=True)
class Capital:
    country: str
    city: str  # true
    others: tuple[str, str]  # false, the first the one a false reply names

    def claim(self, city: str) -> str:
        return f"{city} is the capital of {self.country}."


CAPITALS = [Capital("Australia", "Canberra", ("Sydney", "Melbourne")),
            Capital("Canada", "Ottawa", ("Toronto", "Montreal")),
            Capital("Turkey", "Ankara", ("Istanbul", "Izmir")),
            Capital("Germany", "Berlin", ("Bonn", "Munich")),
            Capital("Brazil", "Brasília", ("Rio de Janeiro", "São Paulo"))]
# What the assistant and the person say between the question and the answer: the question stays unanswered.
PAUSES = [("Would you like a hint first?", "No, just the answer, please."),
          ("Shall I explain how to work it out?", "Not now, only the answer."),
          ("Are you ready for the answer?", "Yes, go ahead.")]
ACROSS = ("yes or no", "a name", "a lettered choice")
LETTERED = ("{}.", "({})", "Option {}")


@st.composite
def across_turns(draw: st.DrawFn, kind: str) -> Conversation:
    """A short answer (``kind``) to a question asked one to three exchanges before the reply."""
    pauses = [PAUSES[n % len(PAUSES)] for n in range(draw(st.integers(1, 3)))]
    if kind == "yes or no":
        fact = draw(st.sampled_from(FACTS))
        asked = draw(st.sampled_from([fact.wrong, fact.year]))
        question = f"{_cap(fact.did)} {fact.full} {fact.base} in {asked}?"
        yes, no = Said("Yes.", fact.said(asked), asked == fact.year, (question,)), \
            Said("No.", fact.denied(asked), asked != fact.year, (question,))
        false, true = (yes, no) if asked == fact.wrong else (no, yes)
        subject = fact.short
    else:
        capital = draw(st.sampled_from(CAPITALS))
        subject = capital.country
        if kind == "a name":
            question = f"What is the capital of {capital.country}?"
            false = Said(f"{capital.others[0]}.", capital.claim(capital.others[0]), False, (question,))
            true = Said(f"{capital.city}.", capital.claim(capital.city), True, (question,))
        else:
            options = draw(st.permutations([capital.city, *capital.others]))
            letters = {city: "ABC"[n] for n, city in enumerate(options)}
            listed = "\n".join(f"{letters[city]}) {city}" for city in options)
            question = f"Quiz question: what is the capital of {capital.country}?"
            form = draw(st.sampled_from(LETTERED))

            def letter(city: str) -> str:
                return form.format(letters[city].lower() if form.startswith("(") else letters[city])

            # A capable model reads the letter by the option the question listed for it.
            false = Said(letter(capital.others[0]), capital.claim(capital.others[0]), False,
                         (question, f"{letters[capital.others[0]]}) {capital.others[0]}"))
            true = Said(letter(capital.city), capital.claim(capital.city), True,
                        (question, f"{letters[capital.city]}) {capital.city}"))
            question = f"{question}\n{listed}"
    turns = _ask(question, *[line for pause in pauses for line in pause])
    return _convo(f"{kind} {len(pauses)} exchanges on: {subject}", turns, false.sentence, true.sentence,
                  false.sentence, [false, true])


# -- negations and bounds ------------------------------------------------------------------------------------

@st.composite
def negations(draw: st.DrawFn) -> Conversation:
    """A denial: of the true year (false) and of a wrong one (true), "did not" or "didn't"."""
    fact = draw(st.sampled_from(FACTS))
    short = draw(st.booleans()) and fact.did == "did"
    subject = _cap(draw(st.sampled_from([fact.full, fact.short])))

    def denial(year: str) -> str:
        return f"{subject} {'didn’t' if short else fact.did + ' not'} {fact.base} in {year}."

    said = [Said(denial(fact.year), fact.denied(fact.year), False, (fact.full,)),
            Said(denial(fact.wrong), fact.denied(fact.wrong), True, (fact.full,))]
    return _convo(f"negation: {fact.short}", _ask(f"Tell me something about {fact.full}."), denial(fact.year),
                  denial(fact.wrong), denial(fact.year), said, passage=fact.said(fact.year))


BOUNDS = ("before", "after", "part of a century", "century", "decade")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 < 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _part(year: int) -> str:
    return "early" if year % 100 < 34 else "mid" if year % 100 < 67 else "late"


def bound(kind: str, year: int, shift: int) -> tuple[str, str]:
    """(a bound that holds ``year``, one that does not), ``shift``: how many decades off each is."""
    decade = year // 10 * 10
    if kind == "before":
        return f"before {decade + 10 * shift}", f"before {decade - 10 * (shift - 1)}"
    if kind == "after":
        return f"after {decade - 10 * shift}", f"after {decade + 10 * shift}"
    century = year // 100 * 100
    if kind == "part of a century":
        other = century - 100 if shift % 2 else century
        wrong = _part(year) if other != century else next(p for p in ("late", "early") if p != _part(year))
        return f"in the {_part(year)} {century}s", f"in the {wrong} {other}s"
    if kind == "century":
        return f"in the {_ordinal(year // 100 + 1)} century", f"in the {_ordinal(year // 100 + 1 - shift)} century"
    return f"in the {decade}s", f"in the {decade - 10 * shift}s"


@st.composite
def bounds(draw: st.DrawFn, kind: str) -> Conversation:
    """The fact's time as a bound (``kind``) that holds it (true) or does not (false)."""
    fact = draw(st.sampled_from(FACTS))
    holds, misses = bound(kind, int(fact.year), draw(st.integers(1, 3)))
    subject = _cap(draw(st.sampled_from([fact.full, fact.short])))

    def line(when: str) -> str:
        return f"{subject} {fact.past} {when}."

    said = [Said(line(misses), f"{_cap(fact.full)} {fact.past} {misses}.", False, (fact.full,)),
            Said(line(holds), f"{_cap(fact.full)} {fact.past} {holds}.", True, (fact.full,))]
    return _convo(f"bound {kind}: {fact.short}", _ask(f"Tell me something about {fact.full}."), line(misses),
                  line(holds), line(misses), said, passage=fact.said(fact.year))


# -- comparatives in other words -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    fact: str  # the world's statement of it, as the evidence writes it
    true: tuple[str, ...]  # other words for it
    false: tuple[str, ...]  # statements it refutes


COMPARISONS = [
    Comparison("Mount Everest is taller than K2.",
               ("K2 is lower than Mount Everest.", "K2 is shorter than Mount Everest.",
                "Mount Everest is higher than K2.", "K2 is not as tall as Mount Everest."),
               ("K2 is taller than Mount Everest.", "Mount Everest is lower than K2.",
                "K2 is higher than Mount Everest.")),
    Comparison("The Nile is longer than the Thames.",
               ("The Thames is shorter than the Nile.", "The Thames is not as long as the Nile."),
               ("The Thames is longer than the Nile.", "The Nile is shorter than the Thames.")),
    Comparison("Jupiter is larger than Earth.",
               ("Earth is smaller than Jupiter.", "Jupiter is bigger than Earth."),
               ("Earth is larger than Jupiter.", "Jupiter is smaller than Earth.")),
    Comparison("The Eiffel Tower is about twice as tall as the Washington Monument.",
               ("The Eiffel Tower is about twice the height of the Washington Monument.",
                "The Washington Monument is about half as tall as the Eiffel Tower."),
               ("The Eiffel Tower is about three times the height of the Washington Monument.",
                "The Eiffel Tower is about three times as tall as the Washington Monument.")),
]


@st.composite
def comparatives(draw: st.DrawFn, kind: str) -> Conversation:
    """A comparison said in other words than the world's fact (``kind``: "order", or "ratio")."""
    pool = COMPARISONS[3:] if kind == "ratio" else COMPARISONS[:3]
    comparison = draw(st.sampled_from(pool))
    false, true = draw(st.sampled_from(comparison.false)), draw(st.sampled_from(comparison.true))
    # The statement names both things compared: a capable model writes it as it stands.
    said = [Said(false, false, False), Said(true, true, True)]
    return _convo(f"comparative {kind}: {comparison.fact}", _ask("Which of the two is bigger?"), false, true,
                  false, said, passage=comparison.fact)


# -- numbers written otherwise -------------------------------------------------------------------------------

DIGITS = ("Eastern Arabic digits", "Devanagari digits", "full-width digits", "grouped number", "ISO date",
          "year in words")
EASTERN_ARABIC, DEVANAGARI, FULL_WIDTH = "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９"
# Each reply in the language that writes those digits, as a chatbot answering in it does.
WRITTEN = {
    "Eastern Arabic digits": {"the RMS Titanic": "غرقت سفينة تايتانيك عام {}.",
                              "the Berlin Wall": "سقط جدار برلين عام {}.",
                              "Marie Curie": "توفيت ماري كوري عام {}."},
    "Devanagari digits": {"the RMS Titanic": "टाइटैनिक जहाज़ {} में डूबा था।",
                          "the Berlin Wall": "बर्लिन की दीवार {} में गिरी थी।",
                          "Marie Curie": "मैरी क्यूरी की मृत्यु {} में हुई थी।"},
    "full-width digits": {"the RMS Titanic": "タイタニック号は{}年に沈没した。",
                          "the Berlin Wall": "ベルリンの壁は{}年に崩壊した。",
                          "Marie Curie": "マリー・キュリーは{}年に亡くなった。"},
}
SCRIPT = {"Eastern Arabic digits": EASTERN_ARABIC, "Devanagari digits": DEVANAGARI,
          "full-width digits": FULL_WIDTH}
# Heights and distances of four digits or more: (the sentence with its number, the claim, true, false).
GROUPED = [("Mount Everest is {} m tall.", "Mount Everest is {} m tall.", "8849", "8611"),
           ("Mont Blanc is {} m high.", "Mont Blanc is {} m high.", "4808", "4478"),
           ("The Moon is about {} km from Earth.", "The Moon is about {} km from Earth.", "384400", "484400")]
SPACES = ("\u2009", "\u202f", "\u00a0", " ")
# Dates: the sentence with an ISO date, the claim with the date as a model writes it, the true year and day.
DATED = [("the RMS Titanic", "The Titanic sank on {}.", "The RMS Titanic sank on April 15, {}.", "04-15"),
         ("the Berlin Wall", "The Berlin Wall fell on {}.", "The Berlin Wall fell on November 9, {}.", "11-09"),
         ("Mount Everest", "Mount Everest was first climbed on {}.",
          "Mount Everest was first climbed on May 29, {}.", "05-29")]
IN_WORDS = {"1912": "nineteen twelve", "1915": "nineteen fifteen", "1989": "nineteen eighty-nine",
            "1991": "nineteen ninety-one", "1953": "nineteen fifty-three", "1963": "nineteen sixty-three",
            "1945": "nineteen forty-five", "1955": "nineteen fifty-five"}


def _grouped(number: str, space: str) -> str:
    head = len(number) % 3 or 3
    return space.join([number[:head], *(number[n:n + 3] for n in range(head, len(number), 3))])


def _written(kind: str, fact: Fact) -> tuple[str, Callable[[str], tuple[str, str]]]:
    """The name a reply in ``kind`` is about, and its line and claim for a year."""
    if kind in WRITTEN:
        def line(year: str) -> tuple[str, str]:
            written = year.translate(str.maketrans("0123456789", SCRIPT[kind]))
            return WRITTEN[kind][fact.full].format(written), fact.said(year)
        return fact.full, line
    full, sentence, claim, day = next(d for d in DATED if d[0] == fact.full) if kind == "ISO date" else \
        (fact.full, f"{_cap(fact.short)} {fact.past} in {{}}.", "", "")

    def dated(year: str) -> tuple[str, str]:
        if kind == "ISO date":
            return sentence.format(f"{year}-{day}"), claim.format(year)
        return sentence.format(IN_WORDS[year]), fact.said(year)
    return full, dated


@st.composite
def digits(draw: st.DrawFn, kind: str) -> Conversation:
    """A number written otherwise (``kind``), the claim writing it as a model does (ASCII digits, English)."""
    if kind == "grouped number":
        sentence, claim, right, wrong = draw(st.sampled_from(GROUPED))
        space, name = draw(st.sampled_from(SPACES)), sentence.split(" is ")[0]
        (false, false_claim), (true, true_claim) = [(sentence.format(_grouped(value, space)),
                                                     claim.format(f"{int(value):,}")) for value in (wrong, right)]
    else:
        known = {d[0] for d in DATED} if kind == "ISO date" else set(WRITTEN[kind]) if kind in WRITTEN else \
            {f.full for f in FACTS if f.year in IN_WORDS and f.wrong in IN_WORDS}
        fact = draw(st.sampled_from([f for f in FACTS if f.full in known]))
        name, line = _written(kind, fact)
        (false, false_claim), (true, true_claim) = line(fact.wrong), line(fact.year)
    said = [Said(false, false_claim, False), Said(true, true_claim, True)]
    tail = ""
    if kind in WRITTEN and draw(st.booleans()):  # another fact in the same language after it ("... था। ...")
        other = next(f for f in FACTS if f.full in WRITTEN[kind] and f.full != name)
        stated = _written(kind, other)[1](other.year)
        tail = ("" if kind == "full-width digits" else " ") + stated[0]
        said.append(Said(stated[0], stated[1], True))
    return _convo(f"{kind}: {name}", _ask(f"Tell me something about {name}."), false + tail, true + tail, false,
                  said)


# -- citations and references --------------------------------------------------------------------------------

MARKERS = ("", "[1]", " [1]", "[^1]")
BLOCKS = ("", "References:\n[1] https://en.wikipedia.org/wiki/{page}",
          "Sources:\n- https://www.britannica.com/topic/{page}",
          "[^1]: https://en.wikipedia.org/wiki/{page}",
          "Sources:\n1. Encyclopaedia Britannica, \"{page}\"\n2. Wikipedia, \"{page}\"",
          "References:\n[1] \"{page}\". Encyclopaedia Britannica. Retrieved 12 March 2024.")
HEDGES = ("", "You may want to double-check this.", "Please verify this with an official source.",
          "I recommend double-checking this with a reliable source.")


@st.composite
def cited(draw: st.DrawFn) -> Conversation:
    """A statement with a citation marker, a block of references or a footnote under it, and a hedge: the lines
    around the statement state nothing."""
    fact = draw(st.sampled_from(FACTS))
    other = draw(st.sampled_from([f for f in FACTS if f is not fact]))
    marker, block, hedge = draw(st.sampled_from(MARKERS)), draw(st.sampled_from(BLOCKS)), draw(st.sampled_from(HEDGES))
    if not (marker or block or hedge):
        marker, block = "[^1]", BLOCKS[3]
    page = fact.full.removeprefix("the ").replace(" ", "_")
    tail = "".join(f"\n\n{part}" for part in (hedge, block.format(page=page)) if part)
    # Maybe another statement on the same line, after the marker ("... in 1912.[1] The Berlin Wall fell ...").
    also = f" {other.said(other.year)}{marker.replace('1', '2')}" if draw(st.booleans()) else ""

    def line(year: str) -> str:
        return f"{_cap(fact.full)} {fact.past} in {year}.{marker}{also}"

    said = [Said(fact.said(fact.wrong), fact.said(fact.wrong), False),
            Said(fact.said(fact.year), fact.said(fact.year), True)]
    said += [Said(other.said(other.year), other.said(other.year), True)] if also else []
    return _convo(f"cited {marker!r} {block[:12]!r} {hedge[:12]!r}: {fact.short}",
                  _ask(f"Tell me something about {fact.full}, with sources."), line(fact.wrong) + tail,
                  line(fact.year) + tail, line(fact.wrong), said)


# -- an FAQ, and a transposed table --------------------------------------------------------------------------

FAQ_MARKS = (("Q: ", "A: "), ("**Q:** ", "**A:** "), ("Question: ", "Answer: "))


@st.composite
def faq(draw: st.DrawFn) -> Conversation:
    """An FAQ whose answer line ("A: In 1912.") a capable model reads by the question line above it, maybe
    followed by another question and its true answer."""
    fact = draw(st.sampled_from(FACTS))
    other = draw(st.sampled_from([f for f in FACTS if f is not fact]))
    q, a = draw(st.sampled_from(FAQ_MARKS))

    def pair(of: Fact, year: str) -> tuple[str, str, str]:
        question = f"When {of.did} {of.short} {of.base}?"
        return f"{q}{question}\n{a}In {year}.", question, f"{a}In {year}."

    (false, question, wrong), (true, _, right) = pair(fact, fact.wrong), pair(fact, fact.year)
    said = [Said(f"{wrong}", fact.said(fact.wrong), False, (question,)),
            Said(f"{right}", fact.said(fact.year), True, (question,))]
    tail = ""
    if draw(st.booleans()):
        tail, other_question, other_answer = pair(other, other.year)
        said.append(Said(other_answer, other.said(other.year), True, (other_question,)))
        tail = f"\n\n{tail}"
    return _convo(f"FAQ: {fact.short}", _ask("Write a short history FAQ for my class."), false + tail, true + tail,
                  wrong, said)


@dataclass(frozen=True)
class Building:
    name: str
    completed: tuple[str, str]  # (true, false)
    height: tuple[str, str]  # metres

    def claim(self, row: str, value: str) -> str:
        return f"{self.name} was completed in {value}." if row == "Completed" else f"{self.name} is {value} m tall."


BUILDINGS = [Building("The Empire State Building", ("1931", "1941"), ("443", "543")),
             Building("The Eiffel Tower", ("1889", "1899"), ("330", "430")),
             Building("The Burj Khalifa", ("2010", "2004"), ("828", "628")),
             Building("The Chrysler Building", ("1930", "1940"), ("319", "419"))]


@st.composite
def transposed(draw: st.DrawFn) -> Conversation:
    """A table whose header row names the subjects (one to three) and whose rows below give each one's value
    ("| Completed | 1889 | 1931 |"); the first subject's value is wrong in one row of the false reply."""
    shown = draw(st.lists(st.sampled_from(BUILDINGS), min_size=1, max_size=3, unique=True))
    wrong_row = draw(st.sampled_from(["Completed", "Height"]))
    header = "| | " + " | ".join(b.name.removeprefix("The ") for b in shown) + " |"

    def value(building: Building, row: str, right: bool) -> str:
        return (building.completed if row == "Completed" else building.height)[0 if right else 1]

    def table(right: bool) -> tuple[str, str, list[Said]]:
        lines, said, wrong = [header, "|---|" + "---|" * len(shown)], [], ""
        for row in ("Completed", "Height"):
            values = [value(b, row, right or row != wrong_row or n > 0) for n, b in enumerate(shown)]
            line = f"| {row} | " + " | ".join(v + (" m" if row == "Height" else "") for v in values) + " |"
            lines.append(line)
            # Each value's claim is read from its row with the header's names, as a capable model reads it.
            said += [Said(line, b.claim(row, v), v == value(b, row, True), (header,))
                     for b, v in zip(shown, values, strict=True)]
            wrong = line if row == wrong_row else wrong
        return "\n".join(lines), wrong, said

    (false, wrong, false_said), (true, _, true_said) = table(False), table(True)
    return _convo(f"transposed table: {', '.join(b.name for b in shown)} ({wrong_row})",
                  _ask("Compare these buildings in a table, please."), false, true, wrong, false_said + true_said)


# -- the families ----------------------------------------------------------------------------------------------

# A family that finds a defect outside how a reply's lines are read: strict, so the fix shows as an unexpected pass.
KNOWN_DEFECTS: dict[str, str] = {}


def _families(names: tuple[str, ...]) -> list[Any]:
    return [pytest.param(name, id=name.replace(" ", "-"), marks=[pytest.mark.xfail(
        strict=True, reason=KNOWN_DEFECTS[name])] if name in KNOWN_DEFECTS else []) for name in names]


@pytest.mark.parametrize("kind", _families(ACROSS))
@GENERATED
@given(data=st.data())
def test_a_short_answer_whose_question_is_turns_back(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(across_turns(kind)))


@pytest.mark.parametrize("kind", _families(("negation",)))
@GENERATED
@given(data=st.data())
def test_a_negation(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(negations()))


@pytest.mark.parametrize("kind", _families(BOUNDS))
@GENERATED
@given(data=st.data())
def test_a_bound(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(bounds(kind)))


@pytest.mark.parametrize("kind", _families(("order", "ratio")))
@GENERATED
@given(data=st.data())
def test_a_comparative_in_other_words(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(comparatives(kind)))


@pytest.mark.parametrize("kind", _families(DIGITS))
@GENERATED
@given(data=st.data())
def test_a_number_written_otherwise(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(digits(kind)))


@pytest.mark.parametrize("kind", _families(("citation",)))
@GENERATED
@given(data=st.data())
def test_citations_and_references_state_nothing(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(cited()))


@pytest.mark.parametrize("kind", _families(("FAQ",)))
@GENERATED
@given(data=st.data())
def test_an_faq_answer_read_by_its_question_line(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(faq()))


@pytest.mark.parametrize("kind", _families(("transposed table",)))
@GENERATED
@given(data=st.data())
def test_a_transposed_table(doors: Doors, kind: str, data: st.DataObject) -> None:
    check(doors, data.draw(transposed()))
