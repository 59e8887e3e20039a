"""What a caller cannot do to the layer's own data, on every store of the matrix.

The layer keeps its bookkeeping (links, entities, linked_at, unlinked) under one reserved metadata key,
``metadata["_kioko"]``; every other key is the caller's and round-trips exactly. Link entries are the
layer's own: no metadata a caller passes creates, alters or removes one.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401  (fixtures)

import kioko
from contract_tests.counting import CountingStore
from kioko_core.errors import ConflictError, IdTaken, InvalidRecordError
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.store import Delete, Record, Scope, Upsert
from kioko_core.store.format_mark import FORMAT_VERSION, MARK_ID, MARK_SCOPE

OWN = {
    "entities": ["mine"],
    "links": [{"id": "x", "type": "serves", "dir": "out"}, "https://runbook"],
    "linked_at": "yesterday",
    "unlinked": ["nothing"],
    "nested": {"a": [1, 2.5, None, True]},
}


def user_part(metadata: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k != links.BOOKKEEPING}


def all_entries(layer: MemoryLayer, user: str) -> list[tuple[str, dict[str, Any]]]:
    return [(r.id, e) for r in layer.memories(user_id=user) for e in links.link_entries(r)]


def test_a_users_own_metadata_round_trips_exactly_through_linking_and_updates(layer: MemoryLayer, user: str) -> None:
    """Keys the layer once used for itself ("entities", "links", "linked_at") are the caller's now, untouched."""
    first = layer.add(
        "Kumar fixed the encoder cable on Line 3.", user_id=user, memory_type="episodic", metadata=dict(OWN)
    )
    layer.add("Line 3 stopped again with the encoder fault E-217.", user_id=user, memory_type="episodic")
    stored = layer.get(first.id, user_id=user)
    assert user_part(stored.metadata) == OWN
    assert links.link_entries(stored), "the two memories link, and the links live in the bookkeeping"
    assert "line 3" in links.entities_of(stored)
    layer.update(first.id, user_id=user, metadata={"ticket": "T-9"})
    assert user_part(layer.get(first.id, user_id=user).metadata) == {**OWN, "ticket": "T-9"}
    layer.update(first.id, user_id=user, content="Kumar replaced the encoder cable on Line 3.")
    assert user_part(layer.get(first.id, user_id=user).metadata) == {**OWN, "ticket": "T-9"}


def test_a_forged_link_entry_in_metadata_links_nothing(layer: MemoryLayer, user: str) -> None:
    """``metadata={"links": [<entry pointing at another user's memory>]}`` is the caller's data, never a link."""
    other_user = user + "-other"
    theirs = layer.add("Krutika's payroll export runs on Fridays.", user_id=other_user)
    forged = {
        "id": theirs.id,
        "type": "related_to",
        "dir": "out",
        "w": 1.0,
        "by": "manual",
        "why": "",
        "at": 0,
        "seen": 0,
        "shared": True,
    }
    mine = layer.add("Kumar's payroll export runs on Mondays.", user_id=user, metadata={"links": [forged]})
    assert layer.graph.links(mine.id, user_id=user) == []
    assert links.link_entries(layer.get(mine.id, user_id=user)) == []
    assert links.link_entries(layer.get(theirs.id, user_id=other_user)) == []
    context = layer.recall("payroll export", user_id=user, links=3)
    assert theirs.id not in {m.record.id for m in context.memories}


def test_a_new_memory_cannot_bring_bookkeeping_and_nothing_is_stored(layer: MemoryLayer, user: str) -> None:
    target = layer.add("The staging database is db-17.", user_id=user)
    forged = {
        links.BOOKKEEPING: {"links": [{"id": target.id, "type": "serves", "dir": "out", "w": 1.0, "by": "manual"}]}
    }
    with pytest.raises(InvalidRecordError, match="_kioko"):
        layer.add("Goal: move staging to db-18.", user_id=user, memory_type="goal", metadata=forged)
    assert [r.id for r in layer.memories(user_id=user)] == [target.id]
    assert links.link_entries(layer.get(target.id, user_id=user)) == []


def test_an_update_cannot_create_alter_or_remove_link_entries(layer: MemoryLayer, user: str) -> None:
    """Whatever is passed under the reserved key is ignored: the stored links stay as they were, on both ends."""
    fault = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=user, memory_type="episodic")
    fix = layer.add(
        "Fixed the E-217 encoder fault on Line 3 by reseating the cable.", user_id=user, memory_type="episodic"
    )
    stranger = layer.add("The cafeteria serves tea at four.", user_id=user)
    before = sorted(all_entries(layer, user), key=str)
    assert before, "the fault and its fix link"
    for forged in (
        {"links": []},
        {"links": [{"id": stranger.id, "type": "serves", "dir": "out", "w": 1, "by": "manual"}]},
        {"unlinked": [fault.id]},
        "not even a dict",
    ):
        layer.update(fix.id, user_id=user, metadata={links.BOOKKEEPING: forged, "note": "checked"})
    assert sorted(all_entries(layer, user), key=str) == before
    current = layer.get(fix.id, user_id=user)
    layer.update(fix.id, user_id=user, metadata={**current.metadata, "note": "round trip"})  # read-modify-write works
    assert sorted(all_entries(layer, user), key=str) == before
    assert layer.get(fix.id, user_id=user).metadata["note"] == "round trip"


def test_add_with_an_existing_id_is_a_conflict_and_changes_nothing(layer: MemoryLayer, user: str) -> None:
    """add(id=<existing>) never silently replaces a memory (or leaves its neighbours' links dangling)."""
    fault = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=user, memory_type="episodic")
    fix = layer.add(
        "Fixed the E-217 encoder fault on Line 3 by reseating the cable.",
        user_id=user,
        memory_type="episodic",
        id="fix-" + user,
    )
    before = sorted(all_entries(layer, user), key=str)
    for kind in ("episodic", "instruction"):
        with pytest.raises(ConflictError, match="already"):
            layer.add("Something else entirely.", user_id=user, memory_type=kind, id=fix.id)
    assert layer.get(fix.id, user_id=user).content == fix.content
    assert sorted(all_entries(layer, user), key=str) == before
    with pytest.raises(ConflictError):  # an id another user's memory holds is taken too
        layer.add("Mine now?", user_id=user + "-other", id=fault.id)
    assert layer.get(fault.id, user_id=user).content == fault.content


def test_add_with_another_scopes_id_fails_at_once_and_says_why(layer: MemoryLayer, user: str) -> None:
    """No retry can free an id another scope holds: one batch is tried, then a typed IdTaken (a ConflictError;
    its subclass IdUnavailable, whose message does not say that another scope's memory has the id)."""
    theirs = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=user, memory_type="episodic")
    counting = CountingStore(layer.store)
    mine = MemoryLayer(counting, auto_link=True)
    mine.add("Line 3 encoder fault E-217 again, on the night shift.", user_id=user + "-other", memory_type="episodic")
    counting.reset()
    with pytest.raises(IdTaken, match="cannot be used here.*choose another") as taken:
        mine.add("Line 3 encoder fault E-217, third time.", user_id=user + "-other", id=theirs.id)
    assert counting.calls["update_many"] == 1
    assert type(taken.value).__name__ == "IdUnavailable"
    assert "scope" not in str(taken.value)
    assert issubclass(IdTaken, ConflictError)
    assert layer.get(theirs.id, user_id=user).content == theirs.content


def test_a_sqlite_file_written_before_the_bookkeeping_key_is_moved_once_when_opened(tmp_path) -> None:
    """Memories stored with the old shape (links, entities, linked_at, unlinked at the top of the metadata)
    keep their links; a caller's own items under "links" stay the caller's; the layer opening the store
    moves the bookkeeping under metadata["_kioko"] once (format 4) and reads by that key alone from then on.
    A kind that was never linked never has legacy links."""
    url = f"sqlite:///{tmp_path / 'legacy.db'}"
    user, now = "kumar", 1_700_000_000.0

    def entry(other: str, direction: str) -> dict[str, Any]:
        return {"id": other, "type": "resolves", "dir": direction, "w": 0.8, "by": "auto", "why": "E-217", "at": now}

    legacy = {
        "fix": (
            "Reseated the encoder cable on Line 3.",
            "episodic",
            {
                "links": ["https://runbook/line-3", entry("fault", "out")],
                "entities": ["line 3"],
                "linked_at": now,
                "ticket": "T-9",
            },
        ),
        "fault": (
            "Line 3 stopped with the encoder fault E-217.",
            "episodic",
            {"links": [entry("fix", "in")], "entities": ["line 3"], "linked_at": now, "unlinked": ["note"]},
        ),
        "note": (
            "Line 3 has a spare encoder in the store room.",
            "episodic",
            {"links": ["https://docs/spares"], "entities": ["line 3"], "linked_at": now},
        ),
        "rule": ("Always answer in German.", "instruction", {"links": [entry("fix", "out")]}),
    }
    with kioko.connect(url) as old:
        old.store.driver.update_many(  # the driver itself: stored exactly in the old shape
            [
                Upsert(
                    record=Record(
                        id=memory_id,
                        user_id=user,
                        kind=kind,
                        content=text,
                        metadata=metadata,
                        created_at=now,
                        updated_at=now,
                        embedding=old.embedder.embed(text),
                    )
                )
                for memory_id, (text, kind, metadata) in legacy.items()
            ]
        )
        # a file of that time carried no format mark
        old.store.driver.update_many([Delete(id=MARK_ID, scope=MARK_SCOPE)])
    with kioko.connect(url, auto_link=True) as layer:
        assert layer.store_mark.format == FORMAT_VERSION
        assert not layer.store.legacy
        moved = {r.id: r.metadata for r in layer.store.driver.scan(Scope(user)) if r.id in legacy}
        assert set(moved) == set(legacy)
        assert [i for i, metadata in moved.items() if links.BOOKKEEPING in metadata] == ["fault", "fix", "note"]
        assert moved["rule"] == legacy["rule"][2]  # never a linked kind: left as it was
        assert [(k.source, k.target, k.type) for k in layer.graph.links("fix", user_id=user)] == [
            ("fix", "fault", "resolves")
        ]
        assert [k.source for k in layer.graph.links("fault", user_id=user)] == ["fix"]
        assert user_part(layer.get("fix", user_id=user).metadata) == {
            "links": ["https://runbook/line-3"],
            "ticket": "T-9",
        }
        assert user_part(layer.get("note", user_id=user).metadata) == {"links": ["https://docs/spares"]}
        assert links.link_entries(layer.get("note", user_id=user)) == []
        assert links.link_entries(layer.get("rule", user_id=user)) == []  # never a linked kind: its "links" is data
        assert links.linked_at(layer.get("fix", user_id=user)) == now

        # a write upgrades: a forged entry the caller then puts under "links" is plain data
        layer.update("fix", user_id=user, metadata={"links": [entry("note", "out")]})
        fix = layer.store.get(Scope(user), ["fix"])[0]
        assert fix is not None
        assert [e["id"] for e in links.bookkeeping(fix)["links"]] == ["fault"]
        assert fix.metadata["links"] == [entry("note", "out")]
        layer.graph.unlink("fix", "fault", user_id=user)
        fault = layer.store.get(Scope(user), ["fault"])[0]
        assert fault is not None
        assert "links" not in fault.metadata
        assert links.link_entries(fault) == []
        assert links.was_unlinked(fault, "note")
        assert links.was_unlinked(fault, "fix")
        assert layer.graph.links("fix", user_id=user) == []


def test_a_memory_the_store_refuses_is_a_typed_error_not_a_linking_failure(
    layer: MemoryLayer, user: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A NUL in the text is refused (InvalidRecordError, nothing stored) without a "linking failed" log line:
    that line is kept for writes that really are stored without their links."""
    layer.add("Line 3 stopped with the encoder fault E-217.", user_id=user, memory_type="episodic")
    with caplog.at_level(logging.WARNING, logger="kioko.linker"):
        with pytest.raises(InvalidRecordError, match="NUL"):
            layer.add("Line 3 stopped again with the encoder\x00 fault E-217.", user_id=user, memory_type="episodic")
    assert "linking" not in caplog.text
    assert len(list(layer.memories(user_id=user))) == 1


def test_a_store_of_the_current_format_is_read_by_the_bookkeeping_key_alone(tmp_path) -> None:
    """Format 4 holds no memory in the layout before the key, so reads do not look for it: a record a driver
    was handed in that layout afterwards keeps its "links" as the caller's data and links nothing."""
    url = f"sqlite:///{tmp_path / 'current.db'}"
    entry = {"id": "other", "type": "related_to", "dir": "out", "w": 0.9, "by": "auto", "why": "", "at": 0.0}
    with kioko.connect(url) as layer:
        assert layer.store_mark.format == FORMAT_VERSION
        assert not layer.store.legacy
        text = "Line 3 stopped with the encoder fault E-217."
        record = Record(id="late", user_id="kumar", kind="episodic", content=text, metadata={"links": [entry]})
        layer.store.driver.update_many([Upsert(record=record)])
        read = layer.get("late", user_id="kumar")
        assert read.metadata == {"links": [entry]}
        assert links.link_entries(read) == []
