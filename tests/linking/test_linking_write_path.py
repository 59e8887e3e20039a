"""The write path's cost: linking never scans, and each write makes a bounded number of store calls.

Spec graph-memory section 8 and the architecture's rule "a write must not grow with the store":
candidates come from postings and knn, never from a scan. A :class:`CountingStore` around the real
store counts every call of every write; the bounds below are per write and do not depend on how
many memories the store already holds. Run with ``-s`` to see the measured numbers.
"""

from __future__ import annotations

from collections import Counter

import pytest
from linking_support import linking_stores, matrix_store, store, user  # noqa: F401  (fixtures)

from contract_tests.counting import CountingStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import Store
from kioko_core.store.link_store import LinkStore

WRITES = 60
"""Writes per test: enough that the later ones run against a store with dozens of linkable memories."""

MAX_CALLS_PER_WRITE = {"update_many": 1, "postings": 6, "get": 4}
"""Bounds per add: one batch; postings for the entity match, the bridges, the terms, candidate terms and
the shared knowledge base's two lookups; get for the candidates, the bridges' triples, shared candidates
and a degree-capped far neighbour."""

WORKLOAD: tuple[tuple[str, str], ...] = (
    ("goal", "Goal: Ship the Kioko memory layer by December 15."),
    ("decision", "Decision: Vector database - chose pgvector because we already run Postgres."),
    ("episodic", "The line 3 conveyor jammed twice this morning."),
    ("episodic", "Line 3 keeps faulting with error E-217."),
    ("episodic", "Found it: the encoder cable on line 3 was loose."),
    ("procedural", "Clear a conveyor jam on line 3: press stop, open the guard, remove the bottle, reset the drive."),
    ("strategy", "For clearing conveyor jams: reset the drive before reopening the guard."),
    ("preference", "User likes green tea."),
    ("semantic", "The plant's PLC network uses the 10.20.0.0/16 subnet."),
    ("episodic", "Pump 7 leaks coolant near the E-41 valve."),
    ("episodic", "Replaced the E-41 valve seal on pump 7; the leak stopped."),
    ("episodic", "DB-17 replica lag spiked during the nightly backup."),
    ("factual", "Krutika leads the line 3 maintenance crew."),
    ("semantic", "pgvector supports HNSW indexes for approximate nearest neighbour search."),
)


def per_write(counting: CountingStore, write: callable) -> Counter[str]:  # type: ignore[valid-type]
    before = counting.snapshot()
    write()
    return counting.calls - before


def test_writes_never_scan_and_make_a_bounded_number_of_store_calls(store: Store, user: str, matrix_store: str) -> None:
    """60 adds, then edits and deletes: scan is never called; every write stays within the bounds."""
    counting = CountingStore(store)
    layer = MemoryLayer(counting, auto_link=True)
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    layer.graph.add("Line 3", "has", "conveyor", user_id=user)
    counting.reset()
    adds: list[Counter[str]] = []
    written = []
    for i in range(WRITES):
        kind, text = WORKLOAD[i % len(WORKLOAD)]
        adds.append(
            per_write(
                counting,
                lambda: written.append(
                    layer.add(f"{text} (note {i})", user_id=user, memory_type=kind, session_id=f"shift-{i // 8}")
                ),
            )
        )
    edits = [
        per_write(counting, lambda r=r: layer.update(r.id, user_id=user, content=r.content + " Checked again."))
        for r in written[-10:]
    ]
    deletes = [per_write(counting, lambda r=r: layer.delete(r.id, user_id=user)) for r in written[:10]]

    assert counting.calls["scan"] == 0
    knn_per_write = 1 if store.capabilities.native_knn else 0  # the offline embedder is lexical
    for calls in adds:
        assert calls["update_many"] == MAX_CALLS_PER_WRITE["update_many"]
        assert calls["postings"] <= MAX_CALLS_PER_WRITE["postings"]
        assert calls["get"] <= MAX_CALLS_PER_WRITE["get"]
        assert calls["knn"] == knn_per_write
    for calls in edits:
        assert calls["update_many"] == 1
        assert calls["postings"] <= 6
        assert calls["get"] <= 5
    for calls in deletes:
        # the record and its neighbours, then what forgetting it reads (docs/privacy.md): the triples it
        # asserted (one postings), its heat entry, its session's log and summary (three gets), the memories
        # made from it (its month summary, themes, session episode, derived_from links: one get); never a scan
        assert calls["update_many"] == 1, calls
        assert calls["postings"] <= 1, calls
        assert calls["get"] <= 6, calls
        # on a store keeping links apart, a get of memories reads their link entries with it (one query more)
        assert calls["links"] <= calls["get"], calls
        assert set(calls) <= {"get", "update_many", "postings", "links"}, calls
    # the later writes, against a store holding dozens of memories, cost no more than the bounds either
    late = adds[-20:]
    summary = {
        method: (max(c[method] for c in late), round(sum(c[method] for c in late) / len(late), 2))
        for method in ("get", "postings", "knn", "update_many", "scan")
    }
    print(
        f"\n[{matrix_store}] store calls per add over the last 20 of {WRITES} (max, mean): {summary}; "
        f"per edit max: {dict(max(edits, key=lambda c: sum(c.values())))}; "
        f"per delete max: {dict(max(deletes, key=lambda c: sum(c.values())))}"
    )


def test_connect_reads_the_scope_with_one_scan(store: Store, user: str) -> None:
    """The backfill is maintenance, not the write path: it may scan, once per call, to find unlinked memories."""
    unlinked = MemoryLayer(store, auto_link=False)
    for kind, text in WORKLOAD:
        unlinked.add(text, user_id=user, memory_type=kind)
    counting = CountingStore(store)
    report = MemoryLayer(counting, auto_link=True).graph.connect(user_id=user)
    assert report.memories == len(WORKLOAD)
    assert counting.calls["scan"] == 1
    assert counting.calls["update_many"] <= len(WORKLOAD)


@pytest.mark.parametrize("auto_link", [False, True])
def test_reading_links_costs_no_extra_query_beyond_the_neighbours(store: Store, user: str, auto_link: bool) -> None:
    """graph.links() is one get for the memory and one for its neighbours, whatever the store holds."""
    layer = MemoryLayer(store, auto_link=auto_link)
    fault = layer.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic", session_id="s1")
    fix = layer.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episodic", session_id="s1"
    )
    counting = CountingStore(store)
    reader = MemoryLayer(counting, auto_link=auto_link)
    counting.calls.clear()  # building the layer reads the store's mark once; the links read is what is counted
    links = reader.graph.links(fix.id, user_id=user)
    assert [k.target for k in links] == ([fault.id] if auto_link else [])
    expected = Counter({"get": 2 if auto_link else 1})
    if isinstance(store, LinkStore):  # each get of memories reads their link entries with it: one query more
        expected["links"] = expected["get"]
    assert counting.calls == expected


def test_the_write_time_benchmark_runs_and_prints_its_table(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """benchmarks/linking_write_times.py end to end on a few notes (nothing here looks at the times)."""
    from benchmarks import linking_write_times as bench

    target = tmp_path / "table.md"
    assert bench.main(["--stores", "memory,sqlite", "--count", "40", "--markdown", str(target)]) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.startswith("| memory") or line.startswith("| sqlite")]
    assert len(rows) == 2
    assert target.read_text().startswith(bench.HEADER)
    columns = [cell.strip() for cell in bench.HEADER.splitlines()[0].strip("|").split("|")]
    for row in rows:
        cells = dict(zip(columns, (cell.strip() for cell in row.strip("|").split("|"))))
        assert cells["writes"] == "40"  # some memory is linked
        assert int(cells["links per memory, max"]) >= 1
        assert float(cells["linked CPU median (ms)"]) > 0
        assert float(cells["unlinked CPU median (ms)"]) > 0


def test_the_write_time_benchmark_fills_each_user_first(capsys) -> None:  # type: ignore[no-untyped-def]
    """--fill N: every user holds N memories before the timed adds (the links-per-memory mean counts them)."""
    from benchmarks import linking_write_times as bench

    assert bench.main(["--stores", "memory", "--count", "10", "--fill", "120", "--layouts", "apart,record"]) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.startswith("| memory")]
    assert len(rows) == 2
    assert "120 memories per user first" in printed
    columns = [cell.strip() for cell in bench.HEADER.splitlines()[0].strip("|").split("|")]
    for row in rows:
        cells = dict(zip(columns, (cell.strip() for cell in row.strip("|").split("|"))))
        links = int(cells["links"].replace(",", ""))
        # 130 memories: the mean is twice the links over all of them, not over the 10 written linked
        assert cells["writes"] == "10"
        assert links > 0
        assert abs(float(cells["links per memory, mean"]) - 2 * links / 130) < 0.02


def test_a_linked_add_on_sqlite_reads_its_plans_scopes_in_one_statement(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The plan looks up the user's scope, their entity graph's and the shared knowledge base's; on a store that
    reads several scopes' generations together (SQLite, ManyGenerations) that is one statement, so an add reads
    generations three times: the copy check's scope, the entity match's graph scope, then the plan's three."""
    import kioko

    driver = kioko.open_store(f"sqlite:///{tmp_path / 'reads.db'}")
    reads: Counter[str] = Counter()
    one, many = driver.generation, driver.generations  # type: ignore[attr-defined]

    def generation(scope):  # type: ignore[no-untyped-def]
        reads["generation"] += 1
        return one(scope)

    def generations(scopes):  # type: ignore[no-untyped-def]
        reads["generations"] += 1
        return many(scopes)

    # the real store's own methods, counted (the layer reaches them through its LayerStore)
    driver.generation, driver.generations = generation, generations  # type: ignore[attr-defined]
    try:
        layer = MemoryLayer(driver, auto_link=True)
        layer.graph.add("Line 3", "has", "conveyor", user_id="kumar")
        for i, (kind, text) in enumerate(WORKLOAD):
            reads.clear()
            layer.add(f"{text} (note {i})", user_id="kumar", memory_type=kind, session_id="shift-1")
            assert reads["generations"] == 1, (text, reads)
            assert reads["generation"] <= 2, (text, reads)
    finally:
        driver.close()


def test_a_linked_add_writes_its_neighbours_links_alone_even_the_memory_written_just_before(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each linked add on SQLite (a LinkStore) writes one record, its own: the neighbours it links get their new
    entries and a version, never a rewrite of their whole record. The memory the add before wrote is the neighbour
    met most (the next turn of its session): the cache must hold it as the layer read it, not a copy of it."""
    import kioko

    driver = kioko.open_store(f"sqlite:///{tmp_path / 'neighbours.db'}")
    batches: list[tuple[int, set[str]]] = []  # per add: records written, owners whose links alone changed
    inner = driver.update_with_links  # type: ignore[attr-defined]

    def update_with_links(ops, changes):  # type: ignore[no-untyped-def]
        written = {op.record.id for op in ops}
        batches.append((len(ops), {change.owner for change in changes} - written))
        return inner(ops, changes)

    driver.update_with_links = update_with_links  # type: ignore[attr-defined]
    try:
        layer = MemoryLayer(driver, auto_link=True)
        added = []
        linked_to_previous = False
        for i, (kind, text) in enumerate(WORKLOAD * 2):
            batches.clear()
            added.append(layer.add(f"{text} (note {i})", user_id="kumar", memory_type=kind, session_id="shift-1"))
            assert [count for count, _ in batches] == [1], (text, batches)
            if len(added) > 1 and added[-2].id in batches[0][1]:
                linked_to_previous = True
        assert linked_to_previous  # the case this test is about was met
    finally:
        driver.close()
