"""Leakage controls on the search agent's engine (Tool-MAD, ReAct-style methods): the same cut-off date and
excluded domains as MERMAID's MCP search server, through the same engine functions.

An engine that cannot take one says so with a ``leakage`` event instead of silently ignoring it."""

from __future__ import annotations

from factdebate.core.claim_context import search_before
from factdebate.core.events import LeakageNote
from factdebate.core.runtime import emit
from factdebate.core.types import Document
from factdebate.tools.base import Tool
from factdebate.tools.leakage import Leakage, LeakagePolicy, not_applied, parse_day


class LeakageSearch:
    """``tool`` with the configured (and per-claim) leakage controls applied where its engine can."""

    def __init__(self, tool: Tool, *, before: str | None = None, domains: tuple[str, ...] = (),
                 fact_checkers: bool = False) -> None:
        self.tool = tool
        self.name = tool.name
        self.policy = LeakagePolicy(parse_day(before), domains, fact_checkers)

    async def search(self, query: str, k: int) -> list[Document]:
        leak = self.policy.for_call(search_before(None))
        if not leak.active:
            return await self.tool.search(query, k)
        docs, notes = await self._search(query, k, leak)
        emit(LeakageNote(tool=self.name, query=query[:200], notes=notes))
        return docs

    async def _search(self, query: str, k: int, leak: Leakage) -> tuple[list[Document], list[str]]:
        from factdebate.tools import engines
        from factdebate.tools.local_search import LocalSearchTool
        from factdebate.tools.tavily import TavilyTool

        if isinstance(self.tool, TavilyTool):
            return await engines.tavily(self.tool, query, k, leak)
        if isinstance(self.tool, LocalSearchTool):
            return await engines.local(self.tool, query, k, leak)
        notes: list[str] = []
        if leak.before is not None:
            notes.append(not_applied(f"search_before={leak.before}", f"the '{self.name}' engine",
                                     "cannot search by date"))
        docs = await self.tool.search(query, k * 3 if leak.domains else k)
        return engines.drop_excluded(docs, leak, notes)[:k], notes

    async def aclose(self) -> None:
        closer = getattr(self.tool, "aclose", None)
        if closer is not None:
            await closer()
