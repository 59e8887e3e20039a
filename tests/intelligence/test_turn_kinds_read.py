"""A new value stored as the kind it is (#33): lists one item a line, goals said as a target or as advice with
a number a day, answer preferences under a heading, and statements opened by "I need you to remember", "I told
you" or "I'd like you to call me".

Each was stored as the wrong kind (knowledge or an event) or not at all, so a later question missed it: "3.
switch DNS" alone, "Target: 1,500 hours" as knowledge that a progress figure then hid in its "(was: ...)" note.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.list_turns import fold_lists


def ops_of(memory, said: str, session: str = "s1") -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Noted.", user_id="u", session_id=session)
    return [(op.op, op.description) for op in report.ops if op.status == "applied"]


# -- a list one item a line under a heading


def test_a_numbered_list_under_a_heading_is_one_sequence() -> None:
    folded = fold_lists("Migration plan:\n1. freeze writes\n2. copy data to the new cluster\n3. switch DNS")
    assert folded == "Migration plan: freeze writes, then copy data to the new cluster, then switch DNS."


def test_a_bulleted_list_is_joined_with_commas_or_semicolons() -> None:
    assert (
        fold_lists("Output prefs:\n- summary first\n- max 5 bullets") == "Output prefs: summary first, max 5 bullets."
    )
    said = "Packing:\n- boots, socks\n- a map"
    assert fold_lists(said) == "Packing: boots, socks; a map."


@pytest.mark.parametrize(
    "said",
    [
        "I moved to Leeds.\nI love it here.",  # no heading
        "Quick one:\n- just the one item",  # one item is no list
        "News:\nWe moved to Leeds last month and the new flat is lovely. The kids like their school too.",  # prose
        "Plan:\n- pack\nand then we see what happens after the first week of the holidays is over",  # mixed
    ],
)
def test_text_that_is_no_heading_and_items_is_left_as_it_was(said: str) -> None:
    assert fold_lists(said) == said


def test_a_plan_one_step_a_line_is_one_plan_and_every_step_is_recalled(memory) -> None:  # type: ignore[no-untyped-def]
    ops = ops_of(memory, "Migration plan:\n1. freeze writes\n2. copy data to the new cluster\n3. switch DNS")
    assert [op for op, _ in ops] == ["procedure.add"]
    text = memory.recall("What's the migration plan?", user_id="u", session_id="probe").text
    for step in ("Freeze writes", "Copy data to the new cluster", "Switch DNS"):
        assert step in text


def test_answer_preferences_listed_under_a_heading_are_an_instruction(memory) -> None:  # type: ignore[no-untyped-def]
    ops = ops_of(memory, "Preferences for output:\n- executive summary first\n- max 5 bullets")
    assert ops == [("instruction.add", '"Preferences for output: executive summary first, max 5 bullets."')]
    text = memory.recall("How should you structure answers for me?", user_id="u", session_id="probe").text
    assert "max 5 bullets" in text


# -- decisions, goals


def test_a_target_is_a_goal_and_a_later_figure_its_progress(memory) -> None:  # type: ignore[no-untyped-def]
    assert [op for op, _ in ops_of(memory, "Target: 1,500 hours for my ATPL by next summer.")] == ["goal.add"]
    memory.end_session("s1", user_id="u")
    assert [op for op, _ in ops_of(memory, "1,310 hours as of today.", "s2")] == ["goal.progress"]
    text = memory.recall("How am I doing on the flying hours target?", user_id="u", session_id="probe").text
    assert "1,500 hours" in text
    assert "1,310" in text
    assert "(was:" not in text


def test_advice_of_a_number_a_day_is_a_goal(memory) -> None:  # type: ignore[no-untyped-def]
    assert ops_of(memory, "doctor says i should do 6000 steps a day") == [("goal.add", '"Goal: Do 6000 steps a day."')]


def test_should_without_a_number_a_period_is_no_goal(memory) -> None:  # type: ignore[no-untyped-def]
    assert "goal.add" not in [op for op, _ in ops_of(memory, "I should call my mum more often.")]


# -- instructions and what the user asks to be kept


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I need you to remember that I'm vegan", "User is vegan"),
        ("I told you my sister lives in Leeds", "sister lives in Leeds"),
    ],
)
def test_a_statement_opened_by_remember_or_told_you_is_kept(memory, said: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    ops = ops_of(memory, said)
    assert any(expected in d for _, d in ops)


def test_asking_the_assistant_to_call_the_user_by_a_name_sets_the_name(memory) -> None:  # type: ignore[no-untyped-def]
    ops = ops_of(memory, "I'd like you to call me Sam")
    assert ("profile.set", "name = Sam") in ops
