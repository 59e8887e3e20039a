"""What LinkStoreContract cannot see of Qdrant's links: a record read's adjacency points serving the ``links``
read that follows it (local mode and edge, whose directory one process alone writes).

The layer reads a memory and then its links; on local mode and edge the second read is answered from the
adjacency points the first one fetched, and only while no write went through since. These tests fail if a
write in between, a read of other memories, or another store of the same directory were not noticed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import kioko
from kioko_core.store import Delete, Record, Scope, Upsert
from kioko_core.store.link_store import LinkChange, LinkStore

SCOPE = Scope("ines")


def _entry(other: str, weight: float) -> dict[str, object]:
    return {"id": other, "type": "related_to", "dir": "out", "w": weight, "by": "auto"}


def _record(memory_id: str) -> Record:
    return Record(id=memory_id, user_id=SCOPE.user_id, kind="episodic", content=f"note {memory_id}")


@pytest.fixture(params=["qdrant+local", "qdrant+edge"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "qdrant+edge":
        pytest.importorskip("qdrant_edge", reason="the qdrant-edge extra is not installed")
    yield f"{request.param}:///{tmp_path / 'store'}"


def test_links_after_a_read_see_every_write_since(url: str) -> None:
    store = kioko.open_store(url)
    second = kioko.open_store(url)  # the same directory, shared in this process
    try:
        assert isinstance(store, LinkStore)
        assert isinstance(second, LinkStore)
        store.update_many([Upsert(record=_record(i)) for i in ("a", "b", "c")])
        store.update_with_links([], [LinkChange(SCOPE, "a", put=(("b", _entry("b", 0.5)),))])

        store.get(SCOPE, ["a", "b"])
        assert store.links(SCOPE, ["a", "b"]) == [[_entry("b", 0.5)], []]

        store.get(SCOPE, ["a", "b"])
        store.update_with_links([], [LinkChange(SCOPE, "a", put=(("c", _entry("c", 0.7)),))])
        assert store.links(SCOPE, ["a"]) == [[_entry("b", 0.5), _entry("c", 0.7)]], "a write since the read"

        store.get(SCOPE, ["a"])
        second.update_with_links([], [LinkChange(SCOPE, "a", drop=("b",))])
        assert store.links(SCOPE, ["a"]) == [[_entry("c", 0.7)]], "a write through another store of the directory"

        store.get(SCOPE, ["b"])
        assert store.links(SCOPE, ["a", "b"]) == [[_entry("c", 0.7)], []], "memories the read did not ask"
        assert store.links(Scope("someone-else"), ["a"]) == [[]], "another scope"

        store.get(SCOPE, ["a"])
        store.update_many([Upsert(record=_record("a").model_copy(update={"content": "changed"}))])
        assert store.links(SCOPE, ["a"]) == [[_entry("c", 0.7)]]
        store.get(SCOPE, ["a"])
        store.update_many([Delete(id="a", scope=SCOPE)])
        assert store.links(SCOPE, ["a"]) == [[]], "a delete since the read"
    finally:
        second.close()
        store.close()


def test_a_write_in_another_thread_is_noticed(url: str) -> None:
    store = kioko.open_store(url)
    try:
        assert isinstance(store, LinkStore)
        store.update_many([Upsert(record=_record(i)) for i in ("a", "b")])
        store.update_with_links([], [LinkChange(SCOPE, "a", put=(("b", _entry("b", 0.5)),))])
        store.get(SCOPE, ["a"])
        worker = threading.Thread(
            target=lambda: store.update_with_links([], [LinkChange(SCOPE, "a", put=(("b", _entry("b", 0.9)),))])
        )
        worker.start()
        worker.join()
        assert store.links(SCOPE, ["a"]) == [[_entry("b", 0.9)]]
    finally:
        store.close()
