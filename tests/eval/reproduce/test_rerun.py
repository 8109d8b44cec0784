"""The settings a rerun uses: the recorded method settings, the operator's part (commands, endpoints, limits,
paths outside the folder) from the user's own settings, the user's flags over both, and never a masked
secret. A run folder is data someone may have sent: nothing in it runs a command or picks an endpoint."""

from __future__ import annotations

from pathlib import Path

from factdebate.eval.reproduce.rerun import rerun_settings
from factdebate.run.claim import public_config
from factdebate.settings.load import load_settings


def test_paths_inside_the_original_folder_move_and_flags_apply(tmp_path: Path) -> None:
    original, new = tmp_path / "a", tmp_path / "b"
    memory = original / "evidence_memory.sqlite"
    recorded = public_config(load_settings(overrides={"method": "mermaid", "methods": {
        "mermaid": {"memory_path": str(memory.resolve()), "max_steps": 5}}}, environ={}))
    settings, notes = rerun_settings(recorded, original, new, {"mermaid_max_steps": 3, "cache": False}, environ={})
    section = settings.methods["mermaid"]
    assert section.memory_path == str((new / "evidence_memory.sqlite").resolve())
    assert section.max_steps == 3 and settings.llm.cache is False and settings.method == "mermaid"
    assert notes == []


def test_commands_endpoints_and_outside_paths_come_from_the_user(tmp_path: Path) -> None:
    """The recorded MCP servers (masked env and all), endpoints, limits, outside paths and model files are
    replaced by the user's own, each with one line; the method's settings are the record's."""
    recorded = public_config(load_settings(overrides={
        "method": "mermaid",
        "mcp_servers": {"x": {"command": "/bin/sh", "args": ["-c", "touch pwned"], "env": {"API_TOKEN": "abc"}}},
        "llm": {"debater": "llama-cpp:/elsewhere/model.gguf", "base_urls": ["http://203.0.113.9:8000/v1"],
                "max_in_flight": 64, "roles": {"judge": "scripted:agree"}},
        "retrieval": {"milvus_uri": "http://203.0.113.9:19530", "k": 5},
        "scale": {"ray_address": "ray://203.0.113.9:10001"},
        "concurrency": 50,
        "methods": {"mermaid": {"memory_from": "/etc/other.sqlite", "max_steps": 4}}}, environ={}))
    mine = {"FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_LLM__BASE_URLS": '["http://127.0.0.1:9/v1"]'}
    settings, notes = rerun_settings(recorded, tmp_path / "a", tmp_path / "b", {}, environ=mine)
    assert settings.mcp_servers == {}
    assert settings.llm.base_urls == ["http://127.0.0.1:9/v1"] and settings.retrieval.milvus_uri is None
    assert settings.scale.ray_address is None and settings.concurrency == 4 and settings.llm.max_in_flight is None
    assert settings.llm.debater == "scripted:agree"  # the model file is the user's to name again
    assert settings.methods["mermaid"].memory_from is None
    # The method's own settings are the record's.
    assert settings.method == "mermaid" and settings.methods["mermaid"].max_steps == 4 and settings.retrieval.k == 5
    assert settings.llm.roles == {"judge": "scripted:agree"}
    said = "\n".join(notes)
    for expected in ("MCP server(s) x", "llm.base_urls", "retrieval.milvus_uri", "scale", "concurrency",
                     "llm.max_in_flight", "memory_from = /etc/other.sqlite", "model file llama-cpp:/elsewhere"):
        assert expected in said, said
    assert "touch pwned" not in said and "abc" not in said


def test_the_recorded_longest_claim_comes_back(tmp_path: Path) -> None:
    """A summarisation run records 13000 characters (its claims carry the article): the rerun takes that, not
    the user's default of 2000, and names nothing as not taken; the throughput limits stay the user's."""
    recorded = public_config(load_settings(overrides={"method": "cot", "max_claim_chars": 13000, "concurrency": 50},
                                           environ={}))
    settings, notes = rerun_settings(recorded, tmp_path / "a", tmp_path / "b", {}, environ={})
    assert settings.max_claim_chars == 13000 and settings.concurrency == 4
    assert not any("max_claim_chars" in note for note in notes) and any("concurrency" in note for note in notes)
    flagged, _ = rerun_settings(recorded, tmp_path / "a", tmp_path / "b", {"max_claim_chars": 3000}, environ={})
    assert flagged.max_claim_chars == 3000  # a flag given with --from still changes it
