"""The tools ``factdebate mcp`` lists, as the MCP SDK lists them (the result of ``tools/list``), kept in
mcp_catalog.json so that server/mcp/front.py can answer ``tools/list`` before the SDK and the tools are loaded:
OpenClaw gives a server's tool listing 1.5 s after the handshake unless configured otherwise. The list is the
same for every protocol version and every configuration (the tools, their descriptions and their argument types
are fixed in the code); tests/server/mcp/test_mcp_front.py fails when the SDK lists anything else. Written by
``python -m factdebate.server.mcp.catalog_write`` (a module of its own: it loads the server,
which loads the front, which reads this one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CATALOG_FILE = Path(__file__).with_name("catalog.json")


def stored() -> dict[str, Any] | None:
    """The kept list, or None when it cannot be read (the SDK then answers ``tools/list`` itself)."""
    try:
        catalog = json.loads(CATALOG_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return catalog if isinstance(catalog, dict) and isinstance(catalog.get("tools"), list) else None
