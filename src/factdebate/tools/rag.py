"""The ``rag`` tool: passages whose MiniLM vectors are closest to the query's, from the corpus's Milvus
collection (:mod:`factdebate.corpus.milvus` owns the store)."""

from __future__ import annotations

from factdebate.core.types import Document
from factdebate.corpus.milvus import MilvusStore
from factdebate.embeddings.minilm import DEFAULT_ENCODER


class RagTool:
    """Semantic evidence: passages whose MiniLM vectors are closest to the query's."""

    name = "rag"

    def __init__(
        self, corpus: str = "builtin", milvus_uri: str | None = None, store: MilvusStore | None = None,
        encoder: str = DEFAULT_ENCODER,
    ) -> None:
        self.store = store or MilvusStore(corpus, milvus_uri, encoder=encoder, searching=True)

    async def search(self, query: str, k: int) -> list[Document]:
        return await self.store.search(query, k)
