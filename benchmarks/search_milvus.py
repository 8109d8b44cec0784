"""Dense search latency: a Milvus standalone server against Milvus Lite, at corpus sizes of a real index.

Synthetic passages (random unit vectors, 700 characters of text each, as long as a typical passage) are
written into a collection made the way ``factdebate index`` makes it (AUTOINDEX, cosine), sealed and
indexed; then ``--queries`` searches for k=3 go through the ``rag`` tool's own path
(``MilvusStore.search_sync``: the gRPC client for the server, the in-process search for Lite), with the
query vector given (the encoder is not timed: benchmarks/retrieval.py measures it). Building the vector
index is timed too: it is what a large corpus costs before its first search.

    .venv/bin/python benchmarks/search_milvus.py [--sizes 100000] [--engines server,lite] [--queries 200]
        [--auto-compaction on|off] [--index-timeout 7200] [--extrapolate 21000000]

Also printed (the scale path): the insert rate (passages/s), p99, and for the server its resident
memory after each build (its process's VmRSS, and the peak VmHWM) and the load average sampled every 10 s
while it was built and searched (lowest-highest), then, with ``--extrapolate N``, what
the largest size's rates give for N passages (a 21M-passage Wikipedia: ``--extrapolate 21000000``),
marked as extrapolated: linear in passages, one server, the encoder not included.

``--auto-compaction off`` starts the server with ``dataCoord.compaction.enableAutoCompaction: false`` (its
milvus.yaml; the default, ``on``, is the wheel's own setting, the one a factdebate user's server has). With
it on, the server merges the ~50k-row sealed segments it indexed into larger ones, each indexed again, so at
1M rows the wait for "no row pending an index" measures compaction as much as the index; off, each sealed
segment is indexed once, and the wait is the index build alone. Every result line names the setting.

Last line: ``server_p50_ms=… lite_p50_ms=…`` for the largest size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
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


# The milvus.yaml key that ``--auto-compaction off`` sets to false (the wheel's 2.3.5 template has it true).
COMPACTION_KEY = "dataCoord.compaction.enableAutoCompaction"


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def build(store: MilvusStore, size: int, seed: int, timeout: float) -> dict[str, Any]:
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
    client.flush(store.collection)
    once, pending = wait_for_index(client, store.collection, size, timeout)
    store.finalize(timeout=0)  # the waiting is done above; Milvus Lite's reload still happens here
    return {"insert_s": inserted, "index_s": time.perf_counter() - started - inserted, "indexed_once_s": once,
            "pending_rows": pending, "segments": segments(client, store.collection)}


def wait_for_index(client: Any, collection: str, size: int, timeout: float) -> tuple[float | None, int]:
    """Wait as ``MilvusStore.finalize`` waits (no row pending an index), noting when every row had first
    been indexed: on the server the two differ, since compaction merges sealed segments and the merged
    rows wait for an index again. Returns that time (None: not reached) and the rows still pending when
    the wait ended (0: finished; more: ``timeout`` ran out, and the searches then met unindexed rows)."""
    started = time.perf_counter()
    once: float | None = None
    pending = size
    while time.perf_counter() - started < timeout:
        info = client.describe_index(collection, "vector") or {}
        if once is None and info.get("indexed_rows", size) >= size:
            once = time.perf_counter() - started
        pending = int(info.get("pending_index_rows", 0))
        if pending == 0 and info.get("state") != "InProgress":
            return once, 0
        time.sleep(1)
    return once, pending


def segments(client: Any, collection: str) -> str:
    """The collection's persisted segments after the build, with their rows: on the server, whether
    compaction merged the sealed segments (about 50k rows each here) shows in their sizes."""
    try:
        rows = sorted(int(info.num_rows) for info in client.list_persistent_segments(collection))
    except Exception as exc:  # a client or server without the call: the benchmark's figures stand without it
        return f"segments not listed ({type(exc).__name__})"
    return f"{len(rows)} segments of {rows[0]:,}-{rows[-1]:,} rows" if rows else "no segments listed"


def server_memory_mb(server: MilvusServer | None) -> tuple[float, float] | None:
    """The server process's resident memory now and at its peak (VmRSS, VmHWM), in MB; None off Linux."""
    process = getattr(getattr(server, "_server", None), "server_proc", None)
    try:
        status = Path(f"/proc/{process.pid}/status").read_text() if process is not None else ""
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if "VmRSS" not in fields:
        return None
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields.get("VmHWM", fields["VmRSS"]).split()[0]) / 1024)


def _memory_at(target: int, earlier: dict[int, float], size: int, now_mb: float) -> float:
    """Memory at ``target`` passages: the last size's, plus its growth per passage since the size before
    (the server's fixed part not multiplied); with one size, that size's memory scaled."""
    smaller = [s for s in earlier if s < size]
    if not smaller:
        return now_mb * target / size
    previous = max(smaller)
    return now_mb + (target - size) * (now_mb - earlier[previous]) / (size - previous)


class LoadSampler:
    """The machine's 1-minute load average every ``every`` seconds while a size is built and searched: the
    machine is shared, and a figure means little without the load it was measured under."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def span(self) -> str:
        return f"load {min(self.samples):.1f}-{max(self.samples):.1f}" if self.samples else "load not sampled"


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
    parser.add_argument("--index-timeout", type=float, default=7200, help="Seconds to wait for the vector "
                        "index after the inserts (a line says so if rows were still pending).")
    parser.add_argument("--extrapolate", type=int, default=0, help="Passages to extrapolate the largest size's "
                        "rates to (linear; printed as extrapolated).")
    parser.add_argument("--auto-compaction", choices=("on", "off"), default="on", help="The server's automatic "
                        "compaction (dataCoord.compaction.enableAutoCompaction): on, its default, or off, so "
                        "that each sealed segment is indexed once and the index build is timed alone.")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    os.environ["FACTDEBATE_DATA_DIR"] = str(work / "data")
    engines = args.engines.split(",")
    settings = {COMPACTION_KEY: "false"} if args.auto_compaction == "off" else {}
    server = MilvusServer(settings) if "server" in engines else None
    if server is not None:
        print(f"Milvus server: auto compaction {args.auto_compaction} ({COMPACTION_KEY}: "
              f"{'false' if args.auto_compaction == 'off' else 'true, the default'})", flush=True)
    uris = {"server": server.start() if server else "", "lite": str(work / "lite.db")}
    queries = unit_vectors(np.random.default_rng(99), args.queries)
    last: dict[str, Any] = {}
    sized: dict[int, float] = {}  # the server's resident MB after each size's build
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            for engine in engines:
                store = MilvusStore(f"synthetic-{size}", uris[engine], HashingEmbedder())
                with LoadSampler() as load:
                    built = build(store, size, seed=size, timeout=args.index_timeout)
                    times = latencies(store, queries)
                last[engine] = percentile(times, 0.5)
                memory = server_memory_mb(server) if engine == "server" else None
                rate = size / built["insert_s"] if built["insert_s"] else float("nan")
                print(f"{engine:6} {size:>9,} passages: search p50 {percentile(times, 0.5):.2f} ms, p95 "
                      f"{percentile(times, 0.95):.2f} ms, p99 {percentile(times, 0.99):.2f} ms; insert "
                      f"{built['insert_s']:.0f}s ({rate:,.0f} passages/s), seal and index {built['index_s']:.0f}s"
                      + (f" (every row indexed once after {built['indexed_once_s']:.0f}s)"
                         if built["indexed_once_s"] is not None else "")
                      + (f", NOT FINISHED: {built['pending_rows']:,} rows still pending an index when the wait "
                         f"ended" if built["pending_rows"] else "")
                      + (f"; server memory {memory[0]:,.0f} MB (peak {memory[1]:,.0f} MB)" if memory else "")
                      + f"; {load.span()} on {os.cpu_count()} cores"
                      + (f"; auto compaction {args.auto_compaction}, {built['segments']}" if engine == "server"
                         else ""), flush=True)
                if args.extrapolate and size == max(int(s) for s in args.sizes.split(",")):
                    scale = args.extrapolate / size
                    hours = {key: built[key] * scale / 3600 for key in ("insert_s", "index_s")}
                    print(f"{engine:6} EXTRAPOLATED (linear, not measured; from {size:,} passages"
                          + (f", auto compaction {args.auto_compaction}" if engine == "server" else "")
                          + f") to {args.extrapolate:,} passages: insert "
                          f"{hours['insert_s']:.1f} h, seal and index {hours['index_s']:.1f} h"
                          + (f", memory about {_memory_at(args.extrapolate, sized, size, memory[0]) / 1024:,.0f} GB"
                             if memory else ""), flush=True)
                if memory:
                    sized[size] = memory[0]
                store.drop()
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(" ".join(f"{engine}_p50_ms={value:.2f}" for engine, value in last.items()))
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
