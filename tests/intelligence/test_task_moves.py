"""The session's task moves on when the user turns to another thing said as a bare fragment
(kioko_intelligence/task_moves.py).

In a session that has a task, "Colour grading the opening titles now", "Starting on marketing's claims",
"Next: the memory leak in the image resizer" and "Now it's the water bottle that's vanished" are what the user is
doing: the task moves on and the first thing leaves the context; what closed it ("Car chase locked.") is not kept
beside it. Statements, habits, aims, times to come and a session with no task are left as the router reads them.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.task_moves import doing


def session(*turns: str, question: str = "What am I working on right now?") -> tuple[object, str]:
    """The scratchpad's task after the turns of one session, and the context a question in it gets."""
    memory = kioko.intelligent("memory://")
    try:
        for turn in turns:
            memory.record_turn(turn, "Got it.", user_id="u", session_id="s")
        task = memory.working.all(user_id="u", session_id="s").get("task")
        return task, memory.recall(question, user_id="u", session_id="s").text
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("first", "then", "now", "before"),
    [
        (
            "Cutting the car chase in reel 3 right now.",
            "Car chase locked. Colour grading the opening titles now.",
            "opening titles",
            "car chase",
        ),
        (
            "Tuning the slow query on the orders table.",
            "orders query is fine now, index did it. Looking at the invoices table lock next.",
            "invoices table lock",
            "slow query",
        ),
        (
            "Debugging: the flaky login test on CI.",
            "Login test fixed. Next: the memory leak in the image resizer.",
            "memory leak",
            "flaky login test",
        ),
        (
            "Reviewing the Q3 expense claims for the sales team right now.",
            "Sales claims signed off. Starting on marketing's claims.",
            "marketing's claims",
            "sales team",
        ),
        (
            "Sorting the returns pile right now.",
            "Returns are done. Now it's the damaged stock that needs counting.",
            "damaged stock",
            "returns pile",
        ),
    ],
)
def test_a_bare_activity_in_a_session_with_a_task_is_the_new_task(first: str, then: str, now: str, before: str) -> None:
    """Each pair failed before: the new activity was kept as knowledge (or not at all) and the first task stayed."""
    task, context = session(first, then)
    assert isinstance(task, str), task
    assert now in task
    assert now in context
    assert before not in context.lower()


def test_what_closed_the_last_task_is_not_kept_beside_the_new_one() -> None:
    memory = kioko.intelligent("memory://")
    try:
        memory.record_turn("Cutting the car chase in reel 3 right now.", "Ok.", user_id="u", session_id="s")
        report = memory.record_turn(
            "Car chase locked. Colour grading the opening titles now.", "Ok.", user_id="u", session_id="s"
        )
        applied = [op.op for op in report.ops if op.status == "applied"]
        assert applied == ["working.set"], [op.line() for op in report.ops]
    finally:
        memory.close()


@pytest.mark.parametrize(
    "then",
    [
        "The neighbour says plot 19 had subsidence years ago, worth noting.",  # a statement: states something
        "Checking the meters is a pain.",  # the -ing word is a subject
        "Running 5k every morning these days.",  # a habit
        "Painting the fence tomorrow.",  # a time to come
        "Trying to get a refund from the airline.",  # an aim
        "Onboarding new hires: HR sends the laptop on day one.",  # a heading
        "What should I look at next?",  # a question
    ],
)
def test_a_statement_habit_aim_or_plan_leaves_the_task_as_it_is(then: str) -> None:
    task, _ = session("Surveying plot 22 on the Ashby estate right now.", then)
    assert task == "Surveying plot 22 on the Ashby estate", then


def test_a_session_with_no_task_is_left_to_the_router() -> None:
    """A first fragment the router keeps as knowledge is not made the task: the move on may go unread."""
    task, _ = session("Hunting for the spare key to the shed.")
    assert task is None


@pytest.mark.parametrize(
    ("sentence", "task"),
    [
        ("Colour grading the opening titles now.", "Colour grading the opening titles"),
        ("Next: the memory leak in the image resizer", "The memory leak in the image resizer"),
        ("I'm restocking the bar.", "Restocking the bar"),
        ("Stop smoking the cheap stuff.", None),
        ("The meeting ran long.", None),
        ("Now I think it's fine.", None),
    ],
)
def test_what_reads_as_an_activity(sentence: str, task: str | None) -> None:
    assert doing(sentence) == task
