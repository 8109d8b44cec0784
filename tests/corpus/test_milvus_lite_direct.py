"""The in-process Milvus Lite search returns exactly what the gRPC client returns: same passages, same
order, same scores, on a clean index (the fast path) and on one with unflushed rows and deletions (the
engine's own search)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from factdebate.core.types import Document
from factdebate.corpus import milvus as rag
from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.indexing import index_corpus
from factdebate.corpus.milvus import MilvusStore

pytestmark = pytest.mark.slow


def via_client(store: MilvusStore, query: str, k: int) -> list[Document]:
    vector = store._query_vector(query)
    hits = store.client.search(store.collection, data=[vector.tolist()], limit=k,
                               output_fields=["title", "text", "source"], search_params={"metric_type": "COSINE"})
    return MilvusStore.documents(hits[0])


def same_results(store: MilvusStore, queries: list[str], k: int = 5) -> None:
    for query in queries:
        assert store.search_sync(query, k) == via_client(store, query, k), query


def test_direct_search_equals_the_client(tmp_path: Path) -> None:
    uri = str(tmp_path / "milvus.db")
    docs = list(itertools.islice(load_builtin_corpus(), 120))
    index_corpus(docs, "direct", milvus_uri=uri, engines=("rag",), progress=False)
    store = MilvusStore("direct", uri)
    queries = [f"What is known about {d.title}?" for d in docs[::4]] + ["river", "a war in the 1800s"]
    same_results(store, queries)
    direct = rag._direct_searches[(uri, store.collection)]
    assert not direct.disabled and direct._clean is not None and direct._clean[1]  # the fast path served

    # Unflushed rows and a deletion: the engine's full search runs, still the client's answer.
    store.add([Document(id="extra-1", title="Zeppelin", text="A rigid airship built in Germany.", source="x")])
    store.client.delete(store.collection, ids=[docs[0].id + "#0", docs[1].id + "#0"])
    assert direct._fast(direct._collection(), store._query_vector("airship"), 5, ["title"]) is None
    same_results(store, [*queries, "airship"])
    assert not direct.disabled

