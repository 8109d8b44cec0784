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
    "--brief": "shortens how one verdict is printed; eval prints no verdict, only progress and the run's summary",
}


def _helps(name: str) -> dict[str, str]:
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]  # (Typer's own click classes)
    return {opt: getattr(param, "help", None) or "" for param in commands[name].params
            if param.param_type_name == "option" for opt in param.opts if opt.startswith("--")}


def _options(name: str) -> set[str]:
    return set(_helps(name))


def test_every_verify_option_is_an_eval_option_or_a_listed_exception() -> None:
    verify, evaluate = _options("verify"), _options("eval")
    assert verify - evaluate == set(VERIFY_ONLY), "give eval the option, or list it with the reason"
    assert "--trace-text" in evaluate and "--rounds" in evaluate and "--trace" in evaluate


def test_every_method_flag_of_verify_is_on_eval_with_the_same_help() -> None:
    """The method and output flags are declared once and shared (cli/options.py): each of verify's is on eval,
    saying the same (eval lacked --deviations)."""
    verify, evaluate = _helps("verify"), _helps("eval")
    # Each command's own meaning of these: eval's --method takes several, its --concurrency counts samples.
    own = {"--input", "--output", "--config", "--method", "--concurrency", *VERIFY_ONLY}
    shared = {flag for flag in verify if flag not in own}
    assert {"--deviations", "--rounds", "--agents", "--llm", "--trace"} <= shared
    assert {flag: verify[flag] for flag in shared} == {flag: evaluate.get(flag) for flag in shared}


def test_eval_folds_the_paper_differences_and_lists_them_with_deviations(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["eval", "--dataset", "countries", "--limit", "1", "--method", "tool-mad", "--agents", "none,none",
             "--llm", "scripted:agree", "--no-cache", "--no-scoring"]
    assert run([*flags, "--output", str(tmp_path / "folded")]) == 0
    folded = capsys.readouterr().err.splitlines()
    assert run([*flags, "--output", str(tmp_path / "listed"), "--deviations"]) == 0
    listed = capsys.readouterr().err.splitlines()
    keys = [d["key"] for d in json.loads((tmp_path / "listed" / "run.json").read_text())["deviations"]]
    assert len(keys) > 3, keys  # more than verify and eval show one by one
    count = [line for line in folded if f"{len(keys)} settings differ from the paper" in line]
    assert len(count) == 1 and "--deviations lists them" in count[0], folded
    assert not [line for line in folded if "differs from the paper:" in line], folded
    lines = [line for line in listed if line.startswith("listed: differs from the paper: ")]
    assert len(lines) == len(keys) and not [line for line in listed if "settings differ" in line], listed
    summary = (tmp_path / "listed" / "summary.md").read_text()
    assert all(line.removeprefix("listed: differs from the paper: ") in summary for line in lines)


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
