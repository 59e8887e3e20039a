"""The task at hand replaces the activity an earlier turn of the session stated, when the turn closes it
(kioko_intelligence/task_moves.ended_activities, #33).

"Restocking the walk-in fridge." then "Fridge is sorted. Doing the stock count for the bar now.": the router kept
the first as knowledge and the second set the session's task, so "What am I doing now?" showed both as current.
A memory said in the turn that set the scratchpad value the turn replaces ("On ticket OPS-4410, the cache keeps
evicting early." beside the ticket OPS-4410) is that value's, found by the turns' numbers: a session's turns may
come a fraction of a second apart. Memories of another session, lasting ones and turns that set no task stay.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.store import Scope


def session(*sessions: list[str], question: str = "What am I doing now?") -> tuple[str, list[str]]:
    """The context a question gets in the last session, and the memories still current, after the sessions."""
    with kioko.intelligent("memory://") as memory:
        for index, turns in enumerate(sessions):
            for turn in turns:
                memory.recall(turn, user_id="u", session_id=f"s{index}")
                memory.record_turn(turn, "Ok.", user_id="u", session_id=f"s{index}")
        text = memory.recall(question, user_id="u", session_id=f"s{len(sessions) - 1}").text
        held = [
            r.content
            for r in memory.store.scan(Scope("u", None))
            if r.kind not in ("working", "summary") and not r.metadata.get("superseded_by")
        ]
        return text, held


@pytest.mark.parametrize(
    ("turns", "question", "now", "before"),
    [
        (  # a bare activity kept as knowledge, then closed
            ["Restocking the walk-in fridge.", "Fridge is sorted. Doing the stock count for the bar now."],
            "What am I doing now?",
            "stock count",
            "walk-in fridge",
        ),
        (  # an activity said with "now" inside a statement
            [
                "Bed 4 is waiting on her antibiotics, drawing them up now.",
                "Antibiotics are in. Doing the obs round for bay 2 now.",
            ],
            "What am I doing right now?",
            "obs round",
            "drawing them up",
        ),
        (
            [
                "The printer on floor 3 is jammed again, clearing it now.",
                "Printer's fine. Setting up the new starter's laptop now.",
            ],
            "What am I doing right now?",
            "laptop",
            "clearing it",
        ),
        (  # said in the turn that set the ticket the turn replaces
            ["On ticket OPS-4410, the cache keeps evicting early.", "OPS-4410 closed. now: OPS-4415 login timeout"],
            "Which ticket am I on?",
            "OPS-4415",
            "evicting",
        ),
    ],
)
def test_the_task_at_hand_replaces_the_activity_it_closed(
    turns: list[str], question: str, now: str, before: str
) -> None:
    """Each failed before: the earlier activity was listed as current beside the session's new task."""
    text, held = session(turns, question=question)
    assert now in text
    assert before not in text
    assert not any(before in content for content in held)


def test_the_closing_sentence_is_not_kept_beside_the_new_task() -> None:
    _, held = session(["Restocking the walk-in fridge.", "Fridge is sorted. Doing the stock count for the bar now."])
    assert not any("sorted" in content for content in held)  # it says how the activity ended


@pytest.mark.parametrize(
    ("sessions", "kept"),
    [
        # a lasting memory the closing sentence names: nothing of the moment
        ([["The walk-in fridge is from 2009.", "Fridge is sorted. Doing the stock count for the bar now."]], "2009"),
        # the activity of another session: not this session's task at hand
        (
            [
                ["Checking the methadone doses for the morning collections."],
                ["Methadone's done. Doing the care home trays for Rosemount now."],
            ],
            "methadone doses",
        ),
        # no task set: nothing takes its place
        ([["Checking the methadone doses for the morning collections.", "Methadone's done."]], "methadone doses"),
        # a new task with no sentence closing the activity
        (
            [["Restocking the walk-in fridge.", "Doing the stock count for the bar now, the rep is here."]],
            "walk-in fridge",
        ),
    ],
)
def test_what_it_leaves_alone(sessions: list[list[str]], kept: str) -> None:
    _, held = session(*sessions)
    assert any(kept in content for content in held), held


def _task_after(*turns: str) -> tuple[object, str, list[str]]:
    """The session's task after the turns, the context "What am I doing now?" gets, and the current memories."""
    with kioko.intelligent("memory://") as memory:
        for turn in turns:
            memory.record_turn(turn, "Ok.", user_id="u", session_id="s")
        task = memory.working.all(user_id="u", session_id="s").get("task")
        text = memory.recall("What am I doing now?", user_id="u", session_id="s").text
        held = [
            r.content
            for r in memory.store.scan(Scope("u", None))
            if r.kind not in ("working", "summary") and not r.metadata.get("superseded_by")
        ]
        return task, text, held


def test_with_no_task_yet_the_activity_after_a_close_is_the_task() -> None:
    """It failed before: both were kept as knowledge and the question found neither."""
    task, text, held = _task_after(
        "Reconciling the petty cash for March.", "Petty cash balances. Now on the Pryce invoices."
    )
    assert task == "On the Pryce invoices"
    assert "Pryce" in text
    assert not any("petty cash for March" in content or "balances" in content for content in held)


def test_with_no_task_yet_an_activity_with_no_close_is_left_to_the_router() -> None:
    task, _, held = _task_after("Restocking the walk-in fridge.", "Now on the bar's stock count.")
    assert task is None
    assert any("walk-in fridge" in content for content in held)
