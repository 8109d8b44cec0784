"""The eval commands as a user runs them: the installed console script, a scripted model, no network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.readiness import run as run_to_end

EXE = str(Path(sys.executable).with_name("factdebate"))


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_to_end([EXE, *args], what=f"factdebate {' '.join(args[:2])}", cwd=cwd, env=dict(os.environ))


def test_datasets_eval_dry_run_grid_and_report(tmp_path: Path) -> None:
    listed = run("datasets", cwd=tmp_path)
    assert listed.returncode == 0 and "countries" in listed.stdout and "averitec:PATH" in listed.stdout
    common = ["--dataset", "countries", "--limit", "6", "--llm", "scripted:agree", "--no-cache"]
    dry = run("eval", "--method", "mad", "--output", "out/mad", "--dry-run", *common, cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "samples: 6 (6 still to run)" in dry.stdout and "LLM calls per sample: 3 to 20" in dry.stdout
    assert not (tmp_path / "out" / "mad").exists()
    grid = tmp_path / "grid.yaml"
    grid.write_text("grid: {method: [single, mad]}\n")
    done = run("eval", "--grid", str(grid), "--output", "out", "--concurrency", "3", *common, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "mad" / "summary.json").read_text())
    assert summary["metrics"]["n"] == 6 and summary["method"] == "mad"
    again = run("eval", "--method", "mad", "--output", "out/mad", *common, cwd=tmp_path)  # resumes: no work
    assert again.returncode == 0 and "accuracy" in again.stderr
    assert len((tmp_path / "out" / "mad" / "results.jsonl").read_text().splitlines()) == 6
    refused = run("eval", "--method", "cot", "--output", "out/mad", *common, cwd=tmp_path)
    assert refused.returncode != 0 and "already holds a different run" in refused.stderr
    assert "Traceback" not in refused.stderr
    report = run("report", "out/single", "out/mad", "--output", "rep", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "rep" / "report.md").exists() and (tmp_path / "rep" / "accuracy_by_run.png").exists()


def test_eval_takes_the_method_from_the_config_file_unless_a_flag_names_one(tmp_path: Path) -> None:
    config = tmp_path / "factdebate.yaml"
    config.write_text("method: mad\n", encoding="utf-8")
    common = ["--dataset", "countries", "--limit", "2", "--llm", "scripted:agree", "--no-cache", "--dry-run",
              "--config", str(config)]
    from_file = run("eval", "--output", "out/a", *common, cwd=tmp_path)
    assert from_file.returncode == 0, from_file.stderr
    assert "a: mad on " in from_file.stdout
    from_flag = run("eval", "--method", "cot", "--output", "out/b", *common, cwd=tmp_path)
    assert from_flag.returncode == 0 and "b: cot on " in from_flag.stdout


def test_eval_says_before_running_when_the_agents_tools_read_the_same_corpus(tmp_path: Path) -> None:
    args = [EXE, "eval", "--method", "tool-mad", "--dataset", "countries", "--limit", "2", "--llm", "scripted:agree",
            "--output", "out", "--dry-run"]
    plain = run_to_end(args, what="factdebate eval", cwd=tmp_path, env=dict(os.environ))
    assert plain.returncode == 0, plain.stderr
    said = [line for line in plain.stderr.splitlines() if "tools not heterogeneous" in line]
    assert len(said) == 1 and "the rag and search tools both read the 'builtin' corpus" in said[0]
    keyed = run_to_end(args, what="factdebate eval", cwd=tmp_path, env={**os.environ, "TAVILY_API_KEY": "tvly-test"})
    assert keyed.returncode == 0 and "tools not heterogeneous" not in keyed.stderr  # Tavily: the paper's tools
