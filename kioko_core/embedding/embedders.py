"""Embedders turn text into unit vectors. The default is offline and lexical: no model, no network."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import queue
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Protocol, runtime_checkable

import numpy as np

from kioko_core.errors import InvalidRecordError
from kioko_core.privacy.held_texts import keeps_text
from kioko_core.reading.analysis import Analysis, analyze


@runtime_checkable
class Embedder(Protocol):
    """Anything with ``dim``, ``lexical`` and ``embed(text) -> float32[dim]`` (unit length) is an embedder."""

    dim: int
    lexical: bool
    """True when similarity is computed from words, so it repeats the share signal (omega = 0.25)."""

    def embed(self, text: str) -> np.ndarray: ...


@keeps_text
@lru_cache(maxsize=131072)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    # the sign bit keeps collisions from always adding up: unrelated texts stay near cosine 0
    return value % dim, 1.0 if (value >> 63) else -1.0


class OfflineEmbedder:
    """Feature hashing of word stems and entity keys into ``dim`` buckets, unit-normalised.

    Two texts are similar when they use the same words: "car" and "automobile" share nothing.
    Deterministic across processes and machines (blake2b, not Python's salted hash).
    """

    lexical = True

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def features(self, text: str) -> list[str]:
        return self.analysis_features(analyze(text))

    @staticmethod
    def analysis_features(analysis: Analysis) -> list[str]:
        """What is hashed: the word stems and the entities the text names by itself (never the names only the
        user's entity graph knows, so a text has one vector whoever writes it)."""
        return analysis.words + ["e:" + key for key in analysis.text_entities]

    def embed(self, text: str) -> np.ndarray:
        return self.embed_analysis(analyze(text))

    def embed_analysis(self, analysis: Analysis) -> np.ndarray:
        """The vector of the text ``analysis`` was made from: a write or a recall that read its text already
        hands its analysis here instead of the text (:mod:`kioko_core.reading.query_and_draft`)."""
        vector = np.zeros(self.dim, dtype=np.float32)
        for feature in self.analysis_features(analysis):
            index, sign = _bucket(feature, self.dim)
            vector[index] += sign
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            # an empty text still needs a valid vector; a fixed bucket keeps it far from real texts
            vector[0] = 1.0
            return vector
        return vector / norm

    def __repr__(self) -> str:
        return f"OfflineEmbedder(dim={self.dim})"


_UNDECLARED = object()


def relates_unshared_words(embedder: object, *, undeclared: bool = False) -> bool:
    """Does ``embedder`` relate two texts that share no word ("car" / "automobile"): a semantic one (``lexical =
    False``), not the lexical :class:`OfflineEmbedder` (whose vectors hash the very words) nor None?

    ``undeclared``: what an object with no ``lexical`` attribute counts as (None included). Recall counts it as
    relating (``undeclared=True``: the dense weight and the fill floor); the intelligence's rules, which ask it
    to relate two statements in other words, as not."""
    lexical = getattr(embedder, "lexical", _UNDECLARED)
    return undeclared if lexical is _UNDECLARED else not lexical


def embed_many(embedder: Embedder, texts: list[str]) -> list[np.ndarray]:
    """Every text's vector, in one batch when the embedder can (``embed_many``), else one by one."""
    batch = getattr(embedder, "embed_many", None)
    if callable(batch):
        return list(batch(texts))
    return [embedder.embed(text) for text in texts]


AHEAD_FIRST = 8
"""Texts embedded before the first write of :func:`embed_ahead` (its errors come before anything is written)."""
AHEAD_CHUNK = 32


def embed_ahead(embedder: Embedder, texts: Sequence[str]) -> Iterator[np.ndarray]:
    """Every text's vector in order, computed in a background thread ahead of the caller's use of them.

    ``add_many`` links each memory as its vector arrives, while the next ones are being embedded: a model
    embedder (ONNX Runtime runs without the interpreter lock) uses one core while the linker uses the
    other. Only for an embedder that says it may be called from another thread (``thread_safe = True``)
    and a batch larger than the first chunk; otherwise one :func:`embed_many` call, as before. The first
    chunk is embedded before this returns, so a missing model or library raises before anything is
    written (an error in a later chunk is raised where its first vector is asked for: the memories before
    it are stored); the worker stops at its next chunk once the caller drops the iterator.
    """
    if len(texts) <= AHEAD_FIRST or not getattr(embedder, "thread_safe", False):
        return iter(embed_many(embedder, list(texts)))
    first = embed_many(embedder, list(texts[:AHEAD_FIRST]))
    return _Ahead(embedder, texts, first)


_Chunk = list[np.ndarray] | BaseException | None


class _Ahead(Iterator[np.ndarray]):
    """The iterator :func:`embed_ahead` returns: chunks handed over by a worker thread through a queue."""

    def __init__(self, embedder: Embedder, texts: Sequence[str], first: list[np.ndarray]) -> None:
        self._ready: deque[np.ndarray] = deque(first)
        self._chunks: queue.SimpleQueue[_Chunk] = queue.SimpleQueue()
        self._stop = threading.Event()
        rest = list(texts[len(first) :])
        # the worker holds the queue and the event, not this iterator: dropping the iterator stops it
        worker = threading.Thread(
            target=_embed_chunks, args=(embedder, rest, self._chunks, self._stop), name="kioko-embed", daemon=True
        )
        worker.start()

    def __next__(self) -> np.ndarray:
        if not self._ready:
            chunk = self._chunks.get()
            if chunk is None:
                raise StopIteration
            if isinstance(chunk, BaseException):
                raise chunk
            self._ready.extend(chunk)
        return self._ready.popleft()

    def __del__(self) -> None:
        self._stop.set()


def _embed_chunks(embedder: Embedder, rest: list[str], out: queue.SimpleQueue[_Chunk], stop: threading.Event) -> None:
    try:
        for start in range(0, len(rest), AHEAD_CHUNK):
            if stop.is_set():
                break
            out.put(embed_many(embedder, rest[start : start + AHEAD_CHUNK]))
    except BaseException as error:  # handed to the caller, raised where it asks for the vector
        out.put(error)
    out.put(None)


EMBEDDER_NAMES = ("offline", "semantic", "minilm")

DEFAULT_SETTING = "KIOKO_EMBEDDER"
"""The environment variable naming the embedder ``kioko.connect()`` uses when none is named."""


def semantic_available() -> bool:
    """True when the semantic embedder can run, and fast: its libraries, the model package and ONNX Runtime
    are installed (``kioko[semantic]`` plus the model package, as ``make`` installs them). Imports nothing."""
    modules = ("tokenizers", "safetensors", "all_minilm_l6_v2", "onnxruntime")
    return all(importlib.util.find_spec(module) is not None for module in modules)


def default_embedder_name() -> str:
    """The embedder ``kioko.connect()`` and ``kioko.intelligent()`` use when none is named:
    ``$KIOKO_EMBEDDER`` (``offline`` or ``semantic``) when set, else ``"semantic"`` when
    :func:`semantic_available`, else ``"offline"``."""
    chosen = os.environ.get(DEFAULT_SETTING, "").strip().lower()
    if chosen:
        if chosen not in EMBEDDER_NAMES:
            raise InvalidRecordError(
                f"{DEFAULT_SETTING}={chosen!r} names no embedder; known: {', '.join(EMBEDDER_NAMES)}"
            )
        return chosen
    return "semantic" if semantic_available() else "offline"


def load_embedder(name: str) -> Embedder:
    """The embedder a name stands for: ``"offline"`` (the lexical default) or ``"semantic"`` (alias
    ``"minilm"``: all-MiniLM-L6-v2 run offline, from the ``kioko[semantic]`` extra)."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key == "offline":
        return OfflineEmbedder()
    if key in ("semantic", "minilm"):
        from kioko_core.embedding.semantic import MiniLMEmbedder  # lazy: its libraries are an extra

        return MiniLMEmbedder()
    raise InvalidRecordError(f"unknown embedder {name!r}; known: {', '.join(EMBEDDER_NAMES)}")
