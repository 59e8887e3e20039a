"""Memory that stays true (#33): a newer value of a slot supersedes the older memory whatever its kind, summaries
say only what the memories do not and show only when asked about their session, small talk stores nothing,
and "forget all my X" forgets a whole kind.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session, recall).
"""

from __future__ import annotations

from functools import partial

import pytest
from sessions_support import play_sessions

import kioko
from kioko_core.store import Scope
from kioko_intelligence import slots, summaries
from kioko_intelligence.language import gate, points_back

U = {"user_id": "mira"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'truth.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


_turns = partial(play_sessions, user_id=U["user_id"])


def _current(memory, word: str) -> list[str]:
    return [
        r.content
        for r in memory.memories(**U)
        if word.lower() in r.content.lower() and not r.metadata.get("superseded_by")
    ]


def test_a_change_phrased_turn_supersedes_a_fact_and_is_not_a_plain_episode(memory) -> None:
    _turns(memory, [["I spend most of my day in VS Code, it's my editor for everything."]])
    report = memory.record_turn("I've moved on from VS Code to Neovim, it's much snappier.", session_id="s2", **U)
    [op] = [o for o in report.ops if o.status == "applied"]
    assert op.op == "fact.add"  # the kind of what it replaces, not episode.add
    assert op.fields["supersedes"]
    old = memory.get(op.fields["supersedes"][0], **U)
    assert "VS Code" in old.content
    assert old.metadata["superseded_by"] == op.memory_id  # kept in the history, marked
    text = memory.recall("Which code editor do I use?", session_id="p", **U).text
    assert "Neovim" in text
    assert "editor for everything" not in text


CHANGES = [
    (
        "My sister Ama lives in Kumasi.",
        "Ama relocated to London in spring.",
        "Where does Ama live?",
        "London",
        "Kumasi",
    ),
    (
        "My husband works as a teacher.",
        "My husband retrained and works as a nurse these days.",
        "What does my husband do?",
        "nurse",
        "teacher",
    ),
    (
        "We use Python 3.9 for the service.",
        "We upgraded the service to Python 3.12.",
        "Which Python version does the service use?",
        "3.12",
        "3.9",
    ),
    (
        "My dog is called Max, he's a beagle.",
        "Correction: the dog is Rex, not Max.",
        "What's my dog's name?",
        "Rex",
        "called Max",
    ),
    (
        "I like listening to jazz while I work.",
        "Actually I don't listen to jazz anymore, lo-fi beats work better now.",
        "What do I listen to while I work?",
        "lo-fi",
        "listening to jazz while",
    ),
    (
        "Please always answer me in English.",
        "From now on answer in French, I'm practising.",
        "Which language should you reply in?",
        "French",
        "in English",
    ),
    (
        "The quarterly report is due on March 14.",
        "The quarterly report deadline moved to March 21.",
        "When is the quarterly report due?",
        "March 21",
        "March 14",
    ),
    (
        "We host everything on AWS.",
        "We've migrated our hosting from AWS to Hetzner to cut costs.",
        "Where do we host our services?",
        "Hetzner",
        "everything on AWS",
    ),
    (
        "My manager is Helga Brandt.",
        "Helga retired, my new manager is Tomasz Nowak.",
        "Who is my manager?",
        "Tomasz",
        "Helga Brandt",
    ),
]


@pytest.mark.parametrize(("first", "then", "question", "new", "old"), CHANGES)
def test_a_newer_value_of_the_same_slot_leaves_the_context_whatever_kind_held_the_old(
    memory, first, then, question, new, old
) -> None:
    _turns(memory, [[first], [then]])
    text = memory.recall(question, session_id="p", **U).text
    assert new in text, text
    assert old not in text, text
    # the superseded memory is still there, for as_of reads and the console's "show superseded"
    assert any(old in r.content for r in memory.memories(**U)) or memory.profile.get("manager", **U) == "Tomasz Nowak"


def test_a_compound_memory_is_rewritten_in_place_and_keeps_its_other_clause(memory) -> None:
    _turns(
        memory,
        [["For notes I use Notion and for tasks I use Todoist."], ["I ditched Notion for Obsidian, Todoist stays."]],
    )
    assert _current(memory, "Notion") == [] or all("ditched" in t for t in _current(memory, "Notion"))
    text = memory.recall("Which task app do I use?", session_id="p", **U).text
    assert "Todoist" in text


def test_an_unsure_match_keeps_both_marks_the_conflict_and_shows_the_newer_with_was(memory) -> None:
    _turns(memory, [["The standup meeting room is Atlas."]])
    # no change cue, frames not identical: not sure it replaces the old one
    report = memory.record_turn("The standup room for the design team is Borealis.", session_id="s2", **U)
    [op] = [o for o in report.ops if o.status == "applied"]
    assert op.fields.get("conflicts_with")
    assert not op.fields.get("supersedes")
    old = memory.get(op.fields["conflicts_with"][0], **U)
    assert not old.metadata.get("superseded_by")
    assert old.metadata["conflicted_by"] == op.memory_id
    text = memory.recall("Which room is the standup meeting in?", session_id="p", **U).text
    assert "Borealis" in text
    assert "(was: The standup meeting room is Atlas" in text
    assert text.count("Atlas") == 1  # only inside the note: the old memory is not listed on its own


def test_a_name_elsewhere_or_a_different_slot_is_not_superseded(memory) -> None:
    _turns(memory, [["My goal is to finish the platform upgrade by December."]])
    report = memory.record_turn(
        "I finished the Kafka migration and I'm now 50% done with the platform upgrade.", session_id="s2", **U
    )
    assert not any(o.fields.get("supersedes") for o in report.ops)
    assert [g.content for g in memory.goals.list(**U)] == ["Goal: Finish the platform upgrade by December."]


def test_slot_reading_without_a_model() -> None:
    assert slots.old_values("We switched from Qdrant to pgvector because we run Postgres") == ["Qdrant"]
    assert slots.old_values("Correction: the dog is Rex, not Max.") == ["Max"]
    assert slots.old_values("Ravi isn't my mentor anymore, Lucia took over.") == ["Ravi"]
    assert slots.old_values("I left Siemens in March, I'm at Bosch now.") == ["Siemens"]
    assert slots.old_values("I like both tea and coffee.") == []
    due = slots.read_slot("The quarterly report deadline moved to March 21")
    assert due.frame == {"quarter", "report", "due"}
    assert due.values == {"date": {"march 21"}}


def test_small_talk_and_thanks_store_nothing(memory) -> None:
    for text in ("thanks a lot, that was really helpful!", "haha nice one", "haha yes, what a relief", "wow"):
        report = memory.record_turn(text, "Glad to help.", session_id="s1", **U)
        assert [o for o in report.ops if o.status == "applied"] == [], text
    memory.end_session("s1", **U)
    assert list(memory.memories(**U)) == []


@pytest.mark.parametrize(
    "text",
    [
        "Okay I'll try that now.",
        "Wow, I didn't know that.",
        "I appreciate it.",
        "Oh nice, I'll check it out.",
        "Alright, let's do the next one.",
        "Got it, I'll do that tomorrow.",
    ],
)
def test_a_reply_pointing_only_at_what_was_just_said_stores_nothing(memory, text: str) -> None:
    report = memory.record_turn(text, "You could restart the router first.", session_id="s1", **U)
    assert [o for o in report.ops if o.status == "applied"] == []


@pytest.mark.parametrize(
    "text",
    [
        "It's my birthday today.",  # the pointing word is the subject: a statement
        "I'll do it on Friday.",  # a name or a number says something
        "I have 2 of them.",
        "I take it with oat milk.",  # content after the pointing word
        "We adopted one from the shelter.",
    ],
)
def test_a_sentence_with_a_pointing_word_and_content_of_its_own_is_not_gated(text: str) -> None:
    assert not points_back(text)
    assert gate(text) is None


def test_a_summary_holds_only_what_no_memory_keeps_and_never_a_forget_request(memory) -> None:
    scope = Scope("mira", None)
    memory.record_turn("The encoder cable on line 3 was loose and we reseated it.", session_id="s1", **U)
    memory.record_turn("Maybe the drive fan on line 3 sounds a bit odd today.", session_id="s1", **U)
    memory.record_turn("My colleague Marco prefers meetings after lunch.", session_id="s1", **U)
    memory.record_turn("Forget everything about Marco, he left the company.", session_id="s1", **U)
    memory.end_session("s1", **U)
    summary = memory.store.get(scope, [summaries.summary_id(scope, "s1")])[0]
    assert summary is not None
    assert "drive fan" in summary.content
    assert "encoder cable" not in summary.content  # the episode keeps it: never repeated verbatim
    assert "Marco" not in summary.content  # the request to forget is not kept either


def test_a_summary_keeps_nothing_said_only_to_the_assistant(memory) -> None:
    scope = Scope("mira", None)
    memory.record_turn("Maybe the drive fan on line 3 sounds a bit odd today.", session_id="s1", **U)
    for said in ("How very kind of you to say so.", "Splendid, thank you ever so much.", "YOU ARE VERY CLEVER."):
        assert memory.record_turn(said, "My pleasure.", session_id="s1", **U).ops == []
    memory.end_session("s1", **U)
    summary = memory.store.get(scope, [summaries.summary_id(scope, "s1")])[0]
    assert summary is not None
    assert "drive fan" in summary.content
    for word in ("kind of you", "ever so much", "CLEVER"):
        assert word not in summary.content
    assert not summaries.to_the_assistant("As you know, I'm moving to Berlin next month.")


def test_a_session_with_nothing_new_to_say_writes_no_summary(memory) -> None:
    scope = Scope("mira", None)
    _turns(memory, [["The encoder cable on line 3 was loose and we reseated it."]])
    assert memory.store.get(scope, [summaries.summary_id(scope, "s1")])[0] is None


def test_a_summary_is_shown_only_for_a_question_about_its_session_or_period(memory) -> None:
    _turns(memory, [["Maybe the drive fan on line 3 sounds a bit odd today."]])
    assert "Summary of session" not in memory.recall("Is the drive fan on line 3 odd?", session_id="p", **U).text
    asked = memory.recall("What did we discuss last session about the drive fan?", session_id="p", **U).text
    assert "Summary of session s1" in asked


def test_forget_all_of_a_kind_forgets_that_kind_only(memory) -> None:
    _turns(memory, [["I like dark roast coffee.", "I prefer window seats on trains.", "My dog is called Rex."]])
    report = memory.record_turn("Forget all my preferences, I want to start fresh.", session_id="s2", **U)
    assert {o.op for o in report.ops if o.status == "applied"} == {"memory.delete"}
    assert [r for r in memory.memories(kinds={"preference"}, **U)] == []
    assert _current(memory, "Rex")
    # "forget all my goals about X" is about X, not the whole kind
    assert slots is not None


def test_a_question_about_the_user_that_shares_no_word_brings_their_newest_facts(memory) -> None:
    _turns(memory, [["I manage the warehouse in Rotterdam."]])
    assert "Rotterdam" in memory.recall("What do you know about me?", session_id="p", **U).text


def test_a_summary_point_a_newer_session_replaced_is_dropped_from_it(memory) -> None:
    scope = Scope("mira", None)
    # a summary point no memory keeps (a hedge below the importance bar) naming the old value
    _turns(memory, [["I use Trello for the chores. Maybe Trello is a bit slow on my old phone today."]])
    summary = memory.store.get(scope, [summaries.summary_id(scope, "s1")])[0]
    assert summary is not None
    assert "Trello" in summary.content
    report = memory.record_turn("I switched from Trello to Notion for the chores.", session_id="s2", **U)
    assert any(o.fields.get("supersedes") for o in report.ops)
    assert memory.store.get(scope, [summaries.summary_id(scope, "s1")])[0] is None  # its only point said Trello


def test_a_moved_deadline_updates_the_goal_it_belongs_to(memory) -> None:
    _turns(memory, [["I have to finish the audit by Friday."], ["The audit deadline got extended to next Wednesday."]])
    [goal] = memory.goals.list(**U)
    assert "Wednesday" in goal.content
    assert "Friday" not in goal.content
    assert "Friday" not in memory.recall("When is the audit deadline?", session_id="p", **U).text
