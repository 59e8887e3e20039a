"""A person forgotten by their full name goes also where the memories call them by the given name alone, and what the
forget's own turn says of them is not written (#33, dev27): "One of my clients, a cellist called Benedikt Aurel, ..."
/ "Benedikt is paying 28,000 euros for it." / "Benedikt has changed his mind about having any of this written down.
Remove the cellist from your records, every trace." Before, the role took "Benedikt Aurel", whose two words the
second memory does not hold, so it stayed, and the turn's first sentence was written before its second forgot him.

Real layers on memory://, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

U = {"user_id": "bea"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            [
                "One of my clients, a cellist called Benedikt Aurel, has ordered a new cello for spring.",
                "Benedikt is paying 28,000 euros for it.",
                "My workshop is in Cremona.",
            ],
            "Benedikt has changed his mind about having any of this written down. Remove the cellist from your "
            "records, every trace.",
            ["Benedikt", "28,000"],
            "Cremona",
        ),
        (
            ["My landlord is Gareth Pryce.", "Gareth wants the rent by the first of the month.", "I teach yoga."],
            "Gareth and I are in a dispute now. Forget everything about Gareth Pryce.",
            ["Gareth"],
            "yoga",
        ),
    ],
)
def test_the_given_name_goes_with_the_full_name(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    for word in gone:
        assert not holds(contents, word), contents
    assert holds(contents, kept), contents


def test_a_given_name_two_people_share_stays(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: "Gareth Jones" is someone else, so "Gareth" alone is not the forgotten person's."""
    said = ["My landlord is Gareth Pryce.", "My brother-in-law Gareth Jones fixes my bike.", "Gareth fixed my brakes."]
    contents = contents_after(memory, U, said, "Forget everything about Gareth Pryce.")
    assert not holds(contents, "Pryce"), contents
    assert holds(contents, "Gareth Jones"), contents


def test_a_title_is_no_given_name(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: "Dr Hale" forgets Hale, not every "Dr"."""
    said = ["Dr Hale is my consultant.", "Dr Okafor is my GP."]
    contents = contents_after(memory, U, said, "Forget everything about Dr Hale.")
    assert not holds(contents, "Hale"), contents
    assert holds(contents, "Okafor"), contents


def test_what_the_turn_says_of_someone_else_is_written(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: a sentence of the forget's turn that does not name the forgotten person is read as usual."""
    said = ["My landlord is Gareth Pryce.", "I teach yoga."]
    contents = contents_after(memory, U, said, "I've moved to Bristol. Forget everything about Gareth Pryce.")
    assert holds(contents, "Bristol"), contents
    assert not holds(contents, "Gareth"), contents
