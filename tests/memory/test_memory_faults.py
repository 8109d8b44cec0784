"""The memory database's faults as the store meets them: a missing file under ``readonly``, a read-only
directory, a corrupt file, a lock held by another connection, a full disk. Each is one
:class:`MemoryFileError` naming the file, never a raw ``sqlite3`` error; ``readonly`` never writes."""

from __future__ import annotations

import os
import sqlite3
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.memory import Evidence, EvidenceMemory, MemoryFileError, MemorySettings, open_memory
from factdebate.memory import store as store_module

EIFFEL = Evidence(text="The Eiffel Tower was completed in 1889.", source="https://en.wikipedia.org/wiki/Eiffel_Tower",
                  tool="search_wikipedia")


def _filled(path: Path) -> Path:
    EvidenceMemory(path).update("Eiffel Tower", [EIFFEL])
    return path


def _readonly(path: Path, **fields: Any) -> EvidenceMemory:
    memory = open_memory(MemorySettings(path=path, mode="readonly", semantic=False, **fields))
    assert memory is not None
    return memory


def test_readonly_on_a_mistyped_path_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "runs" / "memroy.sqlite"
    with pytest.raises(MemoryFileError, match=r"memroy\.sqlite"):
        _readonly(typo)
    assert not typo.exists() and not typo.parent.exists()


def test_readonly_reads_through_a_read_only_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _filled(tmp_path / "m.sqlite")
    opened: list[str] = []
    real = sqlite3.connect

    def recording(target: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(str(target))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(store_module, "sqlite3", types.SimpleNamespace(**{**vars(sqlite3), "connect": recording}))
    memory = _readonly(path)
    assert [h.text for h in memory.recall(["Eiffel Tower"])] == [EIFFEL.text]
    assert opened and all("mode=ro" in target for target in opened)


def test_readonly_in_a_directory_it_cannot_write_opens_the_file_immutable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only file system: no -wal/-shm can be made next to the file, so SQLite is told the file is
    immutable. (Root ignores chmod, so the directory's writability is what the store is told.)"""
    path = _filled(tmp_path / "m.sqlite")
    monkeypatch.setattr(store_module, "_dir_writable", lambda directory: False)
    memory = _readonly(path)
    assert "immutable=1" in memory.target
    assert [h.text for h in memory.recall(["Eiffel Tower"])] == [EIFFEL.text]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores file permissions")
def test_readonly_on_a_really_read_only_directory(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = _filled(folder / "m.sqlite")
    for extra in folder.glob("m.sqlite-*"):
        extra.unlink()
    folder.chmod(0o555)
    try:
        assert [h.text for h in _readonly(path).recall(["Eiffel Tower"])] == [EIFFEL.text]
        with pytest.raises(MemoryFileError, match=r"m\.sqlite"):
            EvidenceMemory(path)  # mode on needs to write: one line, not sqlite3's own error
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("mode", ["on", "readonly"])
def test_a_corrupt_file_is_named(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "m.sqlite"
    path.write_bytes(b"this is not a database\x00" * 200)
    with pytest.raises(MemoryFileError, match=r"m\.sqlite.*not an evidence memory"):
        open_memory(MemorySettings(path=path, mode=mode, semantic=False))  # type: ignore[arg-type]


def test_a_file_without_the_memory_table_is_named_under_readonly(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE something (x)")
    with pytest.raises(MemoryFileError, match=r"other\.sqlite"):
        _readonly(path)


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    """A memory file another connection holds an exclusive lock on (readers shut out too)."""
    path = _filled(tmp_path / "m.sqlite")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("DELETE FROM evidence WHERE 0")
    try:
        yield path
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.parametrize("mode", ["on", "readonly"])
def test_a_locked_file_is_named_after_the_busy_timeout(locked: Path, mode: str) -> None:
    with pytest.raises(MemoryFileError, match=r"m\.sqlite.*locked"):
        memory = open_memory(MemorySettings(path=locked, mode=mode, semantic=False,  # type: ignore[arg-type]
                                            busy_timeout_s=0.2))
        assert memory is not None
        memory.check()


def test_a_write_lock_held_elsewhere_fails_the_check_of_a_writable_memory(tmp_path: Path) -> None:
    """WAL readers pass beside a writer; the store that will write checks it can take the write lock."""
    path = _filled(tmp_path / "m.sqlite")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        memory = EvidenceMemory(path, busy_timeout_s=0.2)
        assert len(memory.recall(["Eiffel Tower"])) == 1
        with pytest.raises(MemoryFileError, match="locked"):
            memory.check()
        with pytest.raises(MemoryFileError, match="locked"):
            memory.update("Paris", [EIFFEL])
    finally:
        holder.execute("ROLLBACK")
        holder.close()


class _FullDisk(sqlite3.Connection):
    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every insert or update of the memory fails as SQLite fails on a full disk."""
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return real(*args, factory=_FullDisk, **kwargs)

    monkeypatch.setattr(store_module, "sqlite3", types.SimpleNamespace(**{**vars(sqlite3), "connect": connect}))


def test_a_full_disk_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _filled(tmp_path / "m.sqlite")
    full_disk(monkeypatch)
    memory = EvidenceMemory(path)
    with pytest.raises(MemoryFileError, match=r"m\.sqlite.*full"):
        memory.update("Paris", [EIFFEL])
    assert [h.stored_entity for h in memory.recall(["Eiffel Tower", "Paris"])] == ["Eiffel Tower"]
