"""``kioko doctor`` reports the store's mark, size, knn index and pending maintenance, and writes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cli_support import as_json, ok

import kioko
from kioko_core.store import Record, Upsert
from kioko_core.store.format_mark import FORMAT_VERSION, read_mark
from kioko_intelligence.maintenance import COUNTER_KIND, MAINTENANCE_USER


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_doctor_reports_the_mark_sizes_index_and_pending_work_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    url = f"sqlite:///{folder / 'k.db'}"
    with kioko.connect(url, embedder="offline") as memory:
        memory.add("The PLC network uses 10.20.0.0/16.", user_id="kumar")
        # a maintenance task queued for kumar, as a managed turn leaves one
        memory.store.update_many(
            [
                Upsert(
                    record=Record(
                        id="counter-kumar",
                        user_id=MAINTENANCE_USER,
                        kind=COUNTER_KIND,
                        metadata={"user_id": "kumar", "agent_id": None, "turns": 3, "pending": ["tend"]},
                    )
                )
            ]
        )
    before = _digests(folder)
    checks = as_json("doctor", "--store", url, "--user", "kumar")
    assert checks["format"] == FORMAT_VERSION
    assert checks["embedder"] == "offline"
    assert checks["embedder_dim"] == 256
    assert checks["size_bytes"] >= (folder / "k.db").stat().st_size > 0
    assert checks["ann"] in ("on", "off")
    assert checks["pending_maintenance"] == {"kumar": 1}
    [warning] = checks["warnings"]
    assert "1 maintenance task" in warning["warning"]
    assert "kioko maintain" in warning["do"]
    shown = ok("doctor", "--store", url).stdout
    assert "warning: 1 maintenance task" in shown
    assert "do: " in shown
    assert _digests(folder) == before, "doctor changed a file of the store"


def test_doctor_reports_an_unmarked_store_without_marking_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = kioko.open_store(f"sqlite:///{path}")  # written by the driver alone: no layer, no mark
    store.update_many([Upsert(record=Record(id="a", user_id="kumar", kind="factual", content="An old note."))])
    store.close()
    before = _digests(tmp_path)
    checks = as_json("doctor", "--store", f"sqlite:///{path}")
    assert checks["format"] is None
    assert "no format mark" in checks["warnings"][0]["warning"]
    assert _digests(tmp_path) == before
    store = kioko.open_store(f"sqlite:///{path}")
    assert read_mark(store) == (None, 0), "doctor marked the store"
    store.close()


def test_backup_and_restore_from_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    ok("add", "The PLC network uses 10.20.0.0/16.", "--store", url, "--user", "kumar")
    made = as_json("backup", str(tmp_path / "k.backup"), "--store", url)
    assert made["how"] == "sqlite-backup-api"
    assert (tmp_path / "k.backup").exists()
    restored = f"sqlite:///{tmp_path / 'back.db'}"
    assert as_json("restore", str(tmp_path / "k.backup"), "--store", restored)["how"] == "sqlite-backup-api"
    listed = [m["content"] for m in as_json("list", "--store", restored, "--user", "kumar")]
    assert listed == ["The PLC network uses 10.20.0.0/16."]
