"""``factdebate mcp --http``'s sessions belong to the key that opened them: another key gets the SDK's 404 on
them (to use or to end), one key holds a bounded number open while other keys still connect, and a session
that never called a tool ends after its short idle time. Against the SDK's real session manager, in process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from factdebate.server.mcp.http import MAX_SESSIONS, SESSION_DEFAULTS, KeyCheck
from factdebate.server.mcp.sessions import SessionLedger
from factdebate.server.security import KeyRing, key_id

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

KEYS = ["first-key-0123456789abcdef", "second-key-0123456789abcdef"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def served(ledger: SessionLedger, max_sessions: int = MAX_SESSIONS) -> AsyncIterator[list[httpx.AsyncClient]]:
    from factdebate.server.mcp.server import AgentServer

    server = AgentServer()
    server.tools_ready.set()  # no tools registered: a call fails at once as an unknown tool, which is enough here
    inner = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1", max_sessions=max_sessions,
                                       session_idle_timeout=ledger.idle_s)
    transport = httpx.ASGITransport(app=KeyCheck(inner, KeyRing(KEYS), None, ledger))
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    clients = [httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8001",
                                 headers={**headers, "Authorization": f"Bearer {key}"}) for key in KEYS]
    async with server.session_manager.run(), clients[0], clients[1]:
        yield clients


async def open_session(client: httpx.AsyncClient) -> httpx.Response:
    return await client.post("/mcp", json=INITIALIZE)


def request(method: str, ident: int = 2, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, **({"params": params} if params else {})}


async def test_another_key_gets_404_on_a_session_and_cannot_end_it() -> None:
    async with served(SessionLedger(*SESSION_DEFAULTS)) as (first, second):
        opened = await open_session(first)
        assert opened.status_code == 200, opened.text
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        assert (await first.post("/mcp", json=request("ping"), headers=session)).status_code == 200
        used = await second.post("/mcp", json=request("tools/list"), headers=session)
        assert used.status_code == 404 and "Session not found" in used.text
        assert (await second.delete("/mcp", headers=session)).status_code == 404
        assert (await first.post("/mcp", json=request("ping", 3), headers=session)).status_code == 200  # still A's
        assert (await first.delete("/mcp", headers=session)).status_code == 200
        assert (await first.post("/mcp", json=request("ping", 4), headers=session)).status_code == 404


async def test_one_key_is_refused_past_its_bound_while_another_key_connects() -> None:
    """With the defaults: one key opening 600 sessions is refused long before the table is its own."""
    ledger = SessionLedger(*SESSION_DEFAULTS)
    async with served(ledger) as (first, second):
        codes = [(await open_session(first)).status_code for _ in range(ledger.per_key)]
        assert codes == [200] * ledger.per_key
        refused = await open_session(first)
        assert refused.status_code == 429 and refused.headers["retry-after"]
        message = refused.json()["error"]["message"]
        assert f"this key holds {ledger.per_key} open MCP sessions" in message and "DELETE" in message
        assert ledger.per_key < MAX_SESSIONS
        other = await open_session(second)
        assert other.status_code == 200 and other.headers["mcp-session-id"]


async def test_ending_a_session_frees_room_for_its_key() -> None:
    ledger = SessionLedger(2, 1800.0, 60.0)
    async with served(ledger) as (first, _):
        ids = [(await open_session(first)).headers["mcp-session-id"] for _ in range(2)]
        assert (await open_session(first)).status_code == 429
        assert (await first.delete("/mcp", headers={"Mcp-Session-Id": ids[0]})).status_code == 200
        assert (await open_session(first)).status_code == 200


async def test_a_session_that_never_called_a_tool_ends_after_its_short_idle_time() -> None:
    clock = Clock()
    ledger = SessionLedger(2, 1800.0, 60.0, clock=clock)
    async with served(ledger) as (first, second):
        idle = {"Mcp-Session-Id": (await open_session(first)).headers["mcp-session-id"]}
        working = {"Mcp-Session-Id": (await open_session(first)).headers["mcp-session-id"]}
        call = request("tools/call", name="no_such_tool", arguments={})
        assert (await first.post("/mcp", json=call, headers=working)).status_code == 200
        clock.now += 61
        assert (await second.post("/mcp", json=INITIALIZE)).status_code == 200  # any request ends the idle ones
        assert (await first.post("/mcp", json=request("ping"), headers=idle)).status_code == 404
        assert (await first.post("/mcp", json=request("ping", 3), headers=working)).status_code == 200
        assert ledger.open_count(key_id(KEYS[0])) == 1


def test_the_ledger_forgets_sessions_the_sdk_ended_by_its_idle_timeout() -> None:
    clock = Clock()
    ledger = SessionLedger(5, 100.0, 10.0, clock=clock)
    ledger.opened("s1", "k")
    ledger.started("s1", calls_tool=True)
    clock.now += 500  # a request still in flight (an open GET stream) holds the session, as the SDK's does
    assert ledger.open_count("k") == 1 and ledger.unused_and_idle() == []
    ledger.ended("s1")
    clock.now += 99
    assert ledger.open_count("k") == 1
    clock.now += 1
    assert ledger.open_count("k") == 0
