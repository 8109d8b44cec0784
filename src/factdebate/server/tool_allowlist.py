"""Which MCP tools a caller of the service may name: only those on the operator's allow-list.

An ``mcp:<server>/<tool>`` agent runs a tool server the operator configured, with whatever that server holds
(its environment, its tokens, its reach). A caller who could name any of them could read those through the
tool's answers, and would make the service start servers for them. So every option value a caller sends is
looked at for tool names (``agents``, ``madke_tools``, FacTool's and WeCheck's tools, and any
option added later), and each must be on ``allowed_mcp_tools`` (empty by default: no MCP tool at all). The
refusal never names a server the caller may not use. Every face asks the same question through
``SettingsResolver.check_tools`` (server/options.py): the HTTP routes and batches when their options are
resolved, ``factdebate mcp``'s tools (``search_evidence``'s ``tool`` too), the guard.

A method may reach servers without naming a tool: MERMAID offers its executor every configured server. So
the same list also decides which servers a caller's run holds at all (:func:`with_callable_servers`): the
service's settings keep only the servers, and of each only the tools, that the allow-list (or the operator's
own configured options) names; the rest are gone before any method sees the settings, whatever face or
method the request came through. The CLI, the operator's own runs, keeps every configured server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from factdebate.engine import Settings
from factdebate.util.errors import ConfigError

ANY_TOOL = "*"
_ENTRY = re.compile(r"^mcp:[A-Za-z0-9_.-]+/([A-Za-z0-9_.-]+|\*)$")  # a tool, or every tool of a server
_TOOL = re.compile(r"^mcp:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")  # one tool, as an option names it


def check_allow_entry(entry: str) -> str:
    """One allow-list entry: ``mcp:<server>/<tool>``, or ``mcp:<server>/*`` for every tool of that server."""
    if not _ENTRY.fullmatch(entry):
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


def with_callable_servers(settings: Settings, allow_list: list[str]) -> Settings:
    """The operator's ``settings`` with only the configured servers a caller's run may reach, each narrowed to
    the tools it may call: those on ``allow_list`` (``mcp:<server>/*`` keeps the server as the operator wrote
    it) and those the operator's own options name (:func:`configured_tools`: a default agent
    ``mcp:<server>/<tool>`` runs for every caller anyway). A server with no such tool is left out, so it is
    never started."""
    configured = configured_tools(settings.model_dump(mode="json"))
    named: dict[str, set[str]] = {}
    for entry in [*allow_list, *configured]:
        server, _, tool = entry.removeprefix("mcp:").partition("/")
        if entry.startswith("mcp:") and tool:
            named.setdefault(server, set()).add(tool)
    servers = {}
    for name, config in settings.mcp_servers.items():
        tools = named.get(name, set())
        if ANY_TOOL in tools:
            servers[name] = config
        elif offered := sorted(t for t in tools if config.tools is None or t in config.tools):
            servers[name] = config.model_copy(update={"tools": offered})
    return settings.model_copy(update={"mcp_servers": servers})


def configured_tools(settings_data: dict[str, Any]) -> list[str]:
    """The MCP tools the operator's own options name (agents, evidence tools...), from a settings dump: every
    ``mcp:<server>/<tool>`` text outside the servers' own definitions."""
    return sorted({tool for key, value in settings_data.items() if key != "mcp_servers"
                   for tool in named_mcp_tools(value) if _TOOL.fullmatch(tool)})
