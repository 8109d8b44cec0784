"""A small third-party-style MCP server for the client tests: a lookup, a failing tool and a slow one.
Run as ``python tests/tools/mcp_toy_server.py`` (stdio) or ``... http PORT`` (streamable HTTP)."""

from __future__ import annotations

import asyncio
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

FACTS = {"paris": "Paris is the capital of France.", "oslo": "Oslo is the capital of Norway."}

server = MCPServer("toy-encyclopedia")


@server.tool(description="Look up a short fact about a city.")
def lookup(query: str) -> str:
    hits = [fact for key, fact in FACTS.items() if key in query.lower()]
    return " ".join(hits) or "no entry"


@server.tool(description="Always fails.")
def broken(query: str) -> str:
    raise ToolError(f"the archive is closed (asked: {query})")


@server.tool(description="Answers after a delay.")
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "done"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
