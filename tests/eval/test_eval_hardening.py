"""Evaluation runs say what the loader skipped (and --strict refuses it), never write NaN, and flag a run
whose predictions are nearly all one class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.report.summary import summarize
from tests.cli.test_exits import call

SCRIPTED = ["--llm", "scripted:agree", "--agents", "none,none", "--no-cache", "--no-scoring"]


def fever_file(tmp_path: Path) -> Path:
    rows = [json.dumps({"id": i, "claim": f"Claim {i}.", "label": "SUPPORTS" if i % 2 else "REFUTES"})
            for i in range(6)]
    rows += ["null", "[1, 2]", '"a bare string"', json.dumps({"id": "x", "claim": "No label."}),
             json.dumps({"id": "y", "claim": "Odd.", "label": "MAYBE"})]
    path = tmp_path / "fever.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_skips_are_reported_by_dry_run_and_recorded_in_run_files(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"fever:{fever_file(tmp_path)}"
    code, err = call(capsys, "eval", "--dataset", spec, "--output", str(tmp_path / "dry"), "--dry-run", *SCRIPTED)
    assert code == 0
    assert "loaded 6 sample(s)" in err and "skipped 5 record(s)" in err
    assert "line is null, not an object" in err and "unknown label 'MAYBE'" in err and "no label" in err
    code, err = call(capsys, "eval", "--dataset", spec, "--output", str(tmp_path / "run"), *SCRIPTED)
    assert code == 0 and "skipped 5 record(s)" in err
    for name in ("run.json", "summary.json"):
        data = json.loads((tmp_path / "run" / name).read_text())
        assert data["dataset_loaded"] == 6 and sum(data["dataset_skipped"].values()) == 5
    assert "5 skipped" in (tmp_path / "run" / "summary.md").read_text()


def test_strict_makes_any_skip_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "eval", "--dataset", f"fever:{fever_file(tmp_path)}", "--output", str(tmp_path / "r"),
                     "--strict", "--dry-run", *SCRIPTED)
    assert code == 2 and "--strict" in err and "skipped 5" in err


def test_pubmedqa_and_medqa_count_their_skips(tmp_path: Path) -> None:
    pubmed = tmp_path / "pubmedqa.json"
    pubmed.write_text(json.dumps({"1": {"QUESTION": "Q?", "final_decision": "yes"},
                                  "2": {"QUESTION": "Q2?", "final_decision": "perhaps"},
                                  "3": {"final_decision": "no"}}))
    assert sum(load_dataset(f"pubmedqa:{pubmed}").skipped.values()) == 2
    medqa = tmp_path / "medqa.jsonl"
    medqa.write_text("\n".join([json.dumps({"question": "Q?", "options": {"A": "a", "B": "b"}, "answer_idx": "A"}),
                                json.dumps({"question": "Q?", "options": {"A": "a"}, "answer_idx": "C"}),
                                "null"]))
    assert sum(load_dataset(f"medqa:{medqa}").skipped.values()) == 2


def test_summary_of_nothing_is_strict_json_with_reasons(tmp_path: Path) -> None:
    run = {"name": "r", "method": "single", "dataset": "x", "labels": ["SUPPORTS", "REFUTES"], "seed": 0,
           "limit": None}
    summarize(tmp_path, run, [], complete=True)
    text = (tmp_path / "summary.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    summary = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in summary.json"))
    assert summary["metrics"]["accuracy"] is None and "metrics.accuracy" in summary["null_reasons"]


def test_a_one_class_run_is_flagged_as_base_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "eval", "--dataset", f"fever:{fever_file(tmp_path)}", "--output", str(tmp_path / "r"),
                     "--method", "single", *SCRIPTED)
    assert code == 0
    assert "100% of the predictions are SUPPORTS" in err and "majority class" in err
    markdown = (tmp_path / "r" / "summary.md").read_text()
    assert "100% of the predictions are SUPPORTS" in markdown and "scores 0.500" in markdown


def test_eval_with_errored_samples_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(failures=[(400, None)] * 100) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, err = call(capsys, "eval", "--dataset", f"fever:{fever_file(tmp_path)}", "--output",
                         str(tmp_path / "r"), "--method", "single", "--llm", "openai:x", "--no-cache")
    assert code == 1 and "6 errored" in err


COUNTRIES = ["--dataset", "countries", "--limit", "2", "--llm", "scripted:agree", "--no-cache"]


def test_a_negative_seed_is_refused_before_any_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Numpy refused ``--seed -1`` only in the summary, after every sample had run."""
    code, err = call(capsys, "eval", "--method", "cot", "-o", str(tmp_path / "r"), "--seed", "-1", *COUNTRIES)
    assert code == 2 and "--seed" in err and "greater than or equal to 0" in err
    assert not (tmp_path / "r").exists()
    grid = tmp_path / "grid.yaml"
    grid.write_text("seed: -1\nruns:\n  - name: one\n    method: cot\n")
    code, err = call(capsys, "eval", "--grid", str(grid), "-o", str(tmp_path / "g"), *COUNTRIES)
    assert code == 2 and "--seed must be 0 or more (got -1)" in err and not (tmp_path / "g").exists()


def test_several_methods_check_the_output_and_every_setting_first(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``-o FILE`` failed after the first method ran, and so did a setting of the
    second method (``--mad-rounds 99``) after ``cot`` had run every sample."""
    (tmp_path / "FILE").write_text("mine\n")
    code, err = call(capsys, "eval", "--method", "cot,mad", "-o", str(tmp_path / "FILE"), *COUNTRIES)
    assert code == 2 and [line for line in err.splitlines() if line.strip()] == [
        f"error: --output {tmp_path / 'FILE'} is a file: give a folder"]
    code, err = call(capsys, "eval", "--method", "cot", "-o", str(tmp_path / "FILE"), *COUNTRIES)
    assert code == 2 and "is a file: give a folder" in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "FILE").read_text() == "mine\n"
    code, err = call(capsys, "eval", "--method", "cot,mad", "--mad-rounds", "99", "-o", str(tmp_path / "out"),
                     *COUNTRIES)
    assert code == 2 and "methods.mad.rounds" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()  # cot did not run
