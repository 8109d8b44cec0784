"""MiniLM with int8 weights on ONNX Runtime: the same model as :mod:`factdebate.embeddings.minilm`, 2-2.5x faster
on a CPU (quality checked in benchmarks/decisions/encoders.py).

The ONNX file is made once from the shipped weights (:mod:`factdebate.embeddings.onnx_graph`, then int8) into
``<data dir>/models``, pooling and normalisation included."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from factdebate.core.runtime import model_loading
from factdebate.embeddings.minilm import MODEL_LOAD_LOCK, Embedder, model_path
from factdebate.util.errors import MissingDependencyError
from factdebate.util.paths import data_dir

ONNX_FILE = "all-MiniLM-L6-v2.int8.onnx"
MAX_TOKENS = 256  # what sentence-transformers uses for this model
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


def onnx_model_path() -> Path:
    return data_dir() / "models" / ONNX_FILE


def _export(target: Path) -> None:
    """The float graph written from the shipped weights, then int8, under a temporary name, then moved."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise MissingDependencyError("onnx", "retrieval") from exc

    from factdebate.embeddings.onnx_graph import build_bert_graph

    graph = build_bert_graph(model_path())
    target.parent.mkdir(parents=True, exist_ok=True)
    float_file = target.with_suffix(f".{os.getpid()}.float.onnx")
    int8_file = target.with_suffix(f".{os.getpid()}.tmp.onnx")
    root = logging.getLogger()
    level = root.level
    try:
        onnx.save(graph, str(float_file))
        # the quantiser logs advice through the root logger
        root.setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            quantize_dynamic(str(float_file), str(int8_file), weight_type=QuantType.QInt8)
        os.replace(int8_file, target)
    finally:
        root.setLevel(level)
        float_file.unlink(missing_ok=True)
        int8_file.unlink(missing_ok=True)


def ensure_onnx_model() -> Path:
    """The int8 model file, exported first if this data folder has none."""
    path = onnx_model_path()
    with MODEL_LOAD_LOCK, _export_lock:  # one export at a time
        if not path.is_file():
            _export(path)
    return path


# The most rows one ONNX run encodes (see encode).
RUN_ROWS = 16

class OnnxInt8Embedder(Embedder):
    """Drop-in :class:`Embedder` on ONNX Runtime (vectors about 0.96 cosine to the float model's)."""

    name = "all-MiniLM-L6-v2-int8"
    kind = "int8"

    def __init__(self, threads: int | None = None) -> None:
        super().__init__()
        # ONNX Runtime sizes its thread pool to the machine's cores; several index workers on one machine
        # would each take them all. A worker passes the CPUs it reserved.
        self.threads = threads

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is not None:
                return self._model
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                import onnxruntime as ort
            except ImportError as exc:
                raise MissingDependencyError("onnxruntime", "retrieval") from exc
            with model_loading("sentence encoder", self.name):
                with MODEL_LOAD_LOCK:
                    path = ensure_onnx_model()
                    tokenizer = _tokenizer()
                options = ort.SessionOptions()
                options.log_severity_level = 3  # its warnings about unused initialisers are noise here
                # Its idle pool threads spin by default: where other processes hold the cores (a batch, the
                # test suite) that cost 6.1 CPU-s for what takes 5.2 without, and was no faster
                # (docs/performance.md, "The budget").
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                if self.threads:
                    options.intra_op_num_threads = self.threads
                session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            self._model = (tokenizer, session)
            return self._model

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer, session = self._load()
        out: list[np.ndarray] = []
        # At most RUN_ROWS rows a run, whatever the caller's batch: each run pads to its longest text, so smaller
        # runs pad less (384 built-in passages: 68 CPU-s in runs of 16, 78 in runs of 64), and Ctrl-C or a stop,
        # which Python sees only between runs, lands a quarter as late in a niced background build.
        step = max(1, min(batch_size, RUN_ROWS))
        with self._encode_lock:
            for start in range(0, len(texts), step):
                encoded = tokenizer.encode_batch(texts[start : start + step])
                feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                        "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                        "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
                out.append(session.run(None, feed)[0])
        return np.asarray(np.vstack(out), dtype=np.float32)


def _tokenizer() -> Any:
    """The model's own fast tokenizer from ``tokenizer.json``, padded per batch and cut at 256 tokens."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise MissingDependencyError("tokenizers", "retrieval") from exc

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]"), pad_token="[PAD]")
    return tokenizer
