"""A correction inside one turn ("6:40, no sorry, 7:40") is settled before routing: one value is stored."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.self_corrections import settle, settle_messages


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "My flight lands at 6:40, no sorry, 7:40, I misread the ticket.",
            "My flight lands at 7:40, I misread the ticket.",
        ),
        ("Our puppy is called Biscuit, wait, the kids renamed him Waffles.", "Our puppy is called Waffles."),
        ("Meeting is in room 4B, I mean 4C, they moved us.", "Meeting is in room 4C, they moved us."),
        ("We're 12 for dinner, make that 14.", "We're 14 for dinner."),
        (
            "Editing config/prod.yaml, no, config/staging.yaml, prod is locked.",
            "Editing config/staging.yaml, prod is locked.",
        ),
        ("We have 3 kids, sorry, 4 since March, and a Volvo.", "We have 4 kids since March, and a Volvo."),
        ("the party is at 22 Kings Road no scratch that 22 Queens Road", "the party is at 22 Queens Road"),
        ("Reply in German, um, actually in Swiss German if you can.", "Reply in Swiss German if you can."),
        ("I see Dr. Okafor on Monday, no wait, Tuesday.", "I see Dr. Okafor on Tuesday."),
        ("fav snack is crisps... actually no its seaweed snacks now", "fav snack is seaweed snacks now"),
        ("The flat has three bedrooms. Wait, sorry, I mean it has two bedrooms.", "The flat has two bedrooms."),
    ],
)
def test_a_value_taken_back_in_the_same_turn_is_replaced(said: str, meant: str) -> None:
    assert settle(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "No, that's fine, thanks.",
        "Sorry, I meant the other report.",
        "The meeting is at 3, I mean the standup with Ana.",  # a plain-word swap needs no value on either side
        "Actually, I moved to Berlin in May.",  # a correction of an earlier turn: the slot rules handle it
        "We have 3 kids, sorry for the noise.",
    ],
)
def test_nothing_changes_without_two_values_of_one_type(said: str) -> None:
    assert settle(said) == said


def test_only_the_users_messages_are_settled() -> None:
    messages = [
        {"role": "user", "content": "We're 12 for dinner, make that 14."},
        {"role": "assistant", "content": "12, make that 14: noted."},
    ]
    assert [m["content"] for m in settle_messages(messages)] == ["We're 14 for dinner.", "12, make that 14: noted."]


def test_record_turn_stores_only_the_value_the_user_meant() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("My flight lands at 6:40, no sorry, 7:40.", "Noted.", user_id="u", session_id="s")
        stored = " ".join(r.content for r in memory.memories(user_id="u"))
        assert "7:40" in stored
        assert "6:40" not in stored


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "For deliveries: I'm at 14 Elm Road, Didsbury. Sorry, 41. I always swap them round.",
            "For deliveries: I'm at 41 Elm Road, Didsbury. I always swap them round.",
        ),
        ("My flight lands at 6:40. No, 7:40.", "My flight lands at 7:40."),
        ("Interview is on Tuesday. Wait, Wednesday.", "Interview is on Wednesday."),
        ("Gate is B12. Oops, B21.", "Gate is B21."),
        ("We have 3 dogs. Sorry: 4 now.", "We have 4 dogs now."),
        ("The party is on the 14th. No, on the 15th.", "The party is on the 15th."),
    ],
)
def test_a_sentence_of_a_weak_marker_and_a_value_alone_corrects_the_one_before(said: str, meant: str) -> None:
    """Before, "sorry" or "no" took a value back only between commas: "... 14 Elm Road, Didsbury. Sorry, 41." kept 14."""
    assert settle(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "Room 214 is free. Sorry, I have to run now.",
        "We have 3 kids. No, really, we do!",
        "I ran 5k today. Sorry, 2 more questions for you.",
        "Call me at 9. No, 10 is better.",  # the sentence says more than the value
        "My locker is 118. No way.",
    ],
)
def test_a_sentence_opening_on_a_weak_marker_that_says_more_corrects_nothing(said: str) -> None:
    assert settle(said) == said
