"""Dense search latency: a Milvus standalone server against Milvus Lite, at corpus sizes of a real index.

Synthetic passages (random unit vectors, 700 characters of text each, as long as a typical passage) are
written into a collection made the way ``factdebate index`` makes it (AUTOINDEX, cosine), sealed and
indexed; then ``--queries`` searches for k=3 go through the ``rag`` tool's own path
(``MilvusStore.search_sync``: the gRPC client for the server, the in-process search for Lite), with the
query vector given (the encoder is not timed: benchmarks/retrieval.py measures it). Building the vector
index is timed too: it is what a large corpus costs before its first search.

    .venv/bin/python benchmarks/search_milvus.py [--sizes 100000] [--engines server,lite] [--queries 200]

Last line: ``server_p50_ms=… lite_p50_ms=…`` for the largest size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.retrieval import percentile
from factdebate.corpus import milvus as rag
from factdebate.corpus.milvus import MilvusStore
from tests.helpers import HashingEmbedder
from tests.milvus_server import MilvusServer

TEXT = ("Synthetic passage text of about the length the chunker makes, so that what a search returns weighs what "
        "a real passage weighs. ") * 6


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def build(store: MilvusStore, size: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    store.drop()
    store.create()
    client = store._ready()
    started = time.perf_counter()
    for start in range(0, size, 5000):
        vectors = unit_vectors(rng, min(5000, size - start))
        client.insert(store.collection, [{"id": f"p{start + n}", "vector": vector, "title": f"Passage {start + n}",
                                          "text": TEXT, "source": ""} for n, vector in enumerate(vectors)])
    inserted = time.perf_counter() - started
    store.finalize(timeout=3600)
    return {"insert_s": inserted, "index_s": time.perf_counter() - started - inserted}


def latencies(store: MilvusStore, queries: np.ndarray) -> list[float]:
    for n, vector in enumerate(queries):  # the rag tool's query cache, filled: its path without the encoder
        rag._query_vectors[(store.embedder.kind, f"query {n}")] = vector
    for n in range(10):
        store.search_sync(f"query {n}", 3)
    out = []
    for n in range(len(queries)):
        started = time.perf_counter()
        hits = store.search_sync(f"query {n}", 3)
        out.append((time.perf_counter() - started) * 1000)
        assert len(hits) == 3
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--engines", default="server,lite")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    os.environ["FACTDEBATE_DATA_DIR"] = str(work / "data")
    engines = args.engines.split(",")
    server = MilvusServer() if "server" in engines else None
    uris = {"server": server.start() if server else "", "lite": str(work / "lite.db")}
    queries = unit_vectors(np.random.default_rng(99), args.queries)
    last: dict[str, Any] = {}
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            for engine in engines:
                store = MilvusStore(f"synthetic-{size}", uris[engine], HashingEmbedder())
                built = build(store, size, seed=size)
                times = latencies(store, queries)
                last[engine] = percentile(times, 0.5)
                print(f"{engine:6} {size:>9,} passages: search p50 {percentile(times, 0.5):.2f} ms, p95 "
                      f"{percentile(times, 0.95):.2f} ms; insert {built['insert_s']:.0f}s, seal and index "
                      f"{built['index_s']:.0f}s", flush=True)
                store.drop()
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(" ".join(f"{engine}_p50_ms={value:.2f}" for engine, value in last.items()))
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
