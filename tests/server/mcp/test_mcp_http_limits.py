"""``factdebate mcp --http``: each key's tool calls are rate-limited as the service's requests are
(``rate_limit_per_minute``, ``rate_burst``); the handshake, listings and pings are not counted."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from factdebate.server.mcp.http import KeyCheck
from factdebate.server.security import KeyRing, RateLimiter

KEYS = ["first-key-0123456789abcdef", "second-key-0123456789abcdef"]


async def _inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An MCP endpoint stand-in that echoes the body it got (so a test sees the body reached it whole)."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def _call(tool: str, ident: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": tool, "arguments": {}}}


async def test_tool_calls_are_limited_per_key_and_nothing_else_is() -> None:
    app = KeyCheck(_inner, KeyRing(KEYS), RateLimiter(per_minute=1, burst=2))
    transport = httpx.ASGITransport(app=app)
    first = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers={
        "Authorization": f"Bearer {KEYS[0]}"})
    second = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers={
        "Authorization": f"Bearer {KEYS[1]}"})
    async with first, second:
        for method in ("initialize", "tools/list", "ping", "notifications/initialized"):
            for _ in range(3):
                reply = await first.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": method})
                assert reply.status_code == 200
        allowed = [await first.post("/mcp", json=_call("check_answer", i)) for i in range(2)]
        assert [r.status_code for r in allowed] == [200, 200]
        assert allowed[0].json() == _call("check_answer", 0)  # the body reached the server whole
        refused = await first.post("/mcp", json=_call("verify_claim", 3))
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"]["message"].startswith("rate limit")
        assert refused.json()["id"] == 3  # a JSON-RPC error the MCP client reads
        batch = await first.post("/mcp", json=[_call("check_answer", 4)])
        assert batch.status_code == 429
        assert (await first.post("/mcp", json={"jsonrpc": "2.0", "id": 5, "method": "ping"})).status_code == 200
        assert (await second.post("/mcp", json=_call("check_answer"))).status_code == 200  # a key of its own


async def test_without_a_limit_every_call_goes_through() -> None:
    app = KeyCheck(_inner, KeyRing(KEYS), RateLimiter(per_minute=0))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1",
                                 headers={"Authorization": f"Bearer {KEYS[0]}"}) as client:
        codes = {(await client.post("/mcp", content=json.dumps(_call("check_answer")))).status_code
                 for _ in range(5)}
    assert codes == {200}


@pytest.mark.parametrize("limited", [True, False], ids=["rate-limited", "unlimited"])
async def test_json_nested_at_any_depth_is_a_parse_error_in_400(limited: bool) -> None:
    """Before, 100,000 nested brackets reached Python's parser in the rate limit's count and came back a 500
    (``RecursionError``); at every depth the answer is now JSON-RPC's parse error, as the SDK's own parser says."""
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from factdebate.server.mcp.server import AgentServer

    server = AgentServer()
    sdk_app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    app = KeyCheck(sdk_app, KeyRing(KEYS), RateLimiter(per_minute=60, burst=5) if limited else None)
    headers = {"Authorization": f"Bearer {KEYS[0]}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    async with server.session_manager.run(), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8001", headers=headers) as client:
        for depth in (300, 1_000, 100_000):
            reply = await client.post("/mcp", content="[" * depth + "]" * depth)
            assert reply.status_code == 400, (depth, reply.text)
            assert reply.json()["error"]["code"] == -32700 and reply.json()["id"] is None
