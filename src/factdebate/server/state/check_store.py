"""Finished checks kept by the service, so that a link (``/?check=<id>``) reopens one from the service rather
than from one browser's Recent checks. A row per verdict (a claim's or a whole response's), owned by the key
that asked for it: another key reads it as absent, as it does another key's batch.

How much is kept is the operator's choice, never the caller's: at most ``per_key`` checks per key (the
oldest go first) and none older than ``max_age_seconds``. Both are applied on every write, and age also on
every read, so an expired check is never served even when nothing has been written since.

A check also keeps its model calls (server/state/kept_calls.py), already bounded by the operator's byte
limit, in a table of their own beside it: it goes with its check, and reading a check's verdict alone never
reads them.

A guard check made in a conversation (its ``conversation_id``) is also filed under that conversation, per
key, so ``GET /v1/checks?conversation_id=`` lists a conversation's checks newest first: a client that drops
the reply's ``factdebate`` object finds its verdicts again there."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from factdebate.server.state.db import Cursor, StateDatabase
from factdebate.util.textsafe import dumps_record

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
CREATE INDEX IF NOT EXISTS checks_created ON checks (created);
-- a check's model calls (a JSON list) and how many more it made than were kept
CREATE TABLE IF NOT EXISTS check_calls (
    id TEXT PRIMARY KEY,
    calls TEXT NOT NULL,
    cut INTEGER NOT NULL
);
-- the conversation a check was made in (a guard check with a conversation_id), for the key that made it
CREATE TABLE IF NOT EXISTS check_conversations (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    conversation TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS check_conversations_of ON check_conversations (owner, conversation)
"""
# What a page of the list holds at most (GET /v1/checks): each item is a whole verdict.
MAX_PAGE = 100


@dataclass
class KeptCheck:
    id: str
    kind: str  # claim | response
    created: float
    verdict: dict[str, Any]
    calls: list[dict[str, Any]] = field(default_factory=list)
    calls_cut: int = 0  # calls the check made past the byte limit: not kept


class CheckStore:
    def __init__(self, db: StateDatabase, per_key: int, max_age_seconds: float) -> None:
        self.db = db
        self.per_key = per_key
        self.max_age_seconds = max_age_seconds
        self.db.script(_SCHEMA)

    @property
    def enabled(self) -> bool:
        return self.per_key > 0

    def save(self, owner: str, kind: str, verdict: dict[str, Any], now: float | None = None,
             calls: list[dict[str, Any]] | None = None, calls_cut: int = 0, check_id: str | None = None,
             conversation: str | None = None) -> str | None:
        """Keep ``verdict`` (and the model ``calls`` that led to it, when they were gathered) for ``owner``,
        under ``check_id`` when the caller made it beforehand (the chat guard's, already in a header), filed
        under ``conversation`` when it has one; its id, or None when the operator keeps no checks."""
        if not self.enabled:
            return None
        now = time.time() if now is None else now
        if check_id is None or not CHECK_ID.fullmatch(check_id):
            check_id = uuid.uuid4().hex

        def insert(db: Cursor) -> None:
            expired = (now - self.max_age_seconds,)
            for table in ("check_calls", "check_conversations"):
                db.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM checks WHERE created < ?)", expired)
            db.execute("DELETE FROM checks WHERE created < ?", expired)
            db.execute("INSERT INTO checks (id, owner, created, kind, verdict) VALUES (?, ?, ?, ?, ?)",
                       (check_id, owner, now, kind, dumps_record(verdict)))
            if calls is not None:
                db.execute("INSERT INTO check_calls (id, calls, cut) VALUES (?, ?, ?)",
                           (check_id, dumps_record(calls), calls_cut))
            if conversation is not None:
                db.execute("INSERT INTO check_conversations (id, owner, conversation) VALUES (?, ?, ?)",
                           (check_id, owner, conversation))
            # The key's newest per_key stay; ties in time are broken by id so the trim is deterministic. The
            # first check past them is found along the (owner, created) index, and only it and older ones are
            # deleted: a NOT IN over the kept ones read every one of the key's rows on every write.
            first_out = db.execute("SELECT created, id FROM checks WHERE owner = ? ORDER BY created DESC, id DESC "
                                   "LIMIT 1 OFFSET ?", (owner, self.per_key)).fetchone()
            if first_out is not None:
                older = "SELECT id FROM checks WHERE owner = ? AND (created < ? OR (created = ? AND id <= ?))"
                trim = (owner, first_out[0], first_out[0], first_out[1])
                db.execute(f"DELETE FROM check_calls WHERE id IN ({older})", trim)
                db.execute(f"DELETE FROM check_conversations WHERE id IN ({older})", trim)
                db.execute(f"DELETE FROM checks WHERE id IN ({older})", trim)

        self.db.write("checks", insert)
        return check_id

    def get(self, check_id: str, owner: str, now: float | None = None) -> KeptCheck | None:
        """The check, or None when it is unknown, expired or another key's (the caller cannot tell which)."""
        if not CHECK_ID.fullmatch(check_id):
            return None
        now = time.time() if now is None else now
        row = self.db.read(lambda db: db.execute(
            "SELECT c.id, c.kind, c.created, c.verdict, k.calls, k.cut FROM checks c "
            "LEFT JOIN check_calls k ON k.id = c.id WHERE c.id = ? AND c.owner = ? AND c.created >= ?",
            (check_id, owner, now - self.max_age_seconds)).fetchone())
        if row is None:
            return None
        return KeptCheck(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]) if row[4] else [],
                         int(row[5] or 0))

    def of_conversation(self, owner: str, conversation: str, limit: int, before: str | None = None,
                        now: float | None = None) -> list[KeptCheck]:
        """``owner``'s kept checks filed under ``conversation``, newest first, at most ``limit`` (and
        :data:`MAX_PAGE`), older than the check ``before`` when it is given (the last of the page before):
        none when it is unknown, expired or another key's. Their calls are not read."""
        if before is not None and not CHECK_ID.fullmatch(before):
            return []
        now = time.time() if now is None else now
        limit = max(1, min(limit, MAX_PAGE))
        cutoff = now - self.max_age_seconds

        def query(db: Cursor) -> list[Any]:
            where, args = "", [owner, conversation, owner, cutoff]
            if before is not None:
                mark = db.execute("SELECT created FROM checks WHERE id = ? AND owner = ?", (before, owner)).fetchone()
                if mark is None:
                    return []
                where, args = " AND (c.created < ? OR (c.created = ? AND c.id < ?))", [*args, mark[0], mark[0], before]
            return list(db.execute(
                "SELECT c.id, c.kind, c.created, c.verdict FROM check_conversations v JOIN checks c ON c.id = v.id "
                f"WHERE v.owner = ? AND v.conversation = ? AND c.owner = ? AND c.created >= ?{where} "
                "ORDER BY c.created DESC, c.id DESC LIMIT ?", (*args, limit)).fetchall())

        return [KeptCheck(row[0], row[1], row[2], json.loads(row[3])) for row in self.db.read(query)]

    def revise(self, check_id: str, owner: str, change: Callable[[dict[str, Any]], dict[str, Any]],
               calls: Callable[[list[dict[str, Any]], int], tuple[list[dict[str, Any]], int]] | None = None,
               now: float | None = None) -> dict[str, Any] | None:
        """The kept check's verdict changed by ``change`` (a claim of a response checked again alone) and its
        calls by ``calls`` (kept calls and their cut -> new ones), read and written in one transaction so two
        changes of one check cannot lose each other's; the new verdict, or None when the check is unknown,
        expired or another key's (as :meth:`get`). Its age and place among the key's checks stay as they were."""
        if not CHECK_ID.fullmatch(check_id):
            return None
        now = time.time() if now is None else now

        def update(db: Cursor) -> dict[str, Any] | None:
            row = db.execute("SELECT verdict FROM checks WHERE id = ? AND owner = ? AND created >= ?",
                             (check_id, owner, now - self.max_age_seconds)).fetchone()
            if row is None:
                return None
            verdict = change(json.loads(row[0]))
            db.execute("UPDATE checks SET verdict = ? WHERE id = ?", (dumps_record(verdict), check_id))
            if calls is not None:
                kept = db.execute("SELECT calls, cut FROM check_calls WHERE id = ?", (check_id,)).fetchone()
                new, cut = calls(json.loads(kept[0]) if kept else [], int(kept[1]) if kept else 0)
                db.execute("DELETE FROM check_calls WHERE id = ?", (check_id,))
                db.execute("INSERT INTO check_calls (id, calls, cut) VALUES (?, ?, ?)",
                           (check_id, dumps_record(new), cut))
            return verdict

        return self.db.write("checks", update)

    def count(self, owner: str) -> int:
        return int(self.db.read(lambda db: db.execute(
            "SELECT COUNT(*) FROM checks WHERE owner = ?", (owner,)).fetchone()[0]))
