"""``factdebate memory ls|show|search|clear|export`` on a memory written through the API."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from factdebate.cli.main import app
from factdebate.memory import Evidence, EvidenceMemory

runner = CliRunner()


def _fill(path: Path) -> None:
    memory = EvidenceMemory(path, namespace="demo")
    memory.update(["Eiffel Tower", "Paris"], [Evidence(text="The Eiffel Tower was completed in 1889.",
                                                       source="https://en.wikipedia.org/wiki/Eiffel_Tower",
                                                       tool="search_wikipedia")])
    memory.update("Honey", [Evidence(text="Honey keeps for millennia.", tool="search_web", source="s")])


def test_memory_commands(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    _fill(path)
    common = ["--memory-path", str(path), "--namespace", "demo"]

    listed = runner.invoke(app, ["memory", "ls", *common, "--json"])
    assert listed.exit_code == 0, listed.output
    assert {row["entity"]: row["records"] for row in json.loads(listed.stdout)} == {
        "Eiffel Tower": 1, "Paris": 1, "Honey": 1}

    shown = runner.invoke(app, ["memory", "show", "the eiffel tower", *common])
    assert shown.exit_code == 0 and "1889" in shown.stdout and "search_wikipedia" in shown.stdout

    found = runner.invoke(app, ["memory", "search", "millennia", "--substring", *common, "--json"])
    assert [hit["stored_entity"] for hit in json.loads(found.stdout)] == ["Honey"]

    out = tmp_path / "export.jsonl"
    exported = runner.invoke(app, ["memory", "export", *common, "-o", str(out)])
    assert exported.exit_code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and {"text", "source", "tool", "stored"} <= set(records[0])
    assert not any("query" in r for r in records)
    assert not any("label" in r or "verdict" in r for r in records)

    cleared = runner.invoke(app, ["memory", "clear", *common, "--entity", "Honey", "--yes"])
    assert cleared.exit_code == 0
    other = runner.invoke(app, ["memory", "ls", "--memory-path", str(path), "--json"])  # default namespace
    assert json.loads(other.stdout) == []
    assert len(EvidenceMemory(path, namespace="demo").entities()) == 2

    missing = runner.invoke(app, ["memory", "ls", "--memory-path", str(tmp_path / "none.sqlite")])
    assert missing.exit_code != 0
