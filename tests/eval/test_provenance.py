"""run.json records what a rerun needs: the full settings, models by role, package versions, the dataset
with its checksums, split, seed and sample ids, the paper deviations in force; secrets only as set/unset."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from tests.eval.reproduce.test_cells import claims_file


def _eval(tmp_path: Path, out: Path, limit: int) -> None:
    data = tmp_path / "claims.jsonl"
    if not data.exists():
        claims_file(data)
    code = run(["eval", "--method", "cot", "--dataset", f"claims:{data}", "--limit", str(limit), "--seed", "7",
                "--llm", "scripted:agree", "--judge-llm", "scripted:disagree", "--no-cache", "-o", str(out)])
    assert code == 0


def test_run_json_records_what_a_rerun_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value-0123456789")
    out = tmp_path / "run"
    _eval(tmp_path, out, 3)
    raw = (out / "run.json").read_text()
    info = json.loads(raw)
    prov = info["provenance"]
    assert prov["versions"]["factdebate"] and prov["versions"]["numpy"] and prov["python"]
    assert prov["models"] == {"debater": "scripted:agree", "judge": "scripted:disagree"}
    assert prov["environment"]["OPENAI_API_KEY"] == "set" and "sk-test-secret" not in raw
    assert prov["environment"]["TAVILY_API_KEY"] == "unset"
    data = prov["dataset"]
    file = tmp_path / "claims.jsonl"
    assert data["spec"] == f"claims:{file}" and data["file_sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
    assert len(data["content_sha256"]) == 64 and data["loaded"] == 6
    summary = json.loads((out / "summary.json").read_text())
    assert data["sample_ids"] == summary["ids"] and len(data["sample_ids"]) == 3
    assert info["seed"] == 7 and "deviations" in info
    assert info["settings"]["llm"]["judge"] == "scripted:disagree" and info["settings"]["methods"]["tool-mad"]
    assert "provenance" not in summary  # the summary is about results: it stays comparable across machines


def test_a_resumed_run_keeps_the_runtime_it_started_with(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _eval(tmp_path, out, 1)
    info = json.loads((out / "run.json").read_text())
    info["provenance"]["versions"]["numpy"] = "0.0-old"
    (out / "run.json").write_text(json.dumps(info))
    _eval(tmp_path, out, 2)
    prov = json.loads((out / "run.json").read_text())["provenance"]
    assert prov["versions"]["numpy"] != "0.0-old"
    assert [e["versions"]["numpy"] for e in prov["earlier"]] == ["0.0-old"]
    assert len(prov["dataset"]["sample_ids"]) == 2
