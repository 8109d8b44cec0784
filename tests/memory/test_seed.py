"""A memory seeded from another (``--memory-from``): the source is read and never written, the copy's records
lose the positions of the run that made them, and the copy says where it came from, with a checksum of the
records, also when it is opened again on a resume."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from factdebate.memory import Evidence, EvidenceMemory, MemoryFileError
from factdebate.memory.seed import copy_memory, origin, records_digest

PARIS = Evidence(text="Paris is the capital of France.", source="https://example.org/paris", tool="search_local")


def test_the_copy_holds_the_records_without_their_positions_and_names_its_origin(tmp_path: Path) -> None:
    source_path = tmp_path / "earlier" / "evidence_memory.sqlite"
    source = EvidenceMemory(source_path)
    source.update(["Paris", "France"], [PARIS], position=3000)
    before = records_digest(source)
    target = tmp_path / "run" / "evidence_memory.sqlite"
    made = copy_memory(source_path, target, busy_timeout_s=5)
    assert made == {"path": str(source_path.resolve()), "sha256": before[0], "records": 2}
    copy = EvidenceMemory(target)
    assert records_digest(copy) == before and origin(copy) == made
    assert len(copy.recall(["France"], before=0)) == 1  # seeded records are seen by the run's first claim
    with sqlite3.connect(target) as db:
        assert [r[0] for r in db.execute("SELECT position FROM evidence")] == [None, None]
    copy.update("Paris", [Evidence(text="Paris hosted the 2024 Olympics.", tool="search_local")], position=0)
    assert records_digest(EvidenceMemory(source_path)) == before  # the source is never written
    # A resume finds its copy and reports the same origin, whatever the source holds by then.
    source.update("Oslo", [Evidence(text="Oslo is in Norway.", tool="search_local")])
    assert copy_memory(source_path, target, busy_timeout_s=5) == made
    assert not list(target.parent.glob("*.copy-*"))


def test_a_missing_source_or_a_run_started_without_it_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MemoryFileError, match="no evidence memory at"):
        copy_memory(tmp_path / "missing.sqlite", tmp_path / "run.sqlite", busy_timeout_s=5)
    assert not (tmp_path / "run.sqlite").exists()
    EvidenceMemory(tmp_path / "own.sqlite")
    EvidenceMemory(tmp_path / "source.sqlite")
    with pytest.raises(MemoryFileError, match="started without --memory-from"):
        copy_memory(tmp_path / "source.sqlite", tmp_path / "own.sqlite", busy_timeout_s=5)
