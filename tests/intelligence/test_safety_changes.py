"""A safety fact narrowed: one thing of the user's allergy said to be fine now is taken out of the allergy memory
(or the memory superseded when it named nothing else); someone else's allergy, a thing no allergy names, and a
question change nothing."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.safety_changes import things_fine, without


def _in_force(first: str, second: str) -> list[str]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return sorted(
            r.content
            for r in memory.memories(user_id="u")
            if not r.metadata.get("superseded_by") and not r.metadata.get("conflicted_by")
        )


@pytest.mark.parametrize(
    ("first", "second", "now", "gone"),
    [
        (
            "I have allergy to shrimp and crab po, my lips are swelling.",
            "The doctor did the skin test, it is only shrimp pala, crab is fine for me.",
            "User has allergy to shrimp po.",
            "shrimp and crab",
        ),
        (
            "I'm allergic to peanuts, sesame and kiwi.",
            "Allergy clinic retested me: turns out I'm not allergic to sesame after all.",
            "User is allergic to peanuts and kiwi.",
            "sesame",
        ),
    ],
)
def test_a_thing_said_fine_leaves_the_allergy_memory(first: str, second: str, now: str, gone: str) -> None:
    held = _in_force(first, second)
    assert now in held
    assert not any(
        gone in text and "allergic" in text.replace("allergy", "allergic") for text in held if text != second
    )


@pytest.mark.parametrize(
    "second",
    [
        "Max can eat crab now, the allergist says.",  # someone else's
        "The weather is fine for the beach today.",  # no allergy names the weather
        "Is crab fine for me to eat?",  # a question
    ],
)
def test_other_things_said_fine_change_nothing(second: str) -> None:
    first = "I have an allergy to shrimp and crab, my lips swell up."
    assert any("shrimp and crab" in text for text in _in_force(first, second))


def test_the_thing_and_the_list_it_leaves() -> None:
    assert things_fine("The doctor did the skin test, it is only shrimp pala, crab is fine for me.") == ["crab"]
    assert things_fine("Turns out I'm not allergic to penicillin after all.") == ["penicillin"]
    assert things_fine("Is crab fine for me?") == []
    assert without("User is allergic to peanuts, sesame and kiwi.", "sesame") == "User is allergic to peanuts and kiwi."
    assert without("User is allergic to peanuts.", "peanuts") is None
