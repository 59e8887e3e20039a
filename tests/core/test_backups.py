"""``kioko backup`` / ``kioko restore``: a copy taken while a writer goes on, put back, answers every recall alike."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

import kioko
from benchmarks.synthetic import generate_notes, generate_questions
from kioko.backups import backup, restore
from kioko_core.layer.records import LayerStore
from kioko_core.linking import links
from kioko_core.store import Record, Scope

USER = "kumar"


def _fill(url: str, count: int) -> None:
    with kioko.connect(url, embedder="offline", auto_link=True) as memory:
        rows = [
            {"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at}
            for n in generate_notes(count)
        ]
        memory.add_many(rows, user_id=USER)


def _answers(url: str) -> dict[str, list[tuple[str, float]]]:
    with kioko.connect(url, embedder="offline") as memory:
        return {
            q: [(m.id, m.score) for m in memory.recall(q, user_id=USER, limit=10).memories]
            for q in generate_questions(12)
        }


def _same_answers(one: dict[str, list[tuple[str, float]]], other: dict[str, list[tuple[str, float]]]) -> None:
    """The same memories in the same order; the scores equal but for recency, which moves with the clock
    between the two recalls (a few parts in a million)."""
    assert one.keys() == other.keys()
    for question, hits in one.items():
        assert [i for i, _ in hits] == [i for i, _ in other[question]], question
        assert hits, question
        assert all(abs(a - b) <= 1e-6 for (_, a), (_, b) in zip(hits, other[question])), question


def _records(url: str, scope: Scope) -> dict[str, Record]:
    store = LayerStore(kioko.open_store(url))
    try:
        return {r.id: r for r in store.scan(scope)}
    finally:
        store.close()


def test_a_restored_sqlite_backup_answers_every_recall_identically(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    _fill(url, 200)
    result = backup(url, str(tmp_path / "k.backup"))
    assert result["how"] == "sqlite-backup-api"
    assert result["bytes"] > 0
    restored = f"sqlite:///{tmp_path / 'restored.db'}"
    restore(str(tmp_path / "k.backup"), restored)
    _same_answers(_answers(restored), _answers(url))
    assert _records(restored, Scope(USER)) == _records(url, Scope(USER))
    with pytest.raises(kioko.InvalidRecordError, match="never overwrites"):
        restore(str(tmp_path / "k.backup"), url)
    with pytest.raises(kioko.InvalidRecordError, match="never overwrites"):
        backup(url, str(tmp_path / "k.backup"))


def test_a_backup_taken_while_a_writer_runs_is_one_consistent_snapshot(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'busy.db'}"
    _fill(url, 100)
    stop, started = threading.Event(), threading.Event()
    written: list[str] = []

    def writer() -> None:
        with kioko.connect(url, embedder="offline") as memory:
            number = 0
            while not stop.is_set():
                written.append(memory.add(f"Shift note {number}: line {number % 7} ran clean.", user_id=USER).id)
                number += 1
                if number == 5:
                    started.set()  # the backup begins once the writer is surely writing

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert started.wait(120)
        backup(url, str(tmp_path / "busy.backup"))
        during = len(written)
    finally:
        stop.set()
        thread.join()
    with sqlite3.connect(tmp_path / "busy.backup") as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    copied = tmp_path / "copy.db"
    restore(str(tmp_path / "busy.backup"), f"sqlite:///{copied}")
    now = _records(url, Scope(USER))
    kept = _records(f"sqlite:///{copied}", Scope(USER))
    # a snapshot: the memories written before it, as stored then (a later linked write may have added a link to
    # one since), and no half of any write: each link's other half is in the snapshot too
    assert 100 + 5 <= len(kept) <= 100 + during + 1
    assert all(now[memory_id].content == record.content for memory_id, record in kept.items())
    for memory_id, record in kept.items():
        for entry in links.link_entries(record):
            assert links.entry_for(kept[entry["id"]], memory_id) is not None
    assert any(links.link_entries(r) for r in kept.values())  # the writer linked
    shift_notes = sorted(int(r.content.split()[2].rstrip(":")) for r in kept.values() if r.content.startswith("Shift"))
    assert shift_notes == list(range(len(shift_notes))), "the snapshot holds a prefix of the writer's memories"


def test_other_stores_back_up_as_exports_per_user(tmp_path: Path) -> None:
    pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed")
    source = f"qdrant+local:///{tmp_path / 'qdrant'}"
    _fill(source, 60)
    with pytest.raises(kioko.InvalidRecordError, match="name each with --user"):
        backup(source, str(tmp_path / "none"))
    result = backup(source, str(tmp_path / "exports"), users=[USER])
    assert result["how"] == "export"
    assert (tmp_path / "exports" / "kumar.jsonl").exists()
    target = f"sqlite:///{tmp_path / 'target.db'}"
    restored = restore(str(tmp_path / "exports"), target)
    assert restored["how"] == "import"
    assert restored["written"] >= 60
    _same_answers(_answers(target), _answers(source))
    with pytest.raises(kioko.InvalidRecordError, match="nothing on disk"):
        backup("memory://", str(tmp_path / "m"))
