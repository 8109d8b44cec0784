"""Small pieces the baseline methods share: retrieving a fixed evidence pool."""

from __future__ import annotations

from factdebate.core.types import Document
from factdebate.methods.kit.common import search_tool, trim
from factdebate.methods.resources import Resources


async def evidence_pool(resources: Resources, kinds: list[str], query: str, *, agent: str,
                        round: int = 0) -> list[Document]:
    """One search per tool kind with the same query, duplicates (same id) dropped, order kept."""
    retrieval = resources.settings.retrieval
    pool: list[Document] = []
    seen: set[str] = set()
    for kind in kinds:
        documents = await search_tool(resources.tool(kind), query, retrieval.k, agent=agent, round=round)
        for doc in trim(documents, retrieval.max_doc_chars):
            if doc.id not in seen:
                seen.add(doc.id)
                pool.append(doc)
    return pool
