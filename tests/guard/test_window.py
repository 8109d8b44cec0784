"""guard_engine/window.py: what of the conversation the claim extractor reads. The system prompt's opening, the recent
turns bounded by characters, and the subjects named before them (most recently named first, each with the
sentence that set it), so a subject set at turn 2 of 40 is still known; a claim whose subject is still a
pronoun is unresolved."""

from __future__ import annotations

import pytest

from factdebate.guard_engine.window import (
    MOST_SUBJECTS,
    SCAN_CHARS,
    SUBJECTS_CHARS,
    SYSTEM_CHARS,
    TURNS_CHARS,
    names_in,
    subjects,
    turns_of,
    unresolved,
    window,
)

ADVICE = "Keep each paragraph on one idea and end it with a sentence that leads into the next one. " * 3


def chat(*turns: str) -> list[dict[str, str]]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)]


def long_chat(late: tuple[str, ...] = ()) -> list[dict[str, str]]:
    writing = [t for n in range(17)
               for t in (f"How long should paragraph {n + 2} be?", f"About {n + 4} lines. {ADVICE}")]
    return chat("I'm writing a report about the Eiffel Tower. Can you help?",
                "Of course! The Eiffel Tower is a wrought-iron lattice tower in Paris.", *writing, *late,
                "Back to my report: when was the tower finished?")


def test_the_system_prompt_is_a_turn_and_a_developer_message_is_one() -> None:
    messages = [{"role": "system", "content": "You are the Eiffel Tower."},
                {"role": "developer", "content": "Answer briefly."},
                {"role": "tool", "content": "a result"}, *chat("When did you open?")]
    assert turns_of(messages) == [("system", "You are the Eiffel Tower."), ("system", "Answer briefly."),
                                  ("user", "When did you open?")]
    shown = window(turns_of(messages), "When did you open?")
    assert shown.system == "You are the Eiffel Tower. Answer briefly." and shown.turns is None
    assert shown.text is not None and shown.text.startswith("System prompt (the bot's instructions, not a claim): "
                                                            "You are the Eiffel Tower.")


def test_a_long_system_prompt_is_read_as_far_as_its_opening_and_said_so() -> None:
    prompt = "You are the Eiffel Tower. " + "Be kind to visitors. " * 100
    shown = window(turns_of([{"role": "system", "content": prompt}, *chat("Hi?")]), "Hi?")
    assert shown.system is not None and len(shown.system) == SYSTEM_CHARS and shown.system.startswith("You are")
    assert shown.note is not None and "system prompt" in shown.note


def test_the_window_is_bounded_by_characters_not_by_turns() -> None:
    short = chat(*[f"Turn {n}." for n in range(30)], "Last?")
    shown = window(turns_of(short), "Last?")
    assert shown.shown == 30 and shown.note is None  # thirty short turns fit: none is left out for its count
    long = chat(*[f"Turn {n}. {ADVICE}" for n in range(30)], "Last?")
    shown = window(turns_of(long), "Last?")
    assert shown.turns is not None and len(shown.turns) <= TURNS_CHARS and 0 < shown.shown < 30
    assert shown.turns.splitlines()[-1].startswith("Assistant: Turn 29.")


@pytest.mark.parametrize("late", [(), ("Is the Empire State Building a good subject too?",
                                       f"Yes, the Empire State Building went up fast. {ADVICE}")])
def test_a_subject_set_at_turn_two_of_forty_is_still_known(late: tuple[str, ...]) -> None:
    messages = long_chat(late)
    assert len(messages) >= 37
    shown = window(turns_of(messages), messages[-1]["content"])
    assert shown.turns is not None and "Eiffel" not in shown.turns  # far outside the recent turns
    assert [s.name for s in shown.subjects][:2] == ["Eiffel Tower", "Paris"]
    tower = shown.subjects[0]
    assert tower.role == "user" and tower.said == "I'm writing a report about the Eiffel Tower."  # where it was set
    assert shown.text is not None and '- Eiffel Tower (Person: "I\'m writing a report about the Eiffel Tower.")' \
        in shown.text
    assert "Empire State Building" not in "".join(s.name for s in shown.subjects)  # it is in the recent turns
    assert shown.note is not None and "only for the names they write" in shown.note


def test_subjects_are_most_recently_named_first_each_once_and_bounded() -> None:
    turns = [("user", "Tell me about the Louvre."), ("assistant", "The Louvre is in Paris. The Louvre holds the "
                                                                 "Mona Lisa."),
             ("user", "And the Statue of Liberty?"), ("assistant", "The Statue of Liberty stands in New York.")]
    found = subjects(list(reversed(turns)))
    assert [s.name for s in found] == ["Statue of Liberty", "New York", "Louvre", "Mona Lisa", "Paris"]
    assert found[0].said == "And the Statue of Liberty?" and found[0].role == "user"  # where it was first named
    assert found[2].said == "Tell me about the Louvre."
    many = [("user", f"What about City{n} Alpha{n}?") for n in range(100)]
    assert len(subjects(many)) == MOST_SUBJECTS
    wordy = [("user", f"Tell me about Place{n}, " + "which many people visit every year " * 6 + "today.")
             for n in range(MOST_SUBJECTS)]
    found = subjects(wordy)
    assert 0 < len(found) < MOST_SUBJECTS and sum(len(s.name) + len(s.said) + 20 for s in found) <= SUBJECTS_CHARS
    assert all(len(s.said) <= 160 for s in found)


def test_a_shorter_form_and_a_name_the_prompt_shows_are_not_listed_again() -> None:
    found = subjects([("user", "The Eiffel Tower is tall. Eiffel designed it. Paris loves it.")], known="paris")
    assert [s.name for s in found] == ["Eiffel Tower"]


def test_reading_for_subjects_is_bounded() -> None:
    filler = ("assistant", "no names at all here. " * 1000)
    turns = [filler] * (SCAN_CHARS // len(filler[1]) + 1) + [("user", "The Colosseum is in Rome.")]
    assert subjects(turns) == ()  # past the newest SCAN_CHARS characters: not read


@pytest.mark.parametrize(("sentence", "names"), [
    ("The Eiffel Tower is a wrought-iron tower in Paris.", ["Eiffel Tower", "Paris"]),
    ("I'm writing a report about the Statue of Liberty.", ["Statue of Liberty"]),
    ("Gladly, here it is.", []),
    ("Mars.", ["Mars"]),
    ("Tell me about Leonardo da Vinci.", ["Leonardo da Vinci"]),
    ("Great question! What do you know about the Amazon River?", ["Amazon River"]),
    ("Writing reports is hard.", []),
])
def test_the_names_a_sentence_writes(sentence: str, names: list[str]) -> None:
    found = [n for part in sentence.split("! ") for n in names_in(part)]
    assert found == names


@pytest.mark.parametrize(("claim", "pronoun"), [
    ("It was finished in 1931.", "It"), ("Its height is 330 m.", "Its"), ("She was born in Warsaw.", "She"),
    ("This tower opened in 1889.", "This"), ("I opened my doors in 1920.", "I"), ('"It is in Berlin."', "It"),
    ("The Eiffel Tower was finished in 1889.", None), ("Italy is in Europe.", None), ("I-95 runs north.", None),
    ("It is estimated that 7 million people visit Paris.", None), ("It takes three hours to climb.", None),
    ("Thessaloniki is in Greece.", None),
])
def test_a_claim_whose_subject_is_still_a_pronoun_is_unresolved(claim: str, pronoun: str | None) -> None:
    assert unresolved(claim) == pronoun
