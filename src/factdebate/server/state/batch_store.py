"""Persistence of batch jobs in the state database (SQLite, or PostgreSQL for replicas on several
machines): one row per batch, one per claim. A claim's row is written once, when
it finishes, so after a restart exactly the claims without a result are run again.

Several processes may share the file (``serve --workers N``): a process takes a claim by marking it
``running`` with its own id in one statement, so no two processes run the same claim. Claims taken by a
process that died go back to ``pending`` when a process starts or looks for work: at once for a process of
the same machine, after the heartbeat lease for one of another machine."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factdebate.engine import ClaimItem
from factdebate.server.state.db import (
    HEARTBEAT_SCHEMA,
    PROCESS_LEASE_SECONDS,
    Cursor,
    StateDatabase,
    beat,
    fresh_processes,
    open_state_db,
)
from factdebate.util.textsafe import dumps_record

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS batches (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
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
    worker TEXT,
    PRIMARY KEY (batch_id, idx)
);
-- (batch_id, status, idx): the next pending claim is the index's first entry, however long the batch
CREATE INDEX IF NOT EXISTS batch_items_queue ON batch_items (batch_id, status, idx);
-- a key's unfinished batches, whose claims count against max_pending_claims
CREATE INDEX IF NOT EXISTS batches_owner ON batches (owner, status);
{HEARTBEAT_SCHEMA};
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
    def __init__(self, target: str | Path | StateDatabase) -> None:
        self.db = target if not isinstance(target, str | Path) else open_state_db(target)
        self.lease_s = PROCESS_LEASE_SECONDS  # the service's heartbeat_lease_s (server/service.py sets it)
        self.db.script(_SCHEMA)
        if self.db.dialect == "sqlite":
            self.db.write("schema", _add_worker_column)

    @property
    def location(self) -> str:
        return self.db.location

    def beat(self, process: str) -> None:
        beat(self.db, process)

    def create(self, batch_id: str, owner: str, settings: dict[str, Any], options: dict[str, Any],
               items: list[ClaimItem], max_pending: int | None = None) -> None:
        """Store a new batch; :class:`TooManyPending` instead when ``owner`` would then have more than
        ``max_pending`` claims waiting or running (counted in the same write, so parallel uploads cannot
        each pass the cap)."""
        def insert(db: Cursor) -> None:
            if max_pending is not None:
                pending = _pending_claims(db, owner)
                if pending + len(items) > max_pending:
                    raise TooManyPending(pending, len(items), max_pending)
            db.execute("INSERT INTO batches (id, owner, created, finished, status, settings, options) "
                       "VALUES (?, ?, ?, NULL, 'running', ?, ?)",
                       (batch_id, owner, time.time(), json.dumps(settings), json.dumps(options)))
            db.executemany("INSERT INTO batch_items (batch_id, idx, item_id, claim, extra) VALUES (?, ?, ?, ?, ?)",
                           [(batch_id, i, it.id, it.claim, dumps_record(it.extra)) for i, it in enumerate(items)])

        self.db.write("batches", insert)

    def get(self, batch_id: str) -> BatchInfo | None:
        def read(db: Cursor) -> tuple[Any, dict[str, int]]:
            row = db.execute("SELECT id, owner, created, finished, status, settings, options FROM batches "
                             "WHERE id = ?", (batch_id,)).fetchone()
            counts = db.execute("SELECT status, COUNT(*) FROM batch_items WHERE batch_id = ? GROUP BY status",
                                (batch_id,)).fetchall()
            return row, {status: int(n) for status, n in counts}

        row, counts = self.db.read(read)
        if row is None:
            return None
        info = BatchInfo(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]))
        info.done = counts.get("done", 0) + counts.get("error", 0)
        info.errors = counts.get("error", 0)
        info.total = info.done + counts.get("pending", 0) + counts.get("running", 0)
        return info

    def take(self, batch_id: str, worker: str) -> tuple[int, ClaimItem] | None:
        """Mark the next pending claim of ``batch_id`` as run by ``worker`` and return it (None: none left)."""
        row = self.db.write("batches", lambda db: db.execute(
            "UPDATE batch_items SET status = 'running', worker = ? WHERE batch_id = ? AND idx = (SELECT idx "
            "FROM batch_items WHERE batch_id = ? AND status = 'pending' ORDER BY idx LIMIT 1) "
            "RETURNING idx, item_id, claim, extra", (worker, batch_id, batch_id)).fetchone())
        if row is None:
            return None
        idx, item_id, claim, extra = row
        return idx, ClaimItem(item_id, claim, json.loads(extra))

    def give_back(self, batch_id: str, idx: int) -> None:
        """A claim whose run was cancelled (shutdown) becomes pending again."""
        self.db.write("batches", lambda db: db.execute(
            "UPDATE batch_items SET status = 'pending', worker = NULL WHERE batch_id = ? AND idx = ? "
            "AND status = 'running'", (batch_id, idx)))

    def requeue_orphans(self, alive: Callable[[str, set[str]], bool]) -> int:
        """Claims marked running by a runner that is gone become pending; returns how many runners were gone.
        ``alive(worker, fresh)`` decides, given the processes that beat within the lease."""
        def requeue(db: Cursor) -> int:
            fresh = fresh_processes(db, lease_s=self.lease_s)
            workers = [w for (w,) in db.execute("SELECT DISTINCT worker FROM batch_items WHERE status = 'running'")
                       .fetchall()]
            dead = [w for w in workers if w is None or not alive(w, fresh)]
            for worker in dead:
                if worker is None:
                    db.execute("UPDATE batch_items SET status = 'pending' WHERE status = 'running' AND worker IS NULL")
                else:
                    db.execute("UPDATE batch_items SET status = 'pending', worker = NULL WHERE status = 'running' "
                               "AND worker = ?", (worker,))
            return len(dead)

        return self.db.write("batches", requeue)

    def pending(self, batch_id: str) -> list[tuple[int, ClaimItem]]:
        rows = self.db.read(lambda db: db.execute(
            "SELECT idx, item_id, claim, extra FROM batch_items WHERE batch_id = ? AND status = 'pending' "
            "ORDER BY idx", (batch_id,)).fetchall())
        return [(idx, ClaimItem(item_id, claim, json.loads(extra))) for idx, item_id, claim, extra in rows]

    def results(self, batch_id: str, offset: int = 0, limit: int = -1) -> list[dict[str, Any]]:
        sql = ("SELECT result FROM batch_items WHERE batch_id = ? AND status IN ('done', 'error') ORDER BY idx "
               "LIMIT ? OFFSET ?")
        # No limit: -1 for SQLite, NULL for PostgreSQL (each refuses the other's).
        params = (batch_id, limit if limit >= 0 or self.db.dialect == "sqlite" else None, offset)
        rows = self.db.read(lambda db: db.execute(sql, params).fetchall())
        return [json.loads(row[0]) for row in rows]

    def record(self, batch_id: str, idx: int, result: dict[str, Any]) -> None:
        status = "error" if result.get("error") else "done"
        self.db.write("batches", lambda db: db.execute(
            "UPDATE batch_items SET status = ?, result = ? WHERE batch_id = ? AND idx = ?",
            (status, dumps_record(result), batch_id, idx)))

    def finish(self, batch_id: str) -> bool:
        """Mark the batch done once none of its claims is pending or running (in any process)."""
        changed = self.db.write("batches", lambda db: db.execute(
            "UPDATE batches SET status = 'done', finished = ? WHERE id = ? AND status != 'done' AND NOT EXISTS "
            "(SELECT 1 FROM batch_items WHERE batch_id = ? AND status IN ('pending', 'running'))",
            (time.time(), batch_id, batch_id)).rowcount)
        return bool(changed > 0)

    def unfinished(self) -> list[str]:
        rows = self.db.read(lambda db: db.execute(
            "SELECT id FROM batches WHERE status != 'done' ORDER BY created").fetchall())
        return [row[0] for row in rows]

    def joinable(self) -> list[str]:
        """Unfinished batches with claims no process has taken yet."""
        rows = self.db.read(lambda db: db.execute(
            "SELECT id FROM batches WHERE status != 'done' AND EXISTS (SELECT 1 FROM batch_items WHERE "
            "batch_id = batches.id AND status = 'pending') ORDER BY created").fetchall())
        return [row[0] for row in rows]

    def close(self) -> None:
        self.db.close()


class TooManyPending(Exception):
    """An upload that would leave its owner more claims waiting or running than the operator allows."""

    def __init__(self, pending: int, adding: int, limit: int) -> None:
        super().__init__(f"this key has {pending} batch claim(s) waiting or running; {adding} more would pass "
                         f"the server's limit of {limit} (max_pending_claims): retry when some have finished")


def _pending_claims(db: Cursor, owner: str) -> int:
    row = db.execute("SELECT COUNT(*) FROM batch_items JOIN batches ON batches.id = batch_items.batch_id "
                     "WHERE batches.owner = ? AND batches.status != 'done' "
                     "AND batch_items.status IN ('pending', 'running')", (owner,)).fetchone()
    return int(row[0])


def _add_worker_column(db: Cursor) -> None:
    """Stores written before claims could be taken lack the ``worker`` column."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(batch_items)").fetchall()}
    if "worker" not in columns:
        db.execute("ALTER TABLE batch_items ADD COLUMN worker TEXT")
