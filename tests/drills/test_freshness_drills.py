"""Cross-process freshness: a process links to what other processes wrote a moment ago (issue 14, item 9).

Each process caches term statistics per scope. Before, another process's writes stayed invisible to
that cache for up to its ttl (10 minutes), so four processes writing one SQLite file linked across
processes for only 41 % of their links. SQLite now counts writes per scope (ScopeGenerations) and the
cache starts a scope afresh when the count moved without it. (benchmarks/drills.py prints the share of
links that join two processes' memories when several write at once.)
"""

from __future__ import annotations

import uuid
from pathlib import Path

import drill_workers as drills
import pytest

import kioko
from kioko_core import links as L
from kioko_core.layer import MemoryLayer
from kioko_core.store import ScopeGenerations

pytestmark = pytest.mark.drill


def test_sqlite_counts_writes_per_scope(tmp_path: Path) -> None:
    """The generation advances by one per committed batch touching the scope, and only that scope's."""
    with kioko.open_store(f"sqlite:///{tmp_path / 'g.db'}") as store:
        assert isinstance(store, ScopeGenerations)
        layer = MemoryLayer(store)
        mine, other = ("kumar", None), ("ravi", None)
        before = store.generation(mine), store.generation(other)
        record = layer.add("Line 3 keeps faulting with error E-217.", user_id="kumar")
        layer.update(record.id, user_id="kumar", metadata={"seen": 1})
        assert (store.generation(mine), store.generation(other)) == (before[0] + 2, before[1])


def test_a_warm_process_links_to_what_another_process_just_wrote(tmp_path: Path) -> None:
    """Process P has looked the topic up (its cache is warm); another process writes a memory on it;
    P's next memory on the topic links to that memory at once, not after the cache's ttl."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    user = "fresh-" + uuid.uuid4().hex[:8]
    with kioko.connect(url, auto_link=True) as layer:
        # every word of P's next memory is now in P's cache, with the postings as they were here
        layer.add("Encoder cable on line 3 was loose.", user_id=user, memory_type="episodic")
        layer.add("Encoder cable on line 3 was loose again.", user_id=user, memory_type="episodic")
        [[theirs]] = drills.run_workers(
            drills.add_memories, [(url, user, ["The encoder cable on line 3: loose, again."])]
        )
        mine = layer.add("Loose encoder cable, line 3.", user_id=user, memory_type="episodic")
        assert L.entry_for(layer.get(mine.id, user_id=user), theirs) is not None
        assert L.entry_for(layer.get(theirs, user_id=user), mine.id) is not None
