"""memory_graph_bench's --keep / --reuse: a kept SQLite fill is timed later on a copy, and only if it is this run's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks import memory_graph_bench as bench
from benchmarks.kept_fills import KeptFillError, KeptFills

SMALL = ["--stores", "sqlite", "--writes", "2", "--recalls", "2", "--no-progress", "--connect-budget", "5"]


def run(*arguments: str) -> dict:
    (result,) = bench.main([*SMALL, *arguments])["results"]
    return result


def stat(path: Path) -> tuple[int, int]:
    return path.stat().st_size, path.stat().st_mtime_ns


def test_keep_fills_and_stops_then_reuse_times_a_copy(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    filled = run("--sizes", "40", "--keep", str(kept))
    database = kept / "sqlite-40-seed7.db"
    manifest = json.loads((kept / "sqlite-40-seed7.json").read_text())
    assert filled["kept"] == str(kept / "sqlite-40-seed7.json")
    assert filled["fill_s"] is not None  # nothing timed after the fill
    assert filled["recall3_ms"] is None
    assert manifest["size"] == 40
    assert manifest["fill"]["fill_s"] == filled["fill_s"]
    before = stat(database)

    timed = run("--sizes", "40", "--reuse", str(kept))
    assert timed["error"] is None
    assert timed["skipped"] is None
    assert timed["recall3_ms"] is not None
    assert timed["write_on_ms"] is not None
    assert timed["fill_s"] == filled["fill_s"]
    assert timed["reused_fill"]["kept_at"] == manifest["kept_at"]
    assert stat(database) == before  # the writes went to the copy: the kept file can be timed again
    assert run("--sizes", "40", "--reuse", str(kept))["error"] is None


def test_reuse_fills_a_size_that_was_not_kept(tmp_path: Path) -> None:
    result = run("--sizes", "30", "--reuse", str(tmp_path))
    assert result["error"] is None
    assert "reused_fill" not in result
    assert result["recall0_ms"] is not None


def test_a_kept_file_written_since_is_refused(tmp_path: Path) -> None:
    run("--sizes", "40", "--keep", str(tmp_path))
    database = tmp_path / "sqlite-40-seed7.db"
    size, mtime = stat(database)
    os.utime(database, ns=(mtime + 10**9, mtime + 10**9))  # what a later write to the file would change
    result = run("--sizes", "40", "--reuse", str(tmp_path))
    assert result["recall0_ms"] is None
    assert "KeptFillError" in result["error"]
    assert "changed after it was kept" in result["error"]


def test_a_fill_of_other_records_or_without_manifest_is_refused(tmp_path: Path) -> None:
    run("--sizes", "40", "--keep", str(tmp_path))
    kept = KeptFills(tmp_path, keeping=False, seed=7)
    assert kept.kept("sqlite", 40, json.loads(kept.manifest_path("sqlite", 40).read_text())["records_digest"])
    with pytest.raises(KeptFillError, match="records differ"):
        kept.kept("sqlite", 40, "0" * 40)  # the notes, the analysis or the embedder changed
    kept.manifest_path("sqlite", 40).unlink()
    with pytest.raises(KeptFillError, match="no manifest"):
        kept.kept("sqlite", 40, "0" * 40)


def test_a_failed_fill_leaves_no_manifest(tmp_path: Path) -> None:
    # a phase budget no fill can meet: the cell stops mid-fill, and nothing may later pass for a whole fill
    result = run("--sizes", "1200", "--keep", str(tmp_path), "--phase-budget", "0.001")
    assert result["skipped"]
    assert "filling" in result["skipped"]
    assert not (tmp_path / "sqlite-1200-seed7.json").exists()
