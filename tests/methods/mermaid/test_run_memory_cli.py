"""The run memory through the command line, on the scripted backend and the shipped search server: two
identical evaluations write identical records, the memory sits in the run's folder (a batch's beside its
results), asking for concurrency says in one line that the claims run in order, and the choices that cannot
work are one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli.main import run
from tests.golden.record import normalised

MERMAID = ["--method", "mermaid", "--llm", "scripted:agree", "--no-cache", "--mermaid-servers", "search"]
CLAIM = "Paris is the capital of France."


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err


def command(*args: str) -> tuple[int, str]:
    """The installed command in its own process, as a user runs it."""
    done = subprocess.run([str(Path(sys.executable).with_name("factdebate")), *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert "Traceback" not in done.stderr
    return done.returncode, done.stderr


def results(path: Path) -> list[dict[str, Any]]:
    return [normalised(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]


def test_two_identical_evaluations_write_identical_records(tmp_path: Path) -> None:
    for name in ("a", "b"):
        code, err = command("eval", *MERMAID, "--dataset", "countries", "--limit", "4", "--concurrency", "4",
                        "--output", str(tmp_path / name))
        assert code == 0, err
        assert "claims run one at a time in the run's order, not 4 at once" in err
        assert (tmp_path / name / "evidence_memory.sqlite").exists()
    first, second = results(tmp_path / "a" / "results.jsonl"), results(tmp_path / "b" / "results.jsonl")
    assert first == second
    assert [r["usage"]["tool_calls"] for r in first] == [r["usage"]["tool_calls"] for r in second] == [1] * 4
    # Nothing of run a reached run b: b recalled exactly what a recalled from its own earlier claims.
    recalled = [[e["id"] for e in r["rounds"][0]["turns"][0]["evidence"] if e["id"].startswith("memory:")]
                for r in second]
    assert recalled == [[e["id"] for e in r["rounds"][0]["turns"][0]["evidence"] if e["id"].startswith("memory:")]
                        for r in first]


def test_a_batch_keeps_its_memory_beside_its_results(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process (the search server's stderr goes to the process's own, mcp_client.py's errlog): the
    console script's runs are the two evaluations above."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "c1", "claim": CLAIM}) + "\n", encoding="utf-8")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, err = cli(capsys, "verify", *MERMAID, "--input", str(claims), "--output", str(tmp_path / "out.jsonl"))
    assert code == 0, err
    assert (tmp_path / "out.evidence_memory.sqlite").exists()
    assert not (Path(os.environ["FACTDEBATE_DATA_DIR"]) / "evidence_memory.sqlite").exists()  # not the shared one


@pytest.mark.parametrize("args, says", [
    (["verify", CLAIM, "--memory-from", "x.sqlite"], "--memory-from seeds the memory of an evaluation or a batch"),
    (["eval", "--dataset", "countries", "--limit", "1", "--memory-from", "x.sqlite", "--memory-path", "y.sqlite"],
     "not both"),
    (["eval", "--dataset", "countries", "--limit", "1", "--memory", "readonly"], "--memory-from PATH"),
    (["eval", "--dataset", "countries", "--limit", "1", "--memory-from", "missing.sqlite"], "missing.sqlite"),
    (["eval", "--dataset", "countries", "--limit", "1", "--executor", "ray"],
     "mermaid cannot spread its claims over Ray workers: its evidence memory is on"),
])
def test_memory_choices_that_cannot_work_are_one_line_exit_2(args: list[str], says: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    extra = ["--output", str(tmp_path / "run")] if args[0] == "eval" else []
    code, err = cli(capsys, args[0], *MERMAID, *args[1:], *extra)
    assert code == 2 and says in err and len(err.strip().splitlines()) <= 2, err
    assert not (tmp_path / "run" / "results.jsonl").exists()
