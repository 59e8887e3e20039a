"""A sentence that moves an open goal's date updates the goal (kioko_intelligence/slots.py ``_goal_date_moved``; #33).

"Pushing the sub-25 5k goal back to August, my calf is still sore" after "I want to run a sub-25 5k by the end of
May": the router made it the session's task (a verb in -ing), a new goal titled "Pushed back to August" or a piece
of knowledge, and the goal kept its old date. A goal word, a verb of moving a date, one date, and exactly one open
goal sharing a word or a code with the sentence: the goal's date is replaced. A date moved for something that is no
goal, or a sentence naming no goal, changes no goal.

Real layers (memory:// with the offline embedder) through the agent loop.
"""

from __future__ import annotations

import pytest

import kioko


def _goals(*turns: str) -> list[str]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for index, turn in enumerate(turns):
            memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index}")
            memory.end_session(f"s{index}", user_id="u")
        return [
            r.content for r in memory.memories(user_id="u") if r.kind == "goal" and not r.metadata.get("superseded_by")
        ]


@pytest.mark.parametrize(
    "change",
    [
        "Pushing the sub-25 5k goal back to August, my calf is still sore.",
        "Moving my 5k target to August.",
        "The sub-25 5k goal is pushed back to August.",
    ],
)
def test_a_goal_date_moved_updates_the_goal(change: str) -> None:
    """Each failed before: a task, a knowledge or a goal "Pushed back to August" beside the goal's old date."""
    goals = _goals("I want to run a sub-25 5k by the end of May.", change)
    assert goals == ["Goal: Run a sub-25 5k by the end of August."], goals


@pytest.mark.parametrize(
    "change",
    [
        "Moving the team offsite to August.",  # no goal word
        "Pushing the piano recital back to August, the goal is fewer nerves.",  # names no open goal
        "My 5k goal is going well.",  # no date moved
    ],
)
def test_what_moves_no_goal(change: str) -> None:
    goals = _goals("I want to run a sub-25 5k by the end of May.", change)
    assert "Goal: Run a sub-25 5k by the end of May." in goals, goals
