"""``factdebate mcp --http``: the MCP tools over streamable HTTP, one server for many agents, behind the
service's API keys (``Authorization: Bearer <key>``, the keys of ``factdebate serve``: server/security.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factdebate.server.mcp_server import AgentServer
from factdebate.server.security import KeyRing

MCP_PATH = "/mcp"
_REFUSED = json.dumps({"error": "missing or wrong API key: send the header Authorization: Bearer <key> "
                                "(FACTDEBATE_API_KEYS or api_keys in --service-config)"}).encode()


class KeyCheck:
    """ASGI: every HTTP request must carry one of the keys (none needed when the ring allows anonymous
    callers); the server's lifespan passes through untouched."""

    def __init__(self, app: Any, ring: KeyRing) -> None:
        self.app = app
        self.ring = ring

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers") or []).get(b"authorization")
            if self.ring.identify(header.decode("latin-1") if header else None) is None:
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                        (b"content-length", str(len(_REFUSED)).encode())]})
                await send({"type": "http.response.body", "body": _REFUSED})
                return
        await self.app(scope, receive, send)


def http_app(config_file: str | Path | None, allowed_mcp_tools: list[str] | None, ring: KeyRing,
             host: str) -> Any:
    """The ASGI app: the MCP endpoint at ``/mcp`` behind ``ring``, its tools prepared in the background."""
    server = AgentServer()
    server.prepare_in_background(config_file, allowed_mcp_tools)
    # On a loopback host the SDK also refuses other Host headers (DNS rebinding).
    return KeyCheck(server.streamable_http_app(streamable_http_path=MCP_PATH, host=host), ring)


def run_http(config_file: str | Path | None, allowed_mcp_tools: list[str] | None, ring: KeyRing, *,
             host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(http_app(config_file, allowed_mcp_tools, ring, host), host=host, port=port, log_level="warning",
                proxy_headers=False, server_header=False)
