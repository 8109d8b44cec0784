"""Retrieval throughput and latency on the builtin Wikipedia corpus, in a throwaway data directory.

Measures, in one run:
  * MiniLM raw encode rate (passages/s, batch 64) on exactly the texts indexing embeds (each passage with
    its article's title put back, longest first), with the chosen ``--encoder`` (int8 ONNX, the default,
    or fp32 torch); before this, the raw rate was timed on the bare passages, which are shorter, and the
    ratio counted that difference as indexing overhead;
  * ``index_corpus`` throughput (passages/s) on the same documents, both engines, model warm;
  * search latency p50/p95 for the ``rag`` tool (Milvus Lite, query embedding included, every query
    uncached) and for the ``local`` tool (tantivy); the query-embedding part on its own; and the same
    rag searches through the gRPC client, the path before the in-process search (interleaved with the
    new one, query by query, so both see the same load).

By default the full builtin corpus (10k articles, about 4 min of embedding on 2 cores); ``--quick`` takes
its first 1000 documents.

    .venv/bin/python benchmarks/retrieval.py [--quick | --docs N] [--queries 100]

Last line: ``search_p50_ms=… index_vs_raw=…``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from factdebate.core.types import Document
from factdebate.corpus import milvus as rag
from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.chunking import chunk_documents
from factdebate.corpus.indexing import index_corpus
from factdebate.embeddings import get_embedder
from factdebate.tools.base import Tool
from factdebate.tools.local_search import LocalSearchTool


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def latencies(tool: Tool, queries: list[str], k: int) -> list[float]:
    await tool.search("warm-up", k)  # first-call costs are not query latency (and no query is cached)
    out = []
    for query in queries:
        start = time.perf_counter()
        await tool.search(query, k)
        out.append((time.perf_counter() - start) * 1000)
    return out


def grpc_search(store: rag.MilvusStore, query: str, k: int) -> list[Document]:
    """The search as it was before the in-process path: embed, then the gRPC client."""
    vector = store._query_vector(query)
    hits = store.client.search(store.collection, data=[vector.tolist()], limit=k,
                               output_fields=["title", "text", "source"], search_params={"metric_type": "COSINE"})
    return rag.MilvusStore.documents(hits[0])


def rag_latencies(store: rag.MilvusStore, queries: list[str], k: int) -> tuple[list[float], list[float]]:
    """(in-process, gRPC) milliseconds per query, embedding included, the query cache emptied before each
    search so that no figure comes from it; the two paths must return the same passages."""
    store.search_sync("warm-up", k)
    grpc_search(store, "warm-up", k)
    direct, grpc = [], []
    for query in queries:
        rag._query_vectors.clear()
        start = time.perf_counter()
        found = store.search_sync(query, k)
        direct.append((time.perf_counter() - start) * 1000)
        rag._query_vectors.clear()
        start = time.perf_counter()
        expected = grpc_search(store, query, k)
        grpc.append((time.perf_counter() - start) * 1000)
        assert found == expected, f"in-process and gRPC searches differ for {query!r}"
    return direct, grpc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=None, help="documents to index (default: all)")
    parser.add_argument("--quick", action="store_true", help="the first 1000 documents only")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--encoder", choices=["int8", "fp32"], default="int8")
    args = parser.parse_args()
    limit = 1000 if args.quick else args.docs
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="factdebate-bench-") as tmp:
        os.environ["FACTDEBATE_DATA_DIR"] = tmp
        docs = list(itertools.islice(load_builtin_corpus(), limit))
        # The texts indexing embeds (a passage with its article's title put back), in its order.
        chunks = sorted(chunk_documents(docs), key=lambda d: len(d.title) + len(d.text), reverse=True)
        passages = [rag.MilvusStore.embedding_text(c) for c in chunks]

        embedder = get_embedder(args.encoder)
        embedder.encode(passages[:8])  # load the model outside the timing
        ordered = passages

        def raw_encode_seconds() -> float:
            start = time.perf_counter()
            embedder.encode(ordered, batch_size=64)
            seconds = time.perf_counter() - start
            print(f"encode: {len(passages)} passages at {len(passages) / seconds:.1f} passages/s", file=sys.stderr)
            return seconds

        # The raw rate is timed before and after indexing and averaged: on a shared machine the load
        # drifts, and timing it on one side only would credit or charge indexing with that drift.
        before = raw_encode_seconds()
        # Also the encoder's own time inside indexing: its share of the indexing time is the same ratio
        # measured over one interval, so load drifting between the phases cannot move it.
        inside = [0.0]
        encode = embedder.encode

        def timed_encode(texts: list[str], batch_size: int = 64) -> Any:
            start = time.perf_counter()
            try:
                return encode(texts, batch_size)
            finally:
                inside[0] += time.perf_counter() - start

        embedder.encode = timed_encode  # type: ignore[method-assign]
        try:
            stats = index_corpus(docs, "bench", progress=True, encoder=args.encoder)
        finally:
            del embedder.encode  # back to the class's method
        print(f"index_corpus: {stats}", file=sys.stderr)
        encode_pps = len(passages) / ((before + raw_encode_seconds()) / 2)

        # Questions about documents that are in the index, phrased unlike the passages' first words.
        step = max(1, len(docs) // args.queries)
        queries = [f"What is known about {d.title}?" for d in docs[::step][: args.queries]]
        embed = []
        for query in queries:
            start = time.perf_counter()
            embedder.encode([query])
            embed.append((time.perf_counter() - start) * 1000)
        store = rag.MilvusStore("bench", encoder=args.encoder)
        direct, grpc = rag_latencies(store, queries, args.k)
        local = asyncio.run(latencies(LocalSearchTool("bench"), queries, args.k))

    print(f"load after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(
        f"encoder={args.encoder} docs={stats.documents} passages={stats.chunks} queries={len(queries)} "
        f"encode_pps={encode_pps:.1f} index_pps={stats.passages_per_second:.1f} "
        f"query_embed_p50_ms={statistics.median(embed):.1f} rag_p95_ms={percentile(direct, 0.95):.1f} "
        f"grpc_search_p50_ms={statistics.median(grpc):.1f} grpc_p95_ms={percentile(grpc, 0.95):.1f} "
        f"local_p50_ms={statistics.median(local):.2f} local_p95_ms={percentile(local, 0.95):.2f}"
    )
    print(f"index_encode_share={inside[0] / stats.seconds:.2f} (encoder seconds inside indexing / indexing seconds)")
    print(f"search_p50_ms={statistics.median(direct):.1f} index_vs_raw={stats.passages_per_second / encode_pps:.2f}")


if __name__ == "__main__":
    main()
