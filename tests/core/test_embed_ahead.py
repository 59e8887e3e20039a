"""embed_ahead: add_many's vectors computed in a thread ahead of the writes, in order, errors where they belong."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import kioko
from kioko_core.embedding.embedders import AHEAD_CHUNK, AHEAD_FIRST, OfflineEmbedder, embed_ahead, embed_many
from kioko_core.errors import InvalidRecordError

TEXTS = [f"note {i}: the blue heron came back to pond number {i % 7}" for i in range(100)]


class ThreadedOffline:
    """The offline vectors through ``embed_many`` (no ``embed_analysis``, so add_many embeds its batch), callable
    from any thread; records the threads it ran on and refuses one text, to show where an embedder's error
    surfaces."""

    dim = 256
    lexical = True
    thread_safe = True

    def __init__(self, refuse: str | None = None) -> None:
        self.offline = OfflineEmbedder(256)
        self.refuse = refuse
        self.threads: set[int] = set()
        self.embedded = 0

    def embed(self, text: str) -> np.ndarray:
        return self.embed_many([text])[0]

    def embed_many(self, texts: list[str]) -> list[np.ndarray]:
        self.threads.add(threading.get_ident())
        if self.refuse in texts:
            raise InvalidRecordError(f"refused: {self.refuse}")
        self.embedded += len(texts)
        return [self.offline.embed(text) for text in texts]


def test_vectors_come_in_order_from_another_thread():
    embedder = ThreadedOffline()
    ahead = list(embed_ahead(embedder, TEXTS))
    assert len(ahead) == len(TEXTS)
    for got, want in zip(ahead, embed_many(OfflineEmbedder(256), TEXTS)):
        np.testing.assert_array_equal(got, want)
    assert len(embedder.threads) == 2  # the caller's (the first chunk) and the worker's


def test_an_embedder_not_marked_thread_safe_runs_in_the_callers_thread():
    embedder = ThreadedOffline()
    embedder.thread_safe = False
    assert len(list(embed_ahead(embedder, TEXTS))) == len(TEXTS)
    assert embedder.threads == {threading.get_ident()}


def test_an_error_in_the_first_chunk_is_raised_before_anything_is_written():
    layer = kioko.connect("memory://", embedder=ThreadedOffline(refuse=TEXTS[3]))
    with pytest.raises(InvalidRecordError, match="refused"):
        layer.add_many(TEXTS, user_id="u")
    assert list(layer.memories(user_id="u")) == []


def test_an_error_in_a_later_chunk_is_raised_at_its_place():
    position = AHEAD_FIRST + 40
    vectors = embed_ahead(ThreadedOffline(refuse=TEXTS[position]), TEXTS)
    received = 0
    with pytest.raises(InvalidRecordError, match="refused"):
        for _ in vectors:
            received += 1
    # the worker's chunk holding the refused text never arrives: everything before that chunk did
    assert AHEAD_FIRST <= received <= position


def test_add_many_with_an_embedder_ahead_stores_what_add_would():
    embedder = ThreadedOffline()
    batched = kioko.connect("memory://", embedder=embedder, auto_link=True)
    one_by_one = kioko.connect("memory://", embedder=ThreadedOffline(), auto_link=True)
    stored = batched.add_many(TEXTS[:40], user_id="u")
    singles = [one_by_one.add(text, user_id="u") for text in TEXTS[:40]]
    assert [r.content for r in stored] == TEXTS[:40]
    for a, b in zip(stored, singles):
        np.testing.assert_array_equal(np.asarray(a.embedding), np.asarray(b.embedding))
    assert len(embedder.threads) == 2


def test_dropping_the_iterator_stops_the_worker():
    embedder = ThreadedOffline()
    # the worker's first chunk is held until the caller has dropped the iterator, so what follows does not
    # depend on how fast either thread ran: that chunk finishes, and the worker asks for no other
    held = threading.Event()
    plain = embedder.embed_many

    def gated(texts: list[str]) -> list[np.ndarray]:
        if threading.current_thread().name == "kioko-embed":
            assert held.wait(timeout=60), "the test never released the worker"
        return plain(texts)

    embedder.embed_many = gated  # type: ignore[method-assign]
    texts = TEXTS * 40
    vectors = embed_ahead(embedder, texts)
    next(vectors)
    del vectors
    held.set()
    worker = [t for t in threading.enumerate() if t.name == "kioko-embed"]
    for thread in worker:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in worker)
    assert embedder.embedded == AHEAD_FIRST + AHEAD_CHUNK, embedder.embedded
