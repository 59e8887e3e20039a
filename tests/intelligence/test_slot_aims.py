"""A goal said as the aim in force now replaces the user's one open goal, though no word of the two is shared."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_aims import aim_changed


@pytest.mark.parametrize(
    ("turn", "sure"),
    [
        ("I have injured the knee, so my objective is now to walk the 10 km in June.", True),
        ("Now my goal is a sub-4 marathon.", True),
        ("Knees won't have it. New aim: teach my grandson to helm.", True),  # the old aim given up
        ("New goal: read 20 books this year.", False),  # new, but maybe beside the old one
        ("CBT passed this morning! Next target is the full A2 licence.", True),  # the old aim reached, the next one
        ("Next goal: the full A2 licence.", False),  # next, but maybe beside the old one
        ("My goal is to read 20 books this year.", None),
        ("The team's new target market is Spain.", None),
    ],
)
def test_an_aim_said_as_now_or_new(turn: str, sure: bool | None) -> None:
    assert aim_changed(turn) is sure


def _goals(*turns: str) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for index, turn in enumerate(turns):
            memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index}")
            memory.end_session(f"s{index}", user_id="u")
        return [r for r in memory.memories(user_id="u") if r.kind == "goal"]


def test_the_aim_now_supersedes_the_one_open_goal() -> None:
    goals = _goals(
        "My objective is to run the half marathon of Lyon in April.",
        "I have injured the knee, so my objective is now to walk the 10 km in June.",
    )
    old = next(g for g in goals if "marathon" in g.content)
    new = next(g for g in goals if "10 km" in g.content)
    assert old.metadata.get("superseded_by") == new.id


def test_a_new_goal_without_a_change_is_a_marked_conflict() -> None:
    goals = _goals("My goal is to run the half marathon of Lyon in April.", "New goal: read 20 books this year.")
    old = next(g for g in goals if "marathon" in g.content)
    new = next(g for g in goals if "books" in g.content)
    assert not old.metadata.get("superseded_by")
    assert new.metadata.get("conflicts_with") == [old.id]


def test_with_two_open_goals_nothing_is_guessed() -> None:
    goals = _goals(
        "My goal is to run the half marathon of Lyon in April.",
        "My goal is to read 20 books this year.",
        "My objective is now to learn to swim.",
    )
    assert len(goals) == 3
    assert [g for g in goals if g.metadata.get("superseded_by") or g.metadata.get("conflicts_with")] == []


def test_the_next_aim_after_the_old_one_is_reached_supersedes_it() -> None:
    """Failed before: "Next target is ..." was kept as knowledge ("Target is the full A2 licence.") and the CBT goal
    stayed open as the user's goal."""
    goals = _goals(
        "My goal is to get my motorbike CBT done.", "CBT passed this morning! Next target is the full A2 licence."
    )
    old = next(g for g in goals if "CBT" in g.content)
    new = next(g for g in goals if "A2" in g.content)
    assert old.metadata.get("superseded_by") == new.id


@pytest.mark.parametrize(
    ("turn", "goal"),
    [
        ("Next target is the full A2 licence.", "The full A2 licence"),
        ("Next goal: the full A2 licence.", "The full A2 licence"),
        ("Next time remind me to bring the charger.", None),
    ],
)
def test_an_aim_said_as_next_is_a_goal(turn: str, goal: str | None) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        report = memory.manage(turn, user_id="u", dry_run=True)
    titles = [op.fields.get("title") for op in report.ops if op.op == "goal.add"]
    assert titles == ([goal] if goal else []), [op.line() for op in report.ops]
