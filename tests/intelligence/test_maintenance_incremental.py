"""Maintenance after a turn is bounded (it reads what changed, or a page), and leaves what a whole-user run leaves.

Two stores seeded alike: one tended by ``tend()`` (the whole user at once, what ``maintain()`` runs), the
other by ``tend_step()`` (what a turn runs) until its scan has passed over the user; every memory's links
must then be the same. And the newest episodes a reflection reads through its windows of creation times
must be the ones a scan of the whole user finds, whatever the episodes' dates.
"""

from __future__ import annotations

import math
import random
import time

import pytest

import kioko
from kioko_core.linking import links
from kioko_core.store import Delete, Filter, Scope, Upsert
from kioko_intelligence import Intelligence, maintenance, reflection, tending
from kioko_intelligence.maintenance import DANGLING_PAGE, PRUNE_PAGE, TEND_LINKS, MaintenanceScheduler

U = {"user_id": "kumar"}
SCOPE = Scope("kumar", None)
TOPICS = [
    "the line {n} conveyor jammed at station {m} after the E-{e} drive fault",
    "press {n} scrap rate rose to {m} percent after the die change",
    "the OPC UA server on cell {n} listens on port {e}",
    "vision camera {n} lost focus during batch {m}",
    "Grafana dashboards for line {n} alert on error E-{e}",
]


def _text(index: int) -> str:
    return TOPICS[index % len(TOPICS)].format(n=index % 4 + 1, m=index % 7 + 2, e=200 + index % 5)


@pytest.fixture(params=["memory", "sqlite"])
def layers(request, tmp_path):
    """Two layers over two stores of the same kind (SQLite keeps a change log; memory:// does not)."""
    urls = (
        ["memory://", "memory://"]
        if request.param == "memory"
        else [f"sqlite:///{tmp_path / 'whole.db'}", f"sqlite:///{tmp_path / 'steps.db'}"]
    )
    opened = [kioko.connect(url, auto_link=True) for url in urls]
    yield opened
    for layer in opened:
        layer.close()


def _seed(layer, first: int, count: int, *, linked: bool) -> None:
    layer.auto_link = linked
    for index in range(first, first + count):
        layer.add(_text(index), id=f"m{index:03d}", memory_type="episodic", **U)
    layer.auto_link = True


def _damage(layer) -> None:
    """Links a whole-user prune removes: three faded to nothing, and the links of two memories deleted behind
    the layer's back (a store written by another tool), which now point to nothing."""
    store = layer.store
    faded = 0
    for record in sorted(store.scan(SCOPE), key=lambda r: r.id):
        entries = links.link_entries(record)
        if faded < 3 and entries and not entries[0].get("by", "auto") == "manual":
            other = store.get(SCOPE, [entries[0]["id"]])[0]
            weak = [{**e, "w": 0.01} if e["id"] == other.id else e for e in entries]
            back = [{**e, "w": 0.01} if e["id"] == record.id else e for e in links.link_entries(other)]
            store.update_many(
                [
                    Upsert(record=links.set_entries(record, weak), expected_version=record.version),
                    Upsert(record=links.set_entries(other, back), expected_version=other.version),
                ]
            )
            faded += 1
    gone = [r.id for r in store.scan(SCOPE) if len(links.link_entries(r)) >= 2][:2]
    store.update_many([Delete(id=memory_id, scope=SCOPE) for memory_id in gone])


def _links(layer) -> dict[str, list[tuple[str, str]]]:
    return {r.id: sorted((e["id"], e.get("type", "")) for e in links.link_entries(r)) for r in layer.store.scan(SCOPE)}


def test_tending_after_turns_leaves_the_links_a_whole_user_tend_leaves(layers) -> None:
    whole, steps = layers
    scheduler = MaintenanceScheduler()
    for layer in layers:
        _seed(layer, 0, 40, linked=True)
    scheduler.tend(whole, **U)
    scheduler.tend_step(steps, **U)  # the first after a turn starts a pass over the scope: it knows nothing yet
    for layer in layers:
        _seed(layer, 40, 24, linked=False)  # never linked: the next tends link them
        _damage(layer)
    before = _links(steps)
    assert any(not found for found in before.values())  # there is work to do
    whole_report = scheduler.tend(whole, **U)
    # the pass under way and the next (which reads the memories seeded after the first began), and the
    # never-linked memories they found, TEND_LINKS a step
    steps_needed = 2 * math.ceil(66 / DANGLING_PAGE) + math.ceil(24 / TEND_LINKS)
    reports = [scheduler.tend_step(steps, **U) for _ in range(steps_needed)]
    while reports[-1]["more"] and len(reports) < 3 * steps_needed:  # the links still waiting
        reports.append(scheduler.tend_step(steps, **U))
    assert not reports[-1]["more"]
    assert sum(r["linked_memories"] for r in reports) == whole_report["linked_memories"] == 24
    assert sum(r["pruned"] for r in reports) == whole_report["pruned"] > 0
    assert max(r["checked"] for r in reports) <= PRUNE_PAGE  # a page per turn, never the whole user
    # and a few memories linked: those the change log names, and those a pass found never linked
    assert max(r["linked_memories"] for r in reports) <= 2 * TEND_LINKS
    assert _links(steps) == _links(whole)


@pytest.mark.parametrize("new_process", [False, True])
def test_a_tend_after_a_turn_links_only_what_was_written_since_the_last(tmp_path, new_process) -> None:
    """On a store with a change log the memories linked are found among the changed ones, without a scan;
    a process's first tend starts where the last tend of any process left off (kept in the counters)."""
    path = f"sqlite:///{tmp_path / 'log.db'}"
    with kioko.connect(path, auto_link=True) as first:
        _seed(first, 0, 30, linked=True)
        tending = MaintenanceScheduler()
        for _ in range(math.ceil(30 / DANGLING_PAGE)):  # a first pass over the scope, a page a step
            tending.tend_step(first, **U)
        assert MaintenanceScheduler().counters(first, **U)["tended_generation"] == first.store.generation(SCOPE)
    with kioko.connect(path, auto_link=True) as layer:
        scheduler = MaintenanceScheduler()
        if not new_process:
            scheduler.tend_step(layer, **U)
        _seed(layer, 30, 3, linked=False)
        scanned: list[Filter | None] = []
        scan = layer.store.scan

        def watched(scope, filter=None, batch=500):
            scanned.append(filter)
            return scan(scope, filter, batch)

        layer.store.scan = watched
        try:
            report = scheduler.tend_step(layer, **U)
        finally:
            del layer.store.scan
        assert report["linked_memories"] == 3
        connect_scans = [f for f in scanned if f is not None and f.kinds]
        assert connect_scans
        assert all(f.ids is not None and len(f.ids) <= 6 for f in connect_scans)


def test_the_newest_episodes_read_through_windows_are_those_of_a_whole_scan(tmp_path) -> None:
    rng = random.Random(5)
    now = time.time()
    with kioko.connect(f"sqlite:///{tmp_path / 'episodes.db'}") as layer:
        ages = [rng.choice([0.01, 0.5, 3, 40, 900, 5000, 20000, -2]) * 86400 * rng.random() for _ in range(90)]
        for index, age in enumerate(ages):
            layer.add(
                _text(index),
                id=f"e{index:03d}",
                memory_type="episodic",
                created_at=now - age,
                metadata={"session_episode": True} if index % 9 == 0 else None,
                **U,
            )

        def whole(limit: int) -> list[str]:
            found = [
                r
                for r in layer.store.scan(SCOPE, Filter(kinds=frozenset({"episodic"})))
                if not r.metadata.get("session_episode")
            ]
            return [r.id for r in sorted(found, key=lambda r: (r.created_at, r.id))[-limit:]]

        for limit in (1, 5, 30, 79, 500):
            assert [r.id for r in reflection.recent_episodes(layer, SCOPE, limit)] == whole(limit)
        # the hint (the oldest of the last answer) goes stale: one of those deleted, an old one written late
        newest = reflection.recent_episodes(layer, SCOPE, 30)
        layer.delete(newest[0].id, **U)
        layer.add("a late note about press 2", id="late", memory_type="episodic", created_at=now - 30 * 86400, **U)
        layer.add("an early note about line 1", id="early", memory_type="episodic", created_at=now - 3600, **U)
        assert [r.id for r in reflection.recent_episodes(layer, SCOPE, 30)] == whole(30)


def test_a_process_keeps_the_passes_of_a_bounded_number_of_scopes(monkeypatch) -> None:
    """A service tends many users: what it keeps per user (a page of records) does not grow with them."""

    monkeypatch.setattr(tending, "MAX_SWEEPS", 3)
    scheduler = MaintenanceScheduler()
    with kioko.connect("memory://", auto_link=True) as layer:
        for user in ("a", "b", "c", "d", "e"):
            layer.add(_text(1), user_id=user)
            layer.add(_text(6), user_id=user)
            assert scheduler.tend_step(layer, user_id=user)["checked"] == 2
        assert len(scheduler._sweeps) == 3
        assert len(scheduler._tended) <= 3
        assert {key[1].user_id for key in scheduler._sweeps} == {"c", "d", "e"}


def test_a_first_reflection_in_a_process_reads_from_where_the_last_one_began(tmp_path, monkeypatch) -> None:
    path = f"sqlite:///{tmp_path / 'reflect.db'}"
    now = time.time()
    with kioko.connect(path) as layer:
        for index in range(40):  # a year of episodes, one every nine days: the newest 30 reach back 270 days
            layer.add(_text(index), memory_type="episodic", created_at=now - (40 - index) * 9 * 86400, **U)
        MaintenanceScheduler().reflect(layer, **U)
        kept = MaintenanceScheduler().counters(layer, **U)["episodes_since"]
        assert kept == reflection.recent_episodes(layer, SCOPE)[0].created_at
    monkeypatch.setattr(reflection, "_CUTOFFS", {})  # a new process knows nothing of the last one
    with kioko.connect(path) as layer:
        windows: list[float | None] = []
        scan = layer.store.scan

        def watched(scope, filter=None, batch=500):
            if filter is not None and filter.kinds == frozenset({"episodic"}):
                windows.append(filter.created_after)
            return scan(scope, filter, batch)

        layer.store.scan = watched
        try:
            MaintenanceScheduler().reflect(layer, **U)
        finally:
            del layer.store.scan
        assert windows == [kept]  # one read, from where the last reflection's episodes began


# --------------------------------------------------------------------------- consolidation, reflection, pins


DAY = 86400.0


def _consolidation_seed(layer, now: float) -> None:
    """Episodes about to come of folding age (30 days) and of fading age (90 days, importance 0.2) a day on,
    some already of age, duplicate facts, memories expiring before and after the next run."""
    for i in range(6):
        layer.add(_text(i), id=f"fold{i}", memory_type="episodic", created_at=now - (29.5 + i) * DAY, **U)
        layer.add(
            f"walked past station {i} on the night round",
            id=f"fade{i}",
            memory_type="episodic",
            created_at=now - (89.5 + 3 * i) * DAY,
            metadata={"importance": 0.2},
            **U,
        )
    for i in range(40):  # the rest of the user, which an incremental run should not read (a new fact has it
        # read every fact: its twin may be any of them)
        layer.add(_text(i + 7) + f" (note {i})", id=f"rest{i}", memory_type="episodic", **U)
    layer.add("The plant's PLC network uses 10.20.0.0/16.", id="dup-a", memory_type="factual", **U)
    layer.add("the plant's PLC network uses 10.20.0.0/16", id="dup-b", memory_type="factual", **U)
    layer.add("Parking in lot B.", id="exp-now", memory_type="factual", metadata={"expires_at": now - 60}, **U)
    layer.add("Parking in lot C.", id="exp-soon", memory_type="factual", metadata={"expires_at": now + 0.5 * DAY}, **U)


def _between(layer, now: float) -> None:
    """What the user wrote between two consolidations: a new duplicate, a backdated episode, an expiry."""
    layer.add("The Plant's PLC network uses 10.20.0.0/16!", id="dup-c", memory_type="factual", **U)
    layer.add("line 9 was down all night", id="late", memory_type="episodic", created_at=now - 45 * DAY, **U)
    layer.add("Parking in lot D.", id="exp-later", memory_type="factual", metadata={"expires_at": now + 1.3 * DAY}, **U)


def _contents(layer) -> dict[str, tuple]:
    return {r.id: (r.kind, r.content, sorted(r.metadata.get("folded", []))) for r in layer.store.scan(SCOPE)}


def test_consolidation_after_turns_reads_what_changed_and_leaves_what_a_whole_run_leaves(tmp_path) -> None:
    """Two SQLite stores seeded alike, one consolidated over the whole user at each run, the other by the step
    a turn runs (incremental from its second run: the change log and the time windows); a day apart, with
    writes between. Same memories, contents and folded months; the second step reads a fraction of the user."""
    from kioko_intelligence import consolidation

    now = [time.time()]
    whole = kioko.connect(f"sqlite:///{tmp_path / 'whole.db'}", auto_link=True)
    steps = kioko.connect(f"sqlite:///{tmp_path / 'steps.db'}", auto_link=True)
    scheduler = MaintenanceScheduler(clock=lambda: now[0])
    try:
        for layer in (whole, steps):
            _consolidation_seed(layer, now[0])
        first = scheduler.consolidate_step(steps, **U)
        assert first["whole"] is True  # a scope's first consolidation reads the whole user
        assert {k: first[k] for k in ("expired", "folded", "merged", "forgotten")} == consolidation.consolidate(
            whole, SCOPE, now=now[0]
        )
        assert first["expired"] == 1
        assert first["merged"] == 1
        for layer in (whole, steps):
            _between(layer, now[0])
        now[0] += DAY
        second = scheduler.consolidate_step(steps, **U)
        expected = consolidation.consolidate(whole, SCOPE, now=now[0])
        assert second["whole"] is False
        assert {k: second[k] for k in ("expired", "folded", "merged", "forgotten")} == expected
        # the soon-expiring one, the new duplicate, the episode that came of folding age and the backdated
        # one, the episode that faded away
        assert expected == {"expired": 1, "folded": 2, "merged": 1, "forgotten": 1}
        assert second["read"] < len(list(steps.store.scan(SCOPE))) / 2
        assert _contents(steps) == _contents(whole)
        now[0] += 0.5 * DAY  # nothing changed, the later expiry came due: found through the counters
        third = scheduler.consolidate_step(steps, **U)
        assert third["whole"] is False
        assert third["expired"] == 1
        assert consolidation.consolidate(whole, SCOPE, now=now[0])["expired"] == 1
        assert _contents(steps) == _contents(whole)
    finally:
        whole.close()
        steps.close()


def test_reflection_and_pins_a_write_a_step_end_where_one_whole_run_ends(tmp_path) -> None:
    """A reflection after a turn writes one theme a step, the pin task makes one change a step; called until
    nothing is left, the themes and pins are those of a whole run on a store seeded alike."""
    now = time.time()
    layers = [kioko.connect(f"sqlite:///{tmp_path / f'{name}.db'}", auto_link=True) for name in ("whole", "steps")]
    scheduler = MaintenanceScheduler(pin_threshold=1, max_pinned=3, clock=lambda: now)
    try:
        for layer in layers:
            for i in range(30):
                layer.add(_text(i), id=f"e{i:02d}", memory_type="episodic", created_at=now - 3600 + i, **U)
        whole, steps = layers
        expected = scheduler.reflect(whole, **U)["themes"]
        assert len(expected) >= 3
        results = [scheduler.reflect(steps, limit=1, **U)]
        while results[-1]["more"] and len(results) < 10:
            results.append(scheduler.reflect(steps, limit=1, **U))
        assert len(results) == len(expected)  # one theme written a step
        assert results[-1]["themes"] == expected
        assert not results[-1]["more"]
        assert _contents(steps) == _contents(whole)
        for layer in layers:
            scheduler.note_uses(layer, [f"e{i:02d}" for i in range(5) for _ in range(3)], **U, agent_id=None)
        pinned = scheduler.pin(whole, **U)["pinned"]
        assert len(pinned) == 3
        step_pins = [scheduler.pin(steps, limit=1, **U) for _ in range(4)]
        assert [len(p["pinned"]) for p in step_pins] == [1, 1, 1, 0]
        assert not step_pins[2]["more"]
        assert sorted(i for p in step_pins for i in p["pinned"]) == sorted(pinned)
    finally:
        for layer in layers:
            layer.close()


def test_a_turn_runs_one_due_task_and_the_others_wait_in_the_counters(tmp_path) -> None:
    """On the 10th turn of a session both the summary and the pin task are due: the turn runs the pin task (pins
    decide the cacheable prefix, so they go first), the next turn the summary; the queue is kept in the store's
    counters, so another process takes it up."""
    path = f"sqlite:///{tmp_path / 'queue.db'}"
    options = {"reflect_after": 0, "consolidate_every": 0}
    with kioko.MemoryLayer(kioko.open_store(path), intelligence=Intelligence(**options)) as memory:
        scheduler = memory.intelligence.scheduler
        for i in range(9):
            memory.record_turn(f"checked station {i} on line 3", session_id="s1", **U)
        assert scheduler.counters(memory, **U)["pending"] == []
        ran = scheduler.after_turn(memory, None, session_id="s1", **U)
        assert ran == ["pin"]
        assert scheduler.counters(memory, **U)["pending"] == ["summarize:s1"]
    with kioko.MemoryLayer(kioko.open_store(path), intelligence=Intelligence(**options)) as memory:
        scheduler = memory.intelligence.scheduler
        assert scheduler.after_turn(memory, None, session_id="s1", **U) == ["summarize:s1"]
        assert scheduler.counters(memory, **U)["pending"] == []
        # a queue past its bound runs the excess at once: nothing due is ever dropped

        def crowded(state: dict) -> dict:
            state["pending"] = [f"end_session:old{i}" for i in range(maintenance.MAX_PENDING + 2)]
            return state

        scheduler._change(memory, SCOPE, crowded)
        assert scheduler.after_turn(memory, None, session_id="s1", **U) == ["end_session:old0", "end_session:old1"]
        assert len(scheduler.counters(memory, **U)["pending"]) == maintenance.MAX_PENDING
