"""Any toolset tool that takes a query used as a retrieval tool (``search(query, k)``), so Tool-MAD's agents
can search through it."""

from __future__ import annotations

import hashlib
from typing import Any

from factdebate.core.claim_context import search_before as claim_search_before
from factdebate.core.runtime import emit
from factdebate.core.types import Document
from factdebate.tools.toolset import ToolResult, Toolset


class ToolsetSearch:
    """A toolset's tool behind the ``search(query, k)`` protocol. The toolset is opened on first use and
    stays open until :meth:`aclose`. An error result is traced and yields no documents."""

    def __init__(self, toolset: Toolset, tool: str, *, query_arg: str = "query", k_arg: str | None = "k",
                 search_before: str | None = None) -> None:
        self.toolset = toolset
        self.tool = tool
        self.query_arg = query_arg
        self.k_arg = k_arg
        self.search_before = search_before  # the configured leakage cut-off (a claim's date may tighten it)
        self._dated = False  # the tool takes search_before
        self.name = f"{toolset.name}/{tool}"
        self._opened = False

    async def search(self, query: str, k: int) -> list[Document]:
        if not self._opened:
            await self.toolset.__aenter__()
            self._opened = True
            # Pass k only to tools that take it: a strict server rejects unknown arguments.
            listed = {t.name: t for t in await self.toolset.list_tools()}
            properties = listed[self.tool].parameters.get("properties", {}) if self.tool in listed else {}
            if self.tool in listed and self.k_arg not in properties:
                self.k_arg = None
            self._dated = "search_before" in properties
        arguments: dict[str, Any] = {self.query_arg: query}
        if self.k_arg:
            arguments[self.k_arg] = k
        before = claim_search_before(self.search_before)
        if before:
            if self._dated:
                arguments["search_before"] = before
            else:  # a third-party tool without a date argument: said, not silently ignored
                emit("leakage", tool=self.name, query=query[:200],
                     notes=[f"search_before={before} was NOT applied: {self.name} takes no date"])
        result = await self.toolset.call_tool(self.tool, arguments)
        if result.is_error:
            emit("tool_error", tool=self.name, query=query, error=result.text[:300])
            return []
        return (result.documents or as_documents(result, self.name))[:k]

    async def aclose(self) -> None:
        if self._opened:
            self._opened = False
            await self.toolset.__aexit__(None, None, None)


def as_documents(result: ToolResult, source: str) -> list[Document]:
    """Passages from a result: structured items with a title and a text, else the text as one passage."""
    items = result.data.get("result", result.data) if isinstance(result.data, dict) else result.data
    if isinstance(items, list) and items and all(isinstance(i, dict) and "text" in i for i in items):
        return [Document(id=str(i.get("id") or f"{source}-{n}"), title=str(i.get("title") or source),
                         text=str(i["text"]), source=str(i.get("source") or source),
                         score=float(i.get("score") or 0.0)) for n, i in enumerate(items, start=1)]
    if not result.text.strip():
        return []
    digest = hashlib.sha256(result.text.encode()).hexdigest()[:12]
    return [Document(id=f"{source}:{digest}", title=source, text=result.text, source=source)]
