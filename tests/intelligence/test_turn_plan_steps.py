"""A step dropped from a plan by its words leaves the plan (kioko_intelligence/plan_changes.py ``skipped``).

"Plan for launch: write the docs, record the demo video, post on Hacker News", then "Skip the demo video, no
time; the rest of the launch plan stands": the plan kept the demo video as a current step. Now the one step
the words name leaves the plan, the others renumbered; words naming no step, or more than one, or a
replacement ("instead"), change nothing here.

Real layers (``kioko.intelligent("memory://")`` and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

PLAN = "Plan for launch: write the docs, record the demo video, post on Hacker News."


def plans_after(memory, said: str) -> list[str]:  # type: ignore[no-untyped-def]
    memory.record_turn(PLAN, user_id="u", session_id="s1")
    memory.end_session("s1", user_id="u")
    memory.record_turn(said, user_id="u", session_id="s2")
    return [r.content for r in memory.memories(user_id="u") if r.kind == "procedural"]


def test_the_step_named_leaves_the_plan_and_the_rest_is_renumbered(memory) -> None:  # type: ignore[no-untyped-def]
    plans = plans_after(memory, "Skip the demo video, no time; the rest of the launch plan stands.")
    assert plans == ["Plan for launch: 1) Write the docs; 2) Post on Hacker News"]


@pytest.mark.parametrize(
    "said",
    [
        "Skip the podcast, no time.",  # names no step
        "Skip the demo video, record a screencast instead.",  # a replacement, not a drop
    ],
)
def test_words_naming_no_step_or_a_replacement_drop_nothing(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    plans = plans_after(memory, said)
    assert len(plans) == 1
    assert "Record the demo video" in plans[0]
