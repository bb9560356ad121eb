"""Assemble a BERT sentence encoder as an ONNX graph from its weights.

The graph takes ``word_vectors`` (float32, ``[batch, seq, hidden]``: each token's row of the word
embedding table), ``attention_mask`` and ``token_type_ids`` (int64, ``[batch, seq]``) and
returns ``sentence_embedding`` (float32, ``[batch, hidden]``): the BERT encoder, mean pooling
over the attention mask, then L2 normalisation, as sentence-transformers computes it for
all-MiniLM-L6-v2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import onnx

OPSET = 17  # LayerNormalization needs 17
WORD_VECTORS = "word_vectors"
"""The input holding each token's word embedding."""
WORD_TABLE = "embeddings.word_embeddings.weight"
"""The word embedding table's name in the weights (``bert.`` may prefix it)."""
IR_VERSION = 8


@dataclass(frozen=True)
class BertConfig:
    """The few hyper-parameters the graph needs (from a Hugging Face ``config.json``)."""

    hidden_size: int
    num_layers: int
    num_heads: int
    layer_norm_eps: float

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BertConfig:
        if data.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported hidden_act {data['hidden_act']!r}; expected 'gelu'")
        if data.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        return cls(
            hidden_size=int(data["hidden_size"]),
            num_layers=int(data["num_hidden_layers"]),
            num_heads=int(data["num_attention_heads"]),
            layer_norm_eps=float(data.get("layer_norm_eps", 1e-12)),
        )


class _Builder:
    """Collects nodes and initializers; each ``op`` call returns its output name."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(value, name=name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        from onnx import helper

        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out


@dataclass(frozen=True)
class Int4Linear:
    """A linear layer's weight in onnxruntime's ``MatMulNBits`` layout: 4-bit, blocks of 32
    along the input, zero point 8 (ggml's Q4_0, repacked)."""

    packed: np.ndarray
    """uint8 ``[out, in / 32, 16]``: byte ``i`` of a block holds weights ``2i`` (low nibble)
    and ``2i + 1`` (high)."""
    scales: np.ndarray
    """float32 ``[out * in / 32]``."""


def build_bert_graph(
    weights: Mapping[str, np.ndarray],
    config: BertConfig,
    int4: Mapping[str, Int4Linear] | None = None,
) -> onnx.ModelProto:
    """Return the ONNX model of the sentence encoder described by ``weights`` and ``config``.

    A linear layer named in ``int4`` (by its prefix, ``encoder.layer.0.attention.self.query``)
    multiplies with its 4-bit weights in onnxruntime's ``MatMulNBits`` (int8 activations),
    the others in float32."""
    import numpy as np
    from onnx import TensorProto, helper

    def w(name: str) -> np.ndarray:
        key = name if name in weights else f"bert.{name}"
        return np.ascontiguousarray(weights[key], dtype=np.float32)

    h, heads = config.hidden_size, config.num_heads
    head_dim = h // heads
    g = _Builder()
    f32 = np.float32
    i64 = np.int64

    def linear(x: str, prefix: str) -> str:
        bias = g.const(f"{prefix}.bias", w(f"{prefix}.bias"))
        if int4 and prefix in int4:
            q = int4[prefix]
            n, blocks, _ = q.packed.shape
            product = g.op(
                "MatMulNBits",
                x,
                g.const(f"{prefix}.weight_q4", q.packed),
                g.const(f"{prefix}.scales", q.scales),
                domain="com.microsoft",
                K=blocks * 32,
                N=n,
                bits=4,
                block_size=32,
                accuracy_level=4,
            )
            return g.op("Add", product, bias)
        wt = g.const(f"{prefix}.weight_t", np.ascontiguousarray(w(f"{prefix}.weight").T))
        return g.op("Add", g.op("MatMul", x, wt), bias)

    def layer_norm(x: str, prefix: str) -> str:
        gamma = g.const(f"{prefix}.weight", w(f"{prefix}.weight"))
        beta = g.const(f"{prefix}.bias", w(f"{prefix}.bias"))
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=config.layer_norm_eps)

    # Shared constants.
    c_split_heads = g.const("c_split_heads", np.array([0, 0, heads, head_dim], dtype=i64))
    c_merge_heads = g.const("c_merge_heads", np.array([0, 0, h], dtype=i64))
    c_sqrt_d = g.const("c_sqrt_d", np.array(math.sqrt(head_dim), dtype=f32))
    c_half = g.const("c_half", np.array(0.5, dtype=f32))
    c_one = g.const("c_one", np.array(1.0, dtype=f32))
    c_sqrt2 = g.const("c_sqrt2", np.array(math.sqrt(2.0), dtype=f32))
    c_min = g.const("c_min", np.array(np.finfo(np.float32).min, dtype=f32))
    c_axes_12 = g.const("c_axes_12", np.array([1, 2], dtype=i64))
    c_axis_1 = g.const("c_axis_1", np.array([1], dtype=i64))
    c_axis_2 = g.const("c_axis_2", np.array([2], dtype=i64))

    # Embeddings: word + position + token type, then LayerNorm. The word vectors come in as an
    # input, looked up by the embedder in the weights file (see `minilm.WordTable`): as a float32
    # initializer the 30,522-word table was half the graph, 47 MB resident for as long as the
    # model is loaded.
    word = WORD_VECTORS
    ttype = g.op(
        "Gather",
        g.const("token_type_embeddings", w("embeddings.token_type_embeddings.weight")),
        "token_type_ids",
    )
    seq_len = g.op(
        "Gather", g.op("Shape", "attention_mask"), g.const("c_idx1", np.array(1, dtype=i64))
    )
    pos_ids = g.op(
        "Range",
        g.const("c_zero_i", np.array(0, dtype=i64)),
        seq_len,
        g.const("c_one_i", np.array(1, dtype=i64)),
    )
    pos = g.op(
        "Gather",
        g.const("position_embeddings", w("embeddings.position_embeddings.weight")),
        pos_ids,
    )
    x = layer_norm(g.op("Add", g.op("Add", word, ttype), pos), "embeddings.LayerNorm")

    # Additive attention bias, [batch, 1, 1, seq]: 0 where attended, float32 min on padding.
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    bias = g.op("Unsqueeze", g.op("Mul", g.op("Sub", c_one, mask), c_min), c_axes_12)

    for i in range(config.num_layers):
        p = f"encoder.layer.{i}"
        q = g.op(
            "Transpose",
            g.op("Reshape", linear(x, f"{p}.attention.self.query"), c_split_heads),
            perm=[0, 2, 1, 3],
        )
        k_t = g.op(
            "Transpose",
            g.op("Reshape", linear(x, f"{p}.attention.self.key"), c_split_heads),
            perm=[0, 2, 3, 1],
        )
        v = g.op(
            "Transpose",
            g.op("Reshape", linear(x, f"{p}.attention.self.value"), c_split_heads),
            perm=[0, 2, 1, 3],
        )
        scores = g.op("Add", g.op("Div", g.op("MatMul", q, k_t), c_sqrt_d), bias)
        probs = g.op("Softmax", scores, axis=-1)
        ctx = g.op(
            "Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]), c_merge_heads
        )
        attn = linear(ctx, f"{p}.attention.output.dense")
        x1 = layer_norm(g.op("Add", attn, x), f"{p}.attention.output.LayerNorm")
        inter = linear(x1, f"{p}.intermediate.dense")
        # GELU, erf form: x * 0.5 * (1 + erf(x / sqrt(2)))
        gelu = g.op(
            "Mul",
            g.op("Mul", inter, c_half),
            g.op("Add", c_one, g.op("Erf", g.op("Div", inter, c_sqrt2))),
        )
        out = linear(gelu, f"{p}.output.dense")
        x = layer_norm(g.op("Add", out, x1), f"{p}.output.LayerNorm")

    # Mean pooling over attended tokens, then L2 normalisation.
    mask3 = g.op("Unsqueeze", mask, c_axis_2)
    summed = g.op("ReduceSum", g.op("Mul", x, mask3), c_axis_1, keepdims=0)
    count = g.op(
        "Max",
        g.op("ReduceSum", mask3, c_axis_1, keepdims=0),
        g.const("c_count_eps", np.array(1e-9, dtype=f32)),
    )
    mean = g.op("Div", summed, count)
    norm = g.op("Sqrt", g.op("ReduceSum", g.op("Mul", mean, mean), c_axis_1, keepdims=1))
    norm = g.op("Max", norm, g.const("c_norm_eps", np.array(1e-12, dtype=f32)))
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"]))

    dims = ["batch", "seq"]
    inputs = [
        helper.make_tensor_value_info(WORD_VECTORS, TensorProto.FLOAT, [*dims, h]),
        *(
            helper.make_tensor_value_info(n, TensorProto.INT64, dims)
            for n in ("attention_mask", "token_type_ids")
        ),
    ]
    outputs = [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", h])]
    graph = helper.make_graph(g.nodes, "bert_sentence_encoder", inputs, outputs, g.inits)
    opsets = [helper.make_opsetid("", OPSET)]
    if int4:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="ragmeter")
    model.ir_version = IR_VERSION
    return model
