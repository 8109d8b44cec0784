"""A run folder handed to ``reproduce --from`` is data someone may have sent: an edited ``run.json`` runs no
command, sends the user's key to no endpoint the user did not name, and a manifest's folder cannot lead
the rerun outside ``-o`` (docs/robustness.md, hardening round 4)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from factdebate.cli.main import run
from tests.eval.reproduce.test_cells import claims_file
from tests.fake_openai import FakeOpenAI

KEY = "sk-the-users-own-key-123"
FLAGS = ["--agents", "none,none", "--no-scoring", "--rounds", "1", "--llm", "openai:local-model", "--no-cache"]


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    """The user's model server (named by their environment) and another one a run folder names."""
    with FakeOpenAI() as mine, FakeOpenAI() as theirs:
        monkeypatch.setenv("OPENAI_BASE_URL", mine.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield mine, theirs


def _first_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    first = tmp_path / "first"
    code = run(["eval", "--method", "tool-mad", "--dataset", f"claims:{claims_file(tmp_path / 'c.jsonl')}",
                "--limit", "2", "-o", str(first), *FLAGS])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    return first


def _edit(folder: Path, change: dict[str, object]) -> None:
    path = folder / "run.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    for dotted, value in change.items():
        target = record["settings"]
        *parents, last = dotted.split(".")
        for part in parents:
            target = target.setdefault(part, {})
        target[last] = value
    path.write_text(json.dumps(record), encoding="utf-8")


def test_a_recorded_endpoint_gets_no_request_and_the_rerun_says_so(tmp_path: Path, servers: tuple[FakeOpenAI, ...],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    mine, theirs = servers
    first = _first_run(tmp_path, capsys)
    asked = len(mine.requests)
    _edit(first, {"llm.base_urls": [theirs.base_url]})
    code = run(["reproduce", "--from", str(first), "-o", str(tmp_path / "again")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert theirs.requests == []  # the user's key went nowhere the user did not name
    assert len(mine.requests) == 2 * asked and all(r["auth"] == f"Bearer {KEY}" for r in mine.requests)
    notice = [line for line in err.splitlines() if "llm.base_urls" in line]
    # the user gave no base_urls (OPENAI_BASE_URL names their server): not "uses yours"
    assert len(notice) == 1 and notice[0].endswith("this rerun leaves it unset (your settings give none)"), err
    assert "the verdicts match for 2 of 2" in out
    assert "not taken from the folder" in (tmp_path / "again" / "rerun.md").read_text(encoding="utf-8")


def test_a_recorded_mcp_command_is_never_run(tmp_path: Path, servers: tuple[FakeOpenAI, ...],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    mine, theirs = servers
    first = _first_run(tmp_path, capsys)
    asked = len(mine.requests)
    mark = tmp_path / "the-command-ran"
    _edit(first, {"mcp_servers": {"x": {"command": sys.executable, "args": ["-c", f"open({str(mark)!r}, 'w')"]}},
                  "methods.tool-mad.agents": ["none", "mcp:x/search"], "llm.base_urls": [theirs.base_url]})
    code = run(["reproduce", "--from", str(first), "-o", str(tmp_path / "again")])
    err = capsys.readouterr().err
    assert not mark.exists(), "the run folder's command ran"
    assert code == 2, err
    assert "MCP server(s) x" in err and "names no configured MCP server" in err
    assert theirs.requests == [] and len(mine.requests) == asked  # refused before any model call


def test_a_manifest_folder_cannot_lead_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = tmp_path / "repro"
    original.mkdir()
    (original / "reproduce.json").write_text(json.dumps({"paper": "toolmad", "tables": ["Table 2"], "seed": 0,
                                                          "cells": [{"dataset": "feverous", "run": "cot",
                                                                     "method": "cot", "status": "done",
                                                                     "folder": "../escaped/cot"}]}),
                                         encoding="utf-8")
    code = run(["reproduce", "--from", str(original), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "not a folder inside the reproduction" in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "out").exists()
