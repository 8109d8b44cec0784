"""The tools ``factdebate mcp`` lists, as the MCP SDK lists them (the result of ``tools/list``), kept in
mcp_catalog.json so that server/mcp_front.py can answer ``tools/list`` before the SDK and the tools are loaded:
OpenClaw gives a server's tool listing 1.5 s after the handshake unless configured otherwise. The list is the
same for every protocol version and every configuration (the tools, their descriptions and their argument types
are fixed in the code); tests/server/test_mcp_front.py fails when the SDK lists anything else. Written by
``python -m factdebate.server.mcp_catalog``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CATALOG_FILE = Path(__file__).with_name("mcp_catalog.json")


def stored() -> dict[str, Any] | None:
    """The kept list, or None when it cannot be read (the SDK then answers ``tools/list`` itself)."""
    try:
        catalog = json.loads(CATALOG_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return catalog if isinstance(catalog, dict) and isinstance(catalog.get("tools"), list) else None


async def sdk_answers(messages: list[dict[str, Any]], *, tools: bool = True) -> list[dict[str, Any]]:
    """The server's answers to ``messages`` (JSON-RPC, one connection, read as its stdio transport reads them),
    one per request; ``tools``: with the tools registered (else the server as it is before they are)."""
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage

    from factdebate.server.mcp_server import AgentServer, build_server

    lowlevel = (build_server() if tools else AgentServer())._lowlevel_server
    requests = sum("id" in message for message in messages)
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](len(messages))
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](requests)
    answers = []
    async with anyio.create_task_group() as group:
        group.start_soon(lowlevel.run, server_reads, server_writes, lowlevel.create_initialization_options())
        for message in messages:
            line = json.dumps(message)
            await to_server.send(SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line)))
        with anyio.fail_after(60):
            for _ in range(requests):
                answer = await from_server.receive()
                answers.append(answer.message.model_dump(by_alias=True, mode="json", exclude_unset=True))
        group.cancel_scope.cancel()
    return answers


async def sdk_catalog(protocol_version: str) -> dict[str, Any]:
    """What the SDK answers to ``tools/list`` on a connection that asked for ``protocol_version``."""
    opened = {"protocolVersion": protocol_version, "capabilities": {},
              "clientInfo": {"name": "catalog", "version": "1"}}
    answers = await sdk_answers([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opened},
                                 {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}])
    return dict(answers[1]["result"])


def main() -> None:
    import anyio

    from factdebate.server.mcp_front import LATEST_HANDSHAKE_VERSION

    catalog = anyio.run(sdk_catalog, LATEST_HANDSHAKE_VERSION)
    CATALOG_FILE.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {CATALOG_FILE} ({len(catalog['tools'])} tools)")


if __name__ == "__main__":
    main()
