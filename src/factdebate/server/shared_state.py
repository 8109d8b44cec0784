"""Service state that must hold across processes (``serve --workers N``, or replicas behind a load balancer
on one machine): the per-key rate limit and the cap on debates in progress, kept in SQLite in WAL mode next
to the batch store. Each check is one short ``BEGIN IMMEDIATE`` transaction, so processes never interleave
a read and its write.

A debate slot is a row naming its process; a process that dies holding slots leaves rows behind, which the
next check on the same host removes (the process is gone). Rows from other hosts expire after
``SLOT_TTL_SECONDS``, the longest a debate may hold a slot unnoticed."""

from __future__ import annotations

import math
import os
import socket
import sqlite3
import threading
import time
import uuid
from pathlib import Path

from factdebate.errors import ConfigError

SLOT_TTL_SECONDS = 6 * 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rate_buckets (client TEXT PRIMARY KEY, tokens REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS run_slots (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,
                                      started REAL NOT NULL);
"""


def state_path(url: str) -> Path:
    """``sqlite:///abs/path.sqlite`` (or a plain path) -> the file. Other schemes are not supported yet."""
    if url.startswith("sqlite:///"):
        return Path(url.removeprefix("sqlite://"))
    if "://" in url:
        raise ConfigError(f"state_db {url.split('://')[0]}:// is not supported: give sqlite:///PATH (one machine; "
                          "see docs/scale.md for replicas on several machines)")
    return Path(url)


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def alive(host: str, pid: int) -> bool:
    """Whether a process of this host still runs; a process on another host is presumed alive."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedState:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # timeout: how long a check waits for another process's transaction (each lasts microseconds).
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def _immediate(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")  # the write lock first: read-modify-write without a race
        return self._db

    # -- rate limit ---------------------------------------------------------------------------------
    def take_token(self, client: str, rate: float, capacity: float, now: float | None = None) -> float:
        """0 when ``client`` may go now, else seconds to wait (a token bucket of ``capacity`` filling at
        ``rate`` per second)."""
        now = time.time() if now is None else now
        with self._lock:
            db = self._immediate()
            try:
                row = db.execute("SELECT tokens, updated FROM rate_buckets WHERE client = ?", (client,)).fetchone()
                tokens = capacity if row is None else min(capacity, row[0] + max(0.0, now - row[1]) * rate)
                wait = 0.0 if tokens >= 1 else (1 - tokens) / rate
                if wait == 0.0:
                    tokens -= 1
                db.execute("INSERT OR REPLACE INTO rate_buckets VALUES (?, ?, ?)", (client, tokens, now))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return wait

    # -- debates in progress --------------------------------------------------------------------------
    def acquire_slot(self, limit: int) -> str | None:
        """A slot id while fewer than ``limit`` debates run across all processes, else None."""
        host, pid = socket.gethostname(), os.getpid()
        with self._lock:
            db = self._immediate()
            try:
                rows = db.execute("SELECT id, host, pid, started FROM run_slots").fetchall()
                stale = [r[0] for r in rows if not alive(r[1], r[2]) or r[3] < time.time() - SLOT_TTL_SECONDS]
                db.executemany("DELETE FROM run_slots WHERE id = ?", [(s,) for s in stale])
                slot = None
                if len(rows) - len(stale) < limit:
                    slot = uuid.uuid4().hex
                    db.execute("INSERT INTO run_slots VALUES (?, ?, ?, ?)", (slot, host, pid, time.time()))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return slot

    def release_slot(self, slot: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM run_slots WHERE id = ?", (slot,))

    def active(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM run_slots").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class SharedRateLimiter:
    """:class:`factdebate.server.security.RateLimiter`'s interface over :class:`SharedState`."""

    def __init__(self, state: SharedState, per_minute: float, burst: int | None = None, prefix: str = "") -> None:
        self.state = state
        self.rate = per_minute / 60.0
        self.capacity = float(burst or max(1, math.ceil(per_minute)))
        self.prefix = prefix

    def acquire(self, client: str, now: float | None = None) -> float:
        if self.rate <= 0:
            return 0.0
        return self.state.take_token(self.prefix + client, self.rate, self.capacity, now)
