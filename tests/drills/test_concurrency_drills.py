"""Drills with real processes on the stores that several processes may share (SQLite, PostgreSQL).

What the issue's round of drills found, kept as tests: concurrent updates of one memory and of its
counters lose nothing; linked writes from several processes are all stored with every link on both
ends; a writer killed with SIGKILL mid-write leaves a store that reopens consistent. Numbers are
small enough for CI; ``benchmarks/drills.py`` runs bigger ones and prints the figures.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import drill_workers as drills
import pytest

import kioko
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import Scope

pytestmark = pytest.mark.drill

MULTI_PROCESS_STORES = ("sqlite", "postgresql")


@pytest.fixture(params=MULTI_PROCESS_STORES)
def matrix_store(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def drill_url(request: pytest.FixtureRequest, matrix_store: str, tmp_path: Path) -> str:
    """A SQLite file of the test's own, or the session's PostgreSQL server (every test a fresh user)."""
    if matrix_store == "sqlite":
        return f"sqlite:///{tmp_path / 'drill.db'}"
    return request.getfixturevalue("postgresql_store_url")


@pytest.fixture
def user(request: pytest.FixtureRequest) -> str:
    import uuid

    return "drill-" + uuid.uuid4().hex[:12]


def test_two_processes_updating_one_memory_lose_no_update(drill_url: str, user: str) -> None:
    """2 processes x 24 updates (metadata each time, content every 4th): all 48 metadata keys are stored."""
    with kioko.connect(drill_url, auto_link=True) as layer:
        target = layer.add("Line 3 conveyor keeps jamming near the encoder.", user_id=user)
        layer.add("The line 3 encoder cable was loose.", user_id=user)
    drills.run_workers(drills.update_metadata, [(drill_url, user, target.id, w, 24) for w in ("a", "b")])
    with kioko.connect(drill_url) as layer:
        stored = layer.get(target.id, user_id=user)
    missing = [f"{w}-{i}" for w in ("a", "b") for i in range(24) if stored.metadata.get(f"{w}-{i}") != i]
    assert missing == []
    assert stored.content.startswith("Line 3 conveyor check 23 by ")
    assert drills.check_graph(drills.scope_records(drill_url, user)).consistent


def test_two_processes_counting_outcomes_lose_no_increment(drill_url: str, user: str) -> None:
    """2 processes x 24 outcomes and 5 progress notes each: successes + failures == 48, all 10 notes kept.

    Meanwhile one process renames the procedure and the other changes its steps (6 times each): the last
    title and the last steps are both stored, and the content is built from the two (a change of one part
    never writes back the other part as an earlier read saw it)."""
    with kioko.connect(drill_url, auto_link=True) as layer:
        procedure = layer.procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=user)
        goal = layer.goals.add("Ship the line 3 fix", user_id=user)
    edits = {"a": "title", "b": "steps"}
    drills.run_workers(
        drills.count_outcomes, [(drill_url, user, procedure.id, goal.id, w, 24, 5, edit) for w, edit in edits.items()]
    )
    with kioko.connect(drill_url) as layer:
        stored = layer.get(procedure.id, user_id=user)
        notes = [n["text"] for n in layer.get(goal.id, user_id=user).metadata["notes"]]
    assert (stored.metadata["successes"], stored.metadata["failures"]) == (32, 16)
    assert sorted(notes) == sorted(f"step {w}-{i}" for w in ("a", "b") for i in range(5))
    title = drills.procedure_edit("title", "a", 23)["title"]
    steps = drills.procedure_edit("steps", "b", 23)["steps"]
    assert (stored.metadata["title"], stored.metadata["steps"]) == (title, steps)
    assert stored.content == f"{title}: 1) {steps[0]}; 2) {steps[1]}"


def test_linked_writes_from_three_processes_are_all_stored_and_symmetric(drill_url: str, user: str) -> None:
    """3 processes x 10 linked writes for one user: 30 stored, every link on both ends, none dangling."""
    written = drills.run_workers(drills.linked_writes, [(drill_url, user, w, 10) for w in ("a", "b", "c")])
    records = drills.scope_records(drill_url, user)
    assert {r.id for r in records} == {i for ids in written for i in ids}
    check = drills.check_graph(records)
    assert check.links > 0
    assert (check.asymmetric, check.dangling) == ([], [])


def test_a_writer_killed_mid_write_leaves_a_consistent_store(drill_url: str, user: str) -> None:
    """SIGKILL during linked writes and updates; the store reopens, every link has both ends.

    (benchmarks/drills.py kills 8 writers per store.)"""
    drills.kill_mid_write(drill_url, user, "k0", after=0.3)
    with kioko.connect(drill_url, auto_link=True) as layer:
        records = list(layer.store.scan(Scope(user, None)))
        assert len(records) >= 4
        check = drills.check_graph(records)
        assert (check.asymmetric, check.dangling) == ([], [])
        after = layer.add(
            "Line 3 conveyor fault E-1: the encoder after the crash.", user_id=user, memory_type="episodic"
        )
        assert layer.get(after.id, user_id=user).content.endswith("after the crash.")


@pytest.mark.parametrize("single_process_store", ["memory", "qdrant-local"])
def test_two_threads_updating_one_memory_lose_no_update(single_process_store: str, tmp_path: Path) -> None:
    """On the single-process stores, two threads (a layer each) x 30 updates of one memory and of its
    outcome counter: nothing lost; the retry from a fresh read is the same code path as across processes."""
    url = "memory://" if single_process_store == "memory" else f"qdrant+local:///{tmp_path / 'q'}"
    user = "threads"
    with kioko.open_store(url) as shared:
        layers = [MemoryLayer(shared, auto_link=True) for _ in range(2)]
        target = layers[0].add("Line 3 conveyor keeps jamming near the encoder.", user_id=user)
        procedure = layers[0].procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=user)
        start = threading.Barrier(2)

        def work(layer: MemoryLayer, worker: str) -> None:
            start.wait(30)
            for i in range(30):
                layer.update(
                    target.id,
                    user_id=user,
                    metadata={f"{worker}-{i}": i},
                    content=f"Line 3 conveyor check {i} by {worker}." if i % 5 == 4 else None,
                )
                layer.procedures.outcome(procedure.id, True, user_id=user)

        with ThreadPoolExecutor(2) as pool:
            for future in [pool.submit(work, layer, w) for layer, w in zip(layers, ("a", "b"))]:
                future.result()
        stored = layers[0].get(target.id, user_id=user).metadata
        assert [f"{w}-{i}" for w in "ab" for i in range(30) if stored.get(f"{w}-{i}") != i] == []
        assert layers[0].get(procedure.id, user_id=user).metadata["successes"] == 60
        assert drills.check_graph(shared.scan(Scope(user, None))).consistent
