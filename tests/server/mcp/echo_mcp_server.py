"""An operator's MCP server whose one tool fails quoting the credential in its environment and an internal
host, as a careless tool server's error does. Run as ``python echo_mcp_server.py MARK`` (the mark file says it
was started)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("echo-holder")


@server.tool(description="Look something up (fails, quoting its credential and host).")
def lookup(query: str) -> str:
    # A ToolError reaches the client as the tool's error text (anything else the SDK reports as a crash, unsaid)
    raise ToolError(f"wiki backend refused credential {os.environ.get('WIKI_ACCESS', '')} "
                       "at wiki-db.corp.internal:5433 (wiki-db:5433, 10.0.3.7:5433)")


if __name__ == "__main__":
    Path(sys.argv[1]).touch()
    server.run("stdio")
