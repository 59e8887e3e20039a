"""Turn numbers (#33, kioko_intelligence/turn.py): every memory a managed turn writes carries the turn's number in
its scope's sequence, and "said in a later turn" / "said in the same turn" are read from the numbers, not the time.

An agent loop or an import writes a session's turns a fraction of a second apart: by the time alone (another
session, or a minute later), two turns of one session were one turn's clauses, so a change said a turn later was
listed beside the value it replaced, and a count said the turn after a goal was taken for the goal's own progress.

Real layers on memory:// and SQLite files, driven through the agent loop (recall, record_turn); no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.store import Record, Scope
from kioko_intelligence import Intelligence
from kioko_intelligence.change_pairs import changed_pairs, later_turn
from kioko_intelligence.turn import TURN_KEY, same_turn, turn_of

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'turns.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _say(memory, *turns: str, session: str = "s1", user: str = "ines") -> None:
    for turn in turns:
        memory.recall(turn, user_id=user, session_id=session)
        memory.record_turn(turn, "Ok.", user_id=user, session_id=session)


def _stored(memory, user: str = "ines") -> dict[str, Record]:
    return {r.content: r for r in memory.store.scan(Scope(user, None)) if r.kind not in ("summary",)}


def _lines(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


# --- the numbers


def test_each_turn_numbers_what_it_writes_in_the_users_sequence(memory) -> None:
    _say(memory, "I live in Hove.", "My sister Ana is a nurse.")
    _say(memory, "We have two cats.", session="s2")
    _say(memory, "My brother is a pilot.", user="bo")
    stored = {content: turn_of(r) for content, r in _stored(memory).items() if r.kind != "working"}
    assert stored["User's sister Ana is a nurse."] == 2
    assert stored["We have two cats."] == 3  # the sequence goes on across the user's sessions
    assert memory.profile.record("location", **U).metadata[TURN_KEY] == 1  # a profile slot set by the turn
    [theirs] = [r for r in _stored(memory, "bo").values() if r.kind != "working"]
    assert turn_of(theirs) == 1  # another user's sequence


def test_an_update_and_the_scratchpad_carry_the_turn_that_said_them(memory) -> None:
    _say(memory, "Debugging the flaky login test on CI right now.", "Our team has 40 engineers.")
    _say(memory, "Our team has grown, it's 65 engineers now.")
    [team] = [r for r in _stored(memory).values() if "engineers" in r.content]
    assert "65" in team.content and turn_of(team) == 3  # the update is said by the third turn, not the second
    [task] = [r for r in memory.store.scan(Scope("ines", None)) if r.kind == "working"]
    assert turn_of(task) == 1


def test_a_dry_run_and_a_layer_without_a_scheduler_number_nothing(tmp_path) -> None:
    with kioko.MemoryLayer(kioko.open_store("memory://"), intelligence=Intelligence(scheduler=False)) as memory:
        memory.record_turn("My sister Ana is a nurse.", "Ok.", session_id="s1", **U)
        [record] = _stored(memory).values()
        assert turn_of(record) is None and TURN_KEY not in record.metadata
    with kioko.intelligent("memory://") as memory:
        report = memory.record_turn("My sister Ana is a nurse.", "Ok.", session_id="s1", dry_run=True, **U)
        assert report.ops and not _stored(memory)


# --- what failed before: a change said a turn later in one fast session


def test_a_newer_count_a_turn_later_in_one_session_is_shown_with_the_older_as_was(memory) -> None:
    _say(memory, "The company has about 40 employees.", "we're 65 people now.")
    text = memory.recall("How many people work at the company?", session_id="p", **U).text
    [line] = _lines(text, "65")
    assert "(was: The company has about 40 employees)" in line
    assert _lines(text, "40") == [line]


def test_a_habit_taken_over_a_turn_later_in_one_session_replaces_the_older_in_the_context(memory) -> None:
    _say(
        memory,
        "lofi beats on the lab speaker while the gels run, non negotiable",
        "wojtek took over the lab speaker w his polish hip hop and ngl i'm hooked, it's all i play now",
    )
    text = memory.recall("what do I listen to in the lab?", session_id="p", **U).text
    [line] = _lines(text, "Wojtek")
    assert "(was: Lofi beats" in line
    assert _lines(text, "Lofi") == [line]


def test_a_count_said_the_turn_after_a_goal_is_not_the_goals_progress(memory) -> None:
    _say(memory, "Goal: read 24 books this year. I've read 3 so far.", "We have 2 cats.")
    _say(memory, "Finished my 5th book, so 5 books read.")
    text = memory.recall("How many cats do we have?", session_id="p", **U).text
    assert "We have 2 cats" in text  # it was superseded by the goal's progress (within two seconds of the goal)
    assert "read 3 so far" not in text  # the progress said with the goal itself is replaced


# --- what it must leave alone


def test_a_plan_rewritten_in_place_is_said_by_the_turn_that_changed_it(memory) -> None:
    _say(
        memory,
        "Garden plan: dig the beds in March, plant potatoes in April, sow beans in May.",
        "Potatoes are going in in March this year, the beds are already dug.",
    )
    text = memory.recall("When do I sow beans?", session_id="p", **U).text
    assert "Sow beans in May" in text  # not hidden as the "(was: ...)" of the turn that rewrote it
    assert "(was:" not in text


def _memory(content: str, at: float, turn: int | None, user: str = "u") -> RecalledMemory:
    metadata = {TURN_KEY: turn} if turn is not None else {}
    record = Record(id=content, user_id=user, kind="factual", content=content, session_id="s1", metadata=metadata)
    record = record.model_copy(update={"created_at": at, "updated_at": at})
    return RecalledMemory(record, 0.03, {"rrf": 0.03, "dense": 0.5}, "memories")


def test_later_and_same_turn_read_the_numbers_before_the_time() -> None:
    old = _memory("User usually gets up at 6.", 100.0, 1)
    quick = _memory("User gets up at 7:30 now.", 100.4, 2)  # the next turn, 0.4 s later
    assert later_turn(quick.record, old.record)
    assert changed_pairs("What time do I get up?", [old, quick]) == {quick.record.id: old.record.id}
    slow = _memory("User gets up at 7:30 now.", 400.0, 1)  # one turn's clauses, however long it took to write
    assert not later_turn(slow.record, old.record) and same_turn(slow.record, old.record)
    assert changed_pairs("What time do I get up?", [old, slow]) == {}
    # unnumbered (the API, another scope's sequence): the time rules, a minute in one session
    bare = _memory("User gets up at 7:30 now.", 100.4, None)
    other = _memory("User gets up at 7:30 now.", 100.4, 2, user="v")
    assert not later_turn(bare.record, old.record) and same_turn(bare.record, old.record) is None
    assert not later_turn(other.record, old.record)
    assert later_turn(_memory("User gets up at 7:30 now.", 200.0, None).record, old.record)
