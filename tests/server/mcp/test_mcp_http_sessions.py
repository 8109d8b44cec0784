"""``factdebate mcp --http``'s sessions belong to the key that opened them: another key gets the SDK's 404 on
them (to use or to end), one key holds a bounded number open while other keys still connect, and a session
that never called a tool ends after its short idle time. Against the SDK's real session manager, in process,
and the whole app over loopback HTTP: no 404 but the SDK's own "Session not found" frees a key's room."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.server.mcp.http import MAX_SESSIONS, SESSION_DEFAULTS, KeyCheck, http_app
from factdebate.server.mcp.sessions import SessionLedger
from factdebate.server.security import KeyRing, key_id
from tests.server.conftest import LiveServer

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

KEYS = ["first-key-0123456789abcdef", "second-key-0123456789abcdef"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
# the tools answer offline: the scripted model, no retrieval agents, the caller's passages as the evidence
OFFLINE = {"FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_LLM__CACHE": "false", "FACTDEBATE_SEARCH": "local",
           "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[none, none]", "FACTDEBATE_METHODS__TOOL_MAD__SCORING": "false"}


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
    clients = [httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8001",
                                 headers={**HEADERS, "Authorization": f"Bearer {key}"}) for key in KEYS]
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


async def test_the_sdks_own_session_not_found_frees_the_room_its_key_held() -> None:
    """A session the SDK no longer holds (ended on its side: here one it never opened) leaves the key's count on
    the SDK's "Session not found"."""
    ledger = SessionLedger(1, 1800.0, 60.0)
    async with served(ledger) as (first, _):
        ledger.opened("0" * 32, key_id(KEYS[0]))
        assert (await open_session(first)).status_code == 429
        gone = await first.post("/mcp", json=request("ping"), headers={"Mcp-Session-Id": "0" * 32})
        assert gone.status_code == 404 and gone.json()["error"]["message"] == "Session not found"
        assert ledger.open_count(key_id(KEYS[0])) == 0
        assert (await open_session(first)).status_code == 200


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LiveServer, SessionLedger]]:
    """``factdebate mcp --http``'s app on loopback, each key bound to 3 sessions."""
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path / "data"))
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    ledger = SessionLedger(3, 1800.0, 60.0)
    server = LiveServer(http_app(None, None, KeyRing(KEYS), "127.0.0.1", ledger=ledger)).__enter__()
    try:
        yield server, ledger
    finally:
        server.__exit__()


def _keyed(key: str) -> dict[str, str]:
    return {**HEADERS, "Authorization": f"Bearer {key}"}


# The envelope of MCP's stateless era, which the SDK serves on the same path: a method it does not know is its 404.
MODERN = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "no_such_method"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}


async def _lose(client: httpx.AsyncClient, url: str, way: str, session: str) -> httpx.Response:
    """A request on ``session`` meant to make the key's count forget it while the SDK keeps it."""
    if way == "unknown path":  # Starlette's router answers 404
        return await client.post(url.replace("/mcp", "/nope"), json=request("ping"),
                                 headers={"Mcp-Session-Id": session})
    if way == "two session ids":  # the SDK reads the first (not found: 404), a dict of the headers the last
        return await client.post(url, json=request("ping"), headers=[
            ("Mcp-Session-Id", "0" * 32), ("Mcp-Session-Id", session)])
    return await client.post(url, json=request("no_such_method", _meta=ENVELOPE),
                             headers={"Mcp-Session-Id": session, **MODERN})


@pytest.mark.parametrize("way", ["unknown path", "two session ids", "unknown method"])
async def test_a_404_that_is_not_the_sdks_leaves_the_key_at_its_bound(
        live: tuple[LiveServer, SessionLedger], way: str) -> None:
    """One key opens sessions and follows each with a request on its own id that something other than the
    SDK's session table answers 404, or that carries two ids: each session stays counted (the SDK keeps it),
    so the key is refused at its bound, and another key still connects and calls a tool."""
    import httpx2
    import mcp
    from mcp.client.streamable_http import streamable_http_client

    server, ledger = live
    url = f"{server.url}/mcp"
    async with httpx.AsyncClient(headers=_keyed(KEYS[0]), timeout=60) as first:
        ids = []
        for _ in range(ledger.per_key):
            opened = await first.post(url, json=INITIALIZE)
            assert opened.status_code == 200, opened.text
            ids.append(opened.headers["mcp-session-id"])
            lost = await _lose(first, url, way, ids[-1])
            if way == "two session ids":
                assert lost.status_code == 400
                assert lost.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": (
                    "the request carries 2 Mcp-Session-Id headers: send exactly one, the id the handshake's "
                    "answer gave")}}
            else:
                assert lost.status_code == 404, lost.text
        refused = await first.post(url, json=INITIALIZE)
        assert refused.status_code == 429, refused.text
        assert f"this key holds {ledger.per_key} open MCP sessions" in refused.json()["error"]["message"]
        for ident, session in enumerate(ids):  # the SDK kept every one, as the count says
            kept = await first.post(url, json=request("ping", ident), headers={"Mcp-Session-Id": session})
            assert kept.status_code == 200, kept.text
    second = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEYS[1]}"}, timeout=httpx2.Timeout(120))
    async with second, streamable_http_client(url, http_client=second) as (read, write), \
            mcp.ClientSession(read, write) as agent:
        await agent.initialize()
        result = await agent.call_tool("check_answer", {
            "answer": "The Eiffel Tower is in Paris.", "evidence_mode": "given", "tier": "fast", "deadline_s": 60,
            "evidence": [{"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris."}]})
    assert not result.is_error, result.content
    assert result.structured_content["claims"][0]["label"] == "SUPPORTS"
