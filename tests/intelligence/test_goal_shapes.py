"""Goals said in more shapes, and their progress in the goal's own unit (kioko_intelligence/goal_reading.py, rules.py;
#33, dev16).

- a count joined to its unit as one word ("an 80,000-word first draft") is the goal's unit: "Hit 22,000 words this
  week" and "41,500 words!" are its progress, not an event and a remark beside it;
- "Target for the year is Grade 5 piano" (a goal word opening the sentence, "for the year" / "this month" after it)
  and "Q3 OKR: ..." are goals;
- "I mean to sail round the Scillies ..." and "I intend to finish the shed by May" are goals (a later "New aim: ..."
  replaces the one open goal), and so is "Target this quarter: ...";
- "Trying to deadlift 140 kg by June" is an aim, not the session's task (a number after an -ing verb made it one);
- "Two goals this year: read 24 books and swim 100 km" is two goals (items of two words or more);
- "Book count is at 9" is a statement, not an order to book something (a request verb's word opening a noun
  that is the subject of "is / are / was / were");
- "packed in", "jacked in", "binned", "parked", "put on hold" give a goal up as "gave up on" does.

Real layers (memory:// and a SQLite file), real routing; no mocks.
"""

from __future__ import annotations

import pytest

U = {"user_id": "u"}


def _ops(memory, said: str, session: str = "s1") -> list[str]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Okay.", session_id=session, **U)
    memory.end_session(session, **U)
    return [op.op for op in report.ops if op.status == "applied"]


def _goals(memory) -> list:  # type: ignore[no-untyped-def]
    return [r for r in memory.memories(**U) if r.kind == "goal"]


def test_a_count_in_the_goals_joined_unit_is_its_progress(memory) -> None:  # type: ignore[no-untyped-def]
    assert _ops(memory, "Goal: an 80,000-word first draft of the novel by the end of August.", "s1") == ["goal.add"]
    assert _ops(memory, "Hit 22,000 words this week.", "s2") == ["goal.progress"]
    assert "goal.progress" in _ops(memory, "41,500 words! Over halfway there.", "s3")
    context = memory.recall("How's my novel draft going?", session_id="probe", **U).text
    assert "41,500 words of 80,000" in context
    assert "22,000" not in context


def test_a_count_in_another_unit_is_no_progress(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "Goal: an 80,000-word first draft of the novel by the end of August.", "s1")
    assert "goal.progress" not in _ops(memory, "Read 300 pages of research this week.", "s2")
    assert _goals(memory)[0].metadata.get("progress") in (None, 0, 0.0)


@pytest.mark.parametrize(
    "said",
    [
        "Target for the year is Grade 5 piano.",
        "Aim this month is to read four novels.",
        "Q3 OKR: get search p95 latency down to 200ms by end of September.",
        "Trying to deadlift 140 kg by June.",
        "I mean to sail round the Scillies once more before I'm eighty.",
        "I intend to finish the shed by May.",
        "Target this quarter: all 120 VMs off VMware.",
    ],
)
def test_these_are_goals(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert _ops(memory, said) == ["goal.add"]


@pytest.mark.parametrize(
    "said",
    [
        "Target practice is on Tuesdays at the range.",  # a goal word, but no "for the year" / "this month"
        "Patching server db-02 tonight.",  # an -ing verb and a number: still the task at hand
        "I mean to ask you about the rota.",  # words to the assistant
        "I didn't mean to upset her.",  # no aim
    ],
)
def test_these_are_no_goals(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "goal.add" not in _ops(memory, said)


@pytest.mark.parametrize(
    ("then", "status"),
    [
        ("I've packed in learning Spanish, no time.", "dropped"),
        ("I've binned learning Spanish.", "dropped"),
        ("I've packed in the car boot sale stuff.", "open"),  # names another thing: the goal stays open
    ],
)
def test_a_goal_packed_in_is_dropped(memory, then: str, status: str) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "My goal is to learn Spanish by June.", "s1")
    _ops(memory, then, "s2")
    assert [g.metadata.get("status") for g in _goals(memory)] == [status]


def test_a_new_aim_replaces_one_said_as_meant(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "I mean to sail round the Scillies once more before I'm eighty.", "s1")
    _ops(memory, "Knees won't have it. New aim: teach my grandson to helm before the summer's out.", "s2")
    context = memory.recall("What's my sailing goal?", session_id="probe", **U).text
    assert "grandson" in context
    assert "Scillies" not in context


def test_goals_listed_under_one_heading_are_each_a_goal(memory) -> None:  # type: ignore[no-untyped-def]
    assert _ops(memory, "Two goals this year: read 24 books and swim 100 km.", "s1") == ["goal.add", "goal.add"]
    assert _ops(memory, "Swim tally is at 40 km.", "s2") == ["goal.progress"]
    context = memory.recall("How's the swimming goal going?", session_id="probe", **U).text
    assert "Swim 100 km (40 km of 100, 40 %)" in context
    assert "Read 24 books" in context


@pytest.mark.parametrize(
    "said",
    [
        "My goals are simple: health and family.",  # items of one word: no goals of their own
        "Goals of the meeting: agree the budget.",  # one item
    ],
)
def test_a_heading_of_goals_without_two_goals_of_their_own_adds_none_per_item(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert _ops(memory, said).count("goal.add") <= 1


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Book count is at 9.", True),  # "book" opens a noun, the subject of "is": a statement
        ("Run time is 40 minutes for the batch job.", True),
        ("Book a table for two at Luigi's.", False),  # an order to the assistant
        ("Check the logs are rotated.", False),
        ("Please tell me what is the difference between smoke testing and sanity testing.", False),  # a question word
    ],
)
def test_a_request_verbs_word_opening_a_subject_is_no_request(memory, said: str, kept: bool) -> None:  # type: ignore[no-untyped-def]
    assert bool(_ops(memory, said)) is kept
