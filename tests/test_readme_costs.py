"""The README's examples cost a few model calls each: a newcomer who copies one waits seconds on a served model,
not minutes (a check-response example on the default method cost 79 calls, 280 s). The Python example runs one
round of the default method, the one that refutes its claim offline: at most a round and the judge. Each runs as the
README writes it, on a scripted model that disagrees with itself (so a debate never settles early: the most
calls the example can make), over the built-in corpus cut to a few articles (tests/conftest.py)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from tests.cli.test_main import run_here
from tests.documented_lines import snippets

FEW = 8  # model calls an example may make: a claim's check, or a short answer's extraction and claims
ONE_ROUND = 12  # the Python example's: one round of the default method, its queries and scores, and the judge


def readme_blocks() -> list[str]:
    return [s.text for s in snippets() if s.file == "README.md" and s.kind == "python"]


def readme_check_response() -> list[str]:
    [line] = [s.text for s in snippets() if s.file == "README.md" and s.kind == "shell"
              and "check-response" in s.text and "--question" in s.text]
    words = shlex.split(line, comments=True)
    assert words[0].endswith("factdebate")
    if "--llm" in words:  # the reader's served model; the test's is the scripted one
        at = words.index("--llm")
        del words[at:at + 2]
    return words[1:]


def test_the_readme_check_response_example_costs_a_few_calls(builtin_index: Path) -> None:
    result = run_here(*readme_check_response(), "--json", env={"FACTDEBATE_LLM": "scripted:disagree"})
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert 0 < verdict["usage"]["llm_calls"] <= FEW, verdict["usage"]
    assert len(verdict["claims"]) >= 2  # it still checks the answer claim by claim


def test_the_readme_python_example_costs_a_few_calls_and_shows_the_models_note(
        builtin_index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:disagree")
    first = readme_blocks()[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(first, "README.md", "exec"), {"__name__": "__main__"})  # as a reader pastes it
    lines = printed.getvalue().splitlines()
    calls = int(lines[0].split()[-1])  # print(verdict.label, verdict.decided_by, verdict.usage.llm_calls)
    assert 0 < calls <= ONE_ROUND, lines
    # the verdict's warnings, as the example prints them: the scripted model's caution here, a local model's on a
    # reader's machine ("answers near chance" for SmolLM2: tests/llm/test_model_warnings.py)
    assert any(re.match(r"scripted_model scripted:disagree is a script", line) for line in lines[1:]), lines
