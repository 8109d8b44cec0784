"""SQLite persistence of batch jobs: one row per batch, one per claim. A claim's row is written once, when
it finishes, so after a restart exactly the claims without a result are run again.

Several processes may share the file (``serve --workers N``): a process takes a claim by marking it
``running`` with its own id in one statement, so no two processes run the same claim. Claims taken by a
process that died (same host) go back to ``pending`` when a process starts or looks for work."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.batch import ClaimItem
from factdebate.textsafe import dumps_record

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    status TEXT NOT NULL,
    settings TEXT NOT NULL,
    options TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_items (
    batch_id TEXT NOT NULL REFERENCES batches(id),
    idx INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    claim TEXT NOT NULL,
    extra TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    result TEXT,
    PRIMARY KEY (batch_id, idx)
);
CREATE INDEX IF NOT EXISTS batch_items_status ON batch_items (batch_id, status);
"""


@dataclass
class BatchInfo:
    id: str
    owner: str
    created: float
    finished: float | None
    status: str  # running | done
    settings: dict[str, Any]
    options: dict[str, Any]
    total: int = 0
    done: int = 0
    errors: int = 0


class BatchStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        with self._lock:
            self._db.executescript(_SCHEMA)
            self._migrate()

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, (re)opened on demand so an app can be started again after a shutdown."""
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # timeout: another process's transaction (serve --workers N) is waited for, not an error
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: survives a process crash
        return self._conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")  # take the write lock first: other processes wait, never race
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, batch_id: str, owner: str, settings: dict[str, Any], options: dict[str, Any],
               items: list[ClaimItem]) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO batches VALUES (?, ?, ?, NULL, 'running', ?, ?)",
                       (batch_id, owner, time.time(), json.dumps(settings), json.dumps(options)))
            db.executemany("INSERT INTO batch_items (batch_id, idx, item_id, claim, extra) VALUES (?, ?, ?, ?, ?)",
                           [(batch_id, i, it.id, it.claim, dumps_record(it.extra))
                            for i, it in enumerate(items)])

    def get(self, batch_id: str) -> BatchInfo | None:
        with self._lock:
            row = self._db.execute("SELECT id, owner, created, finished, status, settings, options FROM batches "
                                   "WHERE id = ?", (batch_id,)).fetchone()
            if row is None:
                return None
            counts = dict(self._db.execute("SELECT status, COUNT(*) FROM batch_items WHERE batch_id = ? "
                                           "GROUP BY status", (batch_id,)).fetchall())
        info = BatchInfo(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]))
        info.done = counts.get("done", 0) + counts.get("error", 0)
        info.errors = counts.get("error", 0)
        info.total = info.done + counts.get("pending", 0) + counts.get("running", 0)
        return info

    def _migrate(self) -> None:
        """Stores written before claims could be taken lack the ``worker`` column."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(batch_items)")}
        if "worker" not in columns:
            self._db.execute("ALTER TABLE batch_items ADD COLUMN worker TEXT")

    def take(self, batch_id: str, worker: str) -> tuple[int, ClaimItem] | None:
        """Mark the next pending claim of ``batch_id`` as run by ``worker`` and return it (None: none left)."""
        with self._tx() as db:
            row = db.execute("UPDATE batch_items SET status = 'running', worker = ? WHERE rowid = (SELECT rowid "
                             "FROM batch_items WHERE batch_id = ? AND status = 'pending' ORDER BY idx LIMIT 1) "
                             "RETURNING idx, item_id, claim, extra", (worker, batch_id)).fetchone()
        if row is None:
            return None
        idx, item_id, claim, extra = row
        return idx, ClaimItem(item_id, claim, json.loads(extra))

    def give_back(self, batch_id: str, idx: int) -> None:
        """A claim whose run was cancelled (shutdown) becomes pending again."""
        with self._tx() as db:
            db.execute("UPDATE batch_items SET status = 'pending', worker = NULL WHERE batch_id = ? AND idx = ? "
                       "AND status = 'running'", (batch_id, idx))

    def requeue_orphans(self, alive: Callable[[str], bool]) -> int:
        """Claims marked running by a process that is gone become pending; returns how many."""
        with self._tx() as db:
            workers = [w for (w,) in db.execute("SELECT DISTINCT worker FROM batch_items WHERE status = 'running'")]
            dead = [w for w in workers if w is None or not alive(w)]
            for worker in dead:
                db.execute("UPDATE batch_items SET status = 'pending', worker = NULL WHERE status = 'running' AND "
                           "worker IS ?", (worker,))
        return len(dead)

    def pending(self, batch_id: str) -> list[tuple[int, ClaimItem]]:
        with self._lock:
            rows = self._db.execute("SELECT idx, item_id, claim, extra FROM batch_items WHERE batch_id = ? "
                                    "AND status = 'pending' ORDER BY idx", (batch_id,)).fetchall()
        return [(idx, ClaimItem(item_id, claim, json.loads(extra))) for idx, item_id, claim, extra in rows]

    def results(self, batch_id: str, offset: int = 0, limit: int = -1) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT result FROM batch_items WHERE batch_id = ? AND status IN ('done', 'error') "
                                    "ORDER BY idx LIMIT ? OFFSET ?", (batch_id, limit, offset)).fetchall()
        return [json.loads(row[0]) for row in rows]

    def record(self, batch_id: str, idx: int, result: dict[str, Any]) -> None:
        status = "error" if result.get("error") else "done"
        with self._tx() as db:
            db.execute("UPDATE batch_items SET status = ?, result = ? WHERE batch_id = ? AND idx = ?",
                       (status, dumps_record(result), batch_id, idx))

    def finish(self, batch_id: str) -> bool:
        """Mark the batch done once none of its claims is pending or running (in any process)."""
        with self._tx() as db:
            cursor = db.execute("UPDATE batches SET status = 'done', finished = ? WHERE id = ? AND status != 'done' "
                                "AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = ? AND status IN "
                                "('pending', 'running'))", (time.time(), batch_id, batch_id))
        return cursor.rowcount > 0

    def unfinished(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM batches WHERE status != 'done' ORDER BY created").fetchall()
        return [row[0] for row in rows]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
