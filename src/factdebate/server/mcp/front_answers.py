"""What server/mcp/front.py answers before the MCP SDK is loaded, each answer the SDK's own: the handshake of
either era (``initialize``; the 2026 protocol's ``server/discover``, which the SDK's default client opens with)
and the refusal of a request sent before the handshake, said at once and in words a person can act on.

Only what the SDK accepts is answered, and only in the plain shapes clients send (checked by hand: the SDK's
own types, ``mcp_types``, take 0.4-0.9 CPU-seconds to load, several times what runs before these answers);
anything else is left to the SDK, which answers it, or refuses it in its own words. tests/server/
test_mcp_front.py compares every answer here with the SDK's, and sends the SDK what lies just outside them."""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from factdebate.core.version import __version__

SERVER_NAME = "factdebate"
INSTRUCTIONS = ("Check factual claims. check_answer checks your own reply before you send it, within a deadline: "
                "per claim its label, its span in the reply, the evidence quotes and a correction for what is "
                "refuted. verify_claim runs a debate between retrieval agents and returns a label (SUPPORTS, "
                "REFUTES or NOT ENOUGH INFO) with the evidence and reasoning; search_evidence returns passages "
                "for a query without judging anything; check_response checks a long answer claim by claim with "
                "the full method. The checks take the passages you already have as evidence "
                "([{title, text, url}]), read before (evidence_mode both) or instead of (given) retrieval.")
# The SDK's (mcp_types.version: HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS)
# and what our server advertises (tools only); tests/server/mcp/test_mcp_front.py fails when the SDK says otherwise.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = "2025-11-25"
MODERN_VERSIONS = ("2026-07-28",)
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"  # the 2026 envelope's mark in ``_meta``
# The requests the server refuses before the handshake (those it has handlers for; ``ping`` is allowed), with
# the SDK's code (INVALID_PARAMS) and a sentence in place of its "Invalid request parameters".
BEFORE_HANDSHAKE = frozenset({"tools/list", "tools/call"})
INVALID_PARAMS = -32602
NOT_INITIALIZED = ("the connection is not initialized: send initialize first (MCP's handshake, answered at once), "
                   "then notifications/initialized, then your requests")


def initialize_result(protocol_version: str) -> dict[str, Any]:
    """What the SDK answers to ``initialize`` asking for ``protocol_version``: that version when it speaks it,
    else its latest."""
    negotiated = protocol_version if protocol_version in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
    return {"protocolVersion": negotiated, "capabilities": CAPABILITIES,
            "serverInfo": {"name": SERVER_NAME, "version": __version__}, "instructions": INSTRUCTIONS}


# What the SDK adds to every 2026 result (its caching hints, that the result is whole, who answers).
_MODERN_RESULT: dict[str, Any] = {
    "cacheScope": "private", "resultType": "complete", "ttlMs": 0,
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": SERVER_NAME, "version": __version__}}}
# At 2026 versions the SDK advertises a tool list that may change (it serves list-change subscriptions).
MODERN_CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": True}}


def discover_result() -> dict[str, Any]:
    """What the SDK answers to ``server/discover`` at a version it serves."""
    return {"supportedVersions": list(MODERN_VERSIONS), "capabilities": MODERN_CAPABILITIES,
            "instructions": INSTRUCTIONS, **_MODERN_RESULT}


def is_object(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def message_of(line: bytes) -> dict[str, Any] | None:
    """``line`` as a JSON-RPC 2.0 message (an object with ``jsonrpc: "2.0"``), else None."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if is_object(message) and message.get("jsonrpc") == "2.0" else None


def request_id(message: dict[str, Any]) -> int | str | None:
    """The id of a request (a number that is no boolean, or text), else None (a notification, a bad id)."""
    value = message.get("id")
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def modern(message: dict[str, Any]) -> bool:
    """Whether the request carries the 2026 protocol's per-request envelope (the SDK then serves it as such)."""
    params = message.get("params")
    return is_object(params) and is_object(meta := params.get("_meta")) and PROTOCOL_VERSION_KEY in meta


# The shapes answered here: a strict part of what the SDK's types accept (tests/server/mcp/test_mcp_front.py sends
# each shape, and shapes just outside it, to the SDK). Anything else, however valid, is left to the SDK, which
# accepts it or refuses it in its own words: only an answer the SDK would give is ever given here.
_EMPTY_OR_OBJECTS = {"sampling": {"context", "tools"}, "elicitation": {"form", "url"}}
_CLIENT_INFO_TEXT = frozenset({"name", "version", "title", "description"})
_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


def _plain_capabilities(capabilities: Any) -> bool:
    """Client capabilities of the plain shapes: ``roots`` with a boolean ``listChanged``, ``sampling`` and
    ``elicitation`` with their sub-capabilities as objects, ``experimental`` as objects."""
    if not is_object(capabilities):
        return False
    for key, value in capabilities.items():
        if not is_object(value):
            return False
        if key == "roots":
            plain = set(value) <= {"listChanged"} and all(isinstance(v, bool) for v in value.values())
        elif key in _EMPTY_OR_OBJECTS:
            plain = set(value) <= _EMPTY_OR_OBJECTS[key] and all(is_object(v) for v in value.values())
        else:
            plain = key == "experimental" and all(is_object(v) for v in value.values())
        if not plain:
            return False
    return True


def _plain_client(client: Any) -> bool:
    return is_object(client) and {"name", "version"} <= client.keys() <= _CLIENT_INFO_TEXT \
        and all(isinstance(value, str) for value in client.values())


def _plain_request(message: dict[str, Any], params_keys: frozenset[str]) -> bool:
    params = message.get("params")
    return set(message) <= _REQUEST_KEYS and request_id(message) is not None and is_object(params) \
        and set(params) <= params_keys


def initialize_answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to an ``initialize`` of the plain shapes, else None (the SDK answers it, or refuses it in its
    own words)."""
    if message.get("method") != "initialize" \
            or not _plain_request(message, frozenset({"protocolVersion", "capabilities", "clientInfo", "_meta"})):
        return None
    params = message["params"]
    meta = params.get("_meta", {})
    token = meta.get("progressToken", "") if is_object(meta) else None
    if not (isinstance(params.get("protocolVersion"), str) and _plain_capabilities(params.get("capabilities"))
            and _plain_client(params.get("clientInfo")) and is_object(meta) and set(meta) <= {"progressToken"}
            and isinstance(token, int | str) and not isinstance(token, bool)):
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(params["protocolVersion"])}


def plain_envelope(message: dict[str, Any]) -> bool:
    """Whether ``message`` is a request in the 2026 envelope of the plain shapes at a version the SDK serves."""
    params = message.get("params")
    meta = params.get("_meta") if is_object(params) else None
    return is_object(meta) and set(meta) == {PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY} \
        and meta[PROTOCOL_VERSION_KEY] in MODERN_VERSIONS and _plain_client(meta[CLIENT_INFO_KEY]) \
        and _plain_capabilities(meta[CLIENT_CAPABILITIES_KEY])


def discover_answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a ``server/discover`` of the plain shapes, else None."""
    if message.get("method") != "server/discover" or not _plain_request(message, frozenset({"_meta"})) \
            or not plain_envelope(message):
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": discover_result()}


def modern_tools_list(message: dict[str, Any], catalog: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a plain 2026 ``tools/list`` (no cursor) from the kept list, else None."""
    if message.get("method") != "tools/list" or not _plain_request(message, frozenset({"_meta"})) \
            or not plain_envelope(message):
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": {**catalog, **_MODERN_RESULT}}


def refusal_before_handshake(message: dict[str, Any]) -> dict[str, Any] | None:
    """The SDK's refusal of a request it serves only after the handshake (a handshake-era request: the 2026
    envelope needs none), said at once; None for anything else."""
    if message.get("method") not in BEFORE_HANDSHAKE or (request := request_id(message)) is None or modern(message):
        return None
    return {"jsonrpc": "2.0", "id": request, "error": {"code": INVALID_PARAMS, "message": NOT_INITIALIZED}}


def tools_list(message: dict[str, Any], catalog: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a plain handshake-era ``tools/list`` (no cursor) from the kept list, else None."""
    params = message.get("params", {})
    meta = params.get("_meta", {}) if is_object(params) else None
    token = meta.get("progressToken", "") if is_object(meta) else None
    if message.get("method") != "tools/list" or set(message) - _REQUEST_KEYS \
            or (ident := request_id(message)) is None or not is_object(params) or set(params) - {"_meta"} \
            or not is_object(meta) or set(meta) - {"progressToken"} \
            or not isinstance(token, int | str) or isinstance(token, bool):
        return None
    return {"jsonrpc": "2.0", "id": ident, "result": catalog}
