"""The benchmark runs end to end and reports what it promises; nothing here looks at how long anything took."""

from __future__ import annotations

import json
from pathlib import Path

import kioko
from benchmarks import memory_graph_bench as bench
from benchmarks.synthetic import TOPICS, generate_notes, generate_questions
from kioko_core.linking import links


def test_quick_run_on_memory_writes_every_required_key(tmp_path: Path) -> None:
    """A tiny --quick run on memory:// writes JSON with one complete object per store and size."""
    target = tmp_path / "bench.json"
    report = bench.main(
        [
            "--quick",
            "--stores",
            "memory",
            "--sizes",
            "60",
            "--writes",
            "3",
            "--recalls",
            "3",
            "--no-progress",
            "--json",
            str(target),
            "--markdown",
            str(tmp_path / "bench.md"),
        ]
    )
    written = json.loads(target.read_text())
    assert written["results"] == json.loads(json.dumps(report["results"]))
    (result,) = written["results"]
    for key in bench.REQUIRED_KEYS + bench.P95_KEYS:
        assert key in result, key
    assert result["store"] == "memory"
    assert result["size"] == 60
    assert result["skipped"] is None
    assert result["error"] is None
    for key in ("write_off_ms", "write_on_ms", "recall0_ms", "recall3_ms", "connect_ms_per_memory", "links_mean"):
        assert isinstance(result[key], float), key
        assert result[key] >= 0, key
    assert isinstance(result["links_max"], int)
    assert result["links_max"] >= 1
    assert result["connect"]["all"]
    assert result["connect"]["memories"] == 60
    assert result["calls_per_write_off"]["update_many"] == 1.0  # one batch per write, linking or not
    assert result["calls_per_write_on"]["update_many"] == 1.0
    assert written["machine"]["cores"]
    assert written["settings"]["writes"] == 3
    assert "| memory | 60 |" in (tmp_path / "bench.md").read_text()


def test_bulk_records_equal_what_add_stores() -> None:
    """The fill writes exactly the record MemoryLayer.add(auto_link=False) would, bar the write-time stamps."""
    note = generate_notes(30, seed=3)[-1]
    layer = kioko.connect("memory://", auto_link=False)
    bench.add_entity_graph(layer)
    added = layer.add(
        note.content,
        user_id=bench.USER,
        memory_type=note.memory_type,
        session_id=note.session_id,
        created_at=note.created_at,
        id="same-id",
    )
    built = links.upgraded(bench.record_for(layer, note, "same-id"))  # the stored shape, read as the layer reads it
    ignored = {"updated_at", "version"}
    assert built.model_dump(exclude=ignored | {"embedding"}) == added.model_dump(exclude=ignored | {"embedding"})
    assert (built.embedding == added.embedding).all()


def test_counting_store_counts_each_call_and_delegates() -> None:
    """The proxy answers like the store it wraps and counts one call per method call."""
    counter = bench.CountingStore(kioko.open_store("memory://"))
    layer = kioko.MemoryLayer(counter, auto_link=True)
    marked = counter.calls["update_many"]  # a new store gets its format mark when the first layer opens it (#36)
    assert marked == 1
    layer.add("Line 3 jammed again at the light curtain.", user_id="u", memory_type="episodic")
    assert counter.calls["update_many"] - marked == 1
    assert counter.dim == counter.inner.dim
    assert counter.capabilities == counter.inner.capabilities
    before = counter.snapshot()
    layer.recall("line 3 jam", user_id="u", links=0)
    assert (counter.snapshot() - before)["knn"] == 1


def test_synthetic_notes_are_deterministic_and_mixed() -> None:
    """Same seed, same notes; every kind of memory appears; sessions hold several events."""
    notes = generate_notes(800, seed=11)
    assert notes == generate_notes(800, seed=11)
    assert notes != generate_notes(800, seed=12)
    assert [n.created_at for n in notes] == sorted(n.created_at for n in notes)
    assert {n.memory_type for n in notes} == {"episodic", "goal", "decision", "procedural", "strategy", "factual"}
    assert {n.topic for n in notes} == {t.key for t in TOPICS}
    assert len(TOPICS) == 20
    sessions = [n.session_id for n in notes if n.session_id]
    assert max(sessions.count(s) for s in set(sessions)) >= 3
    questions = generate_questions(30, seed=11)
    assert len(questions) == 30
    assert len(set(questions)) >= 25
    assert questions == generate_questions(30, seed=11)


def test_intelligence_turns_benchmark_runs_and_reports_every_row(tmp_path: Path) -> None:
    """A tiny run of benchmarks/intelligence_turns.py: every turn timed, gated and writing turns both seen."""
    from benchmarks import intelligence_turns

    result = intelligence_turns.run("memory", count=40, turns=len(intelligence_turns.TURNS), seed=3)
    assert result["all"]["n"] == len(intelligence_turns.TURNS) == result["routing"]["n"]
    assert result["gated"]["n"] >= 5
    assert result["writing"]["n"] >= 10
    assert result["operations_applied"] >= result["writing"]["n"]
    assert "| all turns |" in intelligence_turns.markdown(result, "test")
