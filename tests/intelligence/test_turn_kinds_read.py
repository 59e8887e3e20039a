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


def test_a_changed_decision_keeps_its_words_when_the_turn_opens_with_one_of_them(memory) -> None:  # type: ignore[no-untyped-def]
    # "Release" opens the turn with a capital, the decision holds it in lower case: no choice, no name swapped in
    # (it was rewritten "Thursday day is Tuesday", the new day lost and the old one kept)
    ops_of(memory, "We decided release day is Tuesday.")
    memory.end_session("s1", user_id="u")
    ops_of(memory, "Release day moved to Thursday now.", "s2")
    text = memory.recall("When is release day?", user_id="u", session_id="probe").text
    assert "Thursday" in text
    assert "Thursday day" not in text
    assert "is Tuesday" not in text


def test_a_decision_tagged_after_its_statement_is_replaced_by_a_later_day(memory) -> None:  # type: ignore[no-untyped-def]
    assert ops_of(memory, "Quiz night stays on a Wednesday, decided, love.") == [
        ("decision.add", '"Decision: Quiz night stays on a Wednesday."')
    ]
    memory.end_session("s1", user_id="u")
    assert [
        op for op, _ in ops_of(memory, "Moving quiz night to Thursdays, the darts team wanted Wednesday.", "s2")
    ] == ["decision.supersede"]
    text = memory.recall("Which night is quiz night?", user_id="u", session_id="probe").text
    assert "stays on a Thursdays" in text
    assert "stays on a Wednesday" not in text


@pytest.mark.parametrize(
    "said",
    ["The meeting went well, I think.", "We talked for an hour, agreed, it was long."],
)
def test_a_tag_that_is_not_at_the_end_or_is_not_alone_makes_no_decision(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "decision.add" not in [op for op, _ in ops_of(memory, said)]


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


def test_leave_to_answer_another_way_replaces_the_answer_rule(memory) -> None:  # type: ignore[no-untyped-def]
    assert [op for op, _ in ops_of(memory, "Please answer me always in French, it is more easy for me.")] == [
        "instruction.add"
    ]
    memory.end_session("s1", user_id="u")
    said = "From now you can answer me in English, I must practise it for my new work."
    assert "instruction.add" in [op for op, _ in ops_of(memory, said, "s2")]
    text = memory.recall("Which language should you answer in?", user_id="u", session_id="probe").text
    assert "answer me in English" in text
    assert "always in French" not in text


def test_you_can_about_anything_but_answering_is_no_instruction(memory) -> None:  # type: ignore[no-untyped-def]
    assert "instruction.add" not in [op for op, _ in ops_of(memory, "From now you can park in the second bay.")]


def test_commands_after_a_when_are_a_procedure(memory) -> None:  # type: ignore[no-untyped-def]
    said = "When the label printer jams, open the lid, pull the roll out, and feed it back in under the guide."
    assert [op for op, _ in ops_of(memory, said)] == ["procedure.add"]
    text = memory.recall("The label printer jammed, what do I do?", user_id="u", session_id="probe").text
    for step in ("Open the lid", "Pull the roll out", "Feed it back in under the guide"):
        assert step in text


def test_a_when_clause_followed_by_a_statement_is_no_procedure(memory) -> None:  # type: ignore[no-untyped-def]
    said = "When the printer jams, the whole office waits, nobody knows the fix, and I lose an hour."
    assert "procedure.add" not in [op for op, _ in ops_of(memory, said)]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Use the staging server from now on.", "Use the staging server from now on."),
        (
            "The choir has learned solfège this term, so give me do re mi from here on.",
            "The choir has learned solfège this term, so give me do re mi from here on.",
        ),
        (
            "Please correct my English grammar always when I write something wrong.",
            "Correct my English grammar always when I write something wrong.",
        ),
    ],
)
def test_a_standing_command_is_an_instruction(memory, said: str, kept: str) -> None:  # type: ignore[no-untyped-def]
    assert [op for op, _ in ops_of(memory, said)] == ["instruction.add"]
    assert kept in memory.recall("How should you answer me?", user_id="u", session_id="probe").text


@pytest.mark.parametrize(
    "said",
    [
        "I was tired after the flight, so I went home early.",
        "Please hold on a second.",
        "We always use the back door, so the dog can get out.",
    ],
)
def test_a_so_or_an_always_without_a_command_to_the_assistant_is_no_instruction(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "instruction.add" not in [op for op, _ in ops_of(memory, said)]


def test_asking_the_assistant_to_call_the_user_by_a_name_sets_the_name(memory) -> None:  # type: ignore[no-untyped-def]
    ops = ops_of(memory, "I'd like you to call me Sam")
    assert ("profile.set", "name = Sam") in ops
