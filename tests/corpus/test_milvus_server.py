"""The vector store on a real Milvus server (tests/milvus_server.py), where several processes share one
collection: what a Milvus Lite folder never had to allow."""

from __future__ import annotations

import threading

from factdebate.core.types import Document
from factdebate.corpus.milvus import MilvusStore
from tests.helpers import HashingEmbedder


def _docs(prefix: str, count: int) -> list[Document]:
    return [Document(id=f"{prefix}{n}#0", title=f"Topic {n}", text=f"Passage {n} about subject {n} and more.")
            for n in range(count)]


def test_finalizing_a_build_leaves_the_collection_searchable_for_everyone_else(milvus_server_uri: str) -> None:
    store = MilvusStore("shared-search", milvus_server_uri, HashingEmbedder())
    store.add(_docs("a", 20))
    store.finalize()
    other = MilvusStore("shared-search", milvus_server_uri, HashingEmbedder())  # another reader of the collection
    client = other._ready()
    vector = HashingEmbedder().encode(["subject 3"])[0].tolist()
    failures: list[str] = []
    searches = 0
    done = threading.Event()

    def search_meanwhile() -> None:
        nonlocal searches
        while not done.is_set():
            try:  # no retry here: a search that fails while the build finishes is what a reader would see
                client.search(other.collection, data=[vector], limit=1, search_params={"metric_type": "COSINE"})
                searches += 1
            except Exception as exc:
                failures.append(str(exc)[:120])

    reader = threading.Thread(target=search_meanwhile)
    reader.start()
    try:
        store.add(_docs("b", 20))  # a second build adds passages while the collection is being searched
        store.finalize()
    finally:
        done.set()
        reader.join()
    assert searches > 0 and failures == []


def test_the_count_right_after_writing_is_exact(milvus_server_uri: str) -> None:
    store = MilvusStore("counted", milvus_server_uri, HashingEmbedder())
    assert store.add(_docs("c", 30)) == 30
    assert store.count() == 30
    assert store.add(_docs("c", 35)) == 5  # the first 30 are found and skipped
    assert store.count() == 35
