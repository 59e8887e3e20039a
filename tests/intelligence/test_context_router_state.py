"""The context shows what the router stored (issue 24): a goal's progress and due date in the goals section,
and a problem question ("X died again with E, what do I do?") planned as howto + strategy, so the lessons
and fixes linked to E come with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kioko
from kioko_core.recall.hybrid import goal_line
from kioko_intelligence.planner import PROBLEM_REASON, QueryPlanner, is_problem_question

U = "maya"
PROBLEM = "the nightly job died again with OOM-137, what do I do?"


@pytest.fixture
def memory() -> Iterator[kioko.MemoryLayer]:
    layer = kioko.intelligent("memory://")
    yield layer
    layer.close()


def section(text: str, title: str) -> list[str]:
    """The lines of one context section (without its title), [] when the context has none."""
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0] == title:
            return lines[1:]
    return []


def test_the_goals_section_shows_progress_and_due_date(memory: kioko.MemoryLayer) -> None:
    marathon = memory.goals.add("Run the Berlin marathon", due="April", user_id=U)
    memory.goals.add("Get the AWS certification", user_id=U)
    memory.goals.add("Cut the cloud bill by 15%", due="2027-03-31", user_id=U)
    memory.goals.progress(marathon.id, 0.6, user_id=U)  # what "I'm about 60% done with ..." stores
    context = memory.recall("how far along is my main goal?", user_id=U)
    assert "goals" in context.plan.intents
    assert section(context.text, "Open goals:") == [
        "- Goal: Run the Berlin marathon (60 %, due April).",
        "- Goal: Get the AWS certification.",
        "- Goal: Cut the cloud bill by 15% (due 2027-03-31).",
    ]
    # the records themselves are as stored: only the line in the text carries the state
    shown = {m.record.id: m.record for m in context.memories}
    assert shown[marathon.id].content == "Goal: Run the Berlin marathon."


def test_progress_the_offline_router_stored_reaches_the_goals_section(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("My goal is to run the Berlin marathon.", "", user_id=U, session_id="s1")
    report = memory.record_turn("I'm halfway through my marathon prep.", "", user_id=U, session_id="s1")
    assert [op.op for op in report.ops] == ["goal.progress"]
    lines = section(memory.recall("how far along is my main goal?", user_id=U).text, "Open goals:")
    assert lines == ["- Goal: Run the Berlin marathon (50 %)."]


@pytest.mark.parametrize(
    ("goal", "progress", "line"),
    [
        (
            "My target this quarter is 40 deals.",
            ["Closed 18 deals so far.", "Up to 27 deals closed."],
            "27 deals of 40, 68 %",
        ),
        ("My goal is to read 24 books this year.", ["I've read 12 of the 24 books."], "12 books of 24, 50 %"),
        ("My goal is to ride 2,000 km this year.", ["Logged 1,250 km by now."], "1,250 km of 2,000, 62 %"),
    ],
)
def test_progress_given_as_a_count_shows_the_count(
    memory: kioko.MemoryLayer, goal: str, progress: list[str], line: str
) -> None:
    for number, text in enumerate([goal, *progress]):
        memory.record_turn(text, "", user_id=U, session_id=f"s{number}")
    [shown] = section(memory.recall("How am I doing against my target?", user_id=U).text, "Open goals:")
    assert shown.endswith(f"({line}).")


def test_a_number_of_something_else_or_a_new_target_is_no_progress(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("My target this quarter is 40 deals.", "", user_id=U, session_id="s1")
    for text in ("Three deals fell through, 2 customers churned.", "My target is 30 deals now."):
        report = memory.record_turn(text, "", user_id=U, session_id="s1")
        assert "goal.progress" not in [op.op for op in report.ops]


def test_goal_line_formats() -> None:
    goal = kioko.Record(
        id="g", user_id=U, kind="goal", content="Goal: Ship v2", metadata={"progress": 0.333, "due": " Q3 "}
    )
    assert goal_line(goal) == "Goal: Ship v2 (33 %, due Q3)"
    assert goal_line(goal.model_copy(update={"metadata": {"progress": 0.0, "due": None}})) == "Goal: Ship v2"
    assert goal_line(goal.model_copy(update={"metadata": {"progress": True}})) == "Goal: Ship v2"


@pytest.mark.parametrize(
    "query",
    [
        PROBLEM,
        "The deploy failed with exit code 137, what should we do?",
        "ingest keeps crashing with ERR_CONN_RESET. any ideas?",
        "how do I fix the OOM on the nightly job?",
        "The API is down again - what now?",
    ],
)
def test_a_problem_question_is_planned_as_howto_and_strategy(query: str) -> None:
    assert is_problem_question(query)
    intents = QueryPlanner(use_graph=False).intents(query)
    assert {"howto", "strategy"} <= set(intents)
    assert "personal" not in intents


@pytest.mark.parametrize(
    "query, intents",
    [
        ("what do I do for a living?", ["personal"]),
        ("did the nightly job fail yesterday?", ["temporal"]),
        ("when did the nightly job die?", ["temporal"]),
        ("the nightly job died with OOM-137 last night.", ["temporal"]),
    ],
)
def test_questions_that_are_not_problem_questions_keep_their_plan(query: str, intents: list[str]) -> None:
    assert not is_problem_question(query)
    assert QueryPlanner(use_graph=False).intents(query) == intents


def test_a_problem_question_brings_the_lessons_and_fixes_linked_to_the_error(memory: kioko.MemoryLayer) -> None:
    failure = memory.episodes.add("The nightly job died with OOM-137 last night.", user_id=U)
    fix = memory.procedures.add(
        "Recover the nightly job after OOM-137",
        steps=["raise spark.executor.memory to 8g", "rerun from the last checkpoint"],
        user_id=U,
    )
    lesson = memory.lessons.add("Check the executor memory before rerunning a crashed batch.", user_id=U)
    memory.graph.link(lesson.id, failure.id, "learned_from", user_id=U)  # the lesson does not name the code
    for noise in (
        "We had a team lunch on Friday.",
        "I moved to Berlin in 2021.",
        "My manager is called Jonas.",
        "The dashboard loads slowly on Mondays.",
    ):
        memory.episodes.add(noise, user_id=U)
    plan = memory.plan(PROBLEM, user_id=U)
    assert plan.intents == ["howto", "strategy"]
    assert plan.reason.startswith(PROBLEM_REASON)
    context = memory.recall(PROBLEM, user_id=U)
    assert section(context.text, "Relevant memories:")[0] == f"- {failure.content}"
    assert section(context.text, "Procedures that may apply:") == [f"- {fix.content}"]
    assert section(context.text, "Lessons from earlier attempts:") == [f"- {lesson.content}"]
    assert any(
        line.endswith(f'was learned from event "{failure.content.rstrip(".")}"')
        for line in section(context.text, "How these memories connect:")
    )


def test_the_issue_turns_end_to_end(memory: kioko.MemoryLayer) -> None:
    """Issue 24's two context complaints, through routed turns: the progress said, then the problem asked."""
    for said in (
        "My goal is to run the Berlin marathon.",
        "I'm about 60% done with the marathon training.",
        "The nightly job died with OOM-137 last night.",
        "Fixed it: the root cause was the executor memory, I raised it to 8 GB.",
        "Lesson learned: when the nightly job runs out of memory, check the executor memory first.",
        "We had a team lunch on Friday.",
    ):
        memory.record_turn(said, "", user_id=U, session_id="s1")
    goals = section(memory.recall("how far along is my main goal?", user_id=U).text, "Open goals:")
    assert goals == ["- Goal: Run the Berlin marathon (60 %)."]
    text = memory.recall(PROBLEM, user_id=U).text
    lessons = section(text, "Lessons from earlier attempts:")
    assert len(lessons) == 1
    assert "check the executor memory first" in lessons[0]
    assert "- Fixed it: the root cause was the executor memory." in section(text, "Relevant memories:")
