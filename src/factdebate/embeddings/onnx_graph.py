"""MiniLM's float ONNX graph written directly from the shipped ``model.safetensors``, without torch.

Written op by op, it keeps torch off the default install: a BERT encoder, then mean pooling and L2
normalisation as sentence-transformers adds them; its vectors match torch's to about 1e-6 (tests/embeddings)."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
OPSET = 17  # LayerNormalization is an ONNX op from 17 on
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file as a numpy array."""
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    body = memoryview(raw)[8 + size :]
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if spec["dtype"] not in _DTYPES:
            raise ValueError(f"{path}: tensor {name} has dtype {spec['dtype']}, which this reader does not know")
        start, end = spec["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<"))
        tensors[name] = array.reshape(spec["shape"]).astype(_DTYPES[spec["dtype"]])
    return tensors


def build_bert_graph(model_dir: Path) -> Any:
    """The sentence-embedding graph for the BERT model in ``model_dir``: int64 ``input_ids``,
    ``attention_mask``, ``token_type_ids`` in, float32 ``embedding`` out."""
    from onnx import TensorProto, helper, numpy_helper

    config = json.loads((model_dir / "config.json").read_text())
    if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"{model_dir}: expected a BERT model with GELU, got {config.get('model_type')!r}")
    weights = read_safetensors(model_dir / "model.safetensors")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_dim = hidden // heads
    eps = float(config.get("layer_norm_eps", 1e-12))

    nodes: list[Any] = []
    inits: list[Any] = []
    counter = iter(range(1_000_000))

    def const(value: Any, name: str | None = None) -> str:
        label = name or f"c{next(counter)}"
        inits.append(numpy_helper.from_array(np.asarray(value), label))
        return label

    def op(kind: str, *inputs: str, **attrs: Any) -> str:
        out = f"{kind.lower()}{next(counter)}"
        nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def weight(name: str, transpose: bool = False) -> str:
        value = weights[name]
        return const(np.ascontiguousarray(value.T if transpose else value), name + (".T" if transpose else ""))

    def linear(x: str, prefix: str) -> str:
        # MatMul on a constant weight: the op dynamic int8 quantisation rewrites
        return op("Add", weight(prefix + ".bias"), op("MatMul", x, weight(prefix + ".weight", transpose=True)))

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", x, weight(prefix + ".weight"), weight(prefix + ".bias"),
                  axis=-1, epsilon=eps)

    # embeddings: word + position (the first T rows) + token type, then a layer norm
    # (positions looked up with a Gather, as torch's export does: the int8 pass quantises every embedding table
    # a Gather reads, so this keeps the quantised model's vectors the ones the torch-exported file gave)
    tokens = op("Gather", op("Shape", "input_ids"), const(np.array(1, dtype=np.int64)), axis=0)
    position_ids = op("Range", const(np.array(0, dtype=np.int64)), tokens, const(np.array(1, dtype=np.int64)))
    positions = op("Gather", weight("embeddings.position_embeddings.weight"), position_ids)
    x = op("Add", op("Add", op("Gather", weight("embeddings.word_embeddings.weight"), "input_ids"),
                     op("Gather", weight("embeddings.token_type_embeddings.weight"), "token_type_ids")), positions)
    x = layer_norm(x, "embeddings.LayerNorm")

    # additive attention mask, batch x 1 x 1 x tokens: 0 at a real token, -inf at padding (as torch's export;
    # a row that attends to nothing would be NaN after the softmax, and is set to 0 below, as there)
    mask = op("Cast", "attention_mask", to=TensorProto.FLOAT)
    zero = const(np.array(0.0, dtype=np.float32))
    blocked = op("Where", op("Cast", op("Unsqueeze", mask, const(np.array([1, 2], dtype=np.int64))),
                             to=TensorProto.BOOL), zero, const(np.array(-np.inf, dtype=np.float32)))
    split_heads = const(np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = const(np.array([0, 0, hidden], dtype=np.int64))
    # queries and keys each scaled by the square root of 1/sqrt(head_dim), as torch's attention export does
    # (the same float rounding, so the same int8 vectors as the file torch exported before)
    scale = const(np.array(math.sqrt(1.0 / math.sqrt(head_dim)), dtype=np.float32))
    half = const(np.array(0.5, dtype=np.float32))
    one = const(np.array(1.0, dtype=np.float32))
    root2 = const(np.array(math.sqrt(2.0), dtype=np.float32))

    for index in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{index}"
        q = op("Transpose", op("Reshape", linear(x, f"{p}.attention.self.query"), split_heads), perm=[0, 2, 1, 3])
        q = op("Mul", q, scale)
        k = op("Transpose", op("Reshape", linear(x, f"{p}.attention.self.key"), split_heads), perm=[0, 2, 3, 1])
        k = op("Mul", k, scale)
        v = op("Transpose", op("Reshape", linear(x, f"{p}.attention.self.value"), split_heads), perm=[0, 2, 1, 3])
        scores = op("Add", op("MatMul", q, k), blocked)
        probabilities = op("Softmax", scores, axis=-1)
        probabilities = op("Where", op("IsNaN", probabilities), zero, probabilities)
        context = op("MatMul", probabilities, v)
        context = op("Reshape", op("Transpose", context, perm=[0, 2, 1, 3]), merge_heads)
        x = layer_norm(op("Add", linear(context, f"{p}.attention.output.dense"), x), f"{p}.attention.output.LayerNorm")
        inner = linear(x, f"{p}.intermediate.dense")
        inner = op("Mul", op("Mul", inner, op("Add", op("Erf", op("Div", inner, root2)), one)), half)  # exact GELU
        x = layer_norm(op("Add", linear(inner, f"{p}.output.dense"), x), f"{p}.output.LayerNorm")

    # mean over the attended tokens, then unit length (sentence-transformers' Pooling and Normalize)
    weights_3d = op("Unsqueeze", mask, const(np.array([-1], dtype=np.int64)))
    axis1 = const(np.array([1], dtype=np.int64))
    summed = op("ReduceSum", op("Mul", x, weights_3d), axis1, keepdims=0)
    count = op("Max", op("ReduceSum", weights_3d, axis1, keepdims=0), const(np.array(1e-9, dtype=np.float32)))
    pooled = op("Div", summed, count)
    norm = op("Max", op("ReduceL2", pooled, axes=[1], keepdims=1),  # axes: an attribute until opset 18
               const(np.array(1e-12, dtype=np.float32)))
    nodes.append(helper.make_node("Div", [pooled, norm], ["embedding"]))

    graph = helper.make_graph(
        nodes, "minilm_sentence_embedding",
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"]) for name in INPUTS],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="factdebate")
    model.ir_version = 8  # readable by every ONNX Runtime the retrieval extra allows
    return model
