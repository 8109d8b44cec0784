"""Sentence embeddings: MiniLM on torch (``minilm``) and its int8 twin on ONNX Runtime (``onnx``), asked through
:class:`TextEncoder`; :func:`get_embedder` is the process-wide one of a kind."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np  # annotations only: a command that never encodes does not pay numpy's import (80 ms)

    from factdebate.embeddings.minilm import Embedder


class TextEncoder(Protocol):
    async def aencode(self, texts: list[str]) -> np.ndarray: ...


_defaults: dict[str, Embedder] = {}
_default_lock = threading.Lock()


def get_embedder(kind: str) -> Embedder:
    """The process-wide embedder of a kind (``retrieval.encoder``); its model loads on the first encode."""
    from factdebate.embeddings.minilm import ENCODERS, Embedder

    if kind not in ENCODERS:
        raise ConfigError(f"unknown encoder '{kind}'; use one of: {', '.join(ENCODERS)}")
    with _default_lock:
        if kind not in _defaults:
            if kind == "int8":
                from factdebate.embeddings.onnx import OnnxInt8Embedder

                _defaults[kind] = OnnxInt8Embedder()
            else:
                _defaults[kind] = Embedder()
        return _defaults[kind]
