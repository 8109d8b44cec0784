"""Retrieval throughput and latency on the builtin Wikipedia corpus, in a throwaway data directory.

Measures, in one run:
  * MiniLM raw encode rate (passages/s, batch 64, longest first as indexing does) on about 1000 builtin
    passages, with the chosen ``--encoder`` (int8 ONNX, the default, or fp32 torch);
  * ``index_corpus`` throughput (passages/s) on about 1000 builtin documents, both engines, model warm;
  * search latency p50/p95 over 50 queries for the ``rag`` (Milvus Lite) and ``local`` (tantivy) tools,
    and the query-embedding part of the ``rag`` latency on its own.

    .venv/bin/python benchmarks/retrieval.py [--docs 1000] [--queries 50]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.chunking import chunk_documents
from factdebate.corpus.indexing import index_corpus
from factdebate.embeddings import get_embedder
from factdebate.tools.base import Tool
from factdebate.tools.lexical import LocalSearchTool
from factdebate.tools.rag import RagTool


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--encoder", choices=["int8", "fp32"], default="int8")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    with tempfile.TemporaryDirectory(prefix="factdebate-bench-") as tmp:
        os.environ["FACTDEBATE_DATA_DIR"] = tmp
        docs = list(itertools.islice(load_builtin_corpus(), args.docs))
        passages = [c.text for c in itertools.islice(chunk_documents(docs), args.docs)]

        embedder = get_embedder(args.encoder)
        embedder.encode(passages[:8])  # load the model outside the timing
        ordered = sorted(passages, key=len, reverse=True)  # as indexing orders them
        start = time.perf_counter()
        embedder.encode(ordered, batch_size=64)
        encode_pps = len(passages) / (time.perf_counter() - start)
        print(f"encode: {len(passages)} passages at {encode_pps:.1f} passages/s", file=sys.stderr)

        stats = index_corpus(docs, "bench", progress=True, encoder=args.encoder)
        print(f"index_corpus: {stats}", file=sys.stderr)

        # Questions about documents that are in the index, phrased unlike the passages' first words.
        step = max(1, len(docs) // args.queries)
        queries = [f"What is known about {d.title}?" for d in docs[::step][: args.queries]]
        embed = []
        for query in queries:
            start = time.perf_counter()
            embedder.encode([query])
            embed.append((time.perf_counter() - start) * 1000)
        rag = asyncio.run(latencies(RagTool("bench", encoder=args.encoder), queries, args.k))
        local = asyncio.run(latencies(LocalSearchTool("bench"), queries, args.k))

    print(
        f"encoder={args.encoder} docs={stats.documents} passages={stats.chunks} queries={len(queries)} "
        f"encode_pps={encode_pps:.1f} index_pps={stats.passages_per_second:.1f} "
        f"index_vs_raw={stats.passages_per_second / encode_pps:.2f} search_p50_ms={statistics.median(rag):.1f} "
        f"query_embed_p50_ms={statistics.median(embed):.1f} rag_p95_ms={percentile(rag, 0.95):.1f} "
        f"local_p50_ms={statistics.median(local):.2f} local_p95_ms={percentile(local, 0.95):.2f}"
    )


if __name__ == "__main__":
    main()
