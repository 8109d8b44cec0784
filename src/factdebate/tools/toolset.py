"""Toolsets: named tools with a JSON-schema input, behind one protocol with an async open and close (each MCP
server is one). A failed call is an observation (``ToolResult.is_error``), not an exception."""

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
