"""What delete and forget_user take with them, piece by piece (issue 23, "forget means forget").

The drill (tests/privacy/test_forget_drill.py) greps every byte; these pin down each rule on its own, and that
what was not forgotten stays: a summary keeps its other points, a user's other triples stay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.graph.entities import GRAPH_AGENT
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import Scope
from kioko_intelligence import consolidation, reflection, summaries
from kioko_intelligence.heat import read_heat
from kioko_intelligence.maintenance import MAINTENANCE_USER

U = "maren"


@pytest.fixture(params=["memory", "sqlite"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryLayer:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'traces.db'}"
    layer = kioko.connect(url, auto_link=True, intelligence=True)
    request.addfinalizer(layer.close)
    return layer


def _episode(report: object) -> str:
    return next(op.memory_id for op in report.ops if op.memory_id)  # type: ignore[attr-defined]


def test_delete_rewrites_the_session_summary_and_log_without_the_memory(memory: MemoryLayer) -> None:
    # each turn says something beside what its memory keeps (a hedge below the importance bar): the summary
    # holds only that, and a point carrying a word only the deleted memory had goes with it
    flute = _episode(
        memory.record_turn(
            "I started learning the zorbanian flute with teacher Ilvanka. Maybe the zorbanian scales are harder "
            "than I thought.",
            user_id=U,
            session_id="s",
        )
    )
    memory.record_turn(
        "My sister Brenna moved to Lisbon in May. Maybe Brenna misses the rain a bit today.", user_id=U, session_id="s"
    )
    memory.end_session("s", user_id=U)
    waiting = _episode(
        memory.record_turn(
            "I repaired the Quillon tandem bicycle on Sunday. Maybe the Quillon frame needs new paint too.",
            user_id=U,
            session_id="s",
        )
    )
    scope = Scope(U, None)
    assert summaries.session_log(memory, scope, "s")["waiting"]  # the last turn waits for the next fold

    assert memory.delete(flute, user_id=U)
    assert memory.delete(waiting, user_id=U)
    summary = memory.get(summaries.summary_id(scope, "s"), user_id=U)
    assert "zorbanian" not in summary.content.lower()
    assert "ilvanka" not in str(summary.metadata).lower()
    assert "Brenna misses the rain" in summary.content  # rewritten, not dropped: the other point stays
    assert summaries.session_log(memory, scope, "s")["waiting"] == []


def test_a_summary_left_with_nothing_to_say_is_deleted(memory: MemoryLayer) -> None:
    only = _episode(
        memory.record_turn(
            "I started learning the zorbanian flute with teacher Ilvanka. Maybe the zorbanian scales are harder "
            "than I thought.",
            user_id=U,
            session_id="s",
        )
    )
    memory.end_session("s", user_id=U)
    summary_id = summaries.summary_id(Scope(U, None), "s")
    assert memory.store.get(Scope(U, None), [summary_id])[0] is not None
    memory.delete(only, user_id=U)
    assert memory.store.get(Scope(U, None), [summary_id])[0] is None


def test_delete_takes_the_triples_the_memory_asserted_and_no_others(memory: MemoryLayer) -> None:
    fact = memory.add("Quenby works at the Marrowgate depot", user_id=U)
    memory.graph.add("Quenby", "works at", "Marrowgate depot", user_id=U, source=fact.id)
    memory.graph.add("Quenby", "likes", "tea", user_id=U, source="manual")
    memory.delete(fact.id, user_id=U)
    assert [t.line() for t in memory.graph.relations("Quenby", user_id=U)] == ["Quenby likes tea"]
    held = [r.content for r in memory.store.scan(Scope(U, GRAPH_AGENT))]
    assert held == ["Quenby likes tea"]  # deleted, not closed: no history of the forgotten fact


def test_delete_takes_the_memory_out_of_heat_and_the_index_cache(memory: MemoryLayer) -> None:
    hot = memory.add("The Vellbrook garage code is QX-7781", user_id=U)
    memory.add("The canteen serves curry on Fridays", user_id=U)
    memory.intelligence.scheduler.note_uses(memory, [hot.id], user_id=U, agent_id=None)
    memory.recall("Vellbrook garage", user_id=U)  # a use held in this process, not written yet
    assert hot.id in read_heat(memory.store, Scope(MAINTENANCE_USER, None), Scope(U, None))
    memory.delete(hot.id, user_id=U)
    assert hot.id not in read_heat(memory.store, Scope(MAINTENANCE_USER, None), Scope(U, None))
    memory.intelligence.scheduler.write_uses(memory)  # what this process held does not bring it back
    assert hot.id not in read_heat(memory.store, Scope(MAINTENANCE_USER, None), Scope(U, None))
    cached = memory.index._scopes[Scope(U, None)].terms  # noqa: SLF001
    assert not [term for term in cached if "vellbrook" in term or "qx-7781" in term]


def test_sqlite_zeroes_deleted_bytes_and_empties_the_wal(tmp_path: Path) -> None:
    path = tmp_path / "erase.db"
    layer = kioko.connect(f"sqlite:///{path}")
    try:
        gone = layer.add("Ottoline's passport number is ZQ-88121-Y", user_id=U)
        layer.add("The canteen serves curry on Fridays", user_id=U)
        layer.delete(gone.id, user_id=U)
        files = [p for p in tmp_path.iterdir() if p.name.startswith("erase.db")]
        assert (tmp_path / "erase.db-wal").stat().st_size == 0  # checkpointed and truncated, the store still open
        for file in files:
            data = file.read_bytes()
            assert b"Ottoline" not in data, file
            assert b"ZQ-88121" not in data, file
            assert gone.id.encode() not in data, file
        assert layer.store._connection().execute("PRAGMA secure_delete").fetchone()[0] == 1  # noqa: SLF001
    finally:
        layer.close()


def test_sqlite_forget_user_drops_the_scope_row_and_never_reuses_its_count(tmp_path: Path) -> None:
    layer = kioko.connect(f"sqlite:///{tmp_path / 'scopes.db'}")
    try:
        for n in range(3):
            layer.add(f"Note {n} of the Halvard account", user_id="halvard")
        old = layer.store.generation(Scope("halvard", None))  # type: ignore[attr-defined]
        layer.forget_user(user_id="halvard")
        rows = layer.store._connection().execute("SELECT user_id FROM kioko_scopes").fetchall()  # noqa: SLF001
        assert ("halvard",) not in rows
        # read at once as above the old count: another process's cache of the old scope sees it moved
        assert layer.store.generation(Scope("halvard", None)) > old  # type: ignore[attr-defined]
        layer.add("A new Halvard, a new account", user_id="halvard")
        # a process that cached the forgotten scope at its count can never match the new scope's
        assert layer.store.generation(Scope("halvard", None)) > old  # type: ignore[attr-defined]
    finally:
        layer.close()


def test_housekeeping_deletes_keep_the_summary(memory: MemoryLayer) -> None:
    """Clearing the scratchpad at the end of a session and consolidation are not forgetting."""
    memory.record_turn(
        "I started learning the zorbanian flute with teacher Ilvanka. Maybe the zorbanian scales are harder than "
        "I thought.",
        user_id=U,
        session_id="s",
    )
    memory.working.set("task", "learning the zorbanian flute with teacher Ilvanka", user_id=U, session_id="s")
    memory.end_session("s", user_id=U)  # folds the turn into the summary, then clears the scratchpad
    assert memory.working.all(user_id=U, session_id="s") == {}
    summary = memory.get(summaries.summary_id(Scope(U, None), "s"), user_id=U)
    assert "zorbanian scales" in summary.content
    fact = memory.add("Quenby works at the Marrowgate depot", user_id=U)
    memory.graph.add("Quenby", "works at", "Marrowgate depot", user_id=U, source=fact.id)
    with memory._purging_once(maintaining=True):  # noqa: SLF001 - how consolidation deletes
        memory.delete(fact.id, user_id=U)
    assert [t.line() for t in memory.graph.relations("Quenby", user_id=U)] == ["Quenby works at Marrowgate depot"]


def test_delete_takes_the_scratchpad_slots_that_quote_the_memory(memory: MemoryLayer) -> None:
    report = memory.record_turn(
        "My colleague Bravo scans badge ZX-4821-QQ every morning at the lab", user_id=U, session_id="s"
    )
    fact = next(op.memory_id for op in report.ops if op.memory_id and not op.op.startswith("working."))
    memory.working.set("ticket", "ZX-4821", user_id=U, session_id="s")  # as the router notes it
    memory.working.set("task", "order more coffee", user_id=U, session_id="s")
    memory.delete(fact, user_id=U)
    assert memory.working.all(user_id=U, session_id="s") == {"task": "order more coffee"}


# -- what was made from a memory: month summaries, insights, the session's episode (rewritten or dropped)

DAY = 86400.0


def _episodes(memory: MemoryLayer, texts: list[str], *, at: float | None = None) -> list[str]:
    return [
        memory.add(text, user_id=U, memory_type="episodic", created_at=at, metadata={"importance": 0.6}).id
        for text in texts
    ]


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "unlinked"])
def test_delete_rewrites_the_month_summary_that_folded_the_episode(tmp_path: Path, linked: bool) -> None:
    memory = kioko.connect(f"sqlite:///{tmp_path / 'month.db'}", auto_link=linked, intelligence=True)
    try:
        then = 1_700_000_000.0  # November 2023
        gone, kept = _episodes(
            memory, ["Repaired the Quillmark loom at the Ostrava mill", "Visited the harbour museum with Anke"], at=then
        )
        scope = Scope(U, None)
        assert consolidation.fold_episodes(memory, scope, then + DAY) == 2
        summary_id = consolidation.month_summary_id(scope, "2023-11")
        assert "Quillmark" in memory.get(summary_id, user_id=U).content
        memory.delete(gone, user_id=U)
        summary = memory.get(summary_id, user_id=U)
        assert summary.content == "In November 2023 (1 events): Visited the harbour museum with Anke."
        assert gone not in json.dumps(summary.metadata)
        assert summary.metadata["folded"] == [kept]
        memory.delete(kept, user_id=U)  # nothing left to show: the summary goes too
        assert memory.store.get(scope, [summary_id])[0] is None

        edited, other = _episodes(memory, ["Fixed the Quillmark loom", "Walked the Ostrava ring road"], at=then)
        assert consolidation.fold_episodes(memory, scope, then + DAY) == 2
        memory.update(edited, content="Fixed a loom at the mill", user_id=U)  # the summary still quotes the old text
        memory.delete(edited, user_id=U)
        assert memory.get(summary_id, user_id=U).content == "In November 2023 (1 events): Walked the Ostrava ring road."
    finally:
        memory.close()


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "unlinked"])
def test_delete_rewrites_a_theme_insight_and_drops_it_below_three_episodes(tmp_path: Path, linked: bool) -> None:
    memory = kioko.connect(f"sqlite:///{tmp_path / 'themes.db'}", auto_link=linked, intelligence=True)
    try:
        ids = _episodes(
            memory,
            [
                "The Zerbino pump on line 3 leaked on Monday",
                "Line 3's Zerbino pump stopped again on Tuesday",
                "Replaced the seal of the Zerbino pump on Wednesday",
                "The Zerbino pump failed while technician Ottavine watched",
            ],
        )
        scope = Scope(U, None)
        insight_id = reflection.theme_id(scope, "zerbino")
        assert insight_id in [r.id for r in reflection.themes(memory, scope)]
        assert "Ottavine" in memory.get(insight_id, user_id=U).content  # the newest episode is quoted
        memory.delete(ids[-1], user_id=U)
        insight = memory.get(insight_id, user_id=U)
        assert "ottavine" not in (insight.content + json.dumps(insight.metadata)).lower()
        assert ids[-1] not in json.dumps(insight.metadata)
        assert insight.content.startswith("Recurring theme: Zerbino came up in 3 recent episodes")
        assert "Replaced the seal" in insight.content  # the newest episode left is quoted instead
        memory.delete(ids[0], user_id=U)  # two episodes are no theme
        assert memory.store.get(scope, [insight_id])[0] is None
    finally:
        memory.close()


def test_delete_drops_a_model_insight_that_quotes_the_memory_and_keeps_one_that_does_not(memory: MemoryLayer) -> None:
    ids = _episodes(
        memory,
        [
            "Debugged the Harrowgate sensor with Ilsebet until midnight",
            "The Harrowgate sensor drifted again after lunch",
            "Calibrated the Harrowgate sensor with the new tool",
        ],
    )
    answer = json.dumps(
        {
            "insights": [
                {"kind": "fact", "text": "Ilsebet is the one who debugs sensors late", "evidence": ["e1", "e2"]},
                {"kind": "lesson", "text": "The Harrowgate sensor needs calibrating often", "evidence": ["e1", "e3"]},
            ]
        }
    )
    insights = reflection.model_insights(memory, Scope(U, None), lambda prompt: answer)
    quoting, general = insights
    memory.delete(ids[0], user_id=U)
    assert memory.store.get(Scope(U, None), [quoting.id])[0] is None  # its words were only that episode's
    assert memory.get(general.id, user_id=U).metadata["evidence"] == [ids[2]]


def test_delete_rewrites_the_session_episode_without_what_quoted_the_memory(memory: MemoryLayer) -> None:
    report = memory.record_turn(
        "My colleague Bravo scans badge ZX-4821-QQ every morning at the lab", user_id=U, session_id="s"
    )
    fact = next(op.memory_id for op in report.ops if op.memory_id and not op.op.startswith("working."))
    memory.working.set("task", "order more coffee", user_id=U, session_id="s")
    memory.working.set("result", "badge ZX-4821 works again", user_id=U, session_id="s")
    episode = memory.end_session("s", user_id=U)
    assert episode is not None
    assert "ZX-4821" in episode.content
    memory.delete(fact, user_id=U)
    assert memory.get(episode.id, user_id=U).content == "Session s: order more coffee."


# -- triples no memory asserted: deleted one by one, or every triple of an entity


def test_a_triple_without_a_memory_source_can_be_deleted(memory: MemoryLayer) -> None:
    routed = memory.graph.add("Quenby", "works at", "Marrowgate depot", user_id=U, source="manage")
    memory.graph.add("Quenby", "likes", "tea", user_id=U)
    memory.graph.add("Brenna", "knows", "Quenby", user_id=U, source="manual")
    assert memory.graph.delete_triple(routed.id, user_id=U) == routed
    assert memory.graph.delete_triple(routed.id, user_id=U) is None  # gone, not closed
    assert [t.line() for t in memory.graph.relations("Quenby", user_id=U, include_invalid=True)] == [
        "Quenby likes tea",
        "Brenna knows Quenby",
    ]
    assert memory.graph.forget_entity("quenby", user_id=U) == 2
    assert list(memory.store.scan(Scope(U, GRAPH_AGENT))) == []  # no triple, no history, nothing naming Quenby
    assert memory.entities.match_entities("Quenby and Brenna met", user_id=U) == []


def test_triples_are_deleted_over_http() -> None:
    from service_support import live_service

    with live_service("memory://") as (server, layer), kioko.connect(server.url) as remote:
        fact = remote.graph.add("Ottoline", "lives in", "Vellbrook", user_id=U, source="manage")
        remote.graph.add("Ottoline", "owns", "a tandem", user_id=U)
        assert remote.graph.delete_triple(fact.id, user_id=U) == fact
        assert remote.graph.delete_triple(fact.id, user_id=U) is None
        assert remote.graph.forget_entity("Ottoline", user_id=U) == 1
        assert list(layer.store.scan(Scope(U, GRAPH_AGENT))) == []


# -- sqlite's saved ANN graph (?ann=): a deleted memory's vector leaves the files beside the database


def _graph_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.iterdir())) if directory.exists() else b""


def test_a_deleted_vector_leaves_the_saved_ann_graph(tmp_path: Path) -> None:
    pytest.importorskip("usearch", reason="the saved ANN graph needs usearch (the ann extra)")
    import numpy as np

    from contract_tests.support import DIM, make_record, new_scope
    from kioko_core.store import Delete, Upsert

    def open_store() -> Any:
        return kioko.open_store(f"sqlite:///{tmp_path / 'ann.db'}", dim=DIM, exact_below=50)

    rng = np.random.default_rng(7)
    scope = new_scope()
    records = [make_record(scope, embedding=v) for v in rng.normal(size=(120, DIM)).astype(np.float32)]
    gone = records[17]
    unit = np.asarray(gone.embedding, dtype=np.float32)
    needle = (unit / np.linalg.norm(unit)).astype(np.float16).tobytes()  # the graph keeps float16 copies
    store, other = open_store(), open_store()  # two handles on the file, as two processes would be
    store.update_many([Upsert(record=r) for r in records])
    store.knn(scope, unit, 5)  # builds the graph
    other.knn(scope, unit, 5)  # another handle holds it too, and will not look again before closing
    store.close()
    saved = tmp_path / "ann.db.ann"
    assert needle in _graph_bytes(saved)  # control: it is there
    assert gone.id.encode() in _graph_bytes(saved)

    store = open_store()
    store.knn(scope, unit, 5)  # the saved graph, loaded
    store.update_many([Delete(id=gone.id, scope=scope)])
    assert needle not in _graph_bytes(saved)  # at once
    assert gone.id.encode() not in _graph_bytes(saved)
    other.close()  # its graph is of an older state: not saved over the files
    store.close()  # saved again, built afresh (usearch only marks a removed node)
    data = _graph_bytes(saved)
    assert data
    assert needle not in data
    assert gone.id.encode() not in data
    reopened = open_store()
    assert gone.id not in {n.id for n in reopened.knn(scope, unit, 10)}
    reopened.close()


# -- another process's cache of a user's graph lets a deleted triple go without reading that graph again


def test_another_process_drops_a_deleted_memory_and_triple_without_reading_that_scope(tmp_path: Path) -> None:
    import time

    from forget_drill_support import SecondProcess

    url = f"sqlite:///{tmp_path / 'graphs.db'}"
    layer = kioko.connect(url, auto_link=True)
    second = SecondProcess(url)
    try:
        fact = layer.add("Quenby works at the Marrowgate depot", user_id=U)
        layer.add("The canteen serves curry on Fridays", user_id=U)
        layer.graph.add("Quenby", "works at", "Marrowgate depot", user_id=U, source=fact.id)
        layer.add("Brenna lives in Lisbon", user_id="other")
        layer.graph.add("Brenna", "lives in", "Lisbon", user_id="other")
        assert second.ask(f"relations {U}|Quenby") == ["Quenby works at Marrowgate depot"]  # cached there
        assert "Quenby works at the Marrowgate depot" in second.ask(f"recall {U}|Marrowgate depot")
        assert "Marrowgate depot" in second.ask("held entities")
        assert "Quenby works at the Marrowgate depot" in second.ask("held index._scopes")
        layer.delete(fact.id, user_id=U)  # its triple goes with it
        time.sleep(1.1)  # the sweeps' interval: the next read of any scope checks the others
        assert second.ask("relations other|Brenna") == ["Brenna lives in Lisbon"]  # another user's graph
        assert second.ask("recall other|Lisbon") == ["Brenna lives in Lisbon"]  # another user's memories
        assert not [s for s in second.ask("held entities") if "marrowgate" in s.lower()]
        # the cache's scopes (the store's own vector cache keeps the id and vector until its next knn there)
        assert not [s for s in second.ask("held index._scopes") if "marrowgate" in s.lower() or fact.id in s]
        assert second.ask(f"relations {U}|Quenby") == []
    finally:
        second.close()
        layer.close()


# -- qdrant-client local mode: what it holds in this process of a deleted point


def test_qdrant_local_holds_no_deleted_payload_or_vector_in_memory(tmp_path: Path) -> None:
    import numpy as np
    from forget_support import held_strings

    layer = kioko.connect(f"qdrant+local:///{tmp_path / 'q'}")
    try:
        gone = layer.add("Ottoline's passport number is ZQ-88121-Y", user_id=U)
        layer.add("The canteen serves curry on Fridays", user_id=U)
        collection = layer.store._client._client.collections[layer.store.collection]  # type: ignore[attr-defined]  # noqa: SLF001
        live = [i for i, p in enumerate(collection.payload) if "ZQ-88121" in str(p)]
        assert live, "qdrant-client's in-process lists changed: this test no longer looks in the right place"
        layer.delete(gone.id, user_id=U)
        held = "\n".join(held_strings([collection.payload, list(collection.ids)]))
        assert "ZQ-88121" not in held
        assert "Ottoline" not in held
        assert gone.id not in held
        assert not np.any(next(iter(collection.vectors.values()))[live[0]])  # its vector zeroed, not kept
        assert [m.record.content for m in layer.recall("canteen curry", user_id=U).memories][:1] == [
            "The canteen serves curry on Fridays"
        ]
    finally:
        layer.close()
