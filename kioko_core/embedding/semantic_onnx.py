"""all-MiniLM-L6-v2 on ONNX Runtime: the same weights as :mod:`kioko_core.embedding.semantic`, as a graph built in memory.

No ONNX file ships or is downloaded: the graph is written (:mod:`kioko_core.embedding.onnx_proto`) from the weights
:func:`kioko_core.embedding.semantic.shared_model` already read out of the model package, and handed to ONNX Runtime as
bytes; the first process keeps it beside the prepared weights in the user's cache
(:mod:`kioko_core.embedding.semantic_cache`), so the next ones read it from there. The embedding layer runs in numpy
before the graph (its 47 MB word table stays out of it); the graph holds the 6 transformer layers and the pooling. Two precisions:

- ``"onnx"`` (the default runtime): the graph in float32, within 3.3e-7 of the numpy forward pass on the
  CPU measured (``benchmarks/embedder_spread.py``).
- ``"onnx-int8"``: the 24 dense layers (query/key/value, attention output, the two feed-forward ones) run
  as int8 matmuls: weights quantised once, per output column, symmetric, to 7 bits (:data:`WEIGHT_BITS`);
  each activation quantised on the fly (``DynamicQuantizeMatMul``). Attention, layer norms, GELU and
  pooling stay in float32. About twice as fast as float32 on one core; vectors are within cosine ~0.99 of
  the float32 ones (benchmarks/semantic_latency.py; recall on LoCoMo: docs/recall.md).

A text is run alone (a batch of one): an activation's quantisation scale is taken over the whole batch, so
in a batch a text's int8 vector would depend on its neighbours; alone it does not, and no padding is paid.
Batching does not pay here anyway: the matmuls are compute-bound at one text (~0.2 GFLOP per 10 tokens).

``onnxruntime`` is imported lazily (``kioko[semantic]``); missing, it raises
:class:`~kioko_core.errors.MissingExtraError`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from kioko_core.embedding import onnx_proto as proto
from kioko_core.errors import MissingExtraError


def onnxruntime_loadable() -> bool:
    """False when usearch (``kioko[ann]``) was loaded before ONNX Runtime in this process.

    Both are pybind11 extensions built apart; ONNX Runtime loaded after usearch crashes the interpreter (a
    segmentation fault, reproduced with the two imports alone). Kioko's own HNSW graph loads ONNX Runtime
    first (``kioko_backends._ann.load_usearch``), so this is only a process that imported usearch first itself.
    """
    return "onnxruntime" in sys.modules or "usearch.compiled" not in sys.modules


class TransformerWeights(Protocol):
    """What the graph is written from (:class:`kioko_core.embedding.semantic.MiniLMModel` has it)."""

    @property
    def dim(self) -> int: ...
    @property
    def heads(self) -> int: ...
    @property
    def eps(self) -> float: ...
    @property
    def layers(self) -> Sequence[Any]: ...


OPSET = 17
"""LayerNormalization is a standard op from opset 17; the fused ones come from ONNX Runtime's own domain."""
MS_DOMAIN = "com.microsoft"


WEIGHT_BITS = 7
"""int8 weights are kept to -63..63 (ONNX Runtime's ``reduce_range``) on every CPU. x86 without VNNI (AVX2 alone)
multiplies uint8 activations by int8 weights in 16-bit pairs, which 8-bit weights can saturate and 7-bit ones
cannot; the integer products then add up exactly on every instruction set. Choosing 8 bits where the CPU had
VNNI made the int8 graph itself differ between machines (#38: cosine 0.967 against float32 on an AVX2 host,
0.974 on an AVX-512 one, for the same text; ``benchmarks/embedder_spread.py``)."""


def quantize_columns(weight: np.ndarray, bits: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """int8 weights and float32 scales, per output column, symmetric (zero point 0)."""
    top = float(2 ** (bits - 1) - 1)
    scale = np.abs(weight).max(axis=0) / top
    scale = np.where(scale == 0.0, 1.0, scale).astype(np.float32)
    quantized = np.clip(np.rint(weight / scale), -top, top).astype(np.int8)
    return quantized, scale


class _GraphWriter:
    """Collects nodes and initialisers; every intermediate gets a fresh name."""

    def __init__(self) -> None:
        self.nodes: list[proto.Node] = []
        self.initializers: list[bytes] = []
        self._count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(proto.tensor(name, value))
        return name

    def op(self, kind: str, inputs: list[str], outputs: int = 1, domain: str = "", **attrs: Any) -> list[str]:
        self._count += 1
        names = [f"{kind.lower()}_{self._count}_{i}" for i in range(outputs)]
        self.nodes.append(proto.Node(kind, inputs, names, domain, attrs))
        return names

    def one(self, kind: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        return self.op(kind, inputs, 1, domain, **attrs)[0]


def build_graph(model: TransformerWeights, *, quantize: bool, weight_bits: int = 8) -> bytes:
    """The serialised ONNX model of the 6 transformer layers and the pooling.

    Inputs: ``embedded`` float32 (batch, length, 384), the embedding layer's output
    (:func:`kioko_core.embedding.semantic.embed_tokens`),
    and ``attention_mask`` int64 (batch, length). Output: ``embedding``, unit vectors (batch, 384).
    """
    g = _GraphWriter()
    hidden = model.dim

    def dense(x: str, weight: np.ndarray, bias: np.ndarray | None, name: str) -> str:
        """x @ weight (+ bias); int8 when quantising."""
        if quantize:
            q, scale = quantize_columns(weight, weight_bits)
            inputs = [x, g.const(name + ".q", q), g.const(name + ".scale", scale)]
            inputs.append(g.const(name + ".zero", np.zeros(weight.shape[1], dtype=np.int8)))
            if bias is not None:
                inputs.append(g.const(name + ".bias", bias))
            return g.one("DynamicQuantizeMatMul", inputs, domain=MS_DOMAIN)
        out = g.one("MatMul", [x, g.const(name + ".w", weight)])
        return out if bias is None else g.one("Add", [out, g.const(name + ".bias", bias)])

    # the input is the embedding layer's output (see OnnxEncoder): the 47 MB word table stays in numpy, out
    # of the graph, so building and loading the graph stay quick
    x = "embedded"
    mask32 = g.one("Cast", ["attention_mask"], to=proto.INT32)
    split = g.const("qkv.split", np.array([hidden, hidden, hidden], np.int64))
    for i, layer in enumerate(model.layers):
        p = f"layer{i}."
        qkv = dense(x, layer.qkv_w, layer.qkv_b, p + "qkv")
        q, k, v = g.op("Split", [qkv, split], 3, axis=-1)
        # padded keys are masked out (key_padding_mask: 1 real, 0 padding)
        attended = g.one("MultiHeadAttention", [q, k, v, "", mask32], domain=MS_DOMAIN, num_heads=model.heads)
        out = dense(attended, layer.out_w, None, p + "out")
        # SkipLayerNormalization(a, skip, gain, bias_ln, bias) = LayerNorm(a + skip + bias)
        x1 = g.one(
            "SkipLayerNormalization",
            [
                out,
                x,
                g.const(p + "ln1.g", layer.ln1_g),
                g.const(p + "ln1.b", layer.ln1_b),
                g.const(p + "out.b", layer.out_b),
            ],
            domain=MS_DOMAIN,
            epsilon=model.eps,
        )
        inner = g.one(
            "BiasGelu", [dense(x1, layer.up_w, None, p + "up"), g.const(p + "up.b", layer.up_b)], domain=MS_DOMAIN
        )
        x = g.one(
            "SkipLayerNormalization",
            [
                dense(inner, layer.down_w, None, p + "down"),
                x1,
                g.const(p + "ln2.g", layer.ln2_g),
                g.const(p + "ln2.b", layer.ln2_b),
                g.const(p + "down.b", layer.down_b),
            ],
            domain=MS_DOMAIN,
            epsilon=model.eps,
        )
    # mean over the real tokens, then unit length (as kioko_core.embedding.semantic.encode)
    weights = g.one(
        "Unsqueeze", [g.one("Cast", ["attention_mask"], to=proto.FLOAT), g.const("axis2", np.array([2], np.int64))]
    )
    token_axis = g.const("axis1", np.array([1], np.int64))
    summed = g.one("ReduceSum", [g.one("Mul", [x, weights]), token_axis], keepdims=0)
    count = g.one(
        "Max", [g.one("ReduceSum", [weights, token_axis], keepdims=0), g.const("tiny", np.array(1e-9, np.float32))]
    )
    pooled = g.one("Div", [summed, count])
    norm = g.one(
        "Max", [g.one("ReduceL2", [pooled], axes=[-1], keepdims=1), g.const("tiny_norm", np.array(1e-12, np.float32))]
    )
    g.nodes.append(proto.Node("Div", [pooled, norm], ["embedding"]))
    return proto.model(
        name="all-MiniLM-L6-v2",
        nodes=g.nodes,
        initializers=g.initializers,
        inputs=[
            proto.value_info("embedded", proto.FLOAT, ["batch", "length", hidden]),
            proto.value_info("attention_mask", proto.INT64, ["batch", "length"]),
        ],
        outputs=[proto.value_info("embedding", proto.FLOAT, ["batch", hidden])],
        opsets={"": OPSET, MS_DOMAIN: 1},
    )


def _missing(error: ImportError) -> MissingExtraError:
    return MissingExtraError(
        f"the semantic embedder's ONNX runtime is not installed ({error.name}): "
        "pip install 'kioko[semantic]', or MiniLMEmbedder(runtime='numpy')"
    )


class OnnxEncoder:
    """Runs the graph: ``encoder(embedded, mask)`` -> unit vectors, like :func:`kioko_core.embedding.semantic.encode`.

    One ONNX Runtime session on ``threads`` intra-op threads (1 by default: one text's matmuls are too
    small to share, and on a busy machine extra threads wait on each other), without spin-waiting, so an
    idle encoder takes no CPU. ``session.run`` is safe from several threads at once.
    """

    def __init__(self, model: TransformerWeights, *, quantize: bool = True, threads: int = 1) -> None:
        if not onnxruntime_loadable():
            raise MissingExtraError(
                "ONNX Runtime cannot be loaded after usearch in one process (the interpreter would crash): "
                "import onnxruntime first, or use MiniLMEmbedder(runtime='numpy')"
            )
        try:
            import onnxruntime
        except ImportError as error:
            raise _missing(error) from error
        self.quantize = quantize
        self.weight_bits = WEIGHT_BITS
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # warnings about unused initialisers are noise
        # the graph is kept beside the prepared weights (:mod:`kioko_core.embedding.semantic_cache`), when they were kept
        from kioko_core.embedding.semantic_cache import cached_file

        name = f"graph-{'int8' if quantize else 'float32'}-{self.weight_bits}bit.onnx"
        blob = cached_file(
            getattr(model, "prepared", None),
            name,
            lambda: build_graph(model, quantize=quantize, weight_bits=self.weight_bits),
        )
        self._session = onnxruntime.InferenceSession(blob, options, providers=["CPUExecutionProvider"])

    def __call__(self, embedded: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feeds = {"embedded": embedded, "attention_mask": mask}
        out: np.ndarray = self._session.run(["embedding"], feeds)[0]
        return out


_encoders: dict[tuple[bool, int], OnnxEncoder] = {}
_encoders_lock = threading.Lock()


def shared_encoder(model: TransformerWeights, *, quantize: bool, threads: int = 1) -> OnnxEncoder:
    """The process's encoder for a precision and thread count (built on first use, once)."""
    key = (quantize, threads)
    encoder = _encoders.get(key)
    if encoder is None:
        with _encoders_lock:
            encoder = _encoders.get(key)
            if encoder is None:
                encoder = _encoders[key] = OnnxEncoder(model, quantize=quantize, threads=threads)
    return encoder
