"""The search tool server: the web through Tavily (the paper's Google Search) and the local corpus (BM25)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from factdebate.tools import engines
from factdebate.tools.leakage import LeakagePolicy
from factdebate.tools.local_search import LocalSearchTool
from factdebate.tools.tavily import TavilyTool
from factdebate.toolservers.common import (
    ExcludeDomains,
    ExcludeFactCheckers,
    K,
    Query,
    SearchBefore,
    search_reply,
    tool_errors,
)


def build_search_server(*, local: LocalSearchTool | None = None, tavily: TavilyTool | None = None,
                        policy: LeakagePolicy | None = None) -> MCPServer:
    """Only the engines given are offered: an agent should not see a tool that can only fail."""
    policy = policy or LeakagePolicy()
    server = MCPServer(name="factdebate-search", log_level="WARNING",
                       instructions="Search for evidence: search_web covers the open web, search_local the "
                                    "locally indexed corpus.")
    if tavily is not None:
        web = tavily

        @server.tool(description="Search the web (Tavily) for pages about a query; returns each page's title, "
                                 "URL and the passage that matched. Use for recent or non-encyclopedic facts.")
        @tool_errors
        async def search_web(query: Query, k: K = 5, search_before: SearchBefore = None,
                             exclude_domains: ExcludeDomains = None,
                             exclude_fact_checkers: ExcludeFactCheckers = False) -> dict[str, Any]:
            leak = policy.for_call(search_before, exclude_domains, exclude_fact_checkers)
            docs, notes = await engines.tavily(web, query.strip(), k, leak)
            return search_reply(docs, notes)

    if local is not None:
        corpus = local

        @server.tool(description=f"Search the local corpus '{local.index.corpus}' by keywords (BM25); returns "
                                 "passages with their source. Works offline; the corpus is a fixed snapshot.")
        @tool_errors
        async def search_local(query: Query, k: K = 5, search_before: SearchBefore = None,
                               exclude_domains: ExcludeDomains = None,
                               exclude_fact_checkers: ExcludeFactCheckers = False) -> dict[str, Any]:
            leak = policy.for_call(search_before, exclude_domains, exclude_fact_checkers)
            docs, notes = await engines.local(corpus, query.strip(), k, leak)
            return search_reply(docs, notes)

    return server
