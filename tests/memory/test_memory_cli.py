"""``factdebate memory ls|show|search|clear|export`` on a memory written through the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from factdebate.cli.main import app
from factdebate.memory import Evidence, EvidenceMemory
from factdebate.memory import store as memory_store
from tests.memory.conftest import words_encode

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


def test_search_by_meaning_finds_records_stored_without_vectors_by_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A default run stores no vectors, and search is by meaning by default: an exact stored entity must still
    be found, matched by text, and the command says why."""
    path = tmp_path / "m.sqlite"
    _fill(path)  # no encoder: no vectors, as a default MERMAID run writes
    EvidenceMemory(path, namespace="demo", encode=words_encode).update(
        "Big Ben", [Evidence(text="Big Ben is a bell in London.", tool="search_wikipedia", source="s")])
    monkeypatch.setattr(memory_store, "minilm_encoder", lambda kind="int8": words_encode)
    common = ["--memory-path", str(path), "--namespace", "demo"]

    found = runner.invoke(app, ["memory", "search", "Eiffel Tower", *common, "--json"])
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)
    by_text = {hit["stored_entity"] for hit in hits if hit["match"] == "substring"}
    assert by_text == {"Eiffel Tower", "Paris"}  # both hold the text; found first
    assert hits[-1]["stored_entity"] == "Big Ben" and hits[-1]["match"] == "semantic"  # the vector record
    assert "3 record(s) here were stored without vectors" in found.stderr and "matched by text" in found.stderr

    nothing = runner.invoke(app, ["memory", "search", "zebra", "--substring", *common])
    assert nothing.exit_code == 0 and "nothing matches 'zebra'" in nothing.stderr
