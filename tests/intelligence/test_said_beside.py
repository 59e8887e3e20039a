"""A newer statement said beside an older one is no newer value of it, and a newer value is stored at all.

The dev probes whose newer value was never stored, or stored and then replaced: a statement paired loosely (no
change word, no old value named) with an older one it only sits beside ("Up at the farm apiary there are three
hives" beside "At home I've got five hives", "I'm studying for JLPT N3 listening" beside "The API listens on port
201"); a thing got back ("Got my own phone back") read as a new standing that
replaced the old number; a statement whose "you" is anyone's ("far easier on the back when you lift the supers")
dropped as said to the assistant; a figure said in a sentence of its own ("That's 100 across.") dropped for its
"that"; and the session's task replaced by a part of it said with "still". Through the agent loop
(``record_turn``, the offline router, the semantic embedder)."""

from __future__ import annotations

import pytest
from slot_scene_support import marked, said

import kioko
from kioko_intelligence.fragments import joined_values
from kioko_intelligence.rules import addressed
from kioko_intelligence.slot_additions import ADDITIVE, beside, other_places, thing_and_user

pytest.importorskip("kioko_core.embedding.semantic")

URL = "memory://?embedder=semantic"


def _said(*sessions: tuple[str, ...]) -> kioko.Memory:
    return said(URL, *sessions)


_marked = marked


def _contents(memory: kioko.Memory) -> str:
    return " | ".join(r.content for r in memory.memories(user_id="u"))


# -- said beside: the older memory stays in force


BESIDE = [
    ("At home I've got five hives.", "Up at the farm apiary there are three hives.", "five hives"),
    ("The API listens on port 201.", "I'm studying for JLPT N3 listening this month.", "port 201"),
    (
        "Release checklist for the game: bump the version in project.godot, export, upload with butler to itch.",
        "We ship on Steam too now, so after itch the same build goes up through steamcmd.",
        "butler",
    ),
]


@pytest.mark.parametrize(("older", "newer", "kept"), BESIDE)
def test_a_statement_said_beside_leaves_the_older_in_force(older: str, newer: str, kept: str) -> None:
    memory = _said((older,), (newer,))
    assert not [c for c in _marked(memory) if kept in c], _marked(memory)
    assert kept in memory.recall(older, user_id="u", session_id="q").text.split("(was:")[0]


CHANGED = [
    # a change word: the pair is sure, and what is beside does not hold it back
    ("I coach the under-11s on Saturdays.", "I coach the under-11s on Sundays now.", "Saturdays"),
    ("The API listens on port 201.", "The API listens on port 8080 now.", "201"),
]


@pytest.mark.parametrize(("older", "newer", "old_value"), CHANGED)
def test_a_change_of_the_same_thing_still_replaces(older: str, newer: str, old_value: str) -> None:
    memory = _said((older,), (newer,))
    assert [c for c in _marked(memory) if old_value in c], _contents(memory)


def test_the_words_of_a_statement_said_beside() -> None:
    assert ADDITIVE.search("We ship on Steam too now, so after itch it goes up through steamcmd")
    assert ADDITIVE.search("I also coach the under-14s")
    assert not ADDITIVE.search("That was too much wine for me")
    assert other_places("Up at the farm apiary there are three hives.", "At home I've got five hives.")
    assert not other_places("In York we rent a flat.", "In Leeds we rent a flat.")  # a named place is a value
    assert not other_places("At home I've got seven hives.", "At home I've got five hives.")
    assert thing_and_user("I'm studying for JLPT N3 listening this month.", "The API listens on port 201.")
    assert not thing_and_user("I work at Google.", "Employer is Amazon.")  # no name: a slot of the user's
    assert not thing_and_user("I moved the API to port 8080.", "The API listens on port 201.")  # names it again
    assert beside("Up at the farm apiary there are three hives.", "x", "At home I've got five hives.")
    assert not beside("I stopped keeping hives at home, up at the farm there are three", "x", "At home I've got five")


# -- a thing got back is no new standing


def test_a_thing_got_back_does_not_replace_what_it_restores() -> None:
    memory = _said(
        ("My mobile is 07700 900412 if the surgery needs to ring me.",),
        ("Phone's in for repair, I'm on a loan handset till it's back: 07700 900876.",),
        ("Got my own phone back from the repair shop, so the old number works again.",),
    )
    assert not [c for c in _marked(memory) if "900412" in c], _marked(memory)
    assert "900412" in memory.recall("What number can I be reached on?", user_id="u", session_id="q").text


def test_a_standing_got_still_replaces() -> None:
    memory = _said(("I'm a staff nurse on the cardiology ward.",), ("Got my promotion, ward sister on cardiology.",))
    assert [c for c in _marked(memory) if "staff nurse" in c], _contents(memory)


# -- anyone's "you"


def test_anyones_you_is_not_said_to_the_assistant() -> None:
    assert not addressed("Everything's in Nationals from this spring, far easier on the back when you lift the supers")
    assert not addressed("The ferry is cheaper if you book early")
    assert addressed("It would help if you could keep answers short")  # a request's "if you could"
    assert addressed("Remind me when you get a chance")
    assert addressed("You were right about the ferry")


def test_a_statement_with_anyones_you_is_stored() -> None:
    memory = _said(
        ("Everything's in Nationals from this spring, far easier on the back when you lift the supers.",),
    )
    assert "Nationals" in _contents(memory)


def test_a_remark_to_the_assistant_is_not_stored() -> None:
    memory = _said(("Your last answer was better when you used bullet points.",))
    assert "bullet" not in _contents(memory)


# -- a figure said in a sentence of its own


def test_a_figure_of_the_sentence_before_is_joined_to_it() -> None:
    plain = lambda s: not s.rstrip().endswith("?")  # noqa: E731
    assert joined_values(["Down to the last 20.", "That's 100 across."], plain) == [
        "Down to the last 20, that's 100 across."
    ]
    assert joined_values(["Sold the car.", "That's a relief."], plain) == ["Sold the car.", "That's a relief."]
    assert joined_values(["Did you get 20?", "That's 100 across."], plain) == ["Did you get 20?", "That's 100 across."]
    assert joined_values(["That's 100 across."], plain) == ["That's 100 across."]


def test_a_figure_in_a_sentence_of_its_own_is_stored() -> None:
    memory = _said(("Target this quarter: all 120 VMs off VMware.", "Down to the last 20. That's 100 across."))
    assert "100 across" in _contents(memory)


# -- the session's task goes on


def _session(*turns: str) -> str:
    memory = kioko.intelligent(URL)
    for turn in turns:
        memory.record_turn(turn, "Noted.", user_id="u", session_id="s1")
    return str(memory.working.all(user_id="u", session_id="s1").get("task"))


def test_a_task_that_goes_on_keeps_the_held_one() -> None:
    task = _session(
        "Reviewing PR 881 while the schema migration runs on staging.",
        "Migration's at sixty percent. Still going through the PR comments.",
    )
    assert "migration" in task


def test_a_task_that_moves_on_replaces_the_held_one() -> None:
    task = _session(
        "Reviewing PR 881 while the schema migration runs on staging.",
        "PR 881 merged. Going through the flaky login tests now.",
    )
    assert "login" in task
