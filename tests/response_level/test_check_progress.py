"""``check-response`` says on stderr how its check goes, one plain line at a time (a loop, a CI log or a redirected
terminal reads them; the spinner draws only on a terminal): the claims found, each claim as it starts and ends with
its verdict, seconds and model calls, the response's verdict, a line whenever nothing was said for a while, and,
with ``--deadline``, a clear error and a non-zero exit when the deadline runs out. Through the console script's
``run()`` on scripted models; the lines' wording on a made-up clock."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli import response_progress
from factdebate.cli.response_progress import ResponseProgress
from tests.cli.test_main import assert_clean_error, run_here
from tests.fake_openai import FakeOpenAI
from tests.response_level.test_fail_on import _refuting_model

TEXT = "Paris is the capital of France. The Eiffel Tower is in Paris."
SINGLE = ["--method", "single", "--no-cache"]


def _lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def _at(lines: list[str], pattern: str) -> int:
    """The index of the first line that matches ``pattern`` (a regular expression, from the line's start)."""
    found = [i for i, line in enumerate(lines) if re.match(pattern, line)]
    assert found, f"no line matches {pattern!r} in:\n" + "\n".join(lines)
    return found[0]


def test_each_claim_is_said_as_it_starts_and_as_it_ends() -> None:
    result = run_here("check-response", TEXT, "--llm", "scripted:agree", *SINGLE, "--fail-on", "refuted")
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stderr)
    assert lines[0] == "extracting claims from the response"
    found = _at(lines, r"2 claim\(s\) to check \(\d+\.\d s\)$")
    for number, claim in enumerate(("Paris is the capital of France.", "The Eiffel Tower is in Paris."), start=1):
        started = _at(lines, f'claim {number}/2 started: "{re.escape(claim)}"$')
        finished = _at(lines, rf"claim {number}/2 finished: SUPPORTS \(single\) in \d+\.\d s, 1 model call\(s\)$")
        assert found < started < finished
    verdict = _at(lines, r"response: SUPPORTS \(all-true\) after \d+\.\d s$")
    assert verdict > _at(lines, "claim 2/2 finished") and lines[-1] == "fail-on: no refuted claim found"


def test_a_line_says_where_the_check_stands_while_nothing_else_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each model call takes a second of (scripted) waiting; a line is due after 0.05 s of silence, which comes
    # before any call's answer, however slow the machine: the event loop wakes timers in the order they are due.
    monkeypatch.setattr(response_progress, "PERIOD_S", 0.05)
    result = run_here("check-response", TEXT, "--llm", "scripted:agree@1", *SINGLE)
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stderr)
    extracting = _at(lines, r"still extracting claims after \d+ s$")
    assert extracting < _at(lines, r"2 claim\(s\) to check")
    checking = _at(lines, r"still checking claims after \d+ s: 0 of 2 decided; claim 1 for \d+ s \(round 1, "
                          r"single\); claim 2 for \d+ s \(round 1, single\)$")
    assert _at(lines, "claim 2/2 started") < checking < _at(lines, "claim 1/2 finished")


@pytest.mark.parametrize(("fail_on", "code"), [(["--fail-on", "refuted"], 3), ([], 1)])
def test_a_check_past_its_deadline_stops_with_one_line_and_no_verdict(tmp_path: Path, fail_on: list[str],
                                                                      code: int) -> None:
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("the last run's note", encoding="utf-8")
    # The extractor's one call takes 30 s: the deadline of half a second runs out during it on any machine.
    result = run_here("check-response", TEXT, "--llm", "scripted:agree@30", *SINGLE, "--deadline", "0.5",
                      "--feedback", str(fixes), "--json", *fail_on)
    assert result.returncode == code, result.stderr
    assert result.stdout == ""  # no verdict, not a partial one a script could take for the answer's
    assert_clean_error(result, "the check ran past --deadline 0.5 s (")
    assert re.search(r"^error: the check ran past --deadline 0\.5 s \(\d+\.\d s\) while (starting|extracting "
                     r"claims); it was stopped, with no verdict$", result.stderr, re.M), result.stderr
    assert fixes.read_text(encoding="utf-8") == ""  # emptied at the start: no note is fed to the agent again


@pytest.mark.parametrize("deadline", ["0", "-5", "nan"])
def test_a_deadline_that_is_no_time_is_a_usage_error(deadline: str) -> None:
    result = run_here("check-response", TEXT, "--llm", "scripted:agree", *SINGLE, "--deadline", deadline)
    assert result.returncode == 2
    assert_clean_error(result, "give the seconds the check may take")


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _events(progress: ResponseProgress, clock: _Clock) -> None:
    """A check of two claims as its events come: the first decided after 40 s, the second still in its judge."""
    claims = ["The Eiffel Tower is in Rome.", "The Eiffel Tower was finished in 1889."]
    send: list[tuple[float, dict[str, Any]]] = [
        (0, {"event": "response_started"}), (12, {"event": "claims_extracted", "claims": claims})]
    for index, claim in enumerate(claims):
        send += [(0, {"event": "span_begin", "kind": "subclaim", "span_id": f"s{index}",
                      "attributes": {"index": index, "claim": claim}}),
                 (0, {"event": "run_started", "run": f"r{index}", "span_id": f"s{index}", "claim": claim})]
    send += [(20, {"event": "llm_call", "run": "r0", "agent": "rag", "round": 1}),
             (20, {"event": "run_finished", "run": "r0", "label": "REFUTES", "decided_by": "consensus",
                   "usage": {"llm_calls": 11}}),
             (0, {"event": "span_end", "kind": "subclaim", "span_id": "s0"}),
             (5, {"event": "judgement", "run": "r1", "agent": "judge", "round": 3})]
    for seconds, event in send:
        clock.now += seconds
        progress(event)


def test_the_lines_say_the_verdicts_seconds_and_calls_and_the_deadline_what_was_decided() -> None:
    said: list[str] = []
    clock = _Clock()
    progress = ResponseProgress(said.append, clock)
    _events(progress, clock)
    assert said == ["extracting claims from the response", "2 claim(s) to check (12.0 s)",
                    'claim 1/2 started: "The Eiffel Tower is in Rome."',
                    'claim 2/2 started: "The Eiffel Tower was finished in 1889."',
                    "claim 1/2 finished: REFUTES (consensus) in 40.0 s, 11 model call(s)"]
    clock.now += 30
    assert progress.detail() == "1 of 2 decided (#1 REFUTES); claim 2 for 75 s (round 3, judge)"
    assert str(progress.cut_short(60)) == (
        "the check ran past --deadline 60 s (87.0 s) while checking claims: 1 of 2 decided (#1 REFUTES); claim 2 "
        "for 75 s (round 3, judge); it was stopped, with no verdict")


def test_the_corrections_of_refuted_claims_are_said_before_they_are_written(tmp_path: Path) -> None:
    fixes = tmp_path / "fixes.txt"
    with FakeOpenAI(reply=_refuting_model) as model:
        result = run_here("check-response", "The Eiffel Tower is in Rome.", "--llm", "openai:m", *SINGLE,
                          "--fail-on", "refuted", "--feedback", str(fixes), env={"OPENAI_BASE_URL": model.base_url})
    assert result.returncode == 1, result.stderr
    lines = _lines(result.stderr)
    finished = _at(lines, r"claim 1/1 finished: REFUTES \(single\) in \d+\.\d s, 1 model call\(s\)$")
    writing = _at(lines, r"writing corrections for 1 refuted claim\(s\)$")
    assert finished < _at(lines, r"response: REFUTES \(any-false\)") < writing < _at(lines, "fail-on: 1 refuted")
