"""The ``local`` tool: BM25 evidence from a corpus indexed with tantivy (:mod:`factdebate.corpus.lexical`)."""

from __future__ import annotations

from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex


class LocalSearchTool:
    """BM25 evidence from a locally indexed corpus."""

    name = "local"

    def __init__(self, corpus: str = "builtin", index: LexicalIndex | None = None) -> None:
        self.index = index or LexicalIndex(corpus)

    async def search(self, query: str, k: int) -> list[Document]:
        return await self.index.search(query, k)
