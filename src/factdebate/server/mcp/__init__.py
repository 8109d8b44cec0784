"""The MCP server (``factdebate mcp``): the SDK's server, its tools and the guard it hosts."""
