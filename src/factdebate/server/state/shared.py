"""Service state that must hold across processes (``serve --workers N``, or replicas behind a load
balancer): the per-key rate limit and the cap on debates in progress, kept in the state database
(:mod:`factdebate.server.state.db`: SQLite in WAL mode next to the batch store on one machine, a
PostgreSQL server for several). Each check is one short serialized transaction, so processes never
interleave a read and its write.

A debate slot is a row naming its process. A process that dies holding slots leaves rows behind: the next
check removes them, at once for a process of the same machine (it is gone), and after the service's
``heartbeat_lease_s`` (default ``PROCESS_LEASE_SECONDS``, 20 s) without a heartbeat for a process of another
machine. ``SLOT_TTL_SECONDS`` is a last backstop, the longest a debate may hold a slot."""

from __future__ import annotations

import math
import os
import socket
import time
import uuid
from pathlib import Path

from factdebate.server.state.db import (
    HEARTBEAT_SCHEMA,
    PROCESS_LEASE_SECONDS,
    Cursor,
    StateDatabase,
    beat,
    fresh_processes,
    open_state_db,
    process_alive,
)

SLOT_TTL_SECONDS = 6 * 3600

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS rate_buckets (client TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL,
                                         updated DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS run_slots (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,
                                      started DOUBLE PRECISION NOT NULL);
{HEARTBEAT_SCHEMA};
"""


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class SharedState:
    def __init__(self, target: str | Path | StateDatabase) -> None:
        self.db = target if not isinstance(target, str | Path) else open_state_db(target)
        self.lease_s = PROCESS_LEASE_SECONDS  # the service's heartbeat_lease_s (server/service.py sets it)
        self.db.script(_SCHEMA)

    def beat(self) -> None:
        beat(self.db, worker_id())

    # -- rate limit ---------------------------------------------------------------------------------
    def take_token(self, client: str, rate: float, capacity: float, now: float | None = None) -> float:
        """0 when ``client`` may go now, else seconds to wait (a token bucket of ``capacity`` filling at
        ``rate`` per second)."""
        now = time.time() if now is None else now

        def take(db: Cursor) -> float:
            row = db.execute("SELECT tokens, updated FROM rate_buckets WHERE client = ?", (client,)).fetchone()
            tokens = capacity if row is None else min(capacity, row[0] + max(0.0, now - row[1]) * rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / rate
            if wait == 0.0:
                tokens -= 1
            db.execute("INSERT INTO rate_buckets (client, tokens, updated) VALUES (?, ?, ?) ON CONFLICT (client) "
                       "DO UPDATE SET tokens = excluded.tokens, updated = excluded.updated", (client, tokens, now))
            return wait

        return self.db.write("rate", take)

    def charge_tokens(self, client: str, tokens: float, rate: float, capacity: float,
                      now: float | None = None) -> None:
        """Take ``tokens`` more (negative: give back) without refusing; the bucket may go below zero."""
        now = time.time() if now is None else now

        def charge(db: Cursor) -> None:
            row = db.execute("SELECT tokens, updated FROM rate_buckets WHERE client = ?", (client,)).fetchone()
            held = capacity if row is None else row[0] + max(0.0, now - row[1]) * rate
            db.execute("INSERT INTO rate_buckets (client, tokens, updated) VALUES (?, ?, ?) ON CONFLICT (client) "
                       "DO UPDATE SET tokens = excluded.tokens, updated = excluded.updated",
                       (client, min(capacity, held - tokens), now))

        self.db.write("rate", charge)

    # -- debates in progress --------------------------------------------------------------------------
    def acquire_slot(self, limit: int) -> str | None:
        """A slot id while fewer than ``limit`` debates run across all processes, else None."""
        host, pid = socket.gethostname(), os.getpid()

        def acquire(db: Cursor) -> str | None:
            now = time.time()
            fresh = fresh_processes(db, now, self.lease_s)
            rows = db.execute("SELECT id, host, pid, started FROM run_slots").fetchall()
            stale = [r[0] for r in rows if not process_alive(r[1], r[2], fresh) or r[3] < now - SLOT_TTL_SECONDS]
            db.executemany("DELETE FROM run_slots WHERE id = ?", [(s,) for s in stale])
            if len(rows) - len(stale) >= limit:
                return None
            slot = uuid.uuid4().hex
            db.execute("INSERT INTO run_slots (id, host, pid, started) VALUES (?, ?, ?, ?)", (slot, host, pid, now))
            return slot

        return self.db.write("slots", acquire)

    def release_slot(self, slot: str) -> None:
        self.db.write("slots", lambda db: db.execute("DELETE FROM run_slots WHERE id = ?", (slot,)))

    def active(self) -> int:
        return int(self.db.read(lambda db: db.execute("SELECT COUNT(*) FROM run_slots").fetchone()[0]))

    def close(self) -> None:
        self.db.close()


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

    def charge(self, client: str, tokens: float, now: float | None = None) -> None:
        if self.rate > 0 and tokens:
            self.state.charge_tokens(self.prefix + client, tokens, self.rate, self.capacity, now)
