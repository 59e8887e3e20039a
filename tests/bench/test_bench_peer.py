"""The memory-graph benchmark's Mem0 column (--peer mem0): it runs offline, never calls an LLM, reports ratios.

Mem0 is an optional extra (``kioko[peer]``); without it these tests skip and say so. Nothing here looks at
how long anything took.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from benchmarks import mem0_peer
from benchmarks import memory_graph_bench as bench

needs_mem0 = pytest.mark.skipif(
    mem0_peer.mem0_version() is None, reason=f"mem0ai is not installed ({mem0_peer.INSTALL_HINT})"
)


@needs_mem0
def test_peer_column_measures_mem0_and_reports_ratios(tmp_path: Path) -> None:
    target = tmp_path / "bench.json"
    report = bench.main(
        [
            "--stores",
            "memory",
            "--sizes",
            "60",
            "--writes",
            "3",
            "--recalls",
            "3",
            "--peer",
            "mem0",
            "--no-progress",
            "--json",
            str(target),
            "--markdown",
            str(tmp_path / "bench.md"),
        ]
    )
    peer = json.loads(target.read_text())["peer"]
    assert peer == json.loads(json.dumps(report["peer"]))
    assert peer["name"] == "mem0"
    assert peer["version"] == mem0_peer.mem0_version()
    assert peer["skipped"] is None
    (cell,) = peer["results"]
    assert cell["size"] == 60, cell
    assert cell["skipped"] is None, cell
    assert cell["error"] is None, cell
    assert cell["llm_calls"] == 0
    assert cell["adds"] == 2 * 3  # both of Kioko's write modes' notes; every question
    assert cell["searches"] == 3
    for key in ("fill_s", "add_ms", "add_p95_ms", "search_ms", "search_p95_ms"):
        assert isinstance(cell[key], float), key
        assert cell[key] > 0, key
    (row,) = peer["ratios"]
    kioko = report["results"][0]
    assert row["store"] == "memory"
    assert row["size"] == 60
    assert row["write_off_ratio"] == round(kioko["write_off_ms"] / cell["add_ms"], 3)
    assert row["recall3_ratio"] == round(kioko["recall3_ms"] / cell["search_ms"], 3)
    table = (tmp_path / "bench.md").read_text()
    assert "| mem0 | 60 |" in table
    assert "Kioko / Mem0" in table


@needs_mem0
def test_mem0_gets_kiokos_vectors_and_finds_what_was_added(tmp_path: Path) -> None:
    """Mem0's embedding model is the adapter (256 dimensions), and a search finds the matching note."""
    with mem0_peer.open_mem0(tmp_path / "mem0") as peer:
        assert len(peer.memory.embedding_model.embed("Line 3 jammed again", "add")) == 256
        for text in ("Line 3 jammed again at the light curtain.", "Lunch order: two pizzas for the team."):
            peer.memory.add(text, user_id="u", infer=False)
        peer.memory.add("Another user's note about line 3 jams.", user_id="someone-else", infer=False)
        found = peer.memory.search("line 3 jam", filters={"user_id": "u"}, top_k=5)["results"]
        assert found
        assert found[0]["memory"] == "Line 3 jammed again at the light curtain."
        assert all(hit["user_id"] == "u" for hit in found)
        assert peer.guard.calls == []
    assert not (tmp_path / "mem0").exists()  # its files go with it


@needs_mem0
def test_mem0_on_pgvector_runs_offline_but_for_its_server_and_drops_its_table(
    tmp_path: Path, postgresql_store_url: str
) -> None:
    """The mem0-pgvector column: only the given PostgreSQL is reachable, and its table goes afterwards."""
    import psycopg

    notes = [f"Station {n} on line 3 jammed at the light curtain." for n in range(12)]
    settings = mem0_peer.PeerSettings(writes=2, recalls=2, warmup=2, phase_budget=120, fill_batch=5, progress=False)
    result = mem0_peer.run_mem0_cell(
        8, "u", notes[:8], notes[8:], ["line 3 jam", "light curtain"], settings, tmp_path / "p", postgresql_store_url
    )
    assert result["peer"] == "mem0-pgvector", result
    assert result["error"] is None, result
    assert result["skipped"] is None, result
    assert result["llm_calls"] == 0
    assert result["adds"] == 2
    assert result["searches"] == 2
    assert result["search_returned_mean"] == 8  # top_k is Kioko's limit, and all 8 memories are similar
    with psycopg.connect(postgresql_store_url) as connection:
        tables = connection.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'mem0_p%'").fetchall()
    assert tables == []


@needs_mem0
def test_mem0s_llm_is_guarded(tmp_path: Path) -> None:
    """A call to the LLM Mem0 built is refused and counted, so a run that used it cannot pass unnoticed."""
    with mem0_peer.open_mem0(tmp_path / "mem0") as peer:
        with pytest.raises(RuntimeError, match="infer=False"):
            peer.memory.llm.generate_response(messages=[{"role": "user", "content": "hi"}])
        assert peer.guard.calls == ["generate_response"]


def test_no_network_refuses_connections_and_restores_them() -> None:
    with socket.socket() as listener:  # a real server on the loopback, reachable before and after
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = listener.getsockname()
        with mem0_peer.no_network() as attempts:
            with pytest.raises(mem0_peer.NetworkAttempt), socket.socket() as client:
                client.connect(address)
            with pytest.raises(mem0_peer.NetworkAttempt):
                socket.create_connection(address, timeout=1)
        assert len(attempts) == 2
        with socket.create_connection(address, timeout=5):
            pass


def test_ratios_are_kioko_over_the_peer_and_absent_where_either_is_missing() -> None:
    kioko = {"store": "sqlite", "size": 2000, "write_off_ms": 1.0, "write_on_ms": 4.0, "recall0_ms": 2.0}
    kioko["recall3_ms"] = None
    row = mem0_peer.ratios(kioko, {"add_ms": 8.0, "search_ms": 4.0})
    assert row == {
        "store": "sqlite",
        "size": 2000,
        "write_off_ratio": 0.125,
        "write_on_ratio": 0.5,
        "recall0_ratio": 0.5,
        "recall3_ratio": None,
    }
    assert mem0_peer.ratios(kioko, {"add_ms": None, "search_ms": 0.0})["write_off_ratio"] is None


@needs_mem0
def test_locomo_mem0_row_runs_offline_with_kiokos_embedder(tmp_path: Path) -> None:
    from benchmarks import locomo_recall

    if not locomo_recall.DEFAULT_DATA.is_dir():
        pytest.skip(f"no LoCoMo files at {locomo_recall.DEFAULT_DATA}")
    target = tmp_path / "locomo.json"
    results = locomo_recall.main(
        ["--quick", "--store", "memory", "--systems", "mem0,bm25", "--embedder", "offline", "--json", str(target)]
    )
    assert [r["system"] for r in results] == ["mem0", "bm25"]
    mem0_row = results[0]
    # Mem0 stored every turn and its search found evidence (a broken adapter, ids lost in metadata: 0)
    assert mem0_row["R@10"] > 0.05
    assert mem0_row["ingest ms/memory"] > 0
    assert "mem0ai" in json.loads(target.read_text())["header"]["mem0"]
