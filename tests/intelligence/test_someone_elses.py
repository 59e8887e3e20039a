"""Someone else's change is no newer value of the user's own: "my sister switched to soy milk these days" leaves
"User drinks oat milk" in force, at write time (the slot rules, the nearest-memory rule) and at recall (the pairs
recall shows as one change), whatever change word the statement holds."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_subjects import someone_elses

pytest.importorskip("kioko_core.embedding.semantic")

OTHERS = [
    # (the user's own, someone else's change, a question about the user's own, the user's value)
    (
        "I drink oat milk in my coffee.",
        "Anyway, my sister switched to soy milk these days.",
        "What milk do I take?",
        "oat",
    ),
    ("I'm allergic to shellfish.", "Max can eat crab now, his allergy is gone.", "Anything I can't eat?", "shellfish"),
    ("My team lead is Oksana.", "Petra is my wife's team lead now.", "Who is my team lead?", "Oksana"),
    ("I live in Leeds.", "My parents moved to Whitby now.", "Where do I live?", "Leeds"),
    ("My phone is a Pixel 7.", "My son has an iPhone 15 now.", "What phone do I have?", "Pixel"),
    ("I drive a Golf.", "My husband drives a Tesla now.", "What car do I drive?", "Golf"),
    ("I use Firefox.", "My boss switched to Chrome.", "Which browser do I use?", "Firefox"),
    ("I'm vegetarian.", "She's gone vegan these days, my daughter.", "What do I eat?", "vegetarian"),
]

MINE = [
    # (the user's own, the user's change, a question, the new value, the old value)
    ("I drink oat milk in my coffee.", "I've switched to soy milk these days.", "What milk do I take?", "soy", "oat"),
    ("My team lead is Oksana.", "Petra is my team lead now.", "Who is my team lead?", "Petra", "Oksana"),
    ("I live in Leeds.", "We moved to Bristol now.", "Where do I live?", "Bristol", "Leeds"),
    (
        "My desk is on the 3rd floor.",
        "They moved my desk up to the 5th floor.",
        "Which floor is my desk on?",
        "5th",
        "3rd",
    ),
]


def _said(*turns: str) -> kioko.Memory:
    memory = kioko.intelligent("memory://?embedder=semantic")
    for index, turn in enumerate(turns):
        memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index + 1}")
        memory.end_session(f"s{index + 1}", user_id="u")
    return memory


@pytest.mark.parametrize(("mine", "theirs", "question", "value"), OTHERS)
def test_someone_elses_change_leaves_the_users_value_in_force(
    mine: str, theirs: str, question: str, value: str
) -> None:
    with _said(mine, theirs) as memory:
        marked = [
            r.content
            for r in memory.memories(user_id="u")
            if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")
        ]
        assert marked == []
        context = memory.recall(question, user_id="u", session_id="q").text
        assert value in context
        assert "(was:" not in context


@pytest.mark.parametrize(("mine", "change", "question", "new", "old"), MINE)
def test_the_users_own_change_still_replaces(mine: str, change: str, question: str, new: str, old: str) -> None:
    with _said(mine, change) as memory:
        context = memory.recall(question, user_id="u", session_id="q").text
        assert new in context
        # the old value only as the change's note, never as a line of its own
        assert all(old not in line or "(was:" in line for line in context.splitlines())


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User's sister switched to soy milk these days.", "User drinks oat milk in their coffee."),
        ("Max can eat crab now, his allergy is gone.", "User is allergic to shellfish."),
        ("Petra is my wife's team lead now.", "My team lead is Oksana."),
        ("User's parents moved to Whitby now.", "User's location is Leeds."),
        ("She switched to Chrome.", "I use Firefox."),
    ],
)
def test_a_change_of_another_persons_is_someone_elses(new: str, old: str) -> None:
    assert someone_elses(new, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I've switched to soy milk these days.", "User drinks oat milk."),
        ("Petra is my team lead now.", "My team lead is Oksana."),  # a name holding the user's own role
        ("They moved my desk up to the 5th floor.", "User's desk is on the 3rd floor."),  # "they": no one in particular
        ("My husband got a job in Leeds so we're moving there.", "User lives in York."),  # the user's move too
        (
            "My neighbour Huw feeds the cat now.",
            "User's gran Nerys looks after the cat.",
        ),  # a person's role, a new holder
        ("My husband works as a nurse these days.", "My husband works as a teacher."),  # the same person
        ("Switched to Chrome now.", "User uses Firefox."),  # no subject: the user's
        # a count of persons said as a fragment, not a person: the user's own count
        ("Four children now, two boys, two girls.", "Me and the wife have three children, two boys and a girl."),
    ],
)
def test_the_users_own_or_another_persons_role_is_not_someone_elses(new: str, old: str) -> None:
    assert not someone_elses(new, old)
