"""A batch line whose value nests hundreds of levels deep is an error row for its line,
written before any model call, and the other lines still run; the service refuses it with a 422 naming the
line (tests/server/test_batches.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.run.batch import ClaimItem
from factdebate.util.textsafe import MAX_NESTING, nesting_depth
from tests.fake_openai import FakeOpenAI


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def deep_line(levels: int) -> str:
    return '{"id": "deep", "claim": "Paris is in France.", "meta": ' + nested(levels) + "}"


def test_nesting_depth_counts_levels_without_recursion() -> None:
    assert nesting_depth("text") == 0 and nesting_depth({}) == 1 and nesting_depth({"a": [[1]]}) == 3
    deep: list[object] = []
    for _ in range(5000):  # built in a loop: json.loads itself gives up at about 1,000 levels
        deep = [deep]
    assert nesting_depth(deep) == MAX_NESTING + 1  # stops counting past the limit


@pytest.mark.parametrize("levels", [900, 100_000])  # 100,000: deeper than the JSON parser itself goes
def test_a_deeply_nested_line_is_an_error_for_its_line(levels: int) -> None:
    items = ClaimItem.from_lines(['"fine"', deep_line(levels)])
    assert items[0].error is None
    assert items[1].error is not None and items[1].error.startswith("line 2: ")
    assert f"more than {MAX_NESTING} levels deep" in items[1].error and items[1].extra == {}


def test_the_limit_itself_is_accepted() -> None:
    row = '{"claim": "Paris is in France.", "meta": ' + nested(MAX_NESTING - 1) + "}"  # the object is level 1
    assert ClaimItem.from_lines([row])[0].error is None


def test_cli_batch_records_the_error_row_before_any_model_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text(deep_line(900) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = run(["verify", "--input", str(claims), "--output", str(out), "--llm", "openai:x",
                    "--agents", "none,none", "--no-cache", "--no-scoring"])
        asked = len(server.requests)
    text = capsys.readouterr()
    assert "internal error" not in text.err + text.out and "RecursionError" not in text.err + text.out
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert code == 1 and asked == 0
    assert len(records) == 1 and records[0]["id"] == "line-1"
    assert "claims.jsonl:1: the line nests lists or objects more than" in records[0]["error"]
