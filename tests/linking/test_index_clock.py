"""The links a write makes never depend on the wall clock where the store counts its writes (memory://, SQLite,
PostgreSQL): the index cache's entries do not expire there (the store's generation shows another writer's change at
once), so a long import links as a short one. An entry read again after a ttl would come back in the store's order
(newest ``created_at`` first), not the cache's (newest write first): memories written out of time order (an import of
several conversations, an export read newest first) are where the two part. Every test runs on every store of the
matrix."""

from __future__ import annotations

import random
from typing import Any

import pytest
from linking_support import (  # noqa: F401  (fixtures are found by name)
    linking_stores,
    matrix_store,
    scope_records,
    store,
    user,
)

from benchmarks.synthetic import generate_notes
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.store import Scope, ScopeGenerations, Store

# small bounds, so the postings lists are cut the way a store of thousands cuts them
TIGHT = {"postings_limit": 6, "session_candidates": 4, "candidates": 8}


class Clock:
    """A clock a test moves: ``step`` seconds on at every reading (0: time stands still)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 1_000_000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def shuffled_in_time(prefix: str, count: int) -> list[dict[str, Any]]:
    """Notes of which every third is days older or newer than the ones written before it."""
    shift = random.Random(11)
    return [
        {
            "content": note.content,
            "memory_type": note.memory_type,
            "session_id": note.session_id,
            "created_at": note.created_at + (shift.choice([-86_400 * 4, 86_400 * 2]) if number % 3 == 0 else 0),
            "id": f"{prefix}{number:03d}",
        }
        for number, note in enumerate(generate_notes(count, seed=31))
    ]


def links_of(store: Store, user_id: str, prefix: str) -> dict[str, list[tuple[Any, ...]]]:
    return {
        r.id.removeprefix(prefix): [(e["id"].removeprefix(prefix), e["type"], e["w"]) for e in links.link_entries(r)]
        for r in scope_records(store, Scope(user_id))
    }


def test_links_do_not_depend_on_when_the_cache_expires(store: Store, user: str) -> None:
    """One layer's cache never expires; the other's expires before every lookup (each one a long write); a third
    adds the same items in batches with entries expiring. All three make the same links."""
    driver = getattr(store, "driver", store)
    if not isinstance(driver, ScopeGenerations):
        pytest.skip(f"{type(driver).__name__} does not count its writes: its cache entries expire (the ttl)")
    made = {}
    for name, step, batched in (("still", 0.0, False), ("expiring", 700.0, False), ("batched", 700.0, True)):
        layer = MemoryLayer(store, auto_link=True, linker=TIGHT)
        layer.index.clock = Clock(step)
        owner = f"{user}-{name}"
        notes = shuffled_in_time(owner, 200)
        if batched:
            layer.add_many(notes, user_id=owner)
        else:
            for item in notes:
                layer.add(user_id=owner, **item)
        made[name] = links_of(store, owner, owner)
    assert made["still"] == made["expiring"]
    assert made["still"] == made["batched"]
    assert sum(map(len, made["still"].values())) > len(made["still"])  # a real linking workload
