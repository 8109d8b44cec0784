"""Which API key opened which MCP session over HTTP, so that no key can hold the session table.

The SDK keeps one table of stateful sessions for the whole server and refuses a new one when it is full,
whoever filled it. Each key here may hold at most ``per_key`` sessions open: past that its handshake is refused
(429, in JSON-RPC's shape) while other keys still connect. A session that never called a tool is ended after
``unused_idle_s`` without a request (an agent that connects and walks away, or a flood of handshakes), a
session that did after ``idle_s`` (the SDK's own idle timeout, which this ledger mirrors to count what is
open). The ledger learns of sessions only from what the SDK answers on ``/mcp`` (the ``Mcp-Session-Id`` header
of an opening request, its own "Session not found" 404 for a session that is gone, a DELETE it answered with
success), never from its private tables: any other 404 (an unknown path, an unknown method) leaves the session
counted, as the SDK still holds it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Session:
    key: str
    last_seen: float
    in_flight: int = 0
    used: bool = False  # called a tool


@dataclass
class SessionLedger:
    per_key: int
    idle_s: float
    unused_idle_s: float
    clock: Callable[[], float] = time.monotonic
    _sessions: dict[str, _Session] = field(default_factory=dict)

    def owner(self, session_id: str) -> str | None:
        session = self._sessions.get(session_id)
        return session.key if session is not None else None

    def open_count(self, key: str) -> int:
        """Sessions ``key`` holds open now (those past their idle timeout are forgotten first)."""
        self._forget_expired()
        return sum(session.key == key for session in self._sessions.values())

    def opened(self, session_id: str, key: str) -> None:
        self._sessions[session_id] = _Session(key, self.clock())

    def started(self, session_id: str, *, calls_tool: bool) -> None:
        """A request for the session is being served (the idle clock stops, as the SDK's does)."""
        if (session := self._sessions.get(session_id)) is not None:
            session.in_flight += 1
            session.used = session.used or calls_tool

    def ended(self, session_id: str) -> None:
        if (session := self._sessions.get(session_id)) is not None:
            session.in_flight = max(0, session.in_flight - 1)
            session.last_seen = self.clock()

    def closed(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def unused_and_idle(self) -> list[tuple[str, str]]:
        """(session, key) of each session that never called a tool and has had no request for
        ``unused_idle_s``: to be ended now."""
        now = self.clock()
        return [(session_id, session.key) for session_id, session in self._sessions.items()
                if not session.used and not session.in_flight and now - session.last_seen >= self.unused_idle_s]

    def _forget_expired(self) -> None:
        """Sessions the SDK has ended by its idle timeout: no request in flight for ``idle_s``."""
        now = self.clock()
        gone = [session_id for session_id, session in self._sessions.items()
                if not session.in_flight and now - session.last_seen >= self.idle_s]
        for session_id in gone:
            del self._sessions[session_id]
