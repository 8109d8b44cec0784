"""The workers of an index build on Ray (docs/scale.md): each shard is read, chunked and embedded where it
runs, its vectors written to the Milvus server, its passages handed to the full-text index's writers.

``ShardIndexer`` (one encoder per actor) returns a row per shard once both engines hold it, or with its
``error``. ``LexicalWriter`` owns one part of the full-text index (tantivy allows one writer), on the driver's
machine."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from factdebate.core.types import Document
from factdebate.corpus.chunking import chunk_document
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.lexical_parts import part_of
from factdebate.corpus.milvus import MilvusStore
from factdebate.corpus.shards import Shard, read_shard
from factdebate.embeddings.minilm import Embedder
from factdebate.util.errors import FactDebateError

EmbedderFactory = Callable[[], Embedder]


class TimedEmbedder(Embedder):
    """An encoder that adds up the seconds spent encoding: the encoder's share of a build."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__()
        self.inner = inner
        self.kind = inner.kind
        self.device_name = inner.device or "cpu"
        self.seconds = 0.0

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.inner.encode(texts, batch_size)
        finally:
            self.seconds += time.perf_counter() - started


def worker_embedder(encoder: str, gpus: float, cpus: float = 1.0) -> Embedder:
    """The int8 model on ONNX Runtime, on as many threads as the worker reserved CPUs, or the float model,
    on this worker's GPU when it has one (torch's threads follow the OMP_NUM_THREADS Ray sets)."""
    if encoder == "int8":
        from factdebate.embeddings.onnx import OnnxInt8Embedder

        return OnnxInt8Embedder(threads=max(1, round(cpus)))
    device = None
    if gpus > 0:
        import torch

        device = "cuda" if torch.cuda.is_available() else None
    return Embedder(device=device)


class LexicalWriter:
    def __init__(self, corpus: str, path: str) -> None:
        self.index = LexicalIndex(corpus, path)

    def add(self, passages: list[Document]) -> int:
        return self.index.add(passages)


def failed_row(key: str) -> dict[str, Any]:
    """A failed shard's row: the columns of a finished one (Ray Data wants one schema), all zero."""
    return {"shard": key, "documents": 0, "duplicates": 0, "passages": 0, "added_dense": 0, "added_lexical": 0,
            "read_seconds": 0.0, "encode_seconds": 0.0, "dense_seconds": 0.0, "lexical_seconds": 0.0,
            "seconds": 0.0, "worker": os.getpid(), "device": ""}


class ShardIndexer:
    def __init__(self, corpus: str, milvus_uri: str | None, writers: list[Any], encoder: str, gpus: float,
                 cpus: float, max_words: int, overlap: int, batch_size: int,
                 make_embedder: EmbedderFactory | None) -> None:
        self.writers = writers
        self.max_words, self.overlap, self.batch_size = max_words, overlap, batch_size
        self.embedder = TimedEmbedder(make_embedder() if make_embedder else worker_embedder(encoder, gpus, cpus))
        self.store = MilvusStore(corpus, milvus_uri, self.embedder) if milvus_uri else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        rows = [self.attempt(Shard.from_dict(json.loads(str(spec)))) for spec in batch["shard"]]
        return {name: [row[name] for row in rows] for name in rows[0]} if rows else {}

    def attempt(self, shard: Shard) -> dict[str, Any]:
        """The shard's row; a shard that fails is a row with its error (raised, it would reach the driver as text)."""
        try:
            return {**self.index_shard(shard), "error": "", "error_kind": ""}
        except Exception as exc:
            lines = str(exc).strip().splitlines()
            kind = "usage" if isinstance(exc, FactDebateError) else type(exc).__name__
            return {**failed_row(shard.key), "error": lines[0] if lines else type(exc).__name__, "error_kind": kind}

    def index_shard(self, shard: Shard) -> dict[str, Any]:
        started = time.perf_counter()
        encoded_before = self.embedder.seconds
        seen: set[str] = set()
        passages: list[Document] = []
        duplicates = 0
        for doc in read_shard(shard):
            if doc.id in seen:  # the first document with an id wins, as in a one-process build
                duplicates += 1
                continue
            seen.add(doc.id)
            passages.extend(chunk_document(doc, self.max_words, self.overlap))
        read = time.perf_counter() - started
        added_dense = self.store.add(passages, self.batch_size) if self.store is not None and passages else 0
        dense = time.perf_counter() - started - read
        added_lexical = self._write_lexical(passages)
        lexical = time.perf_counter() - started - read - dense
        return {"shard": shard.key, "documents": len(seen), "duplicates": duplicates, "passages": len(passages),
                "added_dense": added_dense, "added_lexical": added_lexical, "read_seconds": read,
                "encode_seconds": self.embedder.seconds - encoded_before, "dense_seconds": dense,
                "lexical_seconds": lexical, "seconds": time.perf_counter() - started, "worker": os.getpid(),
                "device": self.embedder.device_name}

    def _write_lexical(self, passages: list[Document]) -> int:
        if not self.writers or not passages:
            return 0
        import ray

        routed: list[list[Document]] = [[] for _ in self.writers]
        for passage in passages:
            routed[part_of(passage.id, len(self.writers))].append(passage)
        return sum(ray.get([writer.add.remote(part) for writer, part in zip(self.writers, routed, strict=True)
                            if part]))
