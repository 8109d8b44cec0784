"""The check-worthiness gate: framing, questions, instructions and opinions are left out, each said why;
anything that states a number or names something in a way that could be false is kept."""

from __future__ import annotations

import pytest

from factdebate.guard_engine.gate import gate, reason_to_skip


@pytest.mark.parametrize(("sentence", "reason"), [
    ("Hi!", "greeting"), ("Great question.", "greeting"), ("Sure!", "greeting"), ("Hope this helps!", "greeting"),
    ("Let me know if you need anything else.", "greeting"), ("Thanks for asking.", "greeting"),
    ("Would you like more?", "question"), ("Is Paris in France?", "question"),
    ("I think Paris is lovely in spring.", "opinion"), ("In my opinion the food is better in Lyon.", "opinion"),
    ("It is beautiful.", "opinion"),
    ("Visit the Louvre early to avoid queues.", "instruction"), ("Please be careful.", "instruction"),
    ("Never mix bleach and ammonia.", "instruction"), ("Ok.", "greeting"), ("Indeed.", "no content"),
    # OpenClaw's heartbeat acknowledgements: its heartbeat turns cost no model call through the guard
    ("HEARTBEAT_OK", "no content"), ("NO_REPLY", "no content"),
])
def test_left_out_with_a_reason(sentence: str, reason: str) -> None:
    assert reason_to_skip(sentence) == reason


@pytest.mark.parametrize("sentence", [
    "Paris is the capital of France.", "The tower was built in 1889.", "Check-in opens at 3 pm.",
    "Use of force is regulated by law.", "Visit the Louvre, open since 1793.", "Note: the tower is 330 m tall.",
    "Sure, Berlin has 3.6 million people.", "The museum is stunning and holds 380,000 objects.",
    "- The Seine flows through Paris.", "1. Mount Fuji last erupted in 1707.",
])
def test_kept_for_checking(sentence: str) -> None:
    assert reason_to_skip(sentence) is None


def test_every_sentence_is_placed_in_the_text() -> None:
    text = "Hi! Dr. Smith was born in 1950.\n- He lives in Oslo. Why?"
    found = gate(text)
    assert [(s.text, s.reason) for s in found] == [("Hi!", "greeting"), ("Dr. Smith was born in 1950.", None),
                                                   ("- He lives in Oslo.", None), ("Why?", "question")]
    assert all(text[s.start:s.end] == s.text for s in found)
