"""Indexing into a Milvus server: one process against an index build on two Ray workers.

Both build the same passages (the first ``--docs`` articles of the builtin Wikipedia corpus, written to a
JSONL file), with the int8 encoder, into a throwaway Milvus standalone server (tests/milvus_server.py) and
the full-text index, each into its own corpus. The clock covers the whole command as a user runs it
(creating the collection, embedding, writing, sealing and indexing the vectors); for Ray it also shows the
time to the first finished shard (Ray's start-up, the actors loading the encoder) and the rate after it.
Each side's encoder share is its seconds inside the encoder over its seconds of work (the workers' time on
shards, for Ray).

    .venv/bin/python benchmarks/decisions/index_ray_vs_local.py [--docs 3000] [--workers 2] [--shard-docs 250]

Last line: ``ray_vs_local=<Ray passages/s ÷ one process's>``, whole builds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.indexing import index_corpus
from factdebate.corpus.loading import load_documents
from factdebate.corpus.sources import resolve_source
from factdebate.embeddings import get_embedder
from factdebate.embeddings.onnx import ensure_onnx_model
from factdebate.scale.index_ray import index_on_ray
from factdebate.scale.index_worker import TimedEmbedder
from factdebate.settings.load import load_settings
from tests.milvus_server import MilvusServer


def local_build(source: Path, uri: str) -> dict[str, Any]:
    embedder = TimedEmbedder(get_embedder("int8"))
    started = time.perf_counter()
    stats = index_corpus(load_documents(source), "local-build", milvus_uri=uri, progress=False, embedder=embedder)
    seconds = time.perf_counter() - started
    return {"passages": stats.chunks, "seconds": seconds, "rate": stats.chunks / seconds,
            "encoder_share": embedder.seconds / seconds}


def ray_build(source: Path, uri: str, workers: int, shard_docs: int) -> dict[str, Any]:
    settings = load_settings(overrides={"scale": {"executor": "ray", "workers": workers, "shard_docs": shard_docs}},
                             environ={})
    started = time.perf_counter()
    finished: list[tuple[float, int]] = []
    stats = index_on_ray(resolve_source(source), "ray-build", settings, milvus_uri=uri, progress=False,
                         on_shard=lambda row: finished.append((time.perf_counter(), int(row["passages"]))))
    seconds = time.perf_counter() - started
    first_at, first_passages = min(finished)
    steady = (stats.passages - first_passages) / (max(t for t, _ in finished) - first_at)
    return {"passages": stats.passages, "seconds": seconds, "rate": stats.passages / seconds,
            "first_shard": first_at - started, "steady_rate": steady,
            "encoder_share": stats.encode_seconds / stats.worker_seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shard-docs", type=int, default=250)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    os.environ["FACTDEBATE_DATA_DIR"] = str(work / "data")
    source = work / "articles.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for doc in itertools.islice(load_builtin_corpus(), args.docs):
            fh.write(json.dumps(doc.model_dump(exclude={"score"})) + "\n")
    ensure_onnx_model()  # exported once, before either clock starts
    server = MilvusServer()
    uri = server.start()
    try:
        local = local_build(source, uri)
        print(f"one process      {local['passages']} passages in {local['seconds']:.1f}s = {local['rate']:.1f} "
              f"passages/s, encoder {local['encoder_share']:.0%} of the time", flush=True)
        ray = ray_build(source, uri, args.workers, args.shard_docs)
        print(f"ray x{args.workers}           {ray['passages']} passages in {ray['seconds']:.1f}s = {ray['rate']:.1f} "
              f"passages/s, first shard after {ray['first_shard']:.1f}s, then {ray['steady_rate']:.1f} passages/s; "
              f"encoder {ray['encoder_share']:.0%} of the workers' time", flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"ray_vs_local={ray['rate'] / local['rate']:.2f} "
              f"steady_ray_vs_local={ray['steady_rate'] / local['rate']:.2f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
