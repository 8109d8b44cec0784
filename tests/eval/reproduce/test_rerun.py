"""The settings a rerun uses: the recorded ones, with the original folder's own files moved to the new folder,
the user's flags over them, and never a masked secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.core.errors import InputError
from factdebate.eval.reproduce.rerun import rerun_settings
from factdebate.run.claim import public_config
from factdebate.settings.load import load_settings


def test_paths_inside_the_original_folder_move_and_flags_apply(tmp_path: Path) -> None:
    original, new = tmp_path / "a", tmp_path / "b"
    memory = original / "evidence_memory.sqlite"
    recorded = public_config(load_settings(overrides={"method": "mermaid", "methods": {
        "mermaid": {"memory_path": str(memory.resolve()), "max_steps": 5}}}, environ={}))
    settings = rerun_settings(recorded, original, new, {"mermaid_max_steps": 3, "cache": False})
    section = settings.methods["mermaid"]
    assert section.memory_path == str((new / "evidence_memory.sqlite").resolve())
    assert section.max_steps == 3 and settings.llm.cache is False and settings.method == "mermaid"


def test_masked_secrets_are_refused_with_their_names(tmp_path: Path) -> None:
    recorded = public_config(load_settings(overrides={"mcp_servers": {"web": {
        "command": "server", "env": {"API_TOKEN": "abc"}}}}, environ={}))
    with pytest.raises(InputError, match=r"masked.*mcp_servers\.web\.env\.API_TOKEN"):
        rerun_settings(recorded, tmp_path / "a", tmp_path / "b", {})
