"""What the MCP server takes from the SDK beyond its tool decorator, checked against the installed SDK: the
server's ``middleware`` argument (provisional within 2.x, hence the pin in pyproject.toml), the request
context's fields, the session's ``client_params``, and the wire form of the handshake's answer. A test here
that fails names the hook to move to on an upgrade."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

import mcp
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.session import ServerSession

from factdebate.server.mcp.server import AgentServer


def test_the_sdk_still_offers_the_hooks_the_server_uses() -> None:
    assert "middleware" in inspect.signature(MCPServer.__init__).parameters
    fields = {f.name for f in dataclasses.fields(ServerRequestContext)}
    assert {"method", "params", "request_id", "session"} <= fields
    assert isinstance(inspect.getattr_static(ServerSession, "client_params"), property)
    assert isinstance(inspect.getattr_static(MCPServer, "middleware"), property)
    assert any(type(m).__name__ == "_InWords" for m in AgentServer().middleware)  # passed in, not appended


async def test_the_handshake_offers_tools_only_and_refuses_the_rest() -> None:
    async with mcp.Client(AgentServer()) as client:
        capabilities = client.server_capabilities.model_dump(exclude_none=True)
        assert "tools" in capabilities and not {"prompts", "resources"} & set(capabilities)
        with pytest.raises(mcp.MCPError) as refused:
            await client.list_prompts()
        assert refused.value.error.code == -32601  # the method is not found, as on a server without the hook
