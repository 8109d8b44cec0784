"""No verdict from an echo: SmolLM2 answered the fast tier's prompt with its example word
for word, and the guard flagged "The capital of France is Paris." as contradicted, citing passage 2."""

from __future__ import annotations

import json

import pytest

from factdebate.core.types import Document, Label
from factdebate.guard_engine.correct import EXAMPLE_SENTENCE
from factdebate.guard_engine.fast import (
    EXAMPLE,
    EXAMPLE_QUOTE,
    OFF_TOPIC,
    UNFOUNDED,
    UNQUOTED,
    FastVerdict,
    bears_on,
    read_reply,
    unfounded,
    unquoted_support,
    unseen_numbers,
    verdict_of,
)
from factdebate.guard_engine.window_call import EXAMPLE_CORRECTION
from tests.guard.support import run_check, script

FAST_ONLY = {"tier": "fast", "max_tier": "fast"}
QUOTE_RULE = {**FAST_ONLY, "stance_step": False}
DOCS = [Document(id="a", title="France", text="Paris is the capital and largest city of France."),
        Document(id="b", title="Italy", text="Rome is the capital of Italy.")]


def _read(reply: str, docs: list[Document]) -> FastVerdict:
    """The fast tier's verdict as read from ``reply`` (the rules a label must then meet come after)."""
    return verdict_of(*read_reply(reply, docs), docs)


def test_the_prompts_own_example_is_no_verdict() -> None:
    label, index, quote, problem = read_reply(EXAMPLE, DOCS)
    assert (label, index, quote) == (None, -1, "") and "example" in problem
    # The same quote in another frame, or another label with it, copies the example just the same.
    again = json.dumps({"label": "SUPPORTS", "passage": 1, "quote": EXAMPLE_QUOTE.lower()})
    assert read_reply(again, DOCS)[0] is None


def test_a_label_whose_quote_no_passage_holds_cites_nothing() -> None:
    unheld = json.dumps({"label": "SUPPORTS", "passage": 2, "quote": "Paris is in Italy."})
    assert read_reply(unheld, DOCS) == (Label.SUPPORTS, -1, "", "")
    held = json.dumps({"label": "SUPPORTS", "passage": 1, "quote": "the capital and largest city"})
    assert read_reply(held, DOCS) == (Label.SUPPORTS, 0, "the capital and largest city", "")


@pytest.mark.parametrize("passage, quote", [(2, "Paris is in Italy."), (1, ""), (0, "the capital and largest city"),
                                            (1, " . ")], ids=["not held", "no quote", "no passage", "no words"])
def test_a_refutes_that_quotes_nothing_the_passage_holds_is_no_verdict(passage: int, quote: str) -> None:
    reply = json.dumps({"label": "REFUTES", "passage": passage, "quote": quote})
    assert read_reply(reply, DOCS)[0] == Label.REFUTES  # read; whether it may flag is decided after
    assert unfounded("Paris is in Italy.", _read(reply, DOCS)) == UNFOUNDED


def test_a_refutes_may_quote_the_passage_with_its_title_as_the_prompt_shows_it() -> None:
    title = DOCS[0].title
    quote = f"{title}: {DOCS[0].text.split('.')[0]}"
    assert read_reply(json.dumps({"label": "REFUTES", "passage": 1, "quote": quote}), DOCS)[:2] == (Label.REFUTES, 0)


def test_an_example_that_a_passage_holds_is_a_quote() -> None:
    tower = [Document(id="t", title="Bridge", text=f"{EXAMPLE_QUOTE} It is long.")]
    assert read_reply(EXAMPLE.replace('"passage": 2', '"passage": 1'), tower)[0] == Label.REFUTES


async def test_an_echoing_checker_leaves_the_claim_unchecked_not_refuted() -> None:
    text = "The capital of France is Paris."
    result, backend = await run_check(script(claims=[text], fast=lambda claim: EXAMPLE), text, guard=FAST_ONLY,
                                      docs=DOCS)
    (claim,) = result.claims
    assert claim.label is None and claim.status != "checked"
    assert result.label != Label.REFUTES and not any(e.cited for e in claim.evidence)
    prompt = next(m for info, m in backend.calls if info.prompt == "guard_fast")[0]["content"]
    assert prompt.endswith(EXAMPLE)  # the example the reader knows is the one the prompt shows


@pytest.mark.parametrize("window_call", [True, False], ids=["window", "apart"])
async def test_a_correction_that_copies_the_correctors_example_is_not_shown(window_call: bool) -> None:
    result, backend = await run_check(script(correction=EXAMPLE_SENTENCE), guard={**FAST_ONLY,
                                      "window_call": window_call}, policy="flag")
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None
    assert rome.correction_note is not None and "copies the prompt's example" in rome.correction_note
    assert "Kessington" not in result.text  # the client never reads the example as a correction
    if not window_call:
        prompt = next(m for info, m in backend.calls if info.prompt == "guard_correct")[0]["content"]
        assert EXAMPLE_SENTENCE in prompt  # the example the reader knows is the one the prompt shows


async def test_a_correction_that_copies_the_window_call_s_example_is_asked_of_the_corrector() -> None:
    result, backend = await run_check(script(correction=EXAMPLE_CORRECTION), guard=FAST_ONLY, policy="flag")
    # the window's correction copies its prompt's example: not read as one, the corrector is asked alone
    assert [info.prompt for info, _ in backend.calls if info.prompt != "guard_stance"] == ["guard_window",
                                                                                           "guard_correct"]
    window = backend.calls[0][1][0]["content"]
    assert EXAMPLE_CORRECTION in window  # the example the reader knows is the one the prompt shows
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None  # the corrector's copy is held to the quote
    assert "Quorvel" not in result.text and "1881" not in result.text


async def test_a_correction_whose_check_copies_the_example_is_not_shown() -> None:
    def fast(claim: str) -> str:  # the claim is refuted; the correction's own check answers with the example
        if claim == "The Eiffel Tower is in Paris.":
            return EXAMPLE
        label = "REFUTES" if "Rome" in claim else "SUPPORTS"
        return json.dumps({"label": label, "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})

    result, _ = await run_check(script(fast=fast), guard=FAST_ONLY, policy="flag")
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None
    assert rome.correction_note is not None and "could not be read" in rome.correction_note
    assert "copied the prompt's example" in rome.correction_note
    assert "Correction:" not in result.text  # the flag says the claim is contradicted, and offers no correction


def test_a_number_no_shown_passage_writes_is_unseen() -> None:
    guide = [Document(id="t", title="Eiffel Tower", text="The company built the tower from 1887 to 1889.")]
    assert "writes 1899" in unseen_numbers("The Eiffel Tower was finished in 1899.", guide)
    assert unseen_numbers("The Eiffel Tower was finished in 1889.", guide) == ""
    assert unseen_numbers("The Eiffel Tower stands in Paris.", []) == ""


async def test_a_supports_of_a_number_no_passage_writes_leaves_the_claim_unchecked() -> None:
    # As the offline checker answered the README's example: SUPPORTS, quoting the tower's years, of a year none
    # writes.
    guide = [Document(id="t", title="Eiffel Tower", text="The company built the tower from 1887 to 1889.")]
    supports = lambda claim: json.dumps(  # noqa: E731
        {"label": "SUPPORTS", "passage": 1, "quote": "The company built the tower from 1887 to 1889."})
    text = "The Eiffel Tower was finished in 1899."
    result, _ = await run_check(script(claims=[text], fast=supports), text, guard=FAST_ONLY, docs=guide)
    (claim,) = result.claims
    assert (claim.status, claim.label) == ("unchecked", None) and result.label is None
    assert claim.reason is not None and "about the claim's subject writes 1899" in claim.reason


def test_a_number_written_only_by_a_passage_about_something_else_is_unseen() -> None:
    # As the offline checker answered docs/ways/python.md's example: 1899 written by a passage on another war.
    war = Document(id="w", title="Second Boer War", text="The Second Boer War began in 1899 in southern Africa.")
    tower = Document(id="t", title="Eiffel Tower", text="The company built the tower from 1887 to 1889.")
    assert "writes 1899" in unseen_numbers("The Eiffel Tower was finished in 1899.", [tower, war])
    assert unseen_numbers("The Second Boer War began in 1899.", [tower, war]) == ""
    assert unseen_numbers("The war began in 1899.", [war]) == ""  # no name: every passage may be about it


TOWER = [Document(id="t", title="Eiffel Tower",
                  text="The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France. The company "
                       "built the tower from 1887 to 1889.")]
LATTICE = "The Eiffel Tower is a lattice tower on the Champ de Mars in Paris, France."


def test_a_refutes_quoting_words_that_say_nothing_of_the_claim_is_no_verdict() -> None:
    claim = "The Eiffel Tower was finished in 1899 and is made of wrought iron."
    off = json.dumps({"label": "REFUTES", "passage": 1, "quote": LATTICE})
    assert unfounded(claim, _read(off, TOWER)) == OFF_TOPIC
    # a number against the claim's number, or one of the claim's own words, speaks to it
    dated = json.dumps({"label": "REFUTES", "passage": 1, "quote": "The company built the tower from 1887 to 1889."})
    assert read_reply(dated, TOWER, claim)[:2] == (Label.REFUTES, 0) and unfounded(claim, _read(dated, TOWER)) == ""
    assert bears_on("The Eiffel Tower is made of steel.", "It is a lattice tower of wrought iron, not steel.")
    assert not bears_on("The Eiffel Tower is made of steel.", LATTICE)
    # two forms of one word share a stem; words that only begin alike do not ("design" is not "designation")
    assert bears_on("Fortune cookies are a Chinese invention.", "Fortune cookies were invented in California.")
    assert not bears_on("Felon is not an official NATO designation.", "A design is expected to have a purpose.")
    # and its passage must be about what the claim is about: it writes one of the claim's names (the offline
    # checker flagged a ChatGPT answer of Factcheck-Bench on a passage about something else)
    and_then = "AndThen takes a callback function with an argument of Future[T]."
    exponential = "The exponential function is the unique real function which maps zero to one."
    assert not bears_on(and_then, exponential, f"Exponential function: {exponential}")
    assert bears_on(and_then, "It is a function.", "Futures: AndThen takes a closure. It is a function.")
    assert bears_on("The Eiffel Tower was finished in 1899.", "It was built from 1887 to 1889.", "Eiffel Tower")
    # or half the claim's other words, when its name is the value it states
    assert bears_on("The chemical symbol for gold is Ag.", "Its symbol is Au.", "Gold: a chemical element.")
    # a heading's capitals are no name the passage writes as a name (Factcheck-Bench, a migration plan)
    planning = "Urban planning is the process of developing and designing plans for land use."
    assert not bears_on("Developing a Migration Plan: Creating a roadmap of the migration process's stages and "
                        "risks.", planning, f"Urban planning: {planning}")
    # where the claim writes digits, the quote's number is one in digits ("one-to-one" counts nothing)
    grapheme = "A letter is a grapheme, though there is rarely a one-to-one correspondence with a phoneme."
    assert not bears_on("Physical Review Letters, 105(3), 035502.", grapheme, f"Letter (alphabet): {grapheme}")
    assert bears_on("Eisinga had five sons.", "Eise Eisinga had two sons.", "Eise Eisinga")
    # a claim stated by its names alone: a quote about its subject may speak to it
    located = json.dumps({"label": "REFUTES", "passage": 1, "quote": LATTICE})
    assert unfounded("The Eiffel Tower is located in Rome.", _read(located, TOWER)) == ""
    # SUPPORTS keeps its label on any quote the passage holds; the rule is a flag's
    assert read_reply(off.replace("REFUTES", "SUPPORTS"), TOWER, claim)[0] == Label.SUPPORTS


@pytest.mark.parametrize("window_call", [True, False], ids=["window", "apart"])
async def test_an_off_topic_refutes_leaves_the_claim_unchecked_with_why(window_call: bool) -> None:
    # As the offline checker answered the README's guard example: REFUTES on the tower's first sentence.
    text = "The Eiffel Tower was finished in 1899 and is made of wrought iron."
    refutes = lambda claim: json.dumps({"label": "REFUTES", "passage": 1, "quote": LATTICE})  # noqa: E731
    # Without the stance step: with it, the checker's quote is not the one shown (tests/guard/test_stance.py).
    result, _ = await run_check(script(claims=[text], fast=refutes), text, docs=TOWER, policy="flag",
                                guard={**FAST_ONLY, "window_call": window_call, "stance_step": False})
    (claim,) = result.claims
    assert (claim.status, claim.label, claim.correction) == ("unchecked", None, None)
    assert result.label != Label.REFUTES and claim.reason is not None and OFF_TOPIC in claim.reason
    # what the reader is shown: the claim could not be checked, and why; no correction
    assert f'"{text}" could not be checked' in result.text and "say nothing of what the claim states" in result.text
    assert LATTICE not in result.text


def test_bounds_periods_and_negations_need_no_passage_to_write_their_number() -> None:
    # Each a right SUPPORTS the rule rejected on the conversations of the generated world.
    titanic = [Document(id="t", title="Titanic", text="RMS Titanic sank in the North Atlantic in April 1912.")]
    assert unseen_numbers("The Titanic did not sink in 1915.", titanic) == ""
    assert unseen_numbers("The Titanic sank before 1940.", titanic) == ""
    assert unseen_numbers("The Titanic sank in the early 1910s.", titanic) == ""
    assert "writes 1915" in unseen_numbers("The Titanic sank in 1915.", titanic)  # a value is still held to it


def test_numbers_are_read_as_values_whatever_their_writing() -> None:
    from factdebate.response_level.grounding import numbers

    assert numbers("The wall fell on 1989-11-09.") == {"1989", "11", "9"}  # "09" is 9, as "9 November" writes it
    assert numbers("nineteen eighty-nine") == {"1989"} and numbers("twenty twenty") == {"2020"}
    assert numbers("Everest is 8\u202f849 m high.") == numbers("Everest is 8 849 metres high.") == {"8849"}
    assert numbers("\u0661\u0669\u0668\u0669") == {"1989"}  # Eastern Arabic digits
    assert numbers("It costs 3.5 euros.") == {"3.5"}  # a decimal is one value


def test_a_claims_numbers_are_held_to_the_passages_as_values() -> None:
    city = [Document(id="c", title="Lyon", text="Lyon has 1,500,000 inhabitants and lies 2.50 km from the Rhône "
                                                "weir, built in nineteen eighty-nine; 3 locks and 5 gates.")]
    assert unseen_numbers("Lyon has 1.5 million inhabitants.", city) == ""  # 1,500,000 is 1.5 million
    assert unseen_numbers("Lyon lies 2.5 km from the weir, built in 1989.", city) == ""
    assert unseen_numbers("Lyon has more than 2 million inhabitants.", city) == ""  # a bound, scale and all
    # 3.5 is a value the passage does not write, whatever digits it writes apart; values come sorted as values
    assert "writes 3.5, 10: a number" in unseen_numbers("Lyon lies 3.5 km from the weir, 10 km from Vienne.", city)


async def test_a_supports_that_quotes_no_passage_about_the_claim_is_unchecked_said_why() -> None:
    # As the offline checker answered Factcheck-Bench's stance pairs: SUPPORTS with no quote it could show, or
    # with a quote about something else. The rule that holds with the stance step off (guard_engine/stance.py
    # copies the quote itself when it is on).
    guide = [Document(id="t", title="Eiffel Tower", text="The Eiffel Tower is a lattice tower in Paris, France.")]
    text = "The Eiffel Tower stands in Paris."
    for reply in ({"label": "SUPPORTS", "passage": 0, "quote": ""},
                  {"label": "SUPPORTS", "passage": 1, "quote": "a lattice tower in Lyon"},  # not the passage's
                  {"label": "SUPPORTS", "passage": 1, "quote": ""}):
        fast = lambda claim, reply=reply: json.dumps(reply)  # noqa: E731
        result, _ = await run_check(script(claims=[text], fast=fast), text, guard=QUOTE_RULE, docs=guide)
        (claim,) = result.claims
        assert (claim.status, claim.label) == ("unchecked", None), reply
        assert claim.reason is not None and UNQUOTED in claim.reason and result.label is None
    quoted = lambda claim: json.dumps(  # noqa: E731
        {"label": "SUPPORTS", "passage": 1, "quote": "The Eiffel Tower is a lattice tower in Paris, France."})
    result, _ = await run_check(script(claims=[text], fast=quoted), text, guard=QUOTE_RULE, docs=guide)
    (claim,) = result.claims
    assert (claim.status, claim.label) == ("checked", "SUPPORTS")
    assert [e.quote for e in claim.evidence if e.cited] == ["The Eiffel Tower is a lattice tower in Paris, France."]


def test_a_quote_about_another_subject_does_not_check_a_claim() -> None:
    war = Document(id="w", title="Second Boer War", text="The Second Boer War began in 1899 in southern Africa.")
    verdict = FastVerdict(Label.SUPPORTS, [war], quote="The Second Boer War began in 1899", cited=True)
    assert unquoted_support("The Eiffel Tower was finished in 1899.", verdict) == UNQUOTED
    assert unquoted_support("The Second Boer War began in 1899.", verdict) == ""


def test_a_comparison_in_other_words_speaks_to_the_claim() -> None:
    # A refutation that compares the other way, or by another word for the same measure, bears on the claim.
    assert bears_on("The Nile is shorter than the Thames.", "The Nile is longer than the Thames.", "Nile")
    assert bears_on("The Eiffel Tower is about three times the height of the Washington Monument.",
                    "The Eiffel Tower is about twice as tall as the Washington Monument.", "Eiffel Tower")
    assert bears_on("Everest is lower than K2.", "Everest is higher than K2.", "Mount Everest")
    # Another measure is not the claim's: age says nothing of height.
    assert not bears_on("The Nile is shorter than the Thames.", "The Nile is older than the Thames.", "Nile")
