"""Run a factdebate tool server as a subprocess and talk to it with the official MCP client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp


@asynccontextmanager
async def tool_server(*args: str, env: dict[str, str] | None = None) -> AsyncIterator[mcp.ClientSession]:
    """``factdebate mcp-tools ARGS`` over stdio, through the real CLI entry point."""
    environment = {**os.environ, **(env or {})}
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.cli.main", "mcp-tools", *args],
                                       env=environment)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        yield session


def payload(result: Any) -> Any:
    assert not result.is_error, result.content
    content = result.structured_content
    if content is not None:
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error, result.content
    return str(result.content[0].text)
