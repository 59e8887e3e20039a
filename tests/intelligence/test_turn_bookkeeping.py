"""What a managed turn pays for its own bookkeeping: one batch for the session log and the counters, and the
offline router's goal lookup bounded by the term index however many goals the user has.

Real stores (SQLite files, memory://) wrapped in the project's CountingStore to see which calls reach them.
"""

from __future__ import annotations

from typing import Any

import kioko
from contract_tests.counting import CountingStore
from kioko_core.store import Scope, Upsert
from kioko_intelligence import Intelligence, summaries
from kioko_intelligence.heuristic import POSTINGS_LIMIT, HeuristicRouter, _Reading
from kioko_intelligence.maintenance import COUNTER_KIND, MaintenanceScheduler
from kioko_intelligence.turn import Turn

U = "kumar"
KUMAR = Scope(U, None)


def _batches(counting: CountingStore) -> list[list[str]]:
    """The kinds each bookkeeping batch wrote (session logs, counters), in order."""
    return [kinds for kinds in counting.batches if {"session_log", COUNTER_KIND} & set(kinds)]


class _Watched(CountingStore):
    """CountingStore that also keeps the kinds each batch upserts (what a test reads back)."""

    def __init__(self, inner: Any, **options: Any) -> None:
        super().__init__(inner, **options)
        self.batches: list[list[str]] = []

    def _note(self, method: str, *args: Any) -> None:
        if method == "update_many":  # a batch, with links kept apart or not
            self.batches.append([op.record.kind for op in args[0] if isinstance(op, Upsert)])
        super()._note(method, *args)


def test_a_managed_turn_writes_its_session_log_and_counters_in_one_batch(tmp_path) -> None:
    counting = _Watched(kioko.open_store(f"sqlite:///{tmp_path / 'one.db'}"))
    with kioko.MemoryLayer(counting, intelligence=Intelligence()) as memory:
        for text in ("thanks!", "ok", "How do I reset the safety relay?"):  # gated: no memory, no due task
            memory.record_turn(text, "Noted.", user_id=U, session_id="s1")
        assert _batches(counting) == [["session_log", COUNTER_KIND]] * 3
        assert summaries.session_log(memory, KUMAR, "s1")["turns"] == 3
        assert MaintenanceScheduler().counters(memory, user_id=U)["turns"] == 3


def test_a_conflict_on_the_session_log_writes_neither_and_both_are_read_again(tmp_path) -> None:
    """Another process notes a turn of the same session between this turn's read and its write: the batch is
    refused whole (the counters are not counted twice), read again and written with both turns in the log."""
    path = f"sqlite:///{tmp_path / 'race.db'}"
    other = kioko.MemoryLayer(kioko.open_store(path))
    cut_in: list[bool] = []

    def before(method: str, args: tuple) -> None:
        if (
            method == "update_many"
            and not cut_in
            and any(isinstance(op, Upsert) and op.record.kind == COUNTER_KIND for op in args[0])
        ):
            cut_in.append(True)
            summaries.note_turn(other, KUMAR, "s1", [{"role": "user", "content": "the other process's turn"}], 10)

    counting = _Watched(kioko.open_store(path), before_call=before)
    with kioko.MemoryLayer(counting, intelligence=Intelligence()) as memory:
        # written with its capital: the log keeps a turn's tidy form, and a caseless "thanks!" is recased
        memory.record_turn("Thanks!", "Noted.", user_id=U, session_id="s1")
        log = summaries.session_log(memory, KUMAR, "s1")
        assert cut_in
        assert log["turns"] == 2
        assert log["waiting"] == ["user: the other process's turn", "user: Thanks!\nassistant: Noted."]
        assert MaintenanceScheduler().counters(memory, user_id=U)["turns"] == 1
        assert _batches(counting) == [["session_log", COUNTER_KIND]] * 2  # the refused one, then the written one
    other.close()


def test_a_fold_due_in_the_log_is_queued_in_the_same_batch(tmp_path) -> None:
    """The log write that makes a fold due and the counters that queue ``summarize`` are one batch: the fold runs
    on the turn it fell due when that turn wrote nothing."""
    counting = _Watched(kioko.open_store(f"sqlite:///{tmp_path / 'fold.db'}"))
    brain = Intelligence(scheduler=MaintenanceScheduler(summarize_every=2, pin_every=0, link_every=0))
    with kioko.MemoryLayer(counting, intelligence=brain) as memory:
        memory.record_turn("I'm debugging line 3 today, the drive shows error E-217.", "", user_id=U, session_id="s1")
        assert memory.intelligence.stats()["maintenance"] == 0
        memory.record_turn("thanks!", "", user_id=U, session_id="s1")
        assert memory.intelligence.stats()["maintenance"] == 1
        assert summaries.session_log(memory, KUMAR, "s1")["waiting"] == []
        summary = memory.store.get(KUMAR, [summaries.summary_id(KUMAR, "s1")])[0]
        assert summary is not None
        assert "E-217" in summary.content


WRITES = [
    "The line {n} conveyor jammed twice this morning.",
    "OPC UA servers on cell {n} listen on port 4840 by default.",
    "The vision camera on station {n} lost focus after the night batch.",
    "Lesson learned: when debugging drive {n}, check the encoder cable first.",
    "The press {n} hydraulic pump was replaced on Monday.",
]


def test_a_turn_that_wrote_leaves_its_step_to_a_turn_that_wrote_nothing(tmp_path) -> None:
    """A summary falls due on a turn that wrote a memory: it waits (in the counters) for the next turn that wrote
    none; after ``defer_after_writes`` writing turns in a row the next one runs it anyway. Nothing is lost."""
    scheduler = MaintenanceScheduler(
        summarize_every=2, pin_every=0, link_every=0, reflect_after=0, defer_after_writes=3
    )
    store = kioko.open_store(f"sqlite:///{tmp_path / 'defer.db'}")
    with kioko.MemoryLayer(store, intelligence=Intelligence(scheduler=scheduler)) as memory:

        def turn(text: str) -> list[str]:
            before = memory.intelligence.stats()["maintenance"]
            report = memory.record_turn(text, "", user_id=U, session_id="s1")
            assert bool(report.applied) == (text != "ok"), text
            return ["ran"] * (memory.intelligence.stats()["maintenance"] - before)

        assert turn(WRITES[0].format(n=1)) == []
        assert turn(WRITES[1].format(n=1)) == []  # the fold fell due on a turn that wrote: it waits
        assert scheduler.counters(memory, user_id=U)["pending"] == ["summarize:s1"]
        assert turn("ok") == ["ran"]  # a turn that wrote nothing runs it
        assert summaries.session_log(memory, KUMAR, "s1")["waiting"] == []
        # writing turns only: due again on the 1st (two turns after the last fold), left by the 1st, 2nd and
        # 3rd, run by the 4th
        ran = [turn(WRITES[i].format(n=2)) for i in range(4)]
        assert ran == [[], [], [], ["ran"]]
        counters = scheduler.counters(memory, user_id=U)
        assert counters["pending"] == []
        assert counters["deferred"] == 0
        # every turn was folded (none waits); each one's statement is kept by a memory, so no summary repeats it
        log = summaries.session_log(memory, KUMAR, "s1")
        assert log["turns"] == 7
        assert log["waiting"] == []
        assert memory.store.get(KUMAR, [summaries.summary_id(KUMAR, "s1")])[0] is None


# --------------------------------------------------------------------------- the goal lookup


def _goal_ids_holding(goals: list[kioko.Record], words: list[str], every: bool) -> list[str]:
    def holds(goal: kioko.Record) -> bool:
        held = [("t:" + w) in goal.terms for w in words]
        return all(held) if every else any(held)

    return [g.id for g in sorted(goals, key=lambda r: (r.created_at, r.id)) if holds(g)]


def test_goals_are_found_through_the_index_past_the_postings_limit() -> None:
    """More goals than the postings limit, most sharing a word: the lookup reads no scan, only the goals it
    returns, and returns exactly the goals holding the words (the cut lists are read whole)."""
    counting = CountingStore(kioko.open_store("memory://"))
    memory = kioko.MemoryLayer(counting)
    marathon = memory.goals.add("Run the Berlin marathon", user_id=U)
    memory.add_many(
        [
            {"content": f"Goal: Cut scrap on press {n} by {n % 40 + 5} percent.", "memory_type": "goal"}
            for n in range(POSTINGS_LIMIT + 20)
        ]
        + [{"content": "Goal: Cut the cloud bill on press day.", "memory_type": "goal"}],
        user_id=U,
    )
    goals = list(memory.memories(kinds={"goal"}, user_id=U))
    assert len(goals) == POSTINGS_LIMIT + 22
    reading = _Reading(HeuristicRouter(), memory, Turn(messages=[], user_id=U))
    for mention, words, every in (
        ("my marathon prep", ["marathon", "prep"], False),
        ("the marathon", ["marathon"], True),
        ("scrap on press", ["scrap", "press"], True),
        ("the cloud bill", ["cloud", "bill"], False),
        ("press", ["press"], False),
    ):
        counting.reset()
        found = reading.by_words("goal", mention, every)
        assert [g.id for g in found] == _goal_ids_holding(goals, words, every), mention
        assert counting.calls["scan"] == 0, mention
        assert counting.calls["get"] <= 1, mention  # one read of exactly what is returned
    assert reading.by_words("goal", "my marathon prep")[0].id == marathon.id
    memory.close()


# --------------------------------------------------------------------------- the pin step


def test_the_pin_step_reads_its_candidates_in_one_read() -> None:
    """Twenty memories hot enough to pin: the step reads them together (not one read each), pins the five
    hottest that may be shown (a superseded one may not), one change a step."""
    counting = CountingStore(kioko.open_store("memory://"))
    scheduler = MaintenanceScheduler(pin_threshold=5, max_pinned=5)
    with kioko.MemoryLayer(counting, intelligence=Intelligence(scheduler=scheduler)) as memory:
        ids = [
            memory.add(f"Station {n} uses scanner model Z-{n}.", memory_type="fact", user_id=U).id for n in range(20)
        ]
        for uses, memory_id in enumerate(ids):  # the later, the hotter
            scheduler.note_uses(memory, [memory_id] * (6 + uses), user_id=U, agent_id=None)
        memory.update(ids[-1], metadata={"superseded_by": ids[0]}, user_id=U)
        counting.reset()
        first = scheduler.pin(memory, user_id=U, limit=1)
        assert first["pinned"] == [ids[-2]]
        assert first["more"] is True
        assert counting.calls["get"] <= 6, counting.calls  # one read per candidate made it 20 and more
        while scheduler.pin(memory, user_id=U, limit=1)["more"]:
            pass
        pinned = {r.id for r in memory.memories(user_id=U) if r.metadata.get("pinned") is True}
        assert pinned == set(ids[-6:-1])
