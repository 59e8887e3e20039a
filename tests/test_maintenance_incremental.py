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
from kioko_core import links as L
from kioko_core.intelligence import reflection
from kioko_core.intelligence.maintenance import DANGLING_PAGE, MaintenanceScheduler
from kioko_core.store import Delete, Filter, Scope, Upsert

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
        entries = L.link_entries(record)
        if faded < 3 and entries and not entries[0].get("by", "auto") == "manual":
            other = store.get(SCOPE, [entries[0]["id"]])[0]
            weak = [{**e, "w": 0.01} if e["id"] == other.id else e for e in entries]
            back = [{**e, "w": 0.01} if e["id"] == record.id else e for e in L.link_entries(other)]
            store.update_many(
                [
                    Upsert(record=L.set_entries(record, weak), expected_version=record.version),
                    Upsert(record=L.set_entries(other, back), expected_version=other.version),
                ]
            )
            faded += 1
    gone = [r.id for r in store.scan(SCOPE) if len(L.link_entries(r)) >= 2][:2]
    store.update_many([Delete(id=memory_id, scope=SCOPE) for memory_id in gone])


def _links(layer) -> dict[str, list[tuple[str, str]]]:
    return {r.id: sorted((e["id"], e.get("type", "")) for e in L.link_entries(r)) for r in layer.store.scan(SCOPE)}


def test_tending_after_turns_leaves_the_links_a_whole_user_tend_leaves(layers) -> None:
    whole, steps = layers
    scheduler = MaintenanceScheduler()
    for layer in layers:
        _seed(layer, 0, 40, linked=True)
    scheduler.tend(whole, **U)
    scheduler.tend_step(steps, **U)  # the first after a turn reads the whole scope: it knows nothing yet
    for layer in layers:
        _seed(layer, 40, 24, linked=False)  # never linked: the next tends link them
        _damage(layer)
    before = _links(steps)
    assert any(not links for links in before.values())  # there is work to do
    whole_report = scheduler.tend(whole, **U)
    reports = [scheduler.tend_step(steps, **U) for _ in range(math.ceil(66 / DANGLING_PAGE) + 1)]
    assert sum(r["linked_memories"] for r in reports) == whole_report["linked_memories"] == 24
    assert sum(r["pruned"] for r in reports) == whole_report["pruned"] > 0
    assert max(r["checked"] for r in reports) <= DANGLING_PAGE  # a page per turn, never the whole user
    assert _links(steps) == _links(whole)


@pytest.mark.parametrize("new_process", [False, True])
def test_a_tend_after_a_turn_links_only_what_was_written_since_the_last(tmp_path, new_process) -> None:
    """On a store with a change log the memories linked are found among the changed ones, without a scan;
    a process's first tend starts where the last tend of any process left off (kept in the counters)."""
    path = f"sqlite:///{tmp_path / 'log.db'}"
    with kioko.connect(path, auto_link=True) as first:
        _seed(first, 0, 30, linked=True)
        MaintenanceScheduler().tend_step(first, **U)
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
        assert connect_scans and all(f.ids is not None and len(f.ids) <= 6 for f in connect_scans)


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
    from kioko_core.intelligence import maintenance

    monkeypatch.setattr(maintenance, "MAX_SWEEPS", 3)
    scheduler = MaintenanceScheduler()
    with kioko.connect("memory://", auto_link=True) as layer:
        for user in ("a", "b", "c", "d", "e"):
            layer.add(_text(1), user_id=user)
            layer.add(_text(6), user_id=user)
            assert scheduler.tend_step(layer, user_id=user)["checked"] == 2
        assert len(scheduler._sweeps) == 3 and len(scheduler._tended) <= 3
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
