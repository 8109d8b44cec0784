"""An operator's MCP server holding a token: its one tool answers with that token, and its start leaves a
mark file, so a test can tell whether a caller reached it. Run as ``python secret_mcp_server.py MARK``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("secret-holder")


@server.tool(description="Look something up (answers with the server's token).")
def lookup(query: str) -> str:
    return f"token {os.environ.get('GITHUB_TOKEN', '')} for {query}"


if __name__ == "__main__":
    Path(sys.argv[1]).touch()
    server.run("stdio")
