"""The ``rag`` tool of the built-in corpus while its vector index is still being built
(``retrieval.while_indexing: full_text``): each search goes to the full-text (BM25) index until the vectors are
complete, then to the vectors, as :class:`~factdebate.tools.rag.RagTool` does.

The build starts at the tool's first search, not when the tool is made: the service opens its tools before its
first request, and a build started then takes one of the two cores from a guard check that never searches the
vectors (the fast tier reads the full-text index), so the first check missed its deadline.

On the built-in corpus the full-text index finds the gold pages about as often (docs/reproduce.md); a verdict says so
(tools/retrieval_record.py)."""

from __future__ import annotations

import asyncio

from factdebate.core.types import Document
from factdebate.corpus import vectors_later
from factdebate.tools.local_search import LocalSearchTool
from factdebate.tools.rag import RagTool
from factdebate.tools.retrieval_record import searched_full_text


class PendingRagTool:
    """``rag`` on the full-text index until the vectors of ``build`` are complete, then on the vectors."""

    name = "rag"

    def __init__(self, build: vectors_later.Build, corpus: str) -> None:
        self.build = build
        self._corpus = corpus
        self._lexical = LocalSearchTool(corpus=corpus)
        self._dense: RagTool | None = None
        self._started = False

    async def search(self, query: str, k: int) -> list[Document]:
        if not self._started:
            self._started = True
            await asyncio.to_thread(vectors_later.start, self.build)
        if self._dense is None and vectors_later.ready(self.build):
            self._dense = await asyncio.to_thread(self._open_dense)
        if self._dense is not None:
            return await self._dense.search(query, k)
        return await self._full_text(query, k)

    async def _full_text(self, query: str, k: int) -> list[Document]:
        searched_full_text(self.name)
        return await self._lexical.search(query, k)

    def _open_dense(self) -> RagTool:
        tool = RagTool(corpus=self._corpus, milvus_uri=self.build.uri, encoder=self.build.encoder)
        tool.store.open()
        return tool
