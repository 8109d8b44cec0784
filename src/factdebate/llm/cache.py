"""On-disk response cache (SQLite). The key covers backend, model, parameters, messages *and* the caller's
identity, so two debaters sending the same prompt in the same round still get independent answers."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo


def cache_key(backend: str, params: GenParams, messages: list[Message], who: CallInfo) -> str:
    payload = {"backend": backend, "params": params.key(), "messages": messages, "who": who.as_dict()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a crash can lose the last few entries (they are only a cache) but writes no longer
        # fsync on the event loop, which cost ~4 ms per call under load.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
            " prompt_tokens INTEGER, completion_tokens INTEGER)"
        )
        # Added later: whether the answer was constrained (verdicts record it) and a reasoning model's hidden
        # reasoning tokens (usage counts them). Older files gain the columns.
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "constrained" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN constrained INTEGER DEFAULT 0")
        if "reasoning_tokens" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN reasoning_tokens INTEGER DEFAULT 0")
        self._lock = threading.Lock()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, constrained, reasoning_tokens FROM responses"
                " WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return Completion(text=row[0], prompt_tokens=row[1] or 0, completion_tokens=row[2] or 0,
                          constrained=bool(row[3]), reasoning_tokens=row[4] or 0)

    def put(self, key: str, completion: Completion) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, text, prompt_tokens, completion_tokens, constrained,"
                " reasoning_tokens) VALUES (?, ?, ?, ?, ?, ?)",
                (key, completion.text, completion.prompt_tokens, completion.completion_tokens,
                 int(completion.constrained), completion.reasoning_tokens),
            )

    def close(self) -> None:
        self._db.close()
