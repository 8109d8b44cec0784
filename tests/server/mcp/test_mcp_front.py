"""What ``factdebate mcp`` answers before the MCP SDK is loaded (server/mcp/front.py) is the SDK's own answer: the
handshake (the same negotiated version, capabilities, server info and instructions, for every version a client
may ask for) and the tool list (server/mcp/catalog.json); anything the front does not answer is left to the SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

from factdebate.server.mcp import catalog as mcp_catalog
from factdebate.server.mcp import catalog_write as mcp_catalog_write
from factdebate.server.mcp import front as mcp_front
from factdebate.server.mcp import front_answers as answers
from factdebate.server.mcp.catalog_write import sdk_answers

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
    assert tuple(MODERN_PROTOCOL_VERSIONS) == answers.MODERN_VERSIONS


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


# Just outside the shapes the front answers: some the SDK refuses (the front answered them as a success before,
# issue 56), some it accepts; the front leaves all of them to the SDK, which answers in its own words.
OUTSIDE = {
    "sampling-tools-not-object": (_line(protocolVersion="2025-06-18", capabilities={"sampling": {"tools": 5}}), False),
    "progress-token-list": (_line(protocolVersion="2025-06-18", _meta={"progressToken": [1]}), False),
    "experimental-not-object": (_line(protocolVersion="2025-06-18", capabilities={"experimental": {"a": 1}}), False),
    "title-not-text": (_line(protocolVersion="2025-06-18", clientInfo={**CLIENT, "title": 5}), False),
    "website-url": (_line(protocolVersion="2025-06-18", clientInfo={**CLIENT, "websiteUrl": "x"}), True),
    "unknown-capability": (_line(protocolVersion="2025-06-18", capabilities={"tasks": {}}), True),
}


@pytest.mark.parametrize("case", OUTSIDE)
async def test_what_the_sdk_might_refuse_is_left_to_it(case: str) -> None:
    line, accepted = OUTSIDE[case]
    assert mcp_front.early_answer(line) is None
    (sdk,) = await _sdk_answers([line])
    assert ("result" in sdk) is accepted, sdk


def _modern(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    """A request in the 2026 envelope, as the SDK's default ``mcp.client.Client`` sends it."""
    envelope = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
                "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"_meta": envelope, **params}}


async def test_discover_and_a_2026_tool_list_are_answered_as_the_sdk_answers_them() -> None:
    discover, listing = _modern(1, "server/discover"), _modern(2, "tools/list")
    catalog = mcp_catalog.stored()
    assert catalog is not None
    early = [answers.discover_answer(discover), answers.modern_tools_list(listing, catalog)]
    assert early == await sdk_answers([discover, listing])
    for outside in (_modern(1, "server/discover", extra=1), {**_modern(1, "server/discover"), "id": True}):
        assert answers.discover_answer(outside) is None
    old = _modern(1, "server/discover")
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2025-06-18"
    assert answers.discover_answer(old) is None  # the SDK refuses it (-32022): left to it


@pytest.mark.parametrize("method", sorted(answers.BEFORE_HANDSHAKE))
async def test_a_request_before_the_handshake_is_refused_at_once_with_the_sdks_code(method: str) -> None:
    request = {"jsonrpc": "2.0", "id": 4, "method": method, "params": {"name": "check_answer", "arguments": {}}
               if method == "tools/call" else {}}
    refusal = answers.refusal_before_handshake(request)
    assert refusal is not None and "send initialize first" in refusal["error"]["message"]
    (sdk,) = await sdk_answers([request])
    assert sdk["error"]["code"] == refusal["error"]["code"] and sdk["id"] == refusal["id"]
    assert answers.refusal_before_handshake({"jsonrpc": "2.0", "id": 4, "method": "ping"}) is None  # allowed
    assert answers.refusal_before_handshake(_modern(4, method)) is None  # the 2026 envelope needs no handshake


@pytest.mark.parametrize(("line", "listed"), [
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}', 3),
    (b'{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"_meta": {"progressToken": 1}}}', "a"),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "x"}}', None),  # a later page
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {"progressToken": [1]}}}', None),
    (b'{"jsonrpc": "2.0", "method": "tools/list"}', None),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "verify_claim"}}', None),
])
def test_only_a_plain_tool_listing_is_answered_early(line: bytes, listed: int | str | None) -> None:
    message = answers.message_of(line)
    assert message is not None
    answer = answers.tools_list(message, {"tools": []})
    assert (answer and answer["id"]) == listed


async def test_the_kept_tool_list_is_the_sdks_for_every_version() -> None:
    kept = mcp_catalog.stored()
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        assert await mcp_catalog_write.sdk_catalog(version) == kept, (
            f"the SDK lists other tools at {version}: run python -m factdebate.server.mcp.catalog_write")


