"""Which MCP tools a caller of the service may name: only those on the operator's allow-list.

An ``mcp:<server>/<tool>`` agent runs a tool server the operator configured, with whatever that server holds
(its environment, its tokens, its reach). A caller who could name any of them could read those through the
tool's answers, and would make the service start servers for them. So every option value a caller sends is
looked at for tool names (``agents``, ``madke_tools``, FacTool's and WeCheck's tools, and any
option added later), and each must be on ``allowed_mcp_tools`` (empty by default: no MCP tool at all). The
refusal never names a server the caller may not use. Every face asks the same question through
``SettingsResolver.check_tools`` (server/options.py): the HTTP routes and batches when their options are
resolved, ``factdebate mcp``'s tools (``search_evidence``'s ``tool`` too), the guard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from factdebate.core.errors import ConfigError

ANY_TOOL = "*"
_ENTRY = re.compile(r"^mcp:[A-Za-z0-9_.-]+/([A-Za-z0-9_.-]+|\*)$")


def check_allow_entry(entry: str) -> str:
    """One allow-list entry: ``mcp:<server>/<tool>``, or ``mcp:<server>/*`` for every tool of that server."""
    if not _ENTRY.match(entry):
        raise ValueError(f"allowed_mcp_tools entry '{entry}' must look like mcp:<server>/<tool> or mcp:<server>/*")
    return entry


def named_mcp_tools(value: Any) -> Iterator[str]:
    """Every text in an option value (lists and mappings searched through) that names an MCP tool."""
    if isinstance(value, str):
        if value.strip().lower().startswith("mcp:"):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from named_mcp_tools(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from named_mcp_tools(item)


def allowed(tool: str, allow_list: list[str]) -> bool:
    server = tool.partition("/")[0]
    return tool in allow_list or f"{server}/{ANY_TOOL}" in allow_list


def check_caller_tools(chosen: dict[str, Any], allow_list: list[str]) -> None:
    """Refuse a request whose options name an MCP tool off the allow-list (before any server starts)."""
    refused = sorted({tool for value in chosen.values() for tool in named_mcp_tools(value)
                      if not allowed(tool, allow_list)})
    if not refused:
        return
    offered = ", ".join(allow_list) if allow_list else "none"
    raise ConfigError(f"MCP tool(s) {', '.join(refused)} are not offered to callers of this service "
                      f"(offered: {offered})")
