"""Drills with real processes on the stores that several processes may share (SQLite, PostgreSQL).

What the issue's round of drills found, kept as tests: concurrent updates of one memory and of its
counters lose nothing; linked writes from several processes are all stored with every link on both
ends; a writer killed with SIGKILL mid-write leaves a store that reopens consistent. Numbers are
small enough for CI; ``benchmarks/drills.py`` runs bigger ones and prints the figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kioko
from kioko_core.store import Scope

import drill_workers as drills

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
    """2 processes x 40 updates (metadata each time, content every 4th): all 80 metadata keys are stored."""
    with kioko.connect(drill_url, auto_link=True) as layer:
        target = layer.add("Line 3 conveyor keeps jamming near the encoder.", user_id=user)
        layer.add("The line 3 encoder cable was loose.", user_id=user)
    drills.run_workers(drills.update_metadata, [(drill_url, user, target.id, w, 40) for w in ("a", "b")])
    with kioko.connect(drill_url) as layer:
        stored = layer.get(target.id, user_id=user)
    missing = [f"{w}-{i}" for w in ("a", "b") for i in range(40) if stored.metadata.get(f"{w}-{i}") != i]
    assert missing == []
    assert stored.content.startswith("Line 3 conveyor check 39 by ")
    assert drills.check_graph(drills.scope_records(drill_url, user)).consistent


def test_two_processes_counting_outcomes_lose_no_increment(drill_url: str, user: str) -> None:
    """2 processes x 30 outcomes and 5 progress notes each: successes + failures == 60, all 10 notes kept."""
    with kioko.connect(drill_url, auto_link=True) as layer:
        procedure = layer.procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=user)
        goal = layer.goals.add("Ship the line 3 fix", user_id=user)
    drills.run_workers(drills.count_outcomes,
                       [(drill_url, user, procedure.id, goal.id, w, 30, 5) for w in ("a", "b")])
    with kioko.connect(drill_url) as layer:
        counted = layer.get(procedure.id, user_id=user).metadata
        notes = [n["text"] for n in layer.get(goal.id, user_id=user).metadata["notes"]]
    assert (counted["successes"], counted["failures"]) == (40, 20)
    assert sorted(notes) == sorted(f"step {w}-{i}" for w in ("a", "b") for i in range(5))


def test_linked_writes_from_three_processes_are_all_stored_and_symmetric(drill_url: str, user: str) -> None:
    """3 processes x 20 linked writes for one user: 60 stored, every link on both ends, none dangling."""
    written = drills.run_workers(drills.linked_writes, [(drill_url, user, w, 20) for w in ("a", "b", "c")])
    records = drills.scope_records(drill_url, user)
    assert {r.id for r in records} == {i for ids in written for i in ids}
    check = drills.check_graph(records)
    assert check.links > 0
    assert (check.asymmetric, check.dangling) == ([], [])


def test_a_writer_killed_mid_write_leaves_a_consistent_store(drill_url: str, user: str) -> None:
    """SIGKILL twice during linked writes and updates; the store reopens, every link has both ends."""
    for run in range(2):
        drills.kill_mid_write(drill_url, user, f"k{run}", after=0.4 + 0.3 * run)
    with kioko.connect(drill_url, auto_link=True) as layer:
        records = list(layer.store.scan(Scope(user, None)))
        assert len(records) >= 8
        check = drills.check_graph(records)
        assert (check.asymmetric, check.dangling) == ([], [])
        after = layer.add("Line 3 conveyor fault E-1: the encoder after the crash.", user_id=user,
                          memory_type="episodic")
        assert layer.get(after.id, user_id=user).content.endswith("after the crash.")
