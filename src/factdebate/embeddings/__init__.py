"""Sentence embeddings: MiniLM (``minilm``, float weights on torch) and its int8 twin on ONNX Runtime
(``onnx``); :class:`TextEncoder` is what the rest of the package asks of either."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class TextEncoder(Protocol):
    async def aencode(self, texts: list[str]) -> np.ndarray: ...
