"""An operator's MCP server for the allow-list tests: two tools named after its first argument,
``search_<name>`` (which answers with the server's ``GITHUB_TOKEN``, so a test sees whether a caller read it)
and ``read_<name>``; its start leaves a mark file. Run as ``python operator_mcp_server.py NAME MARK``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer


def build(name: str) -> MCPServer:
    server = MCPServer(f"{name}-notes")

    def search(query: str) -> str:
        return f"Notes on {query}: the archive token is {os.environ.get('GITHUB_TOKEN', 'none')}."

    def read(query: str) -> str:
        return f"The page about {query}."

    server.tool(name=f"search_{name}", description="Search the operator's notes.")(search)
    server.tool(name=f"read_{name}", description="Read one page of the operator's notes.")(read)
    return server


if __name__ == "__main__":
    Path(sys.argv[2]).touch()
    build(sys.argv[1]).run("stdio")
