"""A forget of a group of people by their relation ("everything about my children", "anything about my family")
takes every memory of the people the group's memories name, not only the ones that say the relation (#33, dev26):
"Her little brother Ollie has just started Beavers" goes with "User's eldest, Freya, ...", "Idris has a match every
Sunday" with "My son Idris plays rugby". "My children" and "my kids" are a group of their own (before, "my children"
was a subject no memory named, and nothing went). People of another group stay.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_intelligence.forget_reading import group_names

U = {"user_id": "bryn"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            [
                "My eldest, Freya, is in Year 9 at Ashcombe.",
                "Her little brother Ollie has just started Beavers.",
                "I'm a drone surveyor, mostly roofs and solar farms.",
            ],
            "Forget everything about my children please.",
            ["Freya", "Ollie"],
            ["drone surveyor"],
        ),
        (
            [
                "My son Idris plays rugby for the juniors at Pontypridd.",
                "Idris has a match every Sunday morning.",
                "My boss Priya signs off my leave.",
            ],
            "Please delete anything about my kids.",
            ["Idris"],
            ["Priya"],
        ),
        (
            [
                "My aunt Rosa lives in Porto.",
                "Rosa is making the wedding cake.",
                "I pour wine at a hotel in Lisbon.",
            ],
            "Could you clear out anything about my family?",
            ["Rosa"],
            ["Lisbon"],
        ),
    ],
)
def test_a_group_forget_takes_the_people_it_names(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    for word in gone:
        assert not holds(contents, word), (word, contents)
    for word in kept:
        assert holds(contents, word), (word, contents)


@pytest.mark.parametrize(
    ("contents", "group", "names"),
    [
        (["User's eldest, Freya, is in Year 9 at Ashcombe."], "children", ["Freya"]),
        (["My son Idris plays rugby."], "children", ["Idris"]),
        (["User's aunt Rosa lives in Porto."], "family", ["Rosa"]),
        (["User's boss Priya signs off their leave."], "children", []),
        (["User's son is at Ashcombe."], "children", []),
    ],
)
def test_the_names_a_group_is_given(contents: list[str], group: str, names: list[str]) -> None:
    assert group_names(contents, group) == names
