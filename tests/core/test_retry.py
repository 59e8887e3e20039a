"""Read-modify-writes that lose a race are applied again to a fresh read, or fail loudly (issue 14, item 2).

A store that lets "another writer" change the memory just before the layer's own batch reproduces the
lost update deterministically in one process; tests/drills does it with real processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.store import ConflictError, Op, Record, Scope, Upsert, retry
from kioko_core.store.link_store import LinkChange

USER = "kumar"


class RacingStore(MemoryStore):
    """Before each of its next ``races`` batches, another writer adds a metadata key to ``target`` first.

    ``interjections`` are other writers' whole calls, run one each before the next batches (None lets a
    batch through untouched); they write through this store without racing themselves.
    """

    def __init__(self) -> None:
        super().__init__()
        self.races = 0
        self.target: str | None = None
        self.batches = 0
        self.interjections: list[Callable[[], object] | None] = []

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        self._race()
        return super().update_many(ops)

    def update_with_links(self, ops: Sequence[Op], changes: Sequence[LinkChange]) -> Any:
        """The layer's batch on a store that keeps links apart: raced the same way."""
        self._race()
        return super().update_with_links(ops, changes)

    def _race(self) -> None:
        self.batches += 1
        if self.interjections:
            interjection = self.interjections.pop(0)
            if interjection is not None:
                pending, self.interjections = self.interjections, []
                interjection()
                self.interjections = pending
        if self.races and self.target is not None:
            self.races -= 1
            current = self.get(Scope(USER), [self.target])[0]
            assert current is not None
            theirs = {**current.metadata, f"theirs-{self.races}": True}
            super().update_many(
                [Upsert(record=current.model_copy(update={"metadata": theirs}), expected_version=current.version)]
            )


@pytest.fixture
def racing() -> tuple[MemoryLayer, RacingStore, str]:
    store = RacingStore()
    layer = MemoryLayer(store, auto_link=True)
    target = layer.add("Line 3 keeps faulting with error E-217.", user_id=USER)
    layer.add("The encoder cable on line 3 was loose.", user_id=USER)
    store.target = target.id
    return layer, store, target.id


@pytest.mark.parametrize("content", [None, "Line 3 faulted again with error E-217 after lunch."])
def test_an_update_that_lost_races_keeps_the_other_writers_changes(racing, content) -> None:
    """Metadata-only or with new content: after 3 lost races the update is applied on top of all 3 changes."""
    layer, store, target = racing
    store.races = 3
    layer.update(target, user_id=USER, content=content, metadata={"mine": 1})
    stored = layer.get(target, user_id=USER)
    assert {k for k in stored.metadata if k.startswith("theirs") or k == "mine"} == {
        "theirs-0",
        "theirs-1",
        "theirs-2",
        "mine",
    }
    assert stored.content == (content or "Line 3 keeps faulting with error E-217.")


def test_counters_lose_no_increment_when_racing(racing) -> None:
    """An outcome counted after lost races counts on the fresh value, not the one first read."""
    layer, store, _ = racing
    procedure = layer.procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=USER)
    layer.procedures.outcome(procedure.id, True, user_id=USER)
    store.target, store.races = procedure.id, 2
    layer.procedures.outcome(procedure.id, False, user_id=USER)
    counted = layer.get(procedure.id, user_id=USER).metadata
    assert (counted["successes"], counted["failures"], counted["theirs-0"], counted["theirs-1"]) == (1, 1, True, True)


def test_links_survive_racing_writers(racing) -> None:
    """link() and unlink() retried from fresh reads: the link is stored on both ends, the race's change kept."""
    layer, store, target = racing
    other = layer.add("The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=USER)
    store.races = 2
    layer.graph.link(target, other.id, why="same plant", user_id=USER)
    first, second = layer.get(target, user_id=USER), layer.get(other.id, user_id=USER)
    assert first.metadata["theirs-0"]
    assert first.metadata["theirs-1"]
    assert any(e["id"] == other.id for e in links.link_entries(first))
    assert any(e["id"] == target for e in links.link_entries(second))


def test_a_write_that_always_loses_fails_loudly_and_applies_nothing(racing, monkeypatch) -> None:
    """When every try loses, ConflictError reaches the caller after WRITE_ATTEMPTS tries; nothing of it is stored."""
    layer, store, target = racing
    monkeypatch.setattr(retry, "RETRY_SECONDS", 0.0)
    monkeypatch.setattr(retry, "MAX_BACKOFF_SECONDS", 0.0)
    store.races, store.batches = 1_000, 0
    with pytest.raises(ConflictError, match="lost the race"):
        layer.update(target, user_id=USER, metadata={"mine": 1})
    assert store.batches == retry.WRITE_ATTEMPTS
    assert "mine" not in layer.get(target, user_id=USER).metadata


def test_a_procedure_renamed_while_its_steps_change_keeps_the_new_steps(racing) -> None:
    """A rename rebuilds the content from the steps stored at write time, not from those first read."""
    layer, store, _ = racing
    procedure = layer.procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=USER)
    store.interjections = [
        lambda: layer.procedures.update(procedure.id, user_id=USER, steps=["Press stop", "Power cycle the drive"])
    ]
    layer.procedures.update(procedure.id, user_id=USER, title="Restart the drive")
    stored = layer.get(procedure.id, user_id=USER)
    assert stored.metadata["steps"] == ["Press stop", "Power cycle the drive"]
    assert stored.content == "Restart the drive: 1) Press stop; 2) Power cycle the drive"


def test_a_merge_retries_when_the_duplicate_gained_a_link_meanwhile(racing) -> None:
    """The duplicate is deleted at the version read: a link made to it meanwhile moves to the survivor."""
    layer, store, target = racing
    survivor = layer.add("Line 3 keeps faulting with error E-217 every morning.", user_id=USER)
    third = layer.add("The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=USER)
    store.interjections = [lambda: layer.graph.link(target, third.id, why="same plant", user_id=USER)]
    layer.graph.merge(target, survivor.id, user_id=USER)
    records = list(store.scan(Scope(USER)))
    assert target not in {r.id for r in records}
    assert not [(r.id, e["id"]) for r in records for e in links.link_entries(r) if e["id"] == target]
    assert links.entry_for(layer.get(third.id, user_id=USER), survivor.id) is not None


def test_promoting_a_working_key_set_again_meanwhile_keeps_the_newer_value(racing) -> None:
    """promote() removes the value it promoted, never a value set after it was read."""
    layer, store, _ = racing
    layer.working.set("root_cause", "loose encoder cable", user_id=USER, session_id="s1")
    store.interjections = [None, lambda: layer.working.set("root_cause", "worn belt", user_id=USER, session_id="s1")]
    kept = layer.working.promote("root_cause", user_id=USER, session_id="s1")
    assert kept.content == "root cause: loose encoder cable"
    assert layer.working.get("root_cause", user_id=USER, session_id="s1") == "worn belt"


def test_a_decision_superseded_twice_at_once_keeps_the_first_mark(racing) -> None:
    """Without linking, supersede() marks the old decision itself; the mark is checked on the fresh read, so a
    concurrent supersede's mark is never overwritten, and the call that lost takes its new decision back and
    raises ConflictError: one replacement stays in force."""
    _, store, _ = racing
    layer = MemoryLayer(store, auto_link=False)
    old = layer.decisions.add("Use SQLite for the pilot", user_id=USER)
    theirs: list[str] = []
    store.interjections = [
        None,
        lambda: theirs.append(layer.decisions.supersede(old.id, "Use PostgreSQL for the pilot", user_id=USER).id),
    ]
    with pytest.raises(ConflictError, match="superseded by"):
        layer.decisions.supersede(old.id, "Use Qdrant for the pilot", user_id=USER)
    assert layer.get(old.id, user_id=USER).metadata["superseded_by"] == theirs[0]
    assert [d.id for d in layer.decisions.current(user_id=USER)] == theirs
    assert all("Qdrant" not in d.content for d in layer.decisions.list(user_id=USER))
