"""What ``factdebate mcp`` answers before the MCP SDK is loaded (server/mcp_front.py) is the SDK's own answer: the
handshake (the same negotiated version, capabilities, server info and instructions, for every version a client
may ask for) and the tool list (server/mcp_catalog.json); anything the front does not answer is left to the SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from factdebate.server import mcp_catalog, mcp_catalog_write, mcp_front
from factdebate.server.mcp_catalog_write import sdk_answers

CLIENT = {"name": "agent", "version": "1.0"}


def _line(request_id: Any = 7, **params: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
               "params": {"capabilities": {}, "clientInfo": CLIENT, **params}}
    return json.dumps(message).encode() + b"\n"


async def _sdk_answers(lines: list[bytes]) -> list[dict[str, Any]]:
    """The SDK server's answers (as it is before its tools are registered), each line on a connection of its own."""
    return [(await sdk_answers([json.loads(line)], tools=False))[0] for line in lines]


def test_the_front_knows_the_sdks_versions() -> None:
    front = (mcp_front.HANDSHAKE_VERSIONS, mcp_front.LATEST_HANDSHAKE_VERSION)
    assert front == (tuple(HANDSHAKE_PROTOCOL_VERSIONS), LATEST_HANDSHAKE_VERSION)


async def test_the_early_answer_is_the_sdks_for_every_version() -> None:
    asked = [*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "1999-01-01"]
    lines = [_line(protocolVersion=version) for version in asked]
    lines.append(_line("req-1", protocolVersion="2025-06-18", _meta={"progressToken": 1},
                       capabilities={"roots": {"listChanged": True}, "sampling": {}, "experimental": {}},
                       clientInfo={**CLIENT, "title": "An agent"}))
    sdk = await _sdk_answers(lines)
    early = [mcp_front.early_answer(line) for line in lines]
    assert early == sdk
    assert [a["result"]["protocolVersion"] for a in sdk[:len(asked)]] == [
        *HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, LATEST_HANDSHAKE_VERSION]
    assert sdk[0]["result"]["serverInfo"]["version"] and sdk[0]["result"]["instructions"]


@pytest.mark.parametrize("line", [
    b"not json\n",
    b"[1, 2]\n",
    b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n',
    _line(True, protocolVersion="2025-06-18"),  # a boolean is no request id
    _line(protocolVersion=20250618),
    _line(protocolVersion="2025-06-18", clientInfo={"name": "agent"}),
    _line(protocolVersion="2025-06-18", capabilities={"roots": True}),
    _line(protocolVersion="2025-06-18", clientInfo={**CLIENT, "icons": "x"}),
    _line(protocolVersion="2025-06-18", _meta="x"),
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}\n',
], ids=["not-json", "batch", "notification", "other-method", "bool-id", "version-not-text", "no-client-version",
        "capability-not-object", "client-icons", "meta-not-object", "no-params"])
def test_anything_else_is_left_to_the_sdk(line: bytes) -> None:
    assert mcp_front.early_answer(line) is None


async def test_the_kept_tool_list_is_the_sdks_for_every_version() -> None:
    kept = mcp_catalog.stored()
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        assert await mcp_catalog_write.sdk_catalog(version) == kept, (
            f"the SDK lists other tools at {version}: run python -m factdebate.server.mcp_catalog_write")


@pytest.mark.parametrize(("line", "listed"), [
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}', 3),
    (b'{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"_meta": {"progressToken": 1}}}', "a"),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "x"}}', None),  # a later page
    (b'{"jsonrpc": "2.0", "method": "tools/list"}', None),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "verify_claim"}}', None),
])
def test_only_a_plain_tool_listing_is_answered_early(line: bytes, listed: int | str | None) -> None:
    assert mcp_front._tools_list(line) == listed
