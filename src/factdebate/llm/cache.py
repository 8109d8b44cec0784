"""On-disk response cache (SQLite). The key covers backend, model, parameters, messages *and* the caller's
identity, so two debaters sending the same prompt in the same round still get independent answers.

A call whose key is already being asked waits for that answer (``in_flight``): the cache promises one answer
per key, and a local model is not batch-invariant (llama.cpp can answer one prompt at temperature 0 in two ways).

A cache that cannot write (a full or read-only disk) is skipped with one warning, and reads that fail so are
misses: the call has been paid for, and a full disk must not lose its verdict. ``/v1/health`` says so while
it lasts (util/storage_full.py)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import threading
from pathlib import Path

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo, current_cache_scope
from factdebate.util.storage_full import STORAGE

log = logging.getLogger("factdebate.llm")
PART = "response cache"


def cache_key(backend: str, params: GenParams, messages: list[Message], who: CallInfo) -> str:
    # The evaluation sample is not part of the key: the same question gets the same answer. Independent draws
    # (``draw``) get their own entries; an empty draw is left out so other calls' keys stay as cached.
    asked = {k: v for k, v in who.as_dict().items() if k != "sample" and (k != "draw" or v)}
    payload: dict[str, object] = {"backend": backend, "params": params.key(), "messages": messages, "who": asked}
    if scope := current_cache_scope():  # answers kept apart by scope (llm/calls.py); none: the keys as before
        payload["scope"] = scope
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a crash may lose the last entries, but no fsync on the event loop (~4 ms a call).
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
            " prompt_tokens INTEGER, completion_tokens INTEGER)"
        )
        # Columns added later; older files gain them.
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "constrained" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN constrained INTEGER DEFAULT 0")
        if "reasoning_tokens" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN reasoning_tokens INTEGER DEFAULT 0")
        if "choice_probs" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN choice_probs TEXT DEFAULT NULL")
        self._lock = threading.Lock()
        # Calls being asked now, per event loop: the answer (None when the call failed) for those that wait.
        self._flights: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[Completion | None]] = {}

    def in_flight(self, key: str) -> asyncio.Future[Completion | None] | None:
        """The answer-to-be of an identical call being asked now, if any."""
        return self._flights.get((asyncio.get_running_loop(), key))

    def take_off(self, key: str) -> asyncio.Future[Completion | None]:
        """This call asks for ``key``; identical calls wait for it until :meth:`land`."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Completion | None] = loop.create_future()
        self._flights[(loop, key)] = future
        return future

    def land(self, key: str, future: asyncio.Future[Completion | None], completion: Completion | None) -> None:
        """The call for ``key`` ended: its answer (None: it failed, and each waiter asks for itself)."""
        slot = (asyncio.get_running_loop(), key)
        if self._flights.get(slot) is future:
            del self._flights[slot]
        if not future.done():
            future.set_result(completion)

    def get(self, key: str) -> Completion | None:
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT text, prompt_tokens, completion_tokens, constrained, reasoning_tokens, choice_probs"
                    " FROM responses"
                    " WHERE key = ?", (key,)
                ).fetchone()
        except sqlite3.Error as exc:
            self._skipped(exc, "read")  # a disk that fails reads: a miss, the model is asked
            return None
        if row is None:
            return None
        # no prompt count stored: the server reported no usage for the answer kept (put)
        return Completion(text=row[0], prompt_tokens=row[1] or 0, completion_tokens=row[2] or 0,
                          constrained=bool(row[3]), reasoning_tokens=row[4] or 0, usage_known=row[1] is not None,
                          choice_probs=json.loads(row[5]) if row[5] else None)

    def put(self, key: str, completion: Completion) -> None:
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, text, prompt_tokens, completion_tokens, constrained,"
                    " reasoning_tokens, choice_probs) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, completion.text, completion.prompt_tokens if completion.usage_known else None,
                     completion.completion_tokens,
                     int(completion.constrained), completion.reasoning_tokens,
                     json.dumps(completion.choice_probs) if completion.choice_probs is not None else None),
                )
        except sqlite3.Error as exc:
            self._skipped(exc, "written")
            return
        STORAGE.wrote(PART)

    def _skipped(self, exc: sqlite3.Error, how: str) -> None:
        """A cache entry not ``how`` (read, written): skipped when storage is the cause, else raised."""
        reason = STORAGE.problem(exc)
        if reason is None:
            raise exc
        if STORAGE.failed(PART, f"{self.path}: {reason}"):
            log.warning("the response cache %s could not be %s (%s): answers are not cached until it can be; "
                        "no verdict is lost", self.path, how, reason)

    def close(self) -> None:
        self._db.close()
