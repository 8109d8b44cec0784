"""MCP tool servers that factdebate ships for agentic methods (MERMAID): wikipedia, search and scholar.

Each runs over stdio with ``factdebate mcp-tools NAME``; a method starts them as subprocesses and talks to
them with the official MCP client, so any other MCP server can stand in for one of them."""
