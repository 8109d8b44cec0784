"""The scholar tool server: OpenAlex (standing in for Google Scholar, which has no API), arXiv and PubMed."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from factdebate.tools import engines
from factdebate.tools.arxiv import ArxivTool
from factdebate.tools.leakage import LeakagePolicy, not_applied
from factdebate.tools.openalex import OpenAlexTool
from factdebate.tools.pubmed import PubMedTool
from factdebate.toolservers.common import ExcludeDomains, K, Query, SearchBefore, search_reply, tool_errors


def build_scholar_server(*, openalex: OpenAlexTool | None = None, arxiv: ArxivTool | None = None,
                         pubmed: PubMedTool | None = None, policy: LeakagePolicy | None = None) -> MCPServer:
    policy = policy or LeakagePolicy()
    oa, ax, pm = openalex or OpenAlexTool(), arxiv or ArxivTool(), pubmed or PubMedTool()
    server = MCPServer(name="factdebate-scholar", log_level="WARNING",
                       instructions="Search scientific literature: search_scholar (all fields, OpenAlex), "
                                    "search_arxiv (preprints), search_pubmed (biomedicine).")

    @server.tool(description="Search scholarly works across all fields (OpenAlex, used in place of Google "
                             "Scholar); returns titles, abstracts and DOIs.")
    @tool_errors
    async def search_scholar(query: Query, k: K = 5, search_before: SearchBefore = None,
                             exclude_domains: ExcludeDomains = None) -> dict[str, Any]:
        docs, notes = await engines.openalex(oa, query.strip(), k, policy.for_call(search_before, exclude_domains))
        return search_reply(docs, notes)

    @server.tool(description="Search arXiv preprints (physics, mathematics, computer science, quantitative "
                             "biology...); returns titles, abstracts and arXiv links.")
    @tool_errors
    async def search_arxiv(query: Query, k: K = 5, search_before: SearchBefore = None) -> dict[str, Any]:
        leak = policy.for_call(search_before)
        docs = await ax.search_filtered(query.strip(), k, before=leak.before)
        notes = [f"search_before applied by arXiv (submitted before {leak.before})"] if leak.before else []
        if leak.domains:
            notes.append(not_applied("exclude_domains", "arXiv", "results all come from arxiv.org"))
        return search_reply(docs, notes)

    @server.tool(description="Search PubMed for biomedical articles; returns titles, abstracts and PubMed links.")
    @tool_errors
    async def search_pubmed(query: Query, k: K = 5, search_before: SearchBefore = None) -> dict[str, Any]:
        docs, notes = await engines.pubmed(pm, query.strip(), k, policy.for_call(search_before))
        return search_reply(docs, notes)

    return server
