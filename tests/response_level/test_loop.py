"""The re-run loop of docs/ways/check-loop.md, run as the page prints it: a script around an agent and
``factdebate check-response --fail-on ... --feedback``. It ends with 0 only when every claim holds, gives up
with a non-zero status, and hands the agent only refuted claims, never an empty list.

The agent is a small script on PATH (``my-agent``, as the page names it) that writes its answer and keeps
every prompt it was given; the checker is the installed CLI against a fake OpenAI server that refutes
"Rome", supports "Paris" and gives no label for "Lyon"."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fake_openai import FakeOpenAI
from tests.paths import ROOT

PAGE = ROOT / "docs" / "ways" / "check-loop.md"
ANSWERS = {"rome": "The Eiffel Tower is in Rome.", "paris": "The Eiffel Tower is in Paris.",
           "lyon": "The Eiffel Tower is in Lyon."}
AGENT = """#!{python}
import json, os, sys
prompt = sys.argv[sys.argv.index("--task") + 1]
with open(os.environ["AGENT_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(prompt) + "\\n")
mode = os.environ["AGENT_MODE"]
fixed = "False:" in prompt and mode == "fixes"
print({answers}["paris" if fixed else "lyon" if mode == "undecided" else "rome"])
"""


def loop_script() -> str:
    """The loop as the page prints it: its one bash block that runs check-response with --feedback."""
    blocks = re.findall(r"```bash\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if "--feedback" in block and "my-agent" in block]
    assert len(found) == 1, "docs/ways/check-loop.md should print one re-run loop"
    return found[0]


def checker(body: dict[str, Any]) -> str:
    """Extracts the answer's one claim, then refutes Rome, supports Paris and answers Lyon with no label."""
    asked = json.dumps(body.get("messages", []))
    said = next((text for text in ANSWERS.values() if text[:-1] in asked), ANSWERS["rome"])
    if "claims" in json.dumps(body.get("response_format") or {}):
        return json.dumps({"claims": [said]})
    if "Rome" in said:
        return "The tower stands in Paris, not Rome.\nREFUTES"
    if "Paris" in said:
        return "It stands in Paris.\nSUPPORTS"
    return "I cannot say."


def run_loop(tmp_path: Path, mode: str, model_url: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the page's loop in ``tmp_path`` with an agent of ``mode``: its result and the prompts the agent got."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "my-agent"
    agent.write_text(AGENT.format(python=sys.executable, answers=ANSWERS), encoding="utf-8")
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "loop.sh").write_text(loop_script(), encoding="utf-8")
    log = tmp_path / "prompts.jsonl"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "AGENT_MODE": mode, "AGENT_LOG": str(log), "FACTDEBATE_LLM": "openai:m", "OPENAI_BASE_URL": model_url,
           "FACTDEBATE_METHOD": "single", "FACTDEBATE_LLM__CACHE": "false", "FACTDEBATE_LLM__RETRIES": "1"}
    result = subprocess.run(["bash", "loop.sh"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    prompts = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return result, prompts


def task(prompt: str) -> str:
    return prompt.split("\n\n", 1)[0]


@pytest.fixture(scope="module")
def model() -> Any:
    with FakeOpenAI(reply=checker) as server:
        yield server


def test_an_agent_that_corrects_its_answer_passes_on_its_second_try(tmp_path: Path, model: FakeOpenAI) -> None:
    result, prompts = run_loop(tmp_path, "fixes", model.base_url)
    assert result.returncode == 0, result.stderr
    assert "every claim holds" in result.stdout
    assert len(prompts) == 2
    assert 'False: "The Eiffel Tower is in Rome."' in prompts[1]  # the refuted claim came back to the agent
    assert (tmp_path / "fixes.txt").read_text(encoding="utf-8") == ""  # the passing run left no note


def test_an_agent_that_never_corrects_it_ends_the_loop_with_a_failure(tmp_path: Path, model: FakeOpenAI) -> None:
    result, prompts = run_loop(tmp_path, "never", model.base_url)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "giving up" in result.stderr and "every claim holds" not in result.stdout
    assert len(prompts) == 5
    assert prompts[0] == task(prompts[0])  # the first try gets the task alone
    for later in prompts[1:]:
        assert 'False: "The Eiffel Tower is in Rome."' in later
        assert "[]" not in later and later.count("False:") == 1  # one note, the last run's: never an empty list


def test_a_claim_the_checker_cannot_decide_stops_the_loop_at_once(tmp_path: Path, model: FakeOpenAI) -> None:
    result, prompts = run_loop(tmp_path, "undecided", model.base_url)
    assert result.returncode == 4, (result.stdout, result.stderr)
    assert len(prompts) == 1  # nothing to correct: the agent is not run again
    assert "nothing the agent can correct" in result.stderr


def test_a_dead_checker_stops_the_loop_with_its_own_status(tmp_path: Path) -> None:
    result, prompts = run_loop(tmp_path, "never", "http://127.0.0.1:9/v1")
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert len(prompts) == 1 and "the check could not be made" in result.stderr
