"""MCP tool servers that factdebate ships for agentic methods (MERMAID): wikipedia, search and scholar.

Each runs over stdio (``factdebate mcp-tools NAME``), so any MCP server can stand in for one."""
