"""Supersede by a category world knowledge names (#33): "I switched to Brave" after "my browser is Firefox";
and a profile slot the user has, changed in a clause the router read as something else.

The lexicon itself (kioko_intelligence.categories) and the agent loop on real layers (memory:// and a
SQLite file): the newer value replaces the older, someone else's thing does not, a category of several values
needs a word of its own in common, and the memory is found by the category's name.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence import categories

U = {"user_id": "noor"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'cats.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _say(memory, sessions: list[list[str]]) -> None:
    for n, turns in enumerate(sessions, 1):
        for text in turns:
            memory.record_turn(text, "Okay.", session_id=f"s{n}", **U)
        memory.end_session(f"s{n}", **U)


def _current(memory, word: str) -> list[str]:
    return [
        r.content
        for r in memory.memories(**U)
        if word.lower() in r.content.lower() and not r.metadata.get("superseded_by")
    ]


def test_mentions_take_the_longest_spelling_and_the_model() -> None:
    found = categories.mentions("We host on Google Cloud and I'm on an iPhone 12 Pro.")
    assert [(m.category.name, m.value, m.said) for m in found] == [
        ("hosting", "google cloud", "Google Cloud"),
        ("phone", "iphone", "iPhone 12 Pro"),
    ]
    assert categories.mentions("Let's go to the edge of town and fish.") == []  # ambiguous words are not listed
    assert categories.about("User is on a Pixel 8.") == ["phone"]
    assert categories.about("My phone is a Pixel 8.") == []  # it says "phone" itself


@pytest.mark.parametrize(
    ("before", "after", "question", "new", "old"),
    [
        (
            "My browser of choice is Firefox.",
            "I switched to Brave last week.",
            "Which browser do I use?",
            "Brave",
            "Firefox",
        ),
        (
            "My phone is a Galaxy S21.",
            "Just got the new iPhone 15, so happy with it.",
            "What phone do I have?",
            "iPhone 15",
            "Galaxy",
        ),
        (
            "I'm on an iPhone 12.",
            "Actually it's a Pixel 8 I use, I gave the iPhone to my son.",
            "What phone do I have?",
            "Pixel 8",
            "iPhone 12",
        ),
        (
            "My timezone is CET.",
            "I'm on Pacific time now since the relocation.",
            "What timezone am I in?",
            "Pacific",
            "CET",
        ),
    ],
)
def test_a_newer_value_of_the_category_supersedes_the_older(memory, before, after, question, new, old) -> None:
    _say(memory, [[before], [after]])
    assert not _current(memory, old) or all(new in c for c in _current(memory, old))
    text = memory.recall(question, session_id="probe", **U).text
    assert new in text
    assert old not in text.replace(f"(was: {old}", "")


def test_someone_elses_thing_replaces_nothing(memory) -> None:
    _say(memory, [["My browser of choice is Firefox."], ["My son uses Chrome now."]])
    assert _current(memory, "Firefox")


def test_a_category_of_several_values_needs_a_word_of_its_own_in_common(memory) -> None:
    _say(memory, [["I write the backend in Python."], ["I've started learning Rust for fun these days."]])
    assert _current(memory, "Python")  # two languages: nothing says one replaced the other
    _say(memory, [["Python is my favourite programming language."], ["Rust has become my favourite language now."]])
    assert not _current(memory, "favourite programming language")


def test_a_value_tied_to_another_value_of_a_second_category_is_another_pairing(memory) -> None:
    # an editor for another language, no word of change: both hold
    _say(memory, [["I write Rust in Helix."], ["For the Kotlin side of the app I stick with Android Studio."]])
    assert _current(memory, "Helix")
    assert not [r for r in memory.memories(**U) if r.metadata.get("conflicts_with")]
    assert "Helix" in memory.recall("What do I write Rust in?", session_id="probe", **U).text


def test_a_change_word_still_changes_both_values(memory) -> None:
    _say(memory, [["I write Rust in Helix."], ["I've switched to Kotlin in Android Studio these days."]])
    text = memory.recall("Which editor do I use?", session_id="probe", **U).text
    assert "Android Studio" in text
    assert "Helix" not in text.replace("(was: User writes Rust in Helix", "")


@pytest.mark.parametrize(
    ("before", "after", "slot", "value"),
    [
        ("I work as a barista.", "I'm a pastry chef now, finished my training in May.", "job_title", "pastry chef"),
        (
            "My email is jo@oldmail.com.",
            "New email address: jo.kim@fastpost.io, please use that one.",
            "email",
            "jo.kim@fastpost.io",
        ),
        ("My boss is Karen Li.", "I report to Dev Patel now, Karen moved to another team.", "manager", "Dev Patel"),
        (
            "I'm a nurse.",
            "I switched careers to insurance, and we got a budgie called Sunny.",
            "job_title",
            "insurance",
        ),
    ],
)
def test_a_clause_the_router_read_otherwise_changes_a_profile_slot_the_user_has(
    memory, before, after, slot, value
) -> None:
    _say(memory, [[before], [after]])
    assert memory.profile.get(slot, **U) == value


def test_a_slot_the_user_does_not_have_is_left_to_the_router(memory) -> None:
    _say(memory, [["I report to Dev Patel now, it's a good change."]])
    assert memory.profile.get("manager", **U) is None  # a first statement is the router's to read


def test_a_full_name_said_again_with_the_same_first_name_renames(memory) -> None:
    _say(memory, [["My name is Maria Lopez."], ["I got married, so it's Maria Fernandez now."]])
    assert memory.profile.get("name", **U) == "Maria Fernandez"
    _say(memory, [["The team got a new lead, it's Anna Schmidt now."]])
    assert memory.profile.get("name", **U) == "Maria Fernandez"  # no word shared: someone else
