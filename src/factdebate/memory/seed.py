"""A memory that starts as a copy of another: what ``--memory-from`` gives an evaluation or a batch.

The source is only read (SQLite's backup); the copy's records lose their run positions, and its ``meta`` table
keeps the source's path, record count and a SHA-256 of the records (not of the file's bytes)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from factdebate.memory.store import EvidenceMemory, MemoryFileError

_ORIGIN = "origin"


def records_digest(memory: EvidenceMemory) -> tuple[str, int]:
    """SHA-256 of every record of every namespace (expired ones too), and their number."""
    digest = hashlib.sha256()
    count = 0
    with memory._connect() as db:
        rows = db.execute("SELECT namespace, entity_key, entity, text, source, tool, stored, expires FROM evidence "
                          "ORDER BY id")
        for row in rows:
            digest.update(json.dumps(list(row), ensure_ascii=False).encode("utf-8") + b"\n")
            count += 1
    return digest.hexdigest(), count


def origin(memory: EvidenceMemory) -> dict[str, Any] | None:
    """Where ``memory`` was copied from (path, sha256, records), or ``None`` for a memory that started empty."""
    with memory._connect() as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone():
            return None
        row = db.execute("SELECT value FROM meta WHERE key = ?", (_ORIGIN,)).fetchone()
    return json.loads(row[0]) if row else None


def copy_memory(source: Path, target: Path, *, busy_timeout_s: float) -> dict[str, Any]:
    """Make ``target`` a copy of the memory at ``source`` unless it exists (linked into place); its origin."""
    if target.exists():
        found = origin(EvidenceMemory(target, busy_timeout_s=busy_timeout_s))
        if found is None:
            raise MemoryFileError(f"the run's memory {target} was not copied from {source}: it was started without "
                                  "--memory-from; start the run in another folder")
        return found
    read = EvidenceMemory(source, readonly=True, busy_timeout_s=busy_timeout_s)  # missing or not a memory: one line
    sha256, count = records_digest(read)
    made = {"path": str(source.resolve()), "sha256": sha256, "records": count}
    partial = target.with_name(f"{target.name}.copy-{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
        with read._connect() as db, closing(sqlite3.connect(partial)) as out:
            db.backup(out)
        copy = EvidenceMemory(partial, busy_timeout_s=busy_timeout_s)  # adds what older files lack
        with copy._write() as db:
            db.execute("UPDATE evidence SET position = NULL")
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_ORIGIN, json.dumps(made)))
        with contextlib.suppress(FileExistsError):  # another process made it first: the same records
            os.link(partial, target)
    except (OSError, sqlite3.Error) as exc:
        raise MemoryFileError(f"cannot copy the evidence memory {source} to {target}: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return made
