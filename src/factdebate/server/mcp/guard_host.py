"""The MCP server as the host of the guard's one call (guard_engine/call.py), for ``check_answer`` and
``check_response``: the operator's settings (or ``check_response``'s, with its chosen method, k and
evidence), the server's resource pool, and the caller, the API key's id on ``factdebate mcp --http``
(server/mcp/http.py puts it in the request's state), so the model cache and a conversation's state are
never shared between keys, as on the HTTP doors; on stdio the one local user. The call hides the operator's
addresses in the result and in a failure's message, as it does for every door. The MCP server keeps no
checks and runs no run slots of the service's; its key's rate limit counts each tool call
(server/mcp/http.py)."""

from __future__ import annotations

import contextlib
from contextlib import AbstractAsyncContextManager
from typing import Any

from factdebate.engine import EventSink, GuardOptions, Host, ResourcePool, Resources, Settings
from factdebate.server.options import SettingsResolver
from factdebate.server.security import CALLER_STATE


class McpHost(Host):
    def __init__(self, resolver: SettingsResolver, pool: ResourcePool, caller: str | None, *,
                 settings: Settings | None = None) -> None:
        self.resolver, self.pool, self.caller, self._settings = resolver, pool, caller, settings

    async def settings(self, options: GuardOptions) -> Settings:
        """The operator's settings, or the tool's own (``check_response``'s method, k and evidence)."""
        return self._settings or self.resolver.base

    def session(self, settings: Settings) -> AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]:
        return contextlib.nullcontext((self.pool.get(settings), []))  # the pool holds them


def caller_of(context: Any) -> str | None:
    """The API key's id of the HTTP request a tool call came in (None on stdio, or with no key ring)."""
    try:
        request = context.request_context.request
    except (AttributeError, ValueError):
        return None
    state = getattr(request, "scope", {}).get("state") or {}
    who = state.get(CALLER_STATE) if isinstance(state, dict) else None
    return who if isinstance(who, str) else None
