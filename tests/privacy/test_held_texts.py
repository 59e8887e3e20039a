"""A forget empties every cache of the process keyed by text (kioko_core/privacy/held_texts.py).

Module-wide caches (stems, cue tests, the offline embedder's feature buckets, the router's content words,
reflection's theme candidates, the semantic embedder's sentence vectors) are shared by every layer and
cannot tell one memory's words from another's. The forget drill walks what a layer holds and cannot see
inside an ``lru_cache``; these tests check the caches themselves: every one Kioko defines is registered
(or says why its keys never hold a memory's words), and each forget entry point leaves them all empty.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import kioko
from kioko_core.errors import KiokoError
from kioko_core.privacy import held_texts

_LRU = type(functools.lru_cache(maxsize=1)(lambda: None))

# caches whose keys are never a memory's words: what they are keyed by
NOT_TEXT = {
    "kioko_core.privacy.secrets._screens": "no argument: the detectors' compiled literals",
    "kioko.http.schemas._request_model": "an operation's name from the operations table",
    "kioko_backends.sqlite.statements._select_by_ids": "a count of ids: the SQL statement's shape",
    "kioko_backends.sqlite.statements._select_links": "a count of ids: the SQL statement's shape",
    "kioko_backends.sqlite.statements._terms_df": "a count of terms: the SQL statement's shape",
    "kioko_backends.sqlite.statements._select_states": "a count of ids: the SQL statement's shape",
    "kioko_backends.sqlite.statements._scope_generations": "a count of scopes: the SQL statement's shape",
}


def _modules() -> Iterator[Any]:
    for package in ("kioko_core", "kioko", "kioko_backends"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if info.name.endswith("__main__"):
                continue  # running it would start the CLI
            try:
                yield importlib.import_module(info.name)
            except (ImportError, KiokoError):
                continue  # an optional extra that is not installed: its caches cannot fill either


def _caches() -> dict[str, Any]:
    """Every lru_cache function and every ``*cache*`` object with ``clear()`` at the top of Kioko's modules
    or in their classes."""
    found: dict[str, Any] = {}
    for module in _modules():
        places = [(module.__name__, vars(module))]
        places += [
            (f"{module.__name__}.{v.__name__}", vars(v))
            for v in vars(module).values()
            if isinstance(v, type) and v.__module__ == module.__name__
        ]
        for prefix, names in places:
            for name, value in names.items():
                target = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
                if isinstance(target, _LRU):
                    if getattr(target, "__module__", module.__name__) == module.__name__:
                        found[f"{prefix}.{name}"] = target
                elif (
                    "cache" in name.lower()
                    and callable(getattr(target, "clear", None))
                    and not isinstance(target, type)
                ):
                    found[f"{prefix}.{name}"] = target
    return found


def test_every_cache_keyed_by_text_is_emptied_by_a_forget() -> None:
    caches = _caches()  # imports every module first: each registers its caches as it loads
    registered = {id(c) for c in held_texts.registered()}
    assert "kioko_core.reading.analysis.stem" in caches, sorted(
        caches
    )  # the walk finds them: it cannot pass by finding none
    unaccounted = sorted(name for name, cache in caches.items() if id(cache) not in registered and name not in NOT_TEXT)
    assert not unaccounted, (
        f"{unaccounted}: register with kioko_core.privacy.held_texts.keeps_text, or add to NOT_TEXT saying what the keys are"
    )
    stale = sorted(set(NOT_TEXT) - set(caches))
    assert not stale, f"{stale} are in NOT_TEXT but no longer exist"


def _sizes() -> dict[str, int]:
    sizes = {}
    for cache in held_texts.registered():
        name = getattr(cache, "__qualname__", type(cache).__name__)
        if isinstance(cache, _LRU):
            sizes[f"{cache.__module__}.{name}"] = cache.cache_info().currsize
        else:
            sizes[f"{type(cache).__module__}.{name}"] = len(cache._items)
    return sizes


def _fill(memory: Any, user: str) -> str:
    first = memory.add("Quendra's locker code is ZX-4821-QT at the Marrowvale depot", user_id=user)
    memory.record_turn("I adopted a greyhound named Tovrin from the Ellison shelter", user_id=user, session_id="s")
    memory.record_turn("The Zerbino pump failed again on line 3, it jammed", user_id=user, session_id="s")
    memory.graph.add("Quendra", "works at", "Marrowvale depot", user_id=user, source=first.id)
    memory.recall("where is Quendra's locker?", user_id=user)
    return str(first.id)


FORGETS: dict[str, Callable[[Any, str, str], Any]] = {
    "delete": lambda memory, user, first: memory.delete(first, user_id=user),
    "forget_user": lambda memory, user, first: memory.forget_user(user_id=user),
    "forget_entity": lambda memory, user, first: memory.graph.forget_entity("Quendra", user_id=user),
}


@pytest.mark.parametrize("how", sorted(FORGETS))
def test_each_way_of_forgetting_empties_the_caches(how: str) -> None:
    memory = kioko.connect("memory://", auto_link=True, intelligence=True)
    first = _fill(memory, "held-texts")
    filled = _sizes()
    assert filled["kioko_core.reading.analysis.stem"] > 0, filled
    assert filled["kioko_core.reading.analysis.has_problem_cue"] > 0, filled
    FORGETS[how](memory, "held-texts", first)
    assert {name: size for name, size in _sizes().items() if size} == {}


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="the semantic extra is not installed")
def test_a_forget_empties_the_sentence_vectors_of_the_semantic_embedder() -> None:
    from kioko_core.embedding import semantic

    memory = kioko.connect("memory://?embedder=semantic", auto_link=True)
    first = memory.add("Quendra's locker code is ZX-4821-QT at the Marrowvale depot", user_id="held-vectors")
    memory.recall("where is Quendra's locker?", user_id="held-vectors")
    assert len(semantic._cache._items) > 0
    assert memory.delete(first.id, user_id="held-vectors")
    assert len(semantic._cache._items) == 0


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="the semantic extra is not installed")
def test_a_batch_holding_a_secret_stores_and_embeds_nothing() -> None:
    from kioko_core.embedding import semantic
    from kioko_core.privacy.secrets import SecretDropped

    memory = kioko.connect("memory://?embedder=semantic", auto_link=True)
    semantic._cache.clear()
    texts = [f"Note {n} about the Marrowvale depot's opening hours" for n in range(12)]
    texts[10] = "the deploy key is AKIAIOSFODNN7EXAMPLE, keep it safe"
    with pytest.raises(SecretDropped):
        memory.add_many(texts, user_id="held-batch")
    assert list(memory.memories(user_id="held-batch")) == []
    assert len(semantic._cache._items) == 0  # the batch was refused before any of it was embedded
