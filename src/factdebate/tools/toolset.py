"""Toolsets: tools with a name, a description and a JSON-schema input, listed and called through one
protocol with an async open and close (``async with toolset: ...``). Retrieval tools form one toolset
(retrieval_toolset.py), each MCP server another (mcp_client.py).

A failed call is an observation (``ToolResult.is_error``), not an exception: an agent reads what went
wrong and carries on, and the trace shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Self, runtime_checkable

from factdebate.core.types import Document
from factdebate.llm.base import ToolSchema

__all__ = ["ToolResult", "ToolSchema", "Toolset", "documents_text"]


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


def documents_text(documents: list[Document], max_chars: int = 500) -> str:
    if not documents:
        return "nothing found"
    return "\n".join(f"[{i}] {d.title}: {' '.join(d.text.split())[:max_chars]}"
                     for i, d in enumerate(documents, start=1))
