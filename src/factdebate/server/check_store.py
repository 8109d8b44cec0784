"""Finished checks kept by the service, so that a link (``/?check=<id>``) reopens one from the service rather
than from one browser's Recent checks. A row per verdict (a claim's or a whole response's), owned by the key
that asked for it: another key reads it as absent, as it does another key's batch.

How much is kept is the operator's choice, never the caller's: at most ``per_key`` checks per key (the
oldest go first) and none older than ``max_age_seconds``. Both are applied on every write, and age also on
every read, so an expired check is never served even when nothing has been written since."""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from factdebate.core.textsafe import dumps_record
from factdebate.server.state_db import Cursor, StateDatabase

# A check's id is 32 lower-case hex digits (a UUID4 without dashes); anything else is refused unread.
CHECK_ID = re.compile(r"^[0-9a-f]{32}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checks (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL,
    verdict TEXT NOT NULL
);
-- a key's checks newest first: the per-key trim and nothing else reads them by owner
CREATE INDEX IF NOT EXISTS checks_owner ON checks (owner, created);
CREATE INDEX IF NOT EXISTS checks_created ON checks (created)
"""


@dataclass
class KeptCheck:
    id: str
    kind: str  # claim | response
    created: float
    verdict: dict[str, Any]


class CheckStore:
    def __init__(self, db: StateDatabase, per_key: int, max_age_seconds: float) -> None:
        self.db = db
        self.per_key = per_key
        self.max_age_seconds = max_age_seconds
        self.db.script(_SCHEMA)

    @property
    def enabled(self) -> bool:
        return self.per_key > 0

    def save(self, owner: str, kind: str, verdict: dict[str, Any], now: float | None = None) -> str | None:
        """Keep ``verdict`` for ``owner``; its id, or None when the operator keeps no checks."""
        if not self.enabled:
            return None
        now = time.time() if now is None else now
        check_id = uuid.uuid4().hex

        def insert(db: Cursor) -> None:
            db.execute("DELETE FROM checks WHERE created < ?", (now - self.max_age_seconds,))
            db.execute("INSERT INTO checks (id, owner, created, kind, verdict) VALUES (?, ?, ?, ?, ?)",
                       (check_id, owner, now, kind, dumps_record(verdict)))
            # The key's newest per_key stay; ties in time are broken by id so the trim is deterministic.
            db.execute("DELETE FROM checks WHERE owner = ? AND id NOT IN (SELECT id FROM checks WHERE owner = ? "
                       "ORDER BY created DESC, id DESC LIMIT ?)", (owner, owner, self.per_key))

        self.db.write("checks", insert)
        return check_id

    def get(self, check_id: str, owner: str, now: float | None = None) -> KeptCheck | None:
        """The check, or None when it is unknown, expired or another key's (the caller cannot tell which)."""
        if not CHECK_ID.match(check_id):
            return None
        now = time.time() if now is None else now
        row = self.db.read(lambda db: db.execute(
            "SELECT id, kind, created, verdict FROM checks WHERE id = ? AND owner = ? AND created >= ?",
            (check_id, owner, now - self.max_age_seconds)).fetchone())
        if row is None:
            return None
        return KeptCheck(row[0], row[1], row[2], json.loads(row[3]))

    def count(self, owner: str) -> int:
        return int(self.db.read(lambda db: db.execute(
            "SELECT COUNT(*) FROM checks WHERE owner = ?", (owner,)).fetchone()[0]))
