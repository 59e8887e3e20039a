"""A goal is what the user aims at, its target figure and how far they are (``kioko_intelligence/goal_reading.py``).

An amount in the unit of one open goal's target ("Up to 27 deals closed." on "My target this quarter is 40
deals.") is that goal's progress, and the context shows the count in the goal's unit ("27 deals of 40"), not only a percentage. A newer
amount replaces the older, and a progress the user stated with the goal itself ("Right now I can do 20.") is
replaced by the newer amount too. An amount in a unit no goal counts, a figure above the target, or a goal
stated again stores no progress.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import kioko
from kioko_intelligence.ops import SKIPPED


def run(*turns: str, question: str) -> tuple[list[list[str]], str]:
    """Each turn's applied ops and the context the question gets afterwards."""
    memory = kioko.intelligent("memory://")
    try:
        done = []
        for number, turn in enumerate(turns):
            report = memory.record_turn(turn, user_id="u", session_id=f"s{number}")
            done.append([op.op for op in report.ops if op.status != SKIPPED])
        return done, memory.recall(question, user_id="u").text
    finally:
        memory.close()


def test_an_amount_in_the_goals_unit_is_its_progress_and_the_newer_replaces_the_older() -> None:
    ops, context = run(
        "My target this quarter is 40 deals.",
        "Closed 18 deals so far.",
        "Up to 27 deals closed.",
        question="How am I doing against my target?",
    )
    assert ops[1] == ["goal.progress"]
    assert ops[2] == ["goal.progress"]
    assert "Goal: 40 deals (27 deals of 40, 68 %)." in context
    assert "18" not in context


def test_an_amount_with_a_thousands_comma_counts() -> None:
    ops, context = run(
        "My target is 1,500 hours for my ATPL by next summer.",
        "Logbook says 1,120 hours.",
        "1,310 hours as of today.",
        question="How am I doing on the flying hours target?",
    )
    assert ops[0] == ["goal.add"]
    assert "1,500 hours" in context
    assert "1,310 hours of 1,500" in context
    assert "1,120" not in context


def test_the_progress_given_with_the_goal_is_replaced_by_a_newer_amount() -> None:
    ops, context = run(
        "Goal: 50 push-ups in a row. Right now I can do 20.",
        "Up to 35 push-ups in a row now!",
        question="How many push-ups can I do?",
    )
    assert ops[1] == ["goal.progress"]
    assert "35 push-ups of 50" in context
    assert "20" not in context


def test_another_unit_a_figure_past_the_target_or_a_new_target_is_no_progress() -> None:
    ops, _ = run(
        "My target this quarter is 40 deals.",
        "Booked 3 meetings with new leads today.",
        "Our office has 55 desks.",
        "New target: 30 deals by March.",
        question="What is my target?",
    )
    assert "goal.progress" not in ops[1]
    assert "goal.progress" not in ops[2]
    assert "goal.progress" not in ops[3]


def test_a_goal_said_as_a_change_replaces_the_goal_the_turn_names() -> None:
    ops, context = run(
        "My goal is English TOEIC 800 points this year.",
        "I change goal: I want the IELTS 6.5 for study in Melbourne, TOEIC is not necessary.",
        question="Which English test am I aiming for?",
    )
    assert ops[1] == ["goal.add"]
    assert "IELTS 6.5" in context
    assert "TOEIC 800" not in context


def test_a_changed_goal_naming_no_open_goal_replaces_nothing() -> None:
    _, context = run(
        "My goal is to run a marathon by October.",
        "Changed my goal: learn to swim properly this summer.",
        question="What are my goals?",
    )
    assert "marathon" in context
    assert "swim" in context


def test_a_decision_reverted_with_an_arrow_replaces_the_decision_in_force() -> None:
    ops, context = run(
        "decision: use FastAPI for the new service",
        "revert decision: FastAPI -> Litestar, we need the DTO layer",
        question="Which framework is the new service using?",
    )
    assert ops[1] == ["decision.supersede"]
    assert "use Litestar for the new service" in context
    assert "FastAPI" not in context


def test_revisiting_a_decision_later_with_no_colon_is_still_a_request() -> None:
    ops, context = run(
        "decision: use FastAPI for the new service",
        "Revisit the decision next week",
        question="Which framework is the new service using?",
    )
    assert ops[1] == []
    assert "use FastAPI" in context
