"""The order in which an index build encodes passages (longest first), and what each costs the encoder, so
that the progress's time left is the work left over the recent speed in work (util/progress.py).

A passage costs its batch's padded length L (at most 256 tokens, 4.7 characters a token): the int8 encoder's
CPU time per passage fits L + L²/200 on the built-in corpus."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import Document
from factdebate.embeddings.onnx import MAX_TOKENS

CHARS_PER_TOKEN = 4.7
QUADRATIC = 1 / 200  # attention: tokens² over this, in tokens' worth


def size(doc: Document) -> int:
    return len(doc.title) + len(doc.text)


def encoding_order(chunks: Sequence[Document]) -> list[Document]:
    """Longest first: batches of like length pad less (about twice the throughput of corpus order)."""
    return sorted(chunks, key=size, reverse=True)


def encoding_costs(chunks: Sequence[Document], batch_size: int) -> list[float]:
    """Each passage's share of the encoder's work, in :func:`encoding_order`'s order."""
    ordered = encoding_order(chunks)
    costs: list[float] = []
    for start in range(0, len(ordered), batch_size):
        batch = ordered[start:start + batch_size]
        tokens = min(MAX_TOKENS, max(size(d) for d in batch) / CHARS_PER_TOKEN + 2)  # [CLS] and [SEP]
        costs += [tokens + tokens * tokens * QUADRATIC] * len(batch)
    return costs
