"""Batch runs survive bad input and resume honestly: one bad line is one error row, a retried claim keeps
one record, a torn line is dropped, and a results file made with other settings is not continued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.run.batch import ClaimItem
from tests.cli.test_exits import NO_TOOLS, call
from tests.fake_openai import FakeOpenAI

OPENAI = ["--llm", "openai:x", "--agents", "none,none", "--no-cache", "--no-scoring"]


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_bad_lines_become_error_rows_and_the_rest_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text("\n".join([
        json.dumps({"id": "good-1", "claim": "Paris is in France."}),
        '{"id": "sur", "claim": "Paris \\ud800 x"}',  # valid JSON holding a lone surrogate
        "{not json",
        json.dumps({"id": "no-claim", "text_missing": True}),
        "null",
        json.dumps({"id": "good-2", "claim": "Rome is in Italy."}),
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS)
    assert code == 1, err
    by_id = {r["id"]: r for r in records(out)}
    assert set(by_id) == {"good-1", "sur", "line-3", "no-claim", "line-5", "good-2"}
    assert by_id["good-1"]["label"] == "SUPPORTS" and by_id["good-2"]["label"] == "SUPPORTS"
    assert "not valid text" in str(by_id["sur"]["error"]) and ":2:" in str(by_id["sur"]["error"])
    assert "not valid JSON" in str(by_id["line-3"]["error"])
    assert "'claim' string" in str(by_id["no-claim"]["error"])
    assert "got NoneType" in str(by_id["line-5"]["error"])
    # A re-run retries only the bad lines, fails them the same way, and does not crash.
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS)
    assert code == 1 and "2 already done" in err
    assert len(records(out)) == 6


def test_retried_errors_leave_one_record_per_id(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text("".join(json.dumps({"id": i, "claim": f"Claim {i}."}) + "\n" for i in "ab"), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with FakeOpenAI(failures=[(400, None)] * 2) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        first, _ = call(capsys, "verify", "--input", str(claims), "--output", str(out), *OPENAI)
        second, err = call(capsys, "verify", "--input", str(claims), "--output", str(out), *OPENAI)
    assert (first, second) == (1, 0), err
    rows = records(out)
    assert len(rows) == 2 and sorted(r["id"] for r in rows) == ["a", "b"]
    assert all(not r.get("error") for r in rows)


def test_a_torn_last_line_is_removed_on_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text("".join(json.dumps({"id": i, "claim": f"Claim {i}."}) + "\n" for i in "ab"), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS)[0] == 0
    first = out.read_text(encoding="utf-8").splitlines()[0]
    out.write_text(first + "\n" + '{"id": "b", "claim": "Cl', encoding="utf-8")  # killed mid-write
    assert call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS)[0] == 0
    rows = records(out)  # every line parses
    assert sorted(r["id"] for r in rows) == ["a", "b"]


def test_resume_with_other_settings_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text(json.dumps({"id": "a", "claim": "Claim a."}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS)[0] == 0
    code, err = call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS, "--rounds", "2")
    assert code == 2 and "methods.tool-mad.rounds: 3 -> 2" in err
    # Speed settings may change.
    assert call(capsys, "verify", "--input", str(claims), "--output", str(out), *NO_TOOLS,
                "--concurrency", "1")[0] == 0


def test_ids_of_unusable_lines_are_stable() -> None:
    items = ClaimItem.from_lines(['"ok"', "[1, 2]", '{"id": 7}'])
    assert [(i.id, bool(i.error)) for i in items][1:] == [("line-2", True), ("7", True)]
