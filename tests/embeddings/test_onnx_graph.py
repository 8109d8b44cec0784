"""The int8 encoder's model is made without torch (the default install has no torch): its
float graph is written from the shipped safetensors weights, op by op, and then quantised.

The second test loads torch to compare the graph with the float model (about 12 s at load 7): the one check
that the hand-written graph computes what the model does; it is marked slow like the other real-model tests."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.readiness import run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                                reason="needs onnxruntime (extra 'retrieval')")

EXPORT_WITHOUT_TORCH = """
import json, sys
for name in ("torch", "transformers", "sentence_transformers"):
    sys.modules[name] = None  # importing any of them now raises ImportError
from factdebate.embeddings.onnx import OnnxInt8Embedder, onnx_model_path
vectors = OnnxInt8Embedder().encode(["Paris is the capital of France.", "France's capital city is Paris.",
                                     "Bananas are yellow when ripe."])
print(json.dumps({"file": str(onnx_model_path()), "vectors": vectors.tolist()}))
"""


def test_the_int8_model_is_exported_and_run_with_torch_unimportable(tmp_path: Path) -> None:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    done = run([sys.executable, "-c", EXPORT_WITHOUT_TORCH], env=env, what="the int8 export without torch")
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(found["file"]).is_file() and Path(found["file"]).is_relative_to(tmp_path)
    vectors = np.array(found["vectors"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    paraphrase, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert paraphrase > 0.8 and unrelated < 0.3, (paraphrase, unrelated)


@pytest.mark.slow
def test_the_float_graph_gives_the_torch_models_vectors() -> None:
    pytest.importorskip("sentence_transformers")
    import onnxruntime as ort

    from factdebate.embeddings.minilm import Embedder, model_path
    from factdebate.embeddings.onnx import _tokenizer
    from factdebate.embeddings.onnx_graph import build_bert_graph

    texts = ["a", "The Eiffel Tower is located in Rome.", "a longer sentence about a river, a city and a padded batch"]
    session = ort.InferenceSession(build_bert_graph(model_path()).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    encoded = _tokenizer().encode_batch(texts)
    feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
    ours = session.run(None, feed)[0]
    theirs = Embedder().encode(texts)
    assert np.abs(ours - theirs).max() < 1e-5
