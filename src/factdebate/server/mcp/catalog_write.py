"""Writes server/mcp/catalog.json from what the MCP SDK itself answers to ``tools/list``, and lets the tests ask
the SDK what it answers (tests/server/mcp/test_mcp_front.py). Apart from server/mcp/catalog.py, which the front reads
before the SDK loads: this module loads the server. Run as ``python -m factdebate.server.mcp.catalog_write``."""

from __future__ import annotations

import json
from typing import Any

from factdebate.server.mcp.catalog import CATALOG_FILE


async def sdk_answers(messages: list[dict[str, Any]], *, tools: bool = True) -> list[dict[str, Any]]:
    """The server's answers to ``messages`` (JSON-RPC, one connection, read as its stdio transport reads them),
    one per request; ``tools``: with the tools registered (else the server as it is before they are)."""
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage

    from factdebate.server.mcp.server import AgentServer, build_server

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

    from factdebate.server.mcp.front import LATEST_HANDSHAKE_VERSION

    catalog = anyio.run(sdk_catalog, LATEST_HANDSHAKE_VERSION)
    CATALOG_FILE.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {CATALOG_FILE} ({len(catalog['tools'])} tools)")


if __name__ == "__main__":
    main()
