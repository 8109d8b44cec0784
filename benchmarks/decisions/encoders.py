"""The two encoders of ``retrieval.encoder`` on the full builtin corpus: speed and retrieval quality.

Encodes all passages of the 10,033-article corpus with each encoder (longest first, as indexing does), then
checks recall@3 of the article's own title for 200 held-out claims of the ``countries`` set (its last 200:
the results page uses its first ones). Exhaustive cosine search, so the numbers are the encoders', not the
vector index's. The int8 encoder is accepted when its recall is within 2 points of the float model's.

Prints: ``passages=… fp32_per_s=… int8_per_s=… int8_speedup=… recall3_fp32=… recall3_int8=…``
(about 20 minutes on 2 cores, most of it the float model).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.corpus.chunking import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP, chunk_document
from factdebate.corpus.milvus import MilvusStore
from factdebate.embeddings import get_embedder
from factdebate.embeddings.minilm import Embedder
from factdebate.eval.datasets.countries import generate

HELD_OUT = 200


def encode_corpus(embedder: Embedder, texts: list[str]) -> tuple[np.ndarray, float]:
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
    embedder.encode(["warm-up"])  # model load and export are not encoding speed
    started = time.perf_counter()
    ordered = embedder.encode([texts[i] for i in order])
    seconds = time.perf_counter() - started
    vectors = np.zeros_like(ordered)
    vectors[order] = ordered
    return vectors, len(texts) / seconds


def recall_at_3(passages: np.ndarray, queries: np.ndarray, titles: np.ndarray, gold: list[str]) -> float:
    top = np.argsort(-(queries @ passages.T), axis=1)[:, :3]
    return float(np.mean([want in set(titles[row]) for want, row in zip(gold, top, strict=True)]))


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    chunks = [c for d in load_builtin_corpus() for c in chunk_document(d, DEFAULT_MAX_WORDS, DEFAULT_OVERLAP)]
    texts = [MilvusStore.embedding_text(c) for c in chunks]
    titles = np.array([c.title for c in chunks])
    held = generate()[-HELD_OUT:]
    claims = [s.claim for s in held]
    gold = [str(s.meta["wikipedia"]) for s in held]
    rates: dict[str, float] = {}
    recalls: dict[str, float] = {}
    for kind in ("fp32", "int8"):
        embedder = get_embedder(kind)
        vectors, rates[kind] = encode_corpus(embedder, texts)
        recalls[kind] = recall_at_3(vectors, embedder.encode(claims), titles, gold)
    print(f"passages={len(texts)} fp32_per_s={rates['fp32']:.1f} int8_per_s={rates['int8']:.1f} "
          f"int8_speedup={rates['int8'] / rates['fp32']:.2f} recall3_fp32={recalls['fp32']:.3f} "
          f"recall3_int8={recalls['int8']:.3f}")


if __name__ == "__main__":
    main()
