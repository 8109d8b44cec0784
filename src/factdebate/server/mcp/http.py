"""``factdebate mcp --http``: the MCP tools over streamable HTTP, one server for many agents, behind the
service's API keys (``Authorization: Bearer <key>``, the keys of ``factdebate serve``: server/security.py) and its
per-key rate limit (``rate_limit_per_minute``, ``rate_burst``), which counts tool calls only: the handshake,
listings, pings and notifications cost nothing. Each session belongs to the key that opened it, and each key
holds a bounded number open (``mcp_sessions_per_key``; server/mcp/sessions.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from factdebate.server.mcp.server import AgentServer
from factdebate.server.mcp.sessions import SessionLedger
from factdebate.server.scrub_responses import ScrubResponses
from factdebate.server.security import CALLER_STATE, KeyRing, RateLimiter

MCP_PATH = "/mcp"
_REFUSED = json.dumps({"error": "missing or wrong API key: send the header Authorization: Bearer <key> "
                                "(FACTDEBATE_API_KEYS or api_keys in --service-config)"}).encode()
# JSON-RPC's answer to a body that is not JSON it can read, in the SDK's words (its own parse error).
_PARSE_ERROR = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32700, "message": "Parse error: the JSON is nested too deeply (recursion limit exceeded)"}}).encode()
MAX_BODY = 8 * 1024 * 1024  # what the limit reads of a request to count its tool calls; a larger one is a 413
_SESSION_HEADER = b"mcp-session-id"
# The SDK's own 404s for a session it no longer holds (streamable_http_manager.py: an id it does not know;
# streamable_http.py: a session ended while the request reached it). Any other 404, Starlette's for an unknown
# path or a handler's "method not found", says nothing about the session.
_SESSION_GONE = frozenset({"Session not found", "Not Found: Session has been terminated"})
_GONE_BODY_MAX = 4096  # what is read of a 404's body to tell the SDK's words: its JSON-RPC error is far shorter
# Sessions one key may hold open, the table's size, and the idle timeouts of a session that called a tool and of
# one that never did (the service config's mcp_* settings): one key reaches its bound long before the table
# is its own.
SESSION_DEFAULTS = (100, 1800.0, 60.0)
MAX_SESSIONS = 2000


class KeyCheck:
    """ASGI: every HTTP request must carry one of the keys (none needed when the ring allows anonymous
    callers), and each key's tool calls (``tools/call``, one per message of a batch) are taken from its bucket of
    ``limiter``; the server's lifespan passes through untouched. The key is the request's principal for the SDK
    (``scope["user"]``), so a session answers only the key that opened it (another key gets the SDK's 404), and
    ``ledger`` bounds the sessions each key holds open (server/mcp/sessions.py). A request with more than one
    ``Mcp-Session-Id`` header is refused (400): the SDK and the ledger must read the same session."""

    def __init__(self, app: Any, ring: KeyRing, limiter: RateLimiter | None = None,
                 ledger: SessionLedger | None = None) -> None:
        self.app = app
        self.ring = ring
        self.limiter = limiter
        self.ledger = ledger or SessionLedger(*SESSION_DEFAULTS)
        self._reaped_at = -1.0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        header = headers.get(b"authorization")
        who = self.ring.identify(header.decode("latin-1") if header else None)
        if who is None:
            await _answer(send, 401, _REFUSED, [(b"www-authenticate", b"Bearer")])
            return
        # The SDK reads the first of several Mcp-Session-Id headers; were another one counted here, a request
        # could end a session in the ledger that the SDK keeps.
        sessions = [value for name, value in scope.get("headers") or [] if name.lower() == _SESSION_HEADER]
        if len(sessions) > 1:
            await _answer(send, 400, _two_session_ids(len(sessions)))
            return
        # the key's id: the SDK's session owner, and the guard's check_answer's cache scope (guard_host.py)
        scope = {**scope, "user": principal(who), "state": {**(scope.get("state") or {}), CALLER_STATE: who}}
        calls: list[Any] = []
        if scope.get("method") == "POST":
            body = await _read(receive)
            if body is None:
                await _answer(send, 413, json.dumps({"error": f"request body over {MAX_BODY} bytes"}).encode())
                return
            found = _tool_calls(body)
            if found is None:
                await _answer(send, 400, _PARSE_ERROR)
                return
            calls = found
            receive = _replay(body, receive)
            if calls and self.limiter is not None and self.limiter.rate > 0:
                wait = max(self.limiter.acquire(who) for _ in calls)
                if wait > 0:
                    message = (f"rate limit: this key may make {self.limiter.rate * 60:g} tool calls a minute; "
                               f"try again in {math.ceil(wait)} s")
                    refusal = {"jsonrpc": "2.0", "id": calls[0], "error": {"code": -32000, "message": message}}
                    await _answer(send, 429, json.dumps(refusal).encode(),
                                  [(b"retry-after", str(math.ceil(wait)).encode())])
                    return
        await self._reap(scope)
        if scope.get("path") != MCP_PATH:  # the router's 404: no session opens or ends there
            await self.app(scope, receive, send)
            return
        session = (sessions[0].decode("latin-1") if sessions else "") or None  # an empty one opens nothing
        if session is None:
            if scope.get("method") == "POST":
                if (held := self.ledger.open_count(who)) >= self.ledger.per_key:
                    await _answer(send, 429, _too_many_sessions(held), [(b"retry-after", b"60")])
                    return
                send = self._opening(send, who)
            await self.app(scope, receive, send)
            return
        if self.ledger.owner(session) != who:  # another key's session, or one not known: the SDK answers it
            await self.app(scope, receive, send)
            return
        await self._serve_session(scope, receive, send, session, used=bool(calls))

    async def _serve_session(self, scope: dict[str, Any], receive: Any, send: Any, session: str, *,
                             used: bool) -> None:
        """A request for one of the key's own sessions on ``/mcp``; the ledger closes the session only where
        the SDK no longer holds it: its "Session not found" 404, or a DELETE it answered with success."""
        self.ledger.started(session, calls_tool=used)
        answer = _Answer(send)
        try:
            await self.app(scope, receive, answer.send)
        finally:
            self.ledger.ended(session)
            if answer.session_gone() or (scope.get("method") == "DELETE" and answer.code is not None
                                         and answer.code < 400):
                self.ledger.closed(session)

    def _opening(self, send: Any, who: str) -> Any:
        """``send`` that records the session an opening request was given (its ``Mcp-Session-Id``)."""

        async def watched(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                given = dict(message.get("headers") or []).get(b"mcp-session-id")
                if given:
                    self.ledger.opened(given.decode("latin-1"), who)
            await send(message)

        return watched

    async def _reap(self, scope: dict[str, Any]) -> None:
        """End the sessions that never called a tool and have been idle past their short timeout, through the
        server's own DELETE (as their key), at most once a second."""
        now = self.ledger.clock()
        if now - self._reaped_at < 1.0:
            return
        self._reaped_at = now
        for session, key in self.ledger.unused_and_idle():
            self.ledger.closed(session)
            headers = [(name, value) for name, value in scope.get("headers") or [] if name == b"host"]
            ending = {**scope, "method": "DELETE", "path": MCP_PATH, "raw_path": MCP_PATH.encode(),
                      "user": principal(key), "query_string": b"",
                      "headers": [*headers, (b"mcp-session-id", session.encode("latin-1"))],
                      "state": {**(scope.get("state") or {}), CALLER_STATE: key}}
            await self.app(ending, _no_body, _discard)


class _Answer:
    """A ``send`` that remembers the answer's status, and the start of a 404's body (to read whose 404 it is)."""

    def __init__(self, send: Any) -> None:
        self._send = send
        self.code: int | None = None
        self._body = b""

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.code = int(message.get("status", 500))
        elif message["type"] == "http.response.body" and self.code == 404 and len(self._body) < _GONE_BODY_MAX:
            self._body += message.get("body", b"")[:_GONE_BODY_MAX - len(self._body)]
        await self._send(message)

    def session_gone(self) -> bool:
        """The answer is the SDK's 404 for a session it does not hold (its JSON-RPC error, in its words)."""
        if self.code != 404:
            return False
        try:
            error = json.loads(self._body).get("error")
        except (ValueError, AttributeError):
            return False
        return isinstance(error, dict) and error.get("message") in _SESSION_GONE


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _discard(message: dict[str, Any]) -> None:
    return None


def principal(who: str) -> Any:
    """The key's id as the SDK's authenticated user: the session owner it compares."""
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken

    return AuthenticatedUser(AccessToken(token=who, client_id=who, scopes=[]))


def _too_many_sessions(held: int) -> bytes:
    message = (f"this key holds {held} open MCP sessions, the most one key may: end one (DELETE {MCP_PATH} with "
               "its Mcp-Session-Id header) or reuse it; a session that never called a tool ends after a short "
               "idle time")
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()


def _two_session_ids(count: int) -> bytes:
    message = (f"the request carries {count} Mcp-Session-Id headers: send exactly one, the id the handshake's "
               "answer gave")
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()


async def _read(receive: Any) -> bytes | None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > MAX_BODY:
            return None
        if not message.get("more_body"):
            return body


def _replay(body: bytes, receive: Any) -> Any:
    """The body read for counting, then the client's own ``receive`` (a streamed answer waits on it to learn
    of a disconnect)."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return dict(await receive())
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _tool_calls(body: bytes) -> list[Any] | None:
    """The ids of the ``tools/call`` requests in a JSON-RPC message or batch (the server answers what is not
    JSON itself); None for JSON nested deeper than Python's parser goes (``RecursionError``), which the
    server's own parser refuses too."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return []
    except RecursionError:
        return None
    messages = parsed if isinstance(parsed, list) else [parsed]
    return [m.get("id") for m in messages if isinstance(m, dict) and m.get("method") == "tools/call"]


async def _answer(send: Any, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


def http_app(config_file: str | Path | None, allowed_mcp_tools: list[str] | None, ring: KeyRing,
             host: str, limiter: RateLimiter | None = None, ledger: SessionLedger | None = None,
             max_sessions: int = MAX_SESSIONS) -> Any:
    """The ASGI app: the MCP endpoint at ``/mcp`` behind ``ring``, ``limiter`` and ``ledger``, its tools
    prepared in the background."""
    ledger = ledger or SessionLedger(*SESSION_DEFAULTS)
    server = AgentServer()
    server.prepare_in_background(config_file, allowed_mcp_tools)
    # On a loopback host the SDK also refuses other Host headers (DNS rebinding).
    # Every answer, its refusals included, passes the one scrub on its way out (server/scrub_responses.py).
    inner = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, max_sessions=max_sessions,
                                       session_idle_timeout=ledger.idle_s)
    return ScrubResponses(KeyCheck(inner, ring, limiter, ledger))


def run_http(config_file: str | Path | None, allowed_mcp_tools: list[str] | None, ring: KeyRing, *,
             host: str, port: int, limiter: RateLimiter | None = None, ledger: SessionLedger | None = None,
             max_sessions: int = MAX_SESSIONS) -> None:
    import uvicorn

    uvicorn.run(http_app(config_file, allowed_mcp_tools, ring, host, limiter, ledger, max_sessions),
                host=host, port=port,
                log_level="warning",
                proxy_headers=False, server_header=False)
