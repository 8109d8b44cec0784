"""The full-text index in parts (corpus/lexical_parts.py) against one index, on the builtin corpus's passages.

* build: one writer adding every passage, against ``--parts`` writers in as many processes, each adding
  the passages routed to its part, at the same time (passages/s of the whole build, wall clock);
* search: p50/p95 of ``--queries`` BM25 searches (the opening words of random passages, as an agent's
  query often is), one index against the parts searched and merged;
* agreement: how much of one index's top k the merged parts return (each part scores with its own
  document frequencies, so the merge is close to, not the same as, one index's ranking).

    .venv/bin/python benchmarks/decisions/lexical_parts.py [--parts 2] [--queries 300]

Last line: ``parts_vs_one_build=… overlap_at_10=…``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.retrieval import percentile
from factdebate.core.types import Document
from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.chunking import chunk_documents
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.lexical_parts import part_of, write_layout


def _write_part(path: str, passages: list[Document], go: Any, times: Any) -> None:
    index = LexicalIndex("bench", path)
    go.wait()  # started and imported: from here on it is the writing that is timed
    started = time.monotonic()
    index.add(passages)
    times.put((started, time.monotonic()))


def build_parts(root: Path, passages: list[Document], parts: int) -> float:
    """Seconds from the first writer's start to the last one's end (processes already running, as the build
    actors of a Ray run are)."""
    write_layout(root, parts)
    routed: list[list[Document]] = [[] for _ in range(parts)]
    for passage in passages:
        routed[part_of(passage.id, parts)].append(passage)
    context = multiprocessing.get_context("spawn")
    go, times = context.Event(), context.Queue()
    workers = [context.Process(target=_write_part, args=(str(root / f"part-{n}"), routed[n], go, times))
               for n in range(parts)]
    for worker in workers:
        worker.start()
    time.sleep(5)  # let them import
    go.set()
    spans = [times.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join()
    return max(end for _, end in spans) - min(start for start, _ in spans)


def timed_searches(index: LexicalIndex, queries: list[str], k: int) -> tuple[list[float], list[list[str]]]:
    index.search_sync("warm up", k)
    times, hits = [], []
    for query in queries:
        started = time.perf_counter()
        found = index.search_sync(query, k)
        times.append((time.perf_counter() - started) * 1000)
        hits.append([doc.id for doc in found])
    return times, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=2)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-lexical-"))
    passages = list(chunk_documents(load_builtin_corpus()))
    one = LexicalIndex("bench", work / "one")
    started = time.monotonic()
    one.add(passages)
    one_seconds = time.monotonic() - started
    parts_seconds = build_parts(work / "parts", passages, args.parts)
    parted = LexicalIndex("bench", work / "parts")
    assert parted.count() == one.count() == len(passages)
    print(f"build: one writer {len(passages) / one_seconds:,.0f} passages/s; {args.parts} parts in "
          f"{args.parts} processes {len(passages) / parts_seconds:,.0f} passages/s ({len(passages):,} passages)")
    rng = random.Random(7)
    queries = [" ".join(rng.choice(passages).text.split()[:8]) for _ in range(args.queries)]
    for k in (3, 10):
        one_times, one_hits = timed_searches(one, queries, k)
        part_times, part_hits = timed_searches(parted, queries, k)
        overlap = sum(len(set(a) & set(b)) / k for a, b in zip(one_hits, part_hits, strict=True)) / len(queries)
        same_first = sum(a[:1] == b[:1] for a, b in zip(one_hits, part_hits, strict=True)) / len(queries)
        print(f"k={k:<2} one index p50 {percentile(one_times, 0.5):.2f} ms p95 {percentile(one_times, 0.95):.2f} ms; "
              f"{args.parts} parts p50 {percentile(part_times, 0.5):.2f} ms p95 {percentile(part_times, 0.95):.2f} ms; "
              f"overlap of top {k} {overlap:.1%}, same first hit {same_first:.1%}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"parts_vs_one_build={one_seconds / parts_seconds:.2f} overlap_at_10={overlap:.3f}")


if __name__ == "__main__":
    main()
