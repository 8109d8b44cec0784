"""The eval commands as a user runs them: the installed console script, a scripted model, no network. A run
whose point is only what a command says or refuses is made in this process (``here``), as the console script
would make it: each start of the script costs about a CPU-second (imports, the countries set) that the test
worker has already paid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from factdebate.cli.main import run as cli_run
from tests.readiness import run as run_to_end

EXE = str(Path(sys.executable).with_name("factdebate"))

Here = Callable[..., "subprocess.CompletedProcess[str]"]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_to_end([EXE, *args], what=f"factdebate {' '.join(args[:2])}", cwd=cwd, env=dict(os.environ))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Here:
    """``factdebate ARGS`` run through factdebate.cli.main.run in this process, in tmp_path, its exit code and
    what it printed given as the console script's would be."""
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        code = cli_run(list(args))
        said = capsys.readouterr()
        return subprocess.CompletedProcess(["factdebate", *args], code, said.out, said.err)

    return call


def test_datasets_eval_dry_run_grid_and_report(tmp_path: Path, here: Here) -> None:
    listed = here("datasets")  # the console script's `datasets`: tests/cli/test_datasets.py
    assert listed.returncode == 0 and "countries" in listed.stdout and "averitec:PATH" in listed.stdout
    common = ["--dataset", "countries", "--limit", "6", "--llm", "scripted:agree", "--no-cache"]
    dry = here("eval", "--method", "mad", "--output", "out/mad", "--dry-run", *common)
    assert dry.returncode == 0, dry.stderr
    assert "samples: 6 (6 still to run)" in dry.stdout and "LLM calls per sample: 3 to 20" in dry.stdout
    assert not (tmp_path / "out" / "mad").exists()
    grid = tmp_path / "grid.yaml"
    grid.write_text("grid: {method: [single, mad]}\n")
    done = run("eval", "--grid", str(grid), "--output", "out", "--concurrency", "3", *common, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "mad" / "summary.json").read_text())
    assert summary["metrics"]["n"] == 6 and summary["method"] == "mad"
    again = here("eval", "--method", "mad", "--output", "out/mad", *common)  # resumes: no work
    assert again.returncode == 0 and "accuracy" in again.stderr
    assert len((tmp_path / "out" / "mad" / "results.jsonl").read_text().splitlines()) == 6
    refused = here("eval", "--method", "cot", "--output", "out/mad", *common)
    assert refused.returncode != 0 and "already holds a different run" in refused.stderr
    assert "Traceback" not in refused.stderr
    report = run("report", "out/single", "out/mad", "--output", "rep", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "rep" / "report.md").exists() and (tmp_path / "rep" / "accuracy_by_run.png").exists()


def test_eval_takes_the_method_from_the_config_file_unless_a_flag_names_one(tmp_path: Path, here: Here) -> None:
    config = tmp_path / "factdebate.yaml"
    config.write_text("method: mad\n", encoding="utf-8")
    common = ["--dataset", "countries", "--limit", "2", "--llm", "scripted:agree", "--no-cache", "--dry-run",
              "--config", str(config)]
    from_file = here("eval", "--output", "out/a", *common)
    assert from_file.returncode == 0, from_file.stderr
    assert "a: mad on " in from_file.stdout
    from_flag = here("eval", "--method", "cot", "--output", "out/b", *common)
    assert from_flag.returncode == 0 and "b: cot on " in from_flag.stdout


def test_eval_says_before_running_when_the_agents_tools_read_the_same_corpus(here: Here,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["eval", "--method", "tool-mad", "--dataset", "countries", "--limit", "2", "--llm", "scripted:agree",
            "--output", "out", "--dry-run"]
    plain = here(*args)
    assert plain.returncode == 0, plain.stderr
    said = [line for line in plain.stderr.splitlines() if "tools not heterogeneous" in line]
    assert len(said) == 1 and "the rag and search tools both read the 'builtin' corpus" in said[0]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    keyed = here(*args)
    assert keyed.returncode == 0 and "tools not heterogeneous" not in keyed.stderr  # Tavily: the paper's tools
