"""The store's mark (kioko_core.store.format_mark): every store records its format and the embedder that wrote it.

Stores written in each earlier format the repository can produce (the bookkeeping at the top of the metadata;
under ``metadata["_kioko"]`` with links inside the records, on an SQLite file of schema 4; links apart but no
mark) are opened by ``kioko.connect``: each is marked with the current format, and every memory reads with the
same links and every recall answers as on the store they were copied from. A newer format, a newer driver
layout and another embedder are refused with typed errors, before anything is read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import kioko
from benchmarks.synthetic import generate_notes, generate_questions
from kioko_core.layer.records import LayerStore
from kioko_core.linking import links
from kioko_core.store import Record, Scope, Upsert
from kioko_core.store.format_mark import (
    FORMAT_VERSION,
    MARK_ID,
    MARK_SCOPE,
    EmbedderMismatchError,
    FormatTooNewError,
    StoreMark,
    read_mark,
    write_mark,
)

USER = "kumar"
NOTES = 120


@pytest.fixture(scope="module")
def reference() -> Any:
    """A linked store of the current format, and what it answers: the source every older layout is made from."""
    layer = kioko.connect("memory://", auto_link=True, embedder="offline")
    layer.add_many(
        [
            {"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at}
            for n in generate_notes(NOTES)
        ],
        user_id=USER,
    )
    scopes = [Scope(USER, None), Scope(USER, "@graph")]
    records = {scope: list(layer.store.scan(scope)) for scope in scopes}
    answers = {q: [r.id for r in layer.search(q, user_id=USER, limit=10)] for q in generate_questions(8)}
    adjacency = {r.id: links.link_entries(r) for r in records[scopes[0]]}
    assert sum(map(len, adjacency.values())) > NOTES, "the reference must be linked for the test to mean anything"
    yield records, answers, adjacency
    layer.close()


def _bare(record: Record, metadata: dict[str, Any]) -> Record:
    data = record.model_dump()
    data.update(metadata=metadata, system=None, version=0)
    return Record(**data)


def _write(path: Path, layout: int, records: dict[Scope, list[Record]]) -> None:
    store = kioko.open_store(f"sqlite:///{path}")
    ops = []
    for found in records.values():
        for record in found:
            if record.system is None:  # the entity graph's triples: no bookkeeping, the same in every layout
                ops.append(Upsert(record=_bare(record, record.metadata)))
            elif layout == 1:  # the layer's keys beside the caller's
                ops.append(Upsert(record=_bare(record, {**record.metadata, **record.system})))
            elif layout == 2:  # under "_kioko", links included
                ops.append(Upsert(record=_bare(record, {**record.metadata, links.BOOKKEEPING: record.system})))
            else:
                ops.append(Upsert(record=_bare(record, record.metadata).model_copy(update={"system": record.system})))
    if layout == 3:
        LayerStore(store).update_many(ops)  # links apart, as today, but never marked
    else:
        store.update_many(ops)
    store.close()
    if layout < 3:
        with sqlite3.connect(path) as raw:  # the file an SQLite driver of schema 4 wrote (no table of links)
            raw.execute("DROP TABLE kioko_links")
            raw.execute("UPDATE kioko_meta SET value = '4' WHERE key = 'schema_version'")


@pytest.mark.parametrize("layout", [1, 2, 3])
def test_a_store_of_each_earlier_format_is_marked_and_reads_as_written(
    layout: int, reference: Any, tmp_path: Path
) -> None:
    records, answers, adjacency = reference
    path = tmp_path / f"format{layout}.db"
    _write(path, layout, records)
    raw = kioko.open_store(f"sqlite:///{path}")
    assert read_mark(raw) == (None, 0), "an earlier format carries no mark"
    raw.close()

    layer = kioko.connect(f"sqlite:///{path}", embedder="offline")
    try:
        assert layer.store_mark == StoreMark(FORMAT_VERSION, "offline", 256)
        assert read_mark(layer.store)[0] == layer.store_mark, "the upgrade is written, not only reported"
        for memory_id, entries in adjacency.items():
            assert links.link_entries(layer.get(memory_id, user_id=USER)) == entries
        for question, ids in answers.items():
            assert [r.id for r in layer.search(question, user_id=USER, limit=10)] == ids, question
    finally:
        layer.close()
    again = kioko.connect(f"sqlite:///{path}", embedder="offline")
    assert read_mark(again.store)[1] == 1, "a marked store is not written again when opened"
    again.close()


def test_a_new_store_is_marked_on_first_open(tmp_path: Path) -> None:
    layer = kioko.connect(f"sqlite:///{tmp_path / 'new.db'}", embedder="offline")
    layer.close()
    raw = kioko.open_store(f"sqlite:///{tmp_path / 'new.db'}")
    mark, version = read_mark(raw)
    raw.close()
    assert mark == StoreMark(FORMAT_VERSION, "offline", 256)
    assert version == 1


def _marked(path: Path, **fields: Any) -> None:
    store = kioko.open_store(f"sqlite:///{path}")
    current, version = read_mark(store)
    base = current or StoreMark(FORMAT_VERSION, "offline", 256)
    write_mark(store, StoreMark(**{**base.__dict__, **fields}), version)
    store.close()


def test_a_newer_format_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    path = tmp_path / "newer.db"
    layer = kioko.connect(f"sqlite:///{path}", embedder="offline")
    layer.add("The encoder on line 3 faults with E-217.", user_id=USER)
    layer.close()
    _marked(path, format=FORMAT_VERSION + 1)
    with pytest.raises(FormatTooNewError, match=f"format {FORMAT_VERSION + 1}.*upgrade Kioko"):
        kioko.connect(f"sqlite:///{path}", embedder="offline")
    store = kioko.open_store(f"sqlite:///{path}")
    assert read_mark(store)[0].format == FORMAT_VERSION + 1, "the refused store is left as it was"
    store.close()


def test_a_newer_layout_of_the_driver_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "layout.db"
    kioko.connect(f"sqlite:///{path}", embedder="offline").close()
    _marked(path, driver_layout=7)
    with pytest.raises(FormatTooNewError, match="layout 7 of its driver"):
        kioko.connect(f"sqlite:///{path}", embedder="offline")


def test_another_embedder_is_refused_naming_both_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "mixed.db"
    url = f"sqlite:///{path}"
    kioko.connect(url, embedder="offline").close()
    # the same vector length: only the mark can tell the models apart
    _marked(path, embedder="semantic")
    with pytest.raises(EmbedderMismatchError) as caught:
        kioko.connect(url, embedder="offline")
    message = str(caught.value)
    assert "'semantic'" in message
    assert "'offline'" in message
    assert f"kioko reembed --store {url}" in message
    assert caught.value.stored == ("semantic", 256)
    assert caught.value.given == ("offline", 256)


def test_another_vector_length_names_the_embedders_not_only_the_numbers(tmp_path: Path) -> None:
    pytest.importorskip("all_minilm_l6_v2", reason="the semantic embedder's model package is not installed")
    url = f"sqlite:///{tmp_path / 'offline.db'}"
    kioko.connect(url, embedder="offline").close()
    with pytest.raises(EmbedderMismatchError, match=r"'offline' embedder \(256 numbers\).*'semantic' \(384"):
        kioko.connect(url, embedder="semantic")


def test_the_mark_is_in_a_reserved_scope_no_caller_reaches(tmp_path: Path) -> None:
    layer = kioko.connect("memory://", embedder="offline")
    try:
        assert layer.store.get(MARK_SCOPE, [MARK_ID])[0] is not None
        with pytest.raises(kioko.InvalidRecordError):
            list(layer.memories(user_id=MARK_SCOPE.user_id))
    finally:
        layer.close()
