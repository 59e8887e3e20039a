"""A turn that only says something is interrupting the user right now stores nothing (#33, false writes): "sorry, one
of them is screaming" was stored as an event, "Hold on, my kid's yelling." as a fact about the user, "Sorry,
customer just walked in." in the session's summary. A commotion that ends the sentence, in a few words, is news of
nothing; a sentence that goes on ("... every night since the move", "... here for the week") is read as usual.

Real layers on memory:// and SQLite files (the package's ``memory`` fixture), driven through record_turn.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.reactions import is_interruption

U = {"user_id": "ife", "session_id": "s1"}


@pytest.mark.parametrize(
    "text",
    [
        "sorry, one of them is screaming",
        "Hold on, my kid's yelling.",
        "Sorry, customer just walked in.",
        "Argh, the dog's barking again",
        "oops, phone's ringing",
        "Hang on, the baby is crying",
    ],
)
def test_an_interruption_stores_nothing(memory, text: str) -> None:
    memory.record_turn("I run a bakery in Ibadan.", "Okay.", **U)
    report = memory.record_turn(text, "No problem.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []
    assert is_interruption(text)


@pytest.mark.parametrize(
    "text",
    [
        "My son is crying every night since the move.",
        "Sorry, my sister is here for the week.",
        "Sorry, I moved to Leeds last month.",
        "The printer on floor 3 is knocking",  # a digit: a fault report, not a commotion
        "Our revenue is up this quarter.",
        "The new hire Tunde just walked in for his first day",
    ],
)
def test_a_sentence_that_says_more_than_a_commotion_is_no_interruption(text: str) -> None:
    assert not is_interruption(text)


def test_a_statement_after_an_interruption_is_still_stored(memory) -> None:
    report = memory.record_turn("My son is crying every night since the move.", "That sounds hard.", **U)
    assert [op for op in report.ops if op.status == "applied"]
