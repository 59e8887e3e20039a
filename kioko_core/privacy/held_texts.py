"""What this process keeps of memories' words outside the store, and the one call that lets it go.

Analysis, embedding and the intelligence keep small caches keyed by a text or a word (a stem, a cue test,
a sentence vector), module-wide so every layer of the process shares them. A forgotten memory must leave
nothing behind (docs/privacy.md), and these caches cannot tell one memory's words from another's: a
forget empties them all. They refill at the cost of a few microseconds a word (a sentence vector: one
embedding), and forgetting is rare next to writing and recalling.

A cache keyed by text registers itself where it is made::

    @keeps_text
    @lru_cache(maxsize=65536)
    def stem(word: str) -> str: ...

``tests/privacy/test_held_texts.py`` fails on a cache of Kioko's modules that neither registers nor says
why its keys are never a memory's words.
"""

from __future__ import annotations

import threading
from typing import Protocol, TypeVar, runtime_checkable


@runtime_checkable
class _LruCache(Protocol):
    def cache_clear(self) -> None: ...


@runtime_checkable
class _Clearable(Protocol):
    def clear(self) -> None: ...


Cache = TypeVar("Cache")

_held: list[object] = []
_lock = threading.Lock()


def keeps_text(cache: Cache) -> Cache:
    """Register ``cache`` (an ``lru_cache`` function or an object with ``clear()``) to be emptied by a forget."""
    if not isinstance(cache, (_LruCache, _Clearable)):
        raise TypeError(f"{cache!r} has neither cache_clear() nor clear()")
    with _lock:
        _held.append(cache)
    return cache


def registered() -> tuple[object, ...]:
    """Every cache that :func:`forget_texts` empties."""
    with _lock:
        return tuple(_held)


def forget_texts() -> None:
    """Empty every registered cache: called after a memory, a triple or a user is forgotten."""
    for cache in registered():
        if isinstance(cache, _LruCache):
            cache.cache_clear()
        else:
            cache.clear()  # type: ignore[attr-defined]
