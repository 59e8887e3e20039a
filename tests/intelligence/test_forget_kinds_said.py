"""Kinds said in other words (#33, dev27): the appointments ("Kindly forget every appointment I have mentioned to
you"), the likes and dislikes said as what the user likes and cannot stand, and money said as what the user makes or
as an amount in a currency's word ("In a good month I fit make 600k", "340,000 naira"). Before, no appointments kind
was read and nothing went; "what I like and what I can't stand" named no kind; "600k" stayed after "remove everything
about money".

Real layers on memory://, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_intelligence.forget_reading import MONEY, is_appointment
from kioko_intelligence.forget_requests import kind_named

U = {"user_id": "ida"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            [
                "I have the dentist on the 14th at 10am with Mr Abara.",
                "There is also a hearing test at the opticians on Thursday week.",
                "I volunteer at the Oxfam bookshop every Monday morning.",
            ],
            "Kindly forget every appointment I have mentioned to you; my daughter now keeps my diary.",
            ["Abara", "hearing test"],
            "Oxfam",
        ),
        (
            ["I hate coriander, it tastes of soap to me.", "I love a proper laksa.", "I drive a van for a bakery."],
            "Start fresh on food. Forget what I like and what I can't stand.",
            ["coriander", "laksa"],
            "bakery",
        ),
        (
            ["I owe my supplier 340,000 naira for fabric.", "In a good month I make 600k.", "My shop makes kaftans."],
            "Please remove everything about money.",
            ["340,000", "600k"],
            "kaftans",
        ),
    ],
)
def test_the_kind_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    for word in gone:
        assert not holds(contents, word), contents
    assert holds(contents, kept), contents


@pytest.mark.parametrize(
    ("text", "booked"),
    [
        ("User has the dentist on the 14th at 10am with Mr Abara.", True),
        ("There is also a hearing test at the opticians on Thursday week.", True),
        ("User has a job interview next Tuesday.", True),
        # must not: a habit, a trade, a visit with no day
        ("User volunteers at the Oxfam bookshop every Monday morning.", False),
        ("User is a dentist in Leeds.", False),
        ("User's vet is on 01392 555017.", False),
    ],
)
def test_is_appointment(text: str, booked: bool) -> None:
    assert is_appointment(text) is booked


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("In a good month I fit make 600k.", True),
        ("User makes about 45k a year.", True),
        ("Benedikt is paying 28,000 euros for it.", True),
        # must not: a distance, a count, a weight
        ("User runs 10k on Sundays.", False),
        ("User made 3 cakes for the fair.", False),
        ("User weighs 80 pounds.", False),
    ],
)
def test_money_said_as_an_amount(text: str, money: bool) -> None:
    assert (MONEY.search(text) is not None) is money


@pytest.mark.parametrize(
    ("thing", "kind"),
    [
        ("what I like and what I can't stand", "preferences"),
        ("every appointment I have mentioned to you", "appointments"),
        ("all my appointments", "appointments"),
        ("what I like about Paris", None),
    ],
)
def test_the_kind_named(thing: str, kind: str | None) -> None:
    assert kind_named(thing) == kind


def test_the_love_life_goes_with_the_people_it_names(memory) -> None:  # type: ignore[no-untyped-def]
    """ "my love life" (dev26): before, read as a subject no memory names, and nothing went."""
    said = [
        "Went on a date with a guy called Jules I met on Hinge.",
        "Jules is a sous chef at a place in Falmouth.",
        "I'm a receptionist at a vet practice in Truro.",
    ]
    contents = contents_after(memory, U, said, "Honestly can you forget all the stuff about my love life?")
    assert not holds(contents, "Jules"), contents
    assert not holds(contents, "Hinge"), contents
    assert holds(contents, "Truro") or holds(contents, "receptionist"), contents


def test_a_date_of_birth_is_no_love_life(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: "date" is a date only as one the user goes on; the people group does not take "my date" either."""
    said = ["My date of birth is 2 May 1990.", "My friend Tom is a plumber."]
    contents = contents_after(memory, U, said, "Forget all the stuff about my love life.")
    assert holds(contents, "1990") or holds(contents, "2 May"), contents
    assert holds(contents, "Tom"), contents
    contents = contents_after(memory, U, [], "Forget all the people I've told you about.")
    assert holds(contents, "1990") or holds(contents, "2 May"), contents


def test_what_the_user_charges_is_the_fee(memory) -> None:  # type: ignore[no-untyped-def]
    """ "what I'm charging for the Harrison gig" (dev26): the fee, read as the slot a wh-clause names
    (`forget_context.WH_SLOTS`); before, no memory held the clause's words and the fee stayed. A rate of something
    else stays."""
    said = [
        "I'm booked for the Harrison wedding on the 14th at Hengrave Hall.",
        "My fee for that one is 1,400 quid, half up front.",
        "My resting heart rate is 52.",
    ]
    contents = contents_after(memory, U, said, "Don't keep what I'm charging for the Harrison gig, that's private.")
    assert not holds(contents, "1,400"), contents
    assert holds(contents, "Hengrave"), contents
    assert holds(contents, "52"), contents


def test_a_kind_said_as_what_the_assistant_has(memory) -> None:  # type: ignore[no-untyped-def]
    """ "All the phone numbers you have for me, clear them please." (dev28): the kind with what the assistant holds
    after it; and pay said as what the user gets paid ("I get paid 31k a year basic") is money."""
    said = ["My dentist's number is 0161 496 0732.", "Our Sinead's mobile is 07700 900614.", "I drive a taxi."]
    contents = contents_after(memory, U, said, "All the phone numbers you have for me, clear them please.")
    assert not holds(contents, "496 0732"), contents
    assert not holds(contents, "900614"), contents
    assert holds(contents, "taxi"), contents
    assert MONEY.search("User gets paid 31k a year basic.")
    assert not MONEY.search("User got paid a visit by the vicar.")
