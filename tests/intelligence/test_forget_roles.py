"""A forget of someone named by their role takes the person the memories give that role to, also when the role is
held somewhere ("User's supervisor at the depot is Sandeep") or the name comes by way of a described person ("Site
manager on the Didcot job is a bloke called Gaz Hurst") (#33, dev26): before, only the memory saying the role went
and "Sandeep's on leave till the 20th" stayed.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_intelligence.forget_reading import given_names

U = {"user_id": "wren"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            [
                "My supervisor at the depot is Sandeep, he signs off my overtime.",
                "Sandeep's on leave till the 20th.",
                "I drive the 38 bus route out of Clapton garage.",
            ],
            "Forget about my supervisor please. HR told us not to keep notes on colleagues.",
            "Sandeep",
            "38 bus",
        ),
        (
            [
                "My line manager at the council is Priya Nair.",
                "Priya Nair signs off my leave requests.",
                "I cycle to work along the canal.",
            ],
            "Can you forget everything about my manager?",
            "Priya",
            "canal",
        ),
        (
            [
                "The foreman on the Didcot job is a bloke called Gaz Hurst.",
                "Gaz Hurst wants us on site at six sharp.",
                "I'm a sparky, been one twenty years.",
            ],
            "Wipe what you know about the foreman, he's been let go.",
            "Gaz",
            "sparky",
        ),
        (
            [
                "My tutor for the Open University course is a woman named Ingrid Sola.",
                "Ingrid Sola marks my essays really harshly.",
                "I work in a bike shop in Kendal.",
            ],
            "Delete all you have on my tutor, thanks.",
            "Ingrid",
            "bike shop",
        ),
    ],
)
def test_a_person_named_by_a_role_held_somewhere_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    assert not holds(contents, gone), contents
    assert holds(contents, kept), contents


@pytest.mark.parametrize(
    ("content", "role", "names"),
    [
        ("User's supervisor at the depot is Sandeep.", "supervisor", ["Sandeep"]),
        ("Site manager on the Vauxhall job is a fella called Des Murray.", "manager", ["Des Murray"]),
        ("User's editor at the paper is Hugh Farrant.", "editor", ["Hugh Farrant"]),
        ("User's manager is Henrik.", "manager", ["Henrik"]),
        # where a role is held, said without a name: no one is named
        ("User's sister in Lisbon is a nurse.", "sister", []),
        ("User's boss at Tesco is moving to Leeds.", "boss", []),
        ("User's doctor at the Royal Infirmary is brilliant.", "doctor", []),
        ("User's dentist is a woman who never stops talking.", "dentist", []),
    ],
)
def test_the_name_a_role_is_given(content: str, role: str, names: list[str]) -> None:
    assert given_names([content], role) == names


def test_a_role_held_somewhere_keeps_the_place_and_other_people(memory) -> None:  # type: ignore[no-untyped-def]
    """The person goes; the place the role was held at and someone else there stay."""
    said = [
        "My supervisor at the depot is Sandeep.",
        "The depot is in Walthamstow, near the market.",
        "My mate Kofi drives the night bus from the same depot.",
    ]
    contents = contents_after(memory, U, said, "Forget about my supervisor please.")
    assert not holds(contents, "Sandeep")
    assert holds(contents, "Walthamstow")
    assert holds(contents, "Kofi")
