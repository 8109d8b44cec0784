"""Toolsets: tools with a name, a description and a JSON-schema input, listed and called through one
protocol with an async open and close (``async with toolset: ...``): each MCP server is one (mcp_client.py),
and retrieval_toolset.py puts a toolset's tool behind the retrieval tools' ``search(query, k)``.

A failed call is an observation (``ToolResult.is_error``), not an exception: an agent reads what went
wrong and carries on, and the trace shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Self, runtime_checkable

from factdebate.core.types import Document
from factdebate.llm.base import ToolSchema

__all__ = ["ToolResult", "ToolSchema", "Toolset"]


@dataclass
class ToolResult:
    text: str  # what the agent reads
    is_error: bool = False
    documents: list[Document] = field(default_factory=list)  # passages, when the tool retrieves
    data: Any = None  # structured content, when the tool returns some
    # Set when the server itself failed (its process died, it hangs), not only this call: why. The
    # toolset's owner may restart it (MERMAID's toolbox does, within its start budget).
    fault: str | None = None
    timed_out: bool = False  # the call got no answer in time


@runtime_checkable
class Toolset(Protocol):
    name: str

    async def list_tools(self) -> list[ToolSchema]: ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None: ...
