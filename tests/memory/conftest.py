"""A tiny deterministic encoder so memory tests need no embedding model."""

from __future__ import annotations

import hashlib
import re

import numpy as np

_WORD = re.compile(r"\w+")


def words_encode(texts: list[str]) -> np.ndarray:
    """Bag of words hashed to 256 dimensions, unit length: shared words raise the cosine."""
    out = np.zeros((len(texts), 256), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in set(_WORD.findall(text.lower())):
            out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] = 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms
