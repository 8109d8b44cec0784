"""`eval` takes every method and output option `verify` takes, so a run that works on one claim can be
evaluated with the same flags; the exceptions are listed with the reason for each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from factdebate.cli.main import app, run

# verify's options that eval has no use for.
VERIFY_ONLY = {
    "--input": "a batch's claims file; eval reads a dataset (--dataset)",
    "--json": "prints one verdict on stdout; eval writes each sample's verdict to OUTPUT/results.jsonl",
    "--deviations": "unfolds the terminal's count of paper differences; eval's run.json and summary list them all",
}


def _options(name: str) -> set[str]:
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]  # (Typer's own click classes)
    return {opt for param in commands[name].params if param.param_type_name == "option"
            for opt in param.opts if opt.startswith("--")}


def test_every_verify_option_is_an_eval_option_or_a_listed_exception() -> None:
    verify, evaluate = _options("verify"), _options("eval")
    assert verify - evaluate == set(VERIFY_ONLY), "give eval the option, or list it with the reason"
    assert "--trace-text" in evaluate and "--rounds" in evaluate and "--trace" in evaluate


@pytest.mark.parametrize("method", ["single"])
def test_eval_trace_text_writes_each_calls_prompt_and_reply(method: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "trace.jsonl"
    code = run(["eval", "--dataset", "countries", "--limit", "2", "--method", method, "--llm", "scripted:agree",
                "--no-cache", "--no-scoring", "--output", str(tmp_path / "run"), "--trace", str(trace),
                "--trace-text"])
    assert code == 0, capsys.readouterr().err
    calls = [e for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "llm_call"]
    assert calls and all(c["messages"] and c["reply"] for c in calls)


def test_eval_trace_text_needs_a_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["eval", "--dataset", "countries", "--limit", "1", "--llm", "scripted:agree",
                "--output", str(tmp_path / "run"), "--trace-text"])
    assert code == 2 and "give --trace FILE too" in capsys.readouterr().err
