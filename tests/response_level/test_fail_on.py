"""``check-response --fail-on``: the exit code a re-run loop or a CI step reads (0 when nothing named is found, 1
for a refuted claim, 4 for a claim of another named kind with none refuted, 2 for a usage error, 3 when the
check itself failed), and the line on stderr that says why; the CI step through the installed CLI, the others
through the same ``run()`` in this process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli.fail_on import findings
from factdebate.core.types import ClaimCheck, ClaimExtraction, Label, ResponseVerdict, Span, UncheckedSentence
from tests.cli.test_main import assert_clean_error, run, run_here
from tests.fake_openai import FakeOpenAI

TEXT = "Paris is the capital of France. The Eiffel Tower is in Paris."
SINGLE = ["--method", "single", "--no-cache"]
ALL = "refuted,unchecked,not-enough-info"


def test_a_supported_response_passes_and_an_unsure_one_exits_4_on_not_enough_info() -> None:
    passed = run_here("check-response", TEXT, "--fail-on", ALL, "--llm", "scripted:agree", *SINGLE)
    assert passed.returncode == 0, passed.stderr
    assert "fail-on: no refuted, unchecked, not-enough-info claim found" in passed.stderr

    unsure = ["check-response", TEXT, "--llm", "scripted:unsure", "--json", *SINGLE]
    failed = run_here(*unsure, "--fail-on", "not-enough-info")
    assert failed.returncode == 4, failed.stderr  # nothing refuted: nothing the writer can correct
    assert '2 not-enough-info: #1 "Paris is the capital of France."' in failed.stderr
    assert "nothing refuted" in failed.stderr
    assert json.loads(failed.stdout)["kind"] == "response"  # the verdict is still written for the loop to read
    assert run_here(*unsure, "--fail-on", "refuted").returncode == 0  # only the kinds named fail
    assert run_here(*unsure).returncode == 0  # without --fail-on, as before: every claim has a verdict


def _refuting_model(body: dict[str, Any]) -> str:
    """Extracts the README's one claim, then refutes it."""
    if "claims" in json.dumps(body.get("response_format") or {}):
        return json.dumps({"claims": ["The Eiffel Tower is in Rome."]})
    return "The passages put it in Paris.\nREFUTES"


def test_a_refuted_claim_fails_the_ci_step(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"  # the CI recipe: a README's factual sentences
    readme.write_text("The Eiffel Tower is in Rome.\n", encoding="utf-8")
    with FakeOpenAI(reply=_refuting_model) as model:
        result = run("check-response", "--file", str(readme), "--fail-on", "refuted,unchecked", "--llm", "openai:m",
                     *SINGLE, env={"OPENAI_BASE_URL": model.base_url})
    assert result.returncode == 1, result.stderr  # refuted wins over any other kind: the writer can correct it
    assert 'fail-on: 1 refuted: #1 "The Eiffel Tower is in Rome."' in result.stderr


def test_usage_errors_exit_2_before_anything_runs() -> None:
    assert_clean_error(result := run_here("check-response", TEXT, "--fail-on", "refuted,wrong", "--llm",
                                          "scripted:agree", *SINGLE), "unknown kind wrong")
    assert result.returncode == 2
    assert run_here("check-response", TEXT, "--fail-on", " , ", "--llm", "scripted:agree", *SINGLE).returncode == 2


def test_a_check_that_could_not_be_made_exits_3() -> None:
    down = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "FACTDEBATE_LLM__RETRIES": "1"}
    result = run_here("check-response", TEXT, "--fail-on", "refuted", "--llm", "openai:m", *SINGLE, env=down)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "127.0.0.1:9" in result.stderr


@pytest.mark.parametrize(("reason", "counted"), [("claim limit", True), ("ungrounded", True), ("opinion", False),
                                                 ("question", False), ("no claim", True),
                                                 ("unresolved", True), ("table header", False)])
def test_unchecked_counts_only_sentences_that_state_something(reason: str, counted: bool) -> None:
    sentence = UncheckedSentence(span=Span(start=0, end=5), text="Paris", reason=reason)
    verdict = ResponseVerdict(response="Paris", method="single", label=Label.SUPPORTS, decided_by="all-true",
                              extraction=ClaimExtraction(parsed=True), unchecked=[sentence],
                              claims=[ClaimCheck(index=0, claim="Paris", label=Label.SUPPORTS)])
    assert bool(findings(verdict).found["unchecked"]) is counted
