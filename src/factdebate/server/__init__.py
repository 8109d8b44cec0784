"""The HTTP service (``factdebate serve``), its web page and the MCP server (``factdebate mcp``).

Importing this package loads nothing heavy; FastAPI is imported by :mod:`factdebate.server.app`."""
