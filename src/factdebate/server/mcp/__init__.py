"""The MCP server (``factdebate mcp``): its fast front, its tools, their catalogue and the guard it hosts."""
