"""Goals set, replaced, given up and put off in more shapes, and a goal no longer open in the context (#33, dev23).

- any one or two words before a goal word and a colon ("Personal goal: ...", "Fitness target: ...") set a goal, as
  "Goal: ..." does; a goal of someone else's ("My son's goal: ...") does not;
- "What I want this year is ..." (a goal said as "what I want", with when) is a goal; "What I want is a coffee" is not;
- a goal named after a comma in a sentence that opens with something else ("The depot's closing, so the priority now
  is landing a job in rail control") is read from its goal word on;
- "Not doing the Level 4 after all", "No longer chasing ...", "The CPC can wait", "... will have to wait" give up the
  open goal they name; the user's words stay with it;
- a goal given up or reached that the search finds is shown as over, its title in a "(was: ...)" note, not under
  "Open goals:".

Real layers (memory:// and a SQLite file), real routing; no mocks.
"""

from __future__ import annotations

import pytest

U = {"user_id": "u"}


def _ops(memory, said: str, session: str = "s1") -> list[str]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Okay.", session_id=session, **U)
    memory.end_session(session, **U)
    return [op.op for op in report.ops if op.status == "applied"]


def _open_goals(memory) -> list[str]:  # type: ignore[no-untyped-def]
    """The goals held: open and not replaced by a newer one."""
    return [g.content for g in memory.goals.open(**U) if not g.metadata.get("superseded_by")]


@pytest.mark.parametrize(
    "said",
    [
        "Personal goal: get my Makaton Level 4 by the end of term.",
        "Fitness target: ten thousand steps a day.",
        "Big aim this year: swim the Channel in August.",
        "What I want this year is my CPC transport manager certificate.",
        "What we need by Easter is a working prototype of the app.",
        "The depot's closing, so the priority now is landing a job in rail control.",
        "Money's tight, so my focus this year is paying off the overdraft.",
    ],
)
def test_a_goal_said_in_these_shapes_is_a_goal(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "goal.add" in _ops(memory, said)


@pytest.mark.parametrize(
    "said",
    [
        "What I want is a coffee.",
        "My son's goal: make the county squad.",
        "It rained all day, so the plan is off.",
    ],
)
def test_what_is_no_goal_of_the_users_stays_out(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "goal.add" not in _ops(memory, said)


@pytest.mark.parametrize(
    ("goal", "then"),
    [
        ("Personal goal: get my Makaton Level 4 by the end of term.", "Not doing the Level 4 after all."),
        (
            "My goal is to run a sub-3 marathon in Seville.",
            "No longer chasing the sub-3 marathon, my knees have spoken.",
        ),
        ("What I want this year is my CPC transport manager certificate.", "The CPC can wait."),
        ("Goal: finish the kitchen extension by June.", "The kitchen extension will have to wait, money's tight."),
    ],
)
def test_a_goal_given_up_in_these_words_is_dropped(memory, goal: str, then: str) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, goal, "s1")
    assert "goal.drop" in _ops(memory, then, "s2")
    assert _open_goals(memory) == []


def test_something_else_that_can_wait_drops_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "Goal: finish the kitchen extension by June.", "s1")
    assert "goal.drop" not in _ops(memory, "The laundry can wait.", "s2")
    assert len(_open_goals(memory)) == 1


def test_a_goal_no_longer_open_is_shown_as_over(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "Personal goal: get my Makaton Level 4 by the end of term.", "s1")
    _ops(memory, "Not doing the Level 4 after all. The course got cut.", "s2")
    context = memory.recall("Am I still going for the Makaton Level 4?", session_id="probe", **U).text
    assert "Open goals:" not in context
    assert "Goal given up: Not doing the Level 4 after all (was: Get my Makaton Level 4 by the end of term)." in context


def test_a_goal_reached_is_shown_as_reached(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "My goal is to pass the Azure exam by March.", "s1")
    goal = memory.goals.open(**U)[0]
    memory.goals.complete(goal.id, **U)
    context = memory.recall("Did I pass the Azure exam?", session_id="probe", **U).text
    assert "Goal reached (was: Pass the Azure exam by March)." in context
    assert "Open goals:" not in context


def test_an_open_goal_is_still_shown_as_open(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "My goal is to pass the Azure exam by March.", "s1")
    context = memory.recall("How is the Azure exam going?", session_id="probe", **U).text
    assert "Open goals:" in context
    assert "(was:" not in context


@pytest.mark.parametrize(
    ("goal", "done", "then", "new"),
    [
        (
            "I want to get my 5k under 25 minutes.",
            "24:41 at parkrun this morning!!! Done it.",
            "Next thing: a sub-50 10k before the autumn.",
            "sub-50 10k",
        ),
        (
            "My plan is to pass the German B2 exam in June.",
            "Good news, B2 I have passed!",
            "Now I go for C1 in December.",
            "C1 in December",
        ),
        (
            "My goal is to deadlift 100 kg by the summer.",
            "Hit 100 kg on the deadlift last night!",
            "Coach says go for 120 kg by Christmas, so that's the new target.",
            "120 kg by Christmas",
        ),
        (
            "Goal: 30 commissions this year.",
            "Thirty done, can't believe it.",
            "Next challenge: a solo show at the Dean Gallery.",
            "solo show",
        ),
    ],
)
def test_a_goal_said_as_the_next_one_replaces_the_goal_before(memory, goal, done, then, new) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, goal, "s1")
    _ops(memory, done, "s2")
    assert "goal.add" in _ops(memory, then, "s3")
    held = _open_goals(memory)
    assert len(held) == 1
    assert new in held[0]


def test_another_goal_keeps_the_one_before(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "My goal is to run a marathon in October.", "s1")
    _ops(memory, "Another goal: learn to play the cello this year.", "s2")
    assert len(_open_goals(memory)) == 2


def test_a_next_goal_beside_several_others_replaces_none(memory) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "Goal: read 24 books this year.", "s1")
    _ops(memory, "Goal: swim 100 km this year.", "s2")
    _ops(memory, "Next challenge: a sprint triathlon in June.", "s3")
    assert len(_open_goals(memory)) == 3


@pytest.mark.parametrize(
    "said", ["Next thing I know, the kettle broke.", "Now we are going for a pint.", "Next up: the kettle broke."]
)
def test_talk_of_what_came_next_is_no_goal(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    _ops(memory, "My goal is to run a marathon in October.", "s1")
    assert "goal.add" not in _ops(memory, said, "s2")
    assert len(_open_goals(memory)) == 1
