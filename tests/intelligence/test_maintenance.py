"""Maintenance: end_session, the session switch, counters kept in the store, tend, maintain(), failures."""

from __future__ import annotations

import threading

import pytest
from remote_support import fresh_url, serving

import kioko
from kioko_core.linking import links
from kioko_intelligence import Intelligence
from kioko_intelligence.maintenance import MaintenanceScheduler

U = {"user_id": "kumar"}
DEBUGGING = "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3."


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path):
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'maintain.db'}"


@pytest.fixture(params=["library", "remote"])
def open_memory(request, url, tmp_path):
    """Opens the layer under test over ``url``; ``remote``: over a new store of the same kind, served on loopback,
    and hands back a RemoteMemory to it."""
    if request.param == "library":
        yield lambda **options: kioko.connect(url, **options)
        return
    store = "memory" if url.startswith("memory") else "sqlite"
    with serving() as serve:
        yield lambda **options: serve(kioko.connect(fresh_url(store, tmp_path), **options))


def _episodes(memory, session_id: str) -> list:
    return [r for r in memory.episodes.list(session_id=session_id, **U) if r.metadata.get("session_episode")]


def test_end_session_keeps_the_task_and_lasting_slots_as_one_keyed_episode(open_memory) -> None:
    with open_memory() as memory:
        memory.working.set("task", "Debugging the E-217 drive fault on line 3", session_id="s1", **U)
        memory.working.set("root_cause", "a loose encoder cable", session_id="s1", **U)
        memory.working.set("ticket", "INC-4521", session_id="s1", **U)
        episode = memory.end_session("s1", **U)
        assert (
            episode.content
            == "Session s1: Debugging the E-217 drive fault on line 3; root cause: a loose encoder cable."
        )
        assert episode.kind == "episodic"
        assert episode.session_id == "s1"
        assert memory.working.all(session_id="s1", **U) == {}  # an explicit call clears the scratchpad
        # wrapping the session up again updates the same episode
        memory.working.set("fix", "reseated the cable", session_id="s1", **U)
        again = memory.end_session("s1", **U)
        assert again.id == episode.id
        assert again.content.endswith("fix: reseated the cable.")
        assert [r.id for r in _episodes(memory, "s1")] == [episode.id]
        # nothing lasting: no episode, the scratchpad is still cleared
        memory.working.set("ticket", "INC-9", session_id="s2", **U)
        assert memory.end_session("s2", **U) is None
        assert memory.working.all(session_id="s2", **U) == {}
        with pytest.raises(kioko.InvalidRecordError):
            memory.end_session("", **U)


def test_a_session_switch_wraps_the_last_session_up_and_keeps_its_scratchpad(url) -> None:
    with kioko.connect(url, intelligence=True) as memory:
        memory.record_turn(DEBUGGING, "Let's check the encoder.", session_id="s1", **U)
        scratch = memory.working.all(session_id="s1", **U)
        assert "task" in scratch
        memory.record_turn("thanks!", session_id="s1", **U)
        assert _episodes(memory, "s1") == []
        memory.record_turn("Good morning!", session_id="s2", **U)
        wrapped = _episodes(memory, "s1")
        assert len(wrapped) == 1
        assert "INC-4521" in wrapped[0].content
        assert memory.working.all(session_id="s1", **U) == scratch  # sessions interleave: kept
        memory.record_turn("back to it", session_id="s1", **U)
        memory.record_turn("and again", session_id="s2", **U)
        assert len(_episodes(memory, "s1")) == 1  # re-wrapping updates, never duplicates
        assert memory.intelligence.stats()["maintenance"] >= 2


def test_counters_live_in_the_store_and_survive_a_restart(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'counters.db'}"
    with kioko.connect(path, intelligence=True) as memory:
        memory.record_turn(DEBUGGING, session_id="s1", **U)
        memory.record_turn("thanks!", session_id="s1", **U)
        memory.record_turn("hello", session_id="s1", dry_run=True, **U)  # a dry run changes nothing
        counters = memory.intelligence.scheduler.counters(memory, **U)
        assert {k: counters[k] for k in ("turns", "session", "tended_at", "pinned_at")} == {
            "turns": 2,
            "session": "s1",
            "tended_at": 0,
            "pinned_at": 0,
        }
    with kioko.connect(path, intelligence=True) as memory:
        assert memory.intelligence.scheduler.counters(memory, **U)["turns"] == 2
        memory.record_turn("Good morning!", session_id="s2", **U)  # the switch is seen across the restart
        assert len(_episodes(memory, "s1")) == 1
        assert memory.intelligence.scheduler.counters(memory, **U)["session"] == "s2"


def test_tend_runs_every_link_every_turns_and_links_what_was_never_linked(url) -> None:
    # memories a bulk loader wrote with linking off (connect() links by default): tend links them later
    with kioko.connect(url, auto_link=False) as plain:
        first = plain.add("Line 3 keeps faulting with error E-217.", memory_type="episodic", **U)
        plain.add("Error E-217 on line 3 means the encoder cable is loose.", **U)
        assert links.linked_at(plain.get(first.id, **U)) is None
        brain = Intelligence(scheduler=MaintenanceScheduler(link_every=3))
        memory = kioko.MemoryLayer(plain.store, intelligence=brain)
        for turn in ("hi", "thanks", "ok"):
            memory.record_turn(turn, session_id="s1", **U)
        assert brain.scheduler.counters(memory, **U)["tended_at"] == 3
        assert links.linked_at(memory.get(first.id, **U)) is not None
        assert memory.graph.links(first.id, **U)
        memory.record_turn("hi again", session_id="s1", **U)
        assert brain.scheduler.counters(memory, **U)["tended_at"] == 3


def test_two_layers_on_one_store_count_every_turn_once(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'shared.db'}"
    layers = [kioko.connect(path), kioko.connect(path)]
    # the session switch the only task (others due in the 30 turns would wait in the queue before it)
    scheduler = MaintenanceScheduler(link_every=0, pin_every=0, summarize_every=0)
    errors: list[BaseException] = []

    def work(layer, session: str) -> None:
        try:
            for _ in range(15):
                scheduler.after_turn(layer, None, user_id="kumar", session_id=session)
        except BaseException as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)

    layers[0].working.set("task", "Calibrating station 12", session_id="a", **U)
    threads = [threading.Thread(target=work, args=(layer, "a")) for layer in layers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert scheduler.counters(layers[0], **U)["turns"] == 30
    # both switch to b at once: exactly one wraps session a up
    done = []
    threads = [
        threading.Thread(
            target=lambda lay=layer: done.append(scheduler.after_turn(lay, None, user_id="kumar", session_id="b"))
        )
        for layer in layers
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(len, done)) == [0, 1]
    assert len(_episodes(layers[0], "a")) == 1
    for layer in layers:
        layer.close()


def test_maintain_runs_for_one_user_or_every_counted_user(open_memory) -> None:
    with open_memory(intelligence=True) as memory:
        memory.record_turn(DEBUGGING, session_id="s1", **U)
        memory.record_turn(
            "I'm debugging ticket INC-7, the pump shows error P-3 on line 5.", session_id="t1", user_id="asha"
        )
        every = memory.maintain(tasks=["end_sessions"])
        assert set(every) == {"kumar", "asha"}
        assert all(len(r["end_sessions"]) == 1 for r in every.values())
        assert len(_episodes(memory, "s1")) == 1
        assert "task" in memory.working.all(session_id="s1", **U)
        one = memory.maintain(**U)
        assert set(one) == {"kumar"}
        assert set(one["kumar"]) == {
            "end_sessions",
            "summarize",
            "reflect",
            "tend",
            "pin",
            "consolidate",
        }
        assert set(memory.scoped(user_id="asha").maintain()) == {"asha"}
        for bad in (["dream"], "tend"):
            with pytest.raises(kioko.InvalidRecordError):
                memory.maintain(tasks=bad, **U)
        memory.forget_user(**U)
        assert set(memory.maintain(tasks=[])) == {"asha"}  # nothing of a forgotten user stays behind


def test_a_failing_scheduler_never_breaks_the_turn_and_false_turns_it_off() -> None:
    class Broken:
        def after_turn(self, memory, report, **who):
            raise RuntimeError("disk on fire")

    with kioko.MemoryLayer(kioko.open_store("memory://"), intelligence=Intelligence(scheduler=Broken())) as memory:
        report = memory.record_turn(DEBUGGING, session_id="s1", **U)
        assert report.ops
        assert memory.intelligence.stats()["maintenance_errors"] == 1
    with kioko.MemoryLayer(kioko.open_store("memory://"), intelligence=Intelligence(scheduler=False)) as memory:
        memory.record_turn(DEBUGGING, session_id="s1", **U)
        memory.record_turn("hello", session_id="s2", **U)
        assert memory.intelligence.scheduler is None
        assert _episodes(memory, "s1") == []
    with pytest.raises(kioko.InvalidRecordError):
        MaintenanceScheduler(link_every=-1)


def test_background_maintenance_runs_the_due_tasks_on_a_worker_thread(url) -> None:
    seen: list[str] = []

    class Watching(MaintenanceScheduler):
        def end_session(self, memory, session_id, **options):
            seen.append(threading.current_thread().name)
            return super().end_session(memory, session_id, **options)

    scheduler = Watching(background=True)
    with kioko.MemoryLayer(kioko.open_store(url), intelligence=Intelligence(scheduler=scheduler)) as memory:
        memory.record_turn(DEBUGGING, session_id="s1", **U)
        memory.record_turn("Good morning!", session_id="s2", **U)
        assert scheduler.drain(timeout=30)
        assert len(_episodes(memory, "s1")) == 1
        assert seen
        assert seen[0].startswith("kioko-maintenance")
    assert Intelligence(background=True).scheduler.background
