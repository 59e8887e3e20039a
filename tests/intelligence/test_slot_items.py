"""The session's scratchpad follows the user to the next thing of the same shape, an identifier only
mentioned leaves it alone, and one item of a plan or list is rewritten in place (#33).

Real layers (memory:// and a SQLite file) through the agent loop.
"""

from __future__ import annotations

import pytest

import kioko

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'items.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _say(memory, turns: list[str], session: str = "s1") -> None:
    for text in turns:
        memory.record_turn(text, "Okay.", session_id=session, **U)


def test_the_task_follows_the_user_to_the_next_host(memory) -> None:
    _say(memory, ["Debugging on host web-03.", "web-03 looks healthy, the problem is on web-07, I'm on that box now."])
    assert memory.working.all(session_id="s1", **U)["task"] == "Debugging on host web-07"


def test_a_relative_file_path_is_the_sessions_file_and_moving_on_rewrites_the_task(memory) -> None:
    _say(memory, ["I'm editing src/api/users.py.", "Done there, on to src/api/orders.py."])
    pad = memory.working.all(session_id="s1", **U)
    assert pad["file"] == "src/api/orders.py"
    assert pad["task"] == "Editing src/api/orders.py"


def test_an_identifier_only_mentioned_does_not_overwrite_the_one_the_task_is_about(memory) -> None:
    _say(memory, ["Working on JIRA-5521, the login redirect bug.", "JIRA-5400 looks like a duplicate, ignoring it."])
    assert memory.working.all(session_id="s1", **U)["ticket"] == "JIRA-5521"
    _say(memory, ["Switching over to JIRA-5400 now, the redirect can wait."])
    pad = memory.working.all(session_id="s1", **U)
    assert pad["ticket"] == "JIRA-5400"


def _current(memory, word: str) -> list[str]:
    return [r.content for r in memory.memories(**U) if word in r.content and not r.metadata.get("superseded_by")]


def test_one_keyed_item_of_a_list_is_rewritten_and_the_others_stay(memory) -> None:
    _say(memory, ["Exam prep: week one algebra, week two geometry, week three past papers."])
    _say(memory, ["Week two is statistics now, geometry moves to the weekend."], "s2")
    [plan] = _current(memory, "Exam prep")
    assert "week two statistics" in plan
    assert "week one algebra" in plan
    assert "past papers" in plan


def test_a_dropped_step_takes_the_one_new_name_of_the_sentence(memory) -> None:
    _say(memory, ["Holiday plan: three nights in Rome, then Florence, then Venice."])
    _say(memory, ["We cut Venice from the holiday, we'll finish in Bologna."], "s2")
    [plan] = _current(memory, "Rome")
    assert "Bologna" in plan
    assert "Venice" not in plan
    assert "Florence" in plan


def test_a_plain_statement_with_is_rewrites_nothing(memory) -> None:
    _say(memory, ["Exam prep: week one algebra, week two geometry, week three past papers."])
    _say(memory, ["Week two is going to be hard."], "s2")  # no change cue: not a new value of the item
    [plan] = _current(memory, "Exam prep")
    assert "week two geometry" in plan


@pytest.mark.parametrize(
    ("before", "after", "question", "new", "old"),
    [
        (
            "I take my coffee black.",
            "These days I have my coffee with oat milk.",
            "How do I take my coffee?",
            "oat milk",
            "black",
        ),
        (
            "Use the US date format, month first.",
            "Write dates day-month-year from now on.",
            "How should you write dates?",
            "day-month-year",
            "US date format",
        ),
    ],
)
def test_one_shared_topic_word_and_a_change_word_mark_a_conflict_the_newer_shown_first(
    memory, before, after, question, new, old
) -> None:
    _say(memory, [before])
    _say(memory, [after], "s2")
    text = memory.recall(question, session_id="probe", **U).text
    assert new in text
    assert old not in text.split("(was:")[0]  # only as the newer one's "(was: ...)"


def test_a_topic_word_alone_without_a_change_word_keeps_both(memory) -> None:
    _say(memory, ["I take my coffee black."])
    _say(memory, ["I have my coffee at the bakery on Fridays."], "s2")
    assert _current(memory, "black")
    assert not [r for r in memory.memories(**U) if r.metadata.get("conflicts_with")]


def test_a_slot_restated_with_more_values_supersedes(memory) -> None:
    _say(memory, ["I water the fern every Sunday."])
    _say(memory, ["The fern gets watered twice a week now, Sunday and Wednesday."], "s2")
    assert not _current(memory, "every Sunday")


def test_a_relation_the_turn_changes_is_rewritten_in_a_memory_of_several_clauses(memory) -> None:
    _say(memory, ["I live in Austin and work at Dell."])
    _say(memory, ["We moved to Denver and I joined a startup called Loomly."], "s2")
    [held] = _current(memory, "lives in")
    assert "Denver" in held
    assert "Loomly" in held
    assert "Austin" not in held
    assert "Dell" not in held


def test_joining_a_club_is_no_new_employer(memory) -> None:
    _say(memory, ["I work at Dell."])
    _say(memory, ["I joined a book club called Readers last week."], "s2")
    assert _current(memory, "Dell")


def test_a_changed_goal_target_updates_the_goal(memory) -> None:
    _say(memory, ["My goal this year is to read 24 books."])
    _say(memory, ["I bumped my reading goal up to 30 books this year."], "s2")
    [goal] = [g.content for g in memory.memories(**U) if g.kind == "goal"]
    assert "30 books" in goal


def test_a_number_changed_in_one_step_of_a_plan_keeps_the_other_steps(memory) -> None:
    _say(memory, ["Party plan: order the cake on Monday, decorate on Friday, guests arrive Saturday at 7."])
    _say(memory, ["Guests now arrive at 6 on Saturday."], "s2")
    [plan] = _current(memory, "Party plan")
    assert "Saturday at 6" in plan
    assert "Decorate on Friday" in plan
    [record] = [r for r in memory.memories(**U) if r.content.startswith("Party plan")]
    assert record.metadata["steps"] == ["Order the cake on Monday", "Decorate on Friday", "Guests arrive Saturday at 6"]
    # a plan answers "when" questions: the temporal plan shows plans, not only events
    assert "Decorate on Friday" in memory.recall("When do I decorate?", session_id="probe", **U).text


def test_a_how_to_said_to_be_done_differently_is_superseded(memory) -> None:
    _say(memory, ["To descale the coffee machine, fill the tank with descaler and run two cycles."])
    _say(memory, ["The descaling is different with the new machine: you hold the steam button for 5 seconds."], "s2")
    assert not _current(memory, "run two cycles")
    assert _current(memory, "steam button")


def test_a_change_the_router_kept_nothing_of_rewrites_the_how_to_it_names(memory) -> None:
    _say(memory, ["To connect to the VPN, open Tunnelblick and pick the office profile."])
    _say(memory, ["We replaced Tunnelblick with WireGuard, you just toggle the office tunnel."], "s2")
    assert _current(memory, "To connect to the VPN, open WireGuard")


def test_a_how_to_merely_used_again_is_kept(memory) -> None:
    _say(memory, ["To descale the coffee machine, fill the tank with descaler and run two cycles."])
    _say(memory, ["I descaled the coffee machine today, it works like new."], "s2")
    assert _current(memory, "run two cycles")


@pytest.mark.parametrize(
    ("before", "after", "old"),
    [
        ("We watch everything on Netflix.", "Cancelled Netflix, we're on Disney+ now.", "Netflix"),
        ("Feel free to use emojis in replies.", "Please stop using emojis, they look unprofessional.", "Feel free"),
        (
            "Thai food is my absolute favourite.",
            "Lately I'm really into Ethiopian food, it's my new favourite.",
            "Thai",
        ),
    ],
)
def test_more_ways_of_saying_the_old_value_is_gone(memory, before, after, old) -> None:
    _say(memory, [before])
    _say(memory, [after], "s2")
    assert not [c for c in _current(memory, old) if c.startswith(before[:12])]


def test_a_subjectless_task_with_an_identifier_is_the_sessions_task_and_follows_a_move(memory) -> None:
    _say(memory, ["Patching server db-02 tonight.", "db-02 went fine. Moving on to db-05."])
    assert memory.working.all(session_id="s1", **U)["task"] == "Patching server db-05 tonight"


@pytest.mark.parametrize(
    ("before", "after", "old"),
    [
        ("My work email is sam@oldco.com.", "New job means a new work email, sam@newco.io.", "oldco"),
        ("We have a red Fiat Panda.", "The Panda's gone; our car is a grey Skoda Octavia now.", "Panda"),
        (
            "When you summarise meetings, use bullet points.",
            "For meeting summaries, a short paragraph works better than bullets.",
            "bullet points",
        ),
    ],
)
def test_still_more_ways_a_value_is_replaced(memory, before, after, old) -> None:
    _say(memory, [before])
    _say(memory, [after], "s2")
    assert not [c for c in _current(memory, old) if c.lower().startswith(before[:10].lower())]


def test_a_turn_in_capitals_reads_its_words_not_names(memory) -> None:
    """Capitals carry no names in a shouted turn: its words are the slot's frame, so a change is found."""
    _say(memory, ["I TAKE MY BLOOD PRESSURE TABLET WITH BREAKFAST"])
    _say(memory, ["DOCTOR SAYS TAKE THE BLOOD PRESSURE TABLET AT BEDTIME NOW"], "s2")
    assert not _current(memory, "BREAKFAST")


def test_a_goal_given_up_for_a_new_one_is_superseded(memory) -> None:
    _say(memory, ["My big goal this year is to learn the cello."])
    _say(memory, ["I've given up the cello, my new goal is to get my scuba certification."], "s2")
    assert not _current(memory, "cello")
