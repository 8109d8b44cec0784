"""Thanks and framing are greetings, a sentence that only points to a link is "not checked:
link", and a URL's words are no name, by the one gate that ``check-response`` and the guard both read
(response_level/worthiness.py): the same sentences are left out, for the same reasons, through each door."""

from __future__ import annotations

import json
from typing import Any

import pytest

import factdebate
from factdebate.cli.main import run

THANKS = "Thanks for asking about Europe's famous landmarks."
TOWER = "The Eiffel Tower is in Paris."
LINK = "More at https://en.wikipedia.org/wiki/Eiffel_Tower_details_page."
ANSWER = f"{THANKS} {TOWER} {LINK}"
OFFLINE: dict[str, Any] = {"method": "single", "llm": "scripted:agree", "search": "local", "cache": False}
LEFT_OUT = {THANKS: "greeting", LINK: "link"}


def test_check_response_leaves_out_the_thanks_and_the_link() -> None:
    verdict = factdebate.check_response(ANSWER, **OFFLINE)
    assert {u.text: u.reason for u in verdict.unchecked} == LEFT_OUT
    assert [c.claim for c in verdict.claims] == [TOWER]


def test_the_guard_leaves_out_the_same_sentences_for_the_same_reasons() -> None:
    result = factdebate.guard(ANSWER, evidence=[TOWER], evidence_mode="given", tier="fast", deadline_s=30, **OFFLINE)
    assert {s.text: s.reason for s in result.skipped} == LEFT_OUT
    assert [c.claim for c in result.claims] == [TOWER]
    assert (result.sentences, result.sentences_checked) == (3, 1)


def test_the_terminal_says_why_each_was_not_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check-response", ANSWER, "--json", "--llm", "scripted:agree", "--method", "single",
                "--no-cache", "--no-scoring"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {u["text"]: u["reason"] for u in shown["unchecked"]} == LEFT_OUT
