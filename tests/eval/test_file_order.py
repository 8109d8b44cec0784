"""Keeping a dataset file's order: ``eval --file-order`` and the MERMAID papers' FIRE
files take their first claims in sequence under ``--limit``, run.json says which order a run used, a
resume in the other order is refused, and Figure 3's "mean x n" is printed only for a full run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.reproduce.cells import draw
from factdebate.eval.reproduce.report import build_report
from factdebate.eval.reproduce.spec import DatasetSpec, get_paper
from factdebate.eval.runner import check_resume, make_plan
from factdebate.settings.load import load_settings
from factdebate.util.errors import InputError

IDS = [f"c{i}" for i in range(12)]


def dataset() -> Dataset:
    samples = [Sample(i, f"Claim number {i}.", "SUPPORTS" if n % 2 else "REFUTES") for n, i in enumerate(IDS)]
    return Dataset(kind="claims", labels=BINARY_LABELS, samples=samples, spec="claims")


def test_file_order_takes_the_first_claims_and_is_recorded(tmp_path: Path) -> None:
    settings = load_settings(overrides={"method": "single"}, environ={})
    ordered = make_plan(settings, dataset(), tmp_path / "a", limit=3, seed=5, order="file")
    assert [s.id for s in ordered.samples] == IDS[:3] and ordered.info()["order"] == "file"
    shuffled = make_plan(settings, dataset(), tmp_path / "a", limit=3, seed=5)
    assert [s.id for s in shuffled.samples] != IDS[:3] and shuffled.info()["order"] == "shuffled"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.json").write_text(json.dumps(ordered.info()))
    with pytest.raises(InputError, match="order: 'file' -> 'shuffled'"):
        check_resume(shuffled)
    with pytest.raises(InputError, match="order must be"):
        make_plan(settings, dataset(), tmp_path / "b", limit=3, seed=0, order="sorted")


def test_eval_help_says_how_samples_are_ordered(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one help line per option: the words are not split by the box
    run(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "--file-order" in text and "seeded shuffle" in text and "file's first" in text


def test_mermaids_fire_files_keep_their_order_under_limit() -> None:
    mermaid = get_paper("mermaid")
    assert {k for k, d in mermaid.datasets.items() if d.order == "file"} == {"factool-qa", "bingcheck",
                                                                            "factcheck-bench"}
    spec = DatasetSpec.model_validate({"key": "d", "name": "d", "label": "D", "split": "s", "n": 12, "draw": "all",
                                       "order": "file", "supply": "x"})
    chosen, notes = draw(dataset(), spec, seed=3, limit=4)
    assert [s.id for s in chosen] == IDS[:4] and "--limit 4: 4 of the paper's 12 samples" in notes


def _cell(root: Path, name: str, calls: list[int]) -> dict[str, object]:
    folder = root / "factool-qa" / name
    folder.mkdir(parents=True)
    ids = [f"s{i}" for i in range(len(calls))]
    records = [{"id": i, "gold": "SUPPORTS", "predicted": "SUPPORTS", "correct": True,
                "usage": {"tool_calls": c}} for i, c in zip(ids, calls, strict=True)]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    summary = {"ids": ids, "labels": list(BINARY_LABELS), "seed": 0,
               "metrics": {"ci": {}, "accuracy": 1.0, "macro_f1": 1.0, "unparsed": []}}
    (folder / "summary.json").write_text(json.dumps(summary))
    return {"dataset": "factool-qa", "run": name, "method": "mermaid", "status": "done", "samples": len(calls),
            "paper_n": 233, "errored": 0, "folder": f"factool-qa/{name}", "notes": [], "overrides": []}


def test_figure_3_scales_only_a_full_run(tmp_path: Path) -> None:
    cells = [_cell(tmp_path, "mermaid", [2, 1, 3]), _cell(tmp_path, "mermaid-no-memory", [2] * 233)]
    build_report(tmp_path, {"paper": "mermaid", "tables": ["figure3"], "cells": cells, "seed": 0, "limit": None})
    report = (tmp_path / "report.md").read_text()
    with_memory = next(line for line in report.splitlines() if line.startswith("| with memory"))
    assert "partial: 2.00 per claim over 3 of 233 claims (not scaled)" in with_memory
    without = next(line for line in report.splitlines() if line.startswith("| without memory"))
    assert "| FacTool-QA |" in without and "| 466 [" in without  # 2 per claim x 233 claims
