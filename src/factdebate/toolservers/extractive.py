"""Extractive summaries and key facts: the article's own sentences, ranked by MiniLM similarity to a focus.

The paper's tools call a model, which would hide calls from the method's accounting; ours only select."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import numpy as np

from factdebate.corpus.chunking import split_sentences

Encode = Callable[[list[str]], np.ndarray]
_FACTY = re.compile(r"\d|\b[A-Z][a-z]+\b.*\b[A-Z][a-z]+\b")  # a number, or two capitalised words
MAX_SENTENCES = 400  # longer articles: only the first this many sentences are ranked


def default_encode() -> Encode:
    from factdebate.embeddings import get_embedder

    return get_embedder("int8").encode


def rank_sentences(text: str, focus: str, encode: Encode, count: int, *, facts: bool = False) -> list[str]:
    """The ``count`` sentences closest to ``focus``, in their original order; with ``facts``, a bonus for a
    number or name, and very short ones skipped."""
    sentences = [s for s in split_sentences(text)[:MAX_SENTENCES] if len(s.split()) >= (4 if facts else 1)]
    if len(sentences) <= count:
        return sentences
    vectors = encode([focus, *sentences])
    scores = vectors[1:] @ vectors[0]
    if facts:
        scores = scores + np.array([0.05 if _FACTY.search(s) else 0.0 for s in sentences], dtype=np.float32)
    keep = sorted(np.argsort(-scores)[:count].tolist())
    return [sentences[i] for i in keep]


async def arank_sentences(text: str, focus: str, encode: Encode, count: int, *, facts: bool = False) -> list[str]:
    return await asyncio.to_thread(rank_sentences, text, focus, encode, count, facts=facts)
