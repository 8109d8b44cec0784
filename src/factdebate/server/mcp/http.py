"""``factdebate mcp --http``: the MCP tools over streamable HTTP, one server for many agents, behind the
service's API keys (``Authorization: Bearer <key>``, the keys of ``factdebate serve``: server/security.py) and its
per-key rate limit (``rate_limit_per_minute``, ``rate_burst``), which counts tool calls only: the handshake,
listings, pings and notifications cost nothing, so an agent reconnecting is never refused."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from factdebate.server.mcp.server import AgentServer
from factdebate.server.scrub_responses import ScrubResponses
from factdebate.server.security import CALLER_STATE, KeyRing, RateLimiter

MCP_PATH = "/mcp"
_REFUSED = json.dumps({"error": "missing or wrong API key: send the header Authorization: Bearer <key> "
                                "(FACTDEBATE_API_KEYS or api_keys in --service-config)"}).encode()
# JSON-RPC's answer to a body that is not JSON it can read, in the SDK's words (its own parse error).
_PARSE_ERROR = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32700, "message": "Parse error: the JSON is nested too deeply (recursion limit exceeded)"}}).encode()
MAX_BODY = 8 * 1024 * 1024  # what the limit reads of a request to count its tool calls; a larger one is a 413


class KeyCheck:
    """ASGI: every HTTP request must carry one of the keys (none needed when the ring allows anonymous
    callers), and each key's tool calls (``tools/call``, one per message of a batch) are taken from its bucket of
    ``limiter``; the server's lifespan passes through untouched."""

    def __init__(self, app: Any, ring: KeyRing, limiter: RateLimiter | None = None) -> None:
        self.app = app
        self.ring = ring
        self.limiter = limiter

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers") or []).get(b"authorization")
            who = self.ring.identify(header.decode("latin-1") if header else None)
            if who is None:
                await _answer(send, 401, _REFUSED, [(b"www-authenticate", b"Bearer")])
                return
            # the key's id, for the guard's check_answer (its cache scope: server/mcp/guard_host.py)
            scope = {**scope, "state": {**(scope.get("state") or {}), CALLER_STATE: who}}
            if self.limiter is not None and self.limiter.rate > 0 and scope.get("method") == "POST":
                body = await _read(receive)
                if body is None:
                    await _answer(send, 413, json.dumps({"error": f"request body over {MAX_BODY} bytes"}).encode())
                    return
                calls = _tool_calls(body)
                if calls is None:
                    await _answer(send, 400, _PARSE_ERROR)
                    return
                wait = max((self.limiter.acquire(who) for _ in calls), default=0.0)
                if wait > 0:
                    message = (f"rate limit: this key may make {self.limiter.rate * 60:g} tool calls a minute; "
                               f"try again in {math.ceil(wait)} s")
                    refusal = {"jsonrpc": "2.0", "id": calls[0], "error": {"code": -32000, "message": message}}
                    await _answer(send, 429, json.dumps(refusal).encode(),
                                  [(b"retry-after", str(math.ceil(wait)).encode())])
                    return
                receive = _replay(body, receive)
        await self.app(scope, receive, send)


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
             host: str, limiter: RateLimiter | None = None) -> Any:
    """The ASGI app: the MCP endpoint at ``/mcp`` behind ``ring`` and ``limiter``, its tools prepared in the
    background."""
    server = AgentServer()
    server.prepare_in_background(config_file, allowed_mcp_tools)
    # On a loopback host the SDK also refuses other Host headers (DNS rebinding).
    # Every answer, its refusals included, passes the one scrub on its way out (server/scrub_responses.py).
    return ScrubResponses(KeyCheck(server.streamable_http_app(streamable_http_path=MCP_PATH, host=host), ring,
                                   limiter))


def run_http(config_file: str | Path | None, allowed_mcp_tools: list[str] | None, ring: KeyRing, *,
             host: str, port: int, limiter: RateLimiter | None = None) -> None:
    import uvicorn

    uvicorn.run(http_app(config_file, allowed_mcp_tools, ring, host, limiter), host=host, port=port,
                log_level="warning",
                proxy_headers=False, server_header=False)
