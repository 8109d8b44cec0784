"""The line that says how much of a response was checked: in a 160-sentence answer with
12 claims the verdict says 12 of 160 sentences were checked and why the other 148 were not, never only
"12 of 12 claims supported"; the terminal prints it."""

from __future__ import annotations

import io

from rich.console import Console

from factdebate.cli.check_response import render_response
from factdebate.response_level.aggregate import coverage_line
from tests.response_level.test_check_response import check, script

TEXT = "Hello! " + " ".join(f"The tower was repainted in {1800 + i}." for i in range(159))


async def test_a_long_answer_says_how_many_sentences_were_checked_and_why_not_the_rest() -> None:
    claims = [f"The tower was repainted in {1800 + i}." for i in range(12)]
    verdict, _, _ = await check(script(claims), response=TEXT)
    assert verdict.sentences == 160 and len(verdict.claims) == 12
    assert [u.reason for u in verdict.unchecked].count("claim limit") == 147
    assert verdict.unchecked[0].text == "Hello!"
    line = coverage_line(verdict)
    assert line == "12 claims from 12 of 160 sentences; 148 not checked: 147 claim limit, 1 greeting"
    out = io.StringIO()
    render_response(verdict, Console(file=out, width=200))
    assert line in out.getvalue()


def test_every_sentence_checked_says_so() -> None:
    from factdebate.core.types import ClaimExtraction, ResponseVerdict

    verdict = ResponseVerdict(response="A is B.", method="single", label=None, decided_by="unparsed",
                              extraction=ClaimExtraction(claims=["A is B."]), sentences=1)
    assert coverage_line(verdict) == "1 claim from 1 of 1 sentence; every sentence checked"
    verdict.sentences = None  # given claims: the response's sentences were not read
    assert coverage_line(verdict) is None


def test_a_sentence_checked_in_part_is_one_the_claims_come_from_and_is_named_apart() -> None:
    """Claims from both sentences of two, one of them checked in part: "from 2 of 2", never "from 1 of 2",
    and the partly checked one is still named (never counted as checked)."""
    from factdebate.core.types import ClaimExtraction, ResponseVerdict, Span, UncheckedSentence

    def unchecked(reason: str, partly: bool) -> UncheckedSentence:
        return UncheckedSentence(span=Span(start=0, end=1), text="A.", reason=reason, partly=partly)

    verdict = ResponseVerdict(response="A is B. C is D in 1900.", method="single", label=None, decided_by="unparsed",
                              extraction=ClaimExtraction(claims=["A is B.", "C is D."]), sentences=2,
                              unchecked=[unchecked("partly checked", True)])
    assert coverage_line(verdict) == "2 claims from 2 of 2 sentences; 1 partly checked: a part left out"
    verdict.sentences = 4
    verdict.unchecked = [unchecked("greeting", False), unchecked("claim limit", True), unchecked("claim limit", False),
                         unchecked("partly checked", True)]
    assert coverage_line(verdict) == ("2 claims from 2 of 4 sentences; 2 not checked: 1 greeting, 1 claim limit; "
                                      "2 partly checked: 1 claim limit, 1 a part left out")


def test_a_guard_check_read_as_a_response_counts_the_sentence_of_a_claim_left_undecided() -> None:
    """A guard check whose deadline left the second sentence's claim undecided, read as a response's verdict:
    the claims come from both sentences ("from 2 of 2", never "from 1 of 2"), and the undecided one is still
    named as not checked; the terminal prints that line."""
    from factdebate.core.types import Label, Span
    from factdebate.guard_engine.response_view import response_verdict
    from factdebate.guard_engine.types import GuardClaim, GuardResult

    text = "The tower is in Paris. It was repainted in 1900."
    decided = GuardClaim(index=0, claim="The tower is in Paris.", span=Span(start=0, end=22), label=Label.SUPPORTS,
                         status="checked")
    undecided = GuardClaim(index=1, claim="The tower was repainted in 1900.", span=Span(start=23, end=48),
                           status="unchecked", reason="not decided within the deadline")
    verdict = response_verdict(GuardResult(original_text=text, text=text, sentences=2, claims=[decided, undecided]))
    line = "2 claims from 2 of 2 sentences; 1 not checked: not decided within the deadline"
    assert coverage_line(verdict) == line
    out = io.StringIO()
    render_response(verdict, Console(file=out, width=200))
    assert line in out.getvalue()
