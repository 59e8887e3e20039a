"""add_many on a real SQLite file (kioko_core/layer/bulk.py): a batch asks the store neither whether each memory's id
is taken nor the scope's generation memory by memory, so a taken id, a write that fails and another writer's
write during a batch are each tested against a file, two connections where two writers are."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.errors import IdTaken, StoreError
from kioko_core.layer.bulk import BatchAdd, _BatchGraph
from kioko_core.linking import links
from kioko_core.store import Scope

USER = "importer"


def turns(prefix: str, count: int) -> list[dict[str, Any]]:
    """Turns of three sessions about a few machines, a minute apart: every one links to some before it."""
    machines = ["press", "lathe", "kiln", "boiler"]
    return [
        {
            "content": f"The {machines[n % 4]} on line {n % 3} showed error E-{200 + n % 5} during check {n}.",
            "memory_type": "episodic",
            "session_id": f"{prefix}-s{n // 12}",
            "created_at": 1_700_000_000 + 60 * n,
            "id": f"{prefix}{n:03d}",
        }
        for n in range(count)
    ]


def stored(layer: Any, user: str) -> dict[str, tuple[str, list[tuple[str, str, str]]]]:
    """Each stored memory of ``user`` by id (without its prefix): its text and links (other id, type, direction)."""
    out = {}
    for record in layer.store.scan(Scope(user)):
        entries = [(e["id"][len(user) :], e["type"], e["dir"]) for e in links.link_entries(record)]
        out[record.id[len(user) :]] = (record.content, entries)
    return out


def test_an_id_the_file_holds_fails_the_batch_and_stores_the_items_before_it(tmp_path: Path) -> None:
    """The batch does not look each id up in the file: the taken one fails the batch's write, and its memories are
    added again one by one, the taken id refused there (IdTaken) after the ones before it, linked as one by one."""
    with kioko.connect(f"sqlite:///{tmp_path / 'taken.db'}", auto_link=True, embedder="offline") as layer:
        layer.add("Taken already.", user_id=USER + "b", id=f"{USER}b019")
        layer.add("Taken already.", user_id=USER + "a", id=f"{USER}a019")  # the same statistics in both scopes
        items = turns(USER + "b", 30)
        with pytest.raises(IdTaken):
            BatchAdd(layer, USER + "b", None, size=8).run((item, None) for item in items)
        for item in items[:19]:
            layer.add(user_id=USER + "a", **{**item, "id": USER + "a" + item["id"][len(USER) + 1 :]})
        batched, alone = stored(layer, USER + "b"), stored(layer, USER + "a")
    assert batched.pop("019") == alone.pop("019") == ("Taken already.", [])
    assert sorted(batched) == [f"{n:03d}" for n in range(19)]  # two batches of 8 and three before the taken id
    assert batched == alone
    assert sum(len(entries) for _, entries in batched.values()) > 19


def test_a_write_that_fails_fails_the_call_and_leaves_the_batches_before_it(tmp_path: Path) -> None:
    """The file refuses the third batch's write: add_many raises, the file holds the first two batches whole and
    nothing after them, and the next add reads the file as it is (the index cache dropped what it held)."""
    with kioko.connect(f"sqlite:///{tmp_path / 'fails.db'}", auto_link=True, embedder="offline") as layer:
        driver = layer.store.driver
        inner, calls = driver.update_with_links, []

        def update_with_links(ops: Any, changes: Any) -> Any:
            calls.append(len(ops))
            if len(calls) == 3:
                raise sqlite3.OperationalError("disk I/O error")
            return inner(ops, changes)

        driver.update_with_links = update_with_links
        with pytest.raises((StoreError, sqlite3.Error)):
            BatchAdd(layer, USER, None, size=8).run((item, None) for item in turns(USER, 40))
        driver.update_with_links = inner
        assert len(calls) == 3
        assert sorted(stored(layer, USER)) == [f"{n:03d}" for n in range(16)]
        again = layer.add(user_id=USER, **{**turns(USER, 17)[16], "id": f"{USER}016"})
        assert again.version == 1
        linked = {e["id"] for e in links.link_entries(again)}
        assert linked and linked <= {f"{USER}{n:03d}" for n in range(16)}


def test_another_writers_memory_during_a_batch_is_seen_after_it(tmp_path: Path) -> None:
    """Another connection adds a memory to the scope while a batch is planned (the batch reads the scope's generation
    once): after the batch the index cache knows that memory under terms it had cached before the import."""
    path = f"sqlite:///{tmp_path / 'two.db'}"
    with (
        kioko.connect(path, auto_link=True, embedder="offline") as layer,
        kioko.connect(path, auto_link=False, embedder="offline") as other,
    ):
        # the scope and the terms cached before the import
        first = layer.add("The zephyr turbine calibration was planned.", user_id=USER, memory_type="episodic")

        def planned() -> Any:
            for number, item in enumerate(turns(USER, 20)):
                if number == 12:  # inside the second batch
                    other.add(
                        "The zephyr turbine calibration finished at dawn.",
                        user_id=USER,
                        id="zephyr",
                        memory_type="episodic",
                    )
                yield item, None

        BatchAdd(layer, USER, None, size=8).run(planned())
        n, df, ids = layer.index.lookup(Scope(USER), first.terms, 50)
        theirs = set(other.get("zephyr", user_id=USER).terms)
        later = layer.add("Zephyr turbine calibration report filed.", user_id=USER, memory_type="episodic")
    assert n == 22
    shared = [term for term in first.terms if term.startswith("t:") and term in theirs]
    assert len(shared) >= 2 and all("zephyr" in ids[term] and df[term] == 2 for term in shared)
    assert "zephyr" in {e["id"] for e in links.link_entries(later)}


def test_a_batch_reads_the_entity_graph_as_the_graph_answers(tmp_path: Path) -> None:
    """A batch answers a memory's entity relations without the graph while the user's graph is empty (every asked
    key, normalised, relating to nothing: the graph's own answer), and asks the graph once it holds a triple."""
    with kioko.connect(f"sqlite:///{tmp_path / 'graph.db'}", auto_link=True, embedder="offline") as layer:
        graph = layer.linker.graph
        keys = ["Line 3", " *Kioko* ", "line 3", "", "Ann", "?"]
        empty = _BatchGraph(graph).related_entities(keys, user_id=USER)
        assert empty == graph.related_entities(keys, user_id=USER) == {"line 3": [], "kioko": [], "ann": []}
        assert _BatchGraph(graph).related_entities([], user_id=USER) == graph.related_entities([], user_id=USER)
        graph.add("Ann", "works_on", "Line 3", user_id=USER)
        held = _BatchGraph(graph).related_entities(keys, user_id=USER)
        assert held == graph.related_entities(keys, user_id=USER)
        assert [other for other, _ in held["ann"]] == ["line 3"]
