"""Tests of the MCP server (src/factdebate/server/mcp/). The toy MCP servers the tests start by path
(``*_mcp_server.py``) live here, not one folder up: run as scripts from tests/server/, this package would
shadow the ``mcp`` SDK they import."""
