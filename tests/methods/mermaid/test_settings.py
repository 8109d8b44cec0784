"""MERMAID's ``memory*`` settings reach the evidence memory through their metadata (each names the
``MemorySettings`` field it fills), and what is unset takes the memory's own default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from factdebate.memory.settings import MemorySettings
from factdebate.methods.mermaid.settings import MEMORY_FIELDS, MermaidSettings, memory_settings
from factdebate.settings.load import load_settings


@pytest.mark.parametrize("name", sorted(MEMORY_FIELDS))
def test_each_mermaid_memory_setting_reaches_the_memory(name: str) -> None:
    field = MEMORY_FIELDS[name]
    values: dict[str, Any] = {"memory": "readonly", "memory_path": "/tmp/elsewhere.sqlite", "memory_namespace": "ns",
                              "memory_semantic": True, "memory_ttl_days": 3.0, "memory_busy_timeout_s": 7.0}
    settings = load_settings(overrides={"methods": {"mermaid": {name: values[name]}}}, environ={})
    chosen = memory_settings(settings)
    assert str(getattr(chosen, field)) == str(values[name])
    assert set(MEMORY_FIELDS.values()) <= set(MemorySettings.model_fields)
    # memory_from is not a setting of the memory: it says what a run's memory starts from (run_memory.py).
    assert set(MEMORY_FIELDS) == {n for n in MermaidSettings.model_fields if n.startswith("memory")} - {"memory_from"}


def test_an_unset_memory_takes_the_memory_defaults() -> None:
    chosen = memory_settings(load_settings(overrides={"retrieval": {"corpus": "my-notes"}}, environ={}))
    expected: dict[str, Any] = {"mode": "on", "path": None, "namespace": "my-notes", "ttl_days": None,
                                "semantic": False, "busy_timeout_s": 30.0}
    assert {key: getattr(chosen, key) for key in expected} == expected


def test_in_a_run_the_memory_is_the_runs_own_unless_a_shared_file_is_named(tmp_path: Path) -> None:
    from factdebate.methods.resources import RunScope

    settings = load_settings(environ={})
    assert memory_settings(settings, run=RunScope(tmp_path)).path == tmp_path / "evidence_memory.sqlite"
    batch = RunScope.of_results(tmp_path / "out.jsonl")
    assert memory_settings(settings, run=batch).path == tmp_path / "out.evidence_memory.sqlite"
    shared = load_settings(overrides={"methods": {"mermaid": {"memory_path": "/tmp/shared.sqlite"}}}, environ={})
    assert str(memory_settings(shared, run=RunScope(tmp_path)).path) == "/tmp/shared.sqlite"
    assert memory_settings(settings).path is None  # single claims: the data directory's
