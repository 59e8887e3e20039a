"""An added new thing is no newer value: a change-cued statement about something new (a pastime taken up, a pet
of another kind, a thing done at another time, a slot the user never gave a value of) leaves the user's older
memories in force; a turn that says the old thing ended, or gives a new value of the same named thing, still
replaces it. Through the agent loop (``record_turn``, the offline router, the semantic embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from slot_scene_support import marked, said

import kioko
from kioko_intelligence.slot_additions import (
    added,
    named_kinds,
    only_times,
    other_times,
    two_named_kinds,
    unheld_slot,
)

pytest.importorskip("kioko_core.embedding.semantic")


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://?embedder=semantic"
    return f"sqlite:///{tmp_path / 'additions.db'}?embedder=semantic"


def _said(url: str, *sessions: tuple[str, ...]) -> kioko.Memory:
    return said(url, *sessions)


_marked = marked


FILL = ("I live in Leeds with my partner.", "I work as a nurse at St James's.", "I prefer tea to coffee.")
"""A few plain things beside the one a test is about: the nearest rule chooses among several, as with a real user."""

ADDED = [
    # a pet of another kind: the frame rule took "called" + another name for a new name (sure with "now")
    (("My dog is called Biscuit.",), "We have a cat called Miso now.", "Biscuit"),
    (("My dog is called Biscuit.", "We have a cat called Miso."), None, "Biscuit"),
    # a pastime taken up or held: the nearest memory, or the one topic by a shared verb
    (("I go to Mass on Sunday mornings.",), "I go to a bridge club on Fridays now.", "Mass"),
    (("I play chess online in the evenings.",), "These days I play padel with colleagues.", "chess"),
    (("I run Arch Linux on my laptop.",), "I've taken up running along the river now.", "Arch Linux"),
    (("I surf at Carcavelos at weekends.",), "These days I'm into bouldering.", "Carcavelos"),
    # at another time of the week
    (("I volunteer at the food bank on Saturdays.",), "These days I meditate before bed.", "food bank"),
    # a slot the turn names ("our car insurance") that no memory holds: the nearest was the car
    (("I drive a blue Ford Focus.",), "We switched our car insurance to Admiral.", "Ford Focus"),
    # only the time of day shared (the frame rule took "morning" for the slot and "Mass" for a new value of it)
    (("I walk the dog along the Marina every morning.", "I go to Mass on Sunday mornings."), None, "Marina"),
]


@pytest.mark.parametrize(("first", "later", "kept"), ADDED)
def test_a_new_thing_said_with_a_change_cue_marks_no_older_memory(
    url: str, first: tuple[str, ...], later: str | None, kept: str
) -> None:
    sessions = [FILL + first] + ([(later,)] if later else [])
    with _said(url, *sessions) as memory:
        assert not [m for m in _marked(memory) if kept in m]
        assert kept in memory.recall(kept, user_id="u").text


REPLACED = [
    # the same named thing, a new name
    ("Our dog is called Max.", "Sorry, the dog is called Rex now, not Max.", "Max"),
    # the turn says the old pastime ended
    ("I do yoga twice a week.", "Gave up yoga, I'm doing pilates twice a week instead.", "yoga"),
    # the same group, another role in it
    (
        "I'm commodore of the Looe sailing club this year.",
        "I'm only the club treasurer now, all spreadsheets.",
        "commodore",
    ),
    # a change through the new state, no pastime, no time of its own (slot_nearest's own case)
    (
        "I run 5k every morning before work, rain or shine.",
        "Since I went onto the night rota it's a swim straight after my shift, the pool opens at 7.",
        "5k",
    ),
]


@pytest.mark.parametrize(("old", "new", "gone"), REPLACED)
def test_a_change_of_the_same_thing_still_marks_the_older_memory(url: str, old: str, new: str, gone: str) -> None:
    with _said(url, (old,), (new,)) as memory:
        assert [m for m in _marked(memory) if gone in m]


def test_a_name_is_bound_to_its_noun_or_to_the_subject_it_names() -> None:
    assert named_kinds("We have a cat called Miso.") == {"cat"}
    assert named_kinds("User's dog is called Biscuit.") == {"dog"}
    assert named_kinds("My dog is a spaniel called Rua.") == {"dog"}  # the subject is what is named
    assert named_kinds("Our collie Bran sleeps all day.") == {"colli"}
    assert named_kinds("My manager is Rui.") == set()  # no name bound to a noun
    assert named_kinds("Nain, my gran Nerys, looks after the cat.") == set()  # a person may hold any role
    assert not two_named_kinds("My neighbour Huw feeds the cat now.", "My gran Nerys looks after the cat.")
    assert two_named_kinds("We adopted a barn cat named Patches.", "Our dog is a border collie named Scout.")
    assert not two_named_kinds("The dog is called Rex now.", "Our dog is called Max.")
    assert not two_named_kinds("We have a cat called Miso.", "My manager is Rui.")  # one side names no kind


def test_two_times_of_the_week_are_two_things_and_one_time_is_not() -> None:
    assert other_times("I go to a book club on Thursdays now.", "I volunteer at the food bank on Saturdays.")
    assert not other_times("I swim on Saturdays now.", "I volunteer at the food bank on Saturdays.")
    assert not other_times("Chicken now.", "Sunday roast: beef, always.")  # one side says no time


def test_a_time_of_day_alone_is_no_topic() -> None:
    assert only_times({"morn"})
    assert not only_times({"morn", "run"})  # "I run every morning" / "I run every evening now": one topic
    assert not only_times(set())


def test_a_slot_the_turn_names_is_held_only_by_a_memory_that_speaks_of_it() -> None:
    assert unheld_slot("We switched our phone company to Eir.", "Since January I'm learning to use an iPad.")
    assert not unheld_slot("We switched our phone company to Eir.", "Our phone company is Vodafone.")
    assert unheld_slot("We switched our phone company to Eir.", "User's phone is an iPhone 12.")  # not the company
    assert not unheld_slot("I'm after moving the books over to Sinead.", "Me accountant's a fella called Fergal.")


def test_a_turn_that_says_the_old_thing_ended_is_never_an_addition() -> None:
    assert added("I go to a bridge club on Fridays now.", "I go to Mass on Sunday mornings.")
    assert not added("I quit the choir, I go to a bridge club on Fridays instead.", "I sing in the choir on Sundays.")
    assert not added("I'm only the club treasurer now.", "I'm commodore of the sailing club.")  # the same club


def test_recall_shows_no_added_thing_in_place_of_an_older_one(url: str) -> None:
    """Recall's own pairing of a change (change_pairs, a display policy) reads the same classes: a question both
    memories answer shows both as current, not the newer with the older as its "(was: ...)"."""
    first = ("I go to Mass on Sunday mornings.", "My dog is called Biscuit.")
    with _said(url, first, ("I go to a bridge club on Fridays now.",)) as memory:
        context = memory.recall("What do I do on Sundays?", user_id="u", session_id="q").text
        assert "Mass" in context and "(was: " not in context
