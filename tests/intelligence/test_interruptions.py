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
        # words meant for someone else, owned up to
        "Haha sorry, I was talking to my husband.",
        "Oops, that wasn't for you",
        "Sorry, wrong chat!",
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
        "Sorry, I was talking to my boss about the raise.",
        "I was talking to my sister, she's moving to Perth.",
    ],
)
def test_a_sentence_that_says_more_than_a_commotion_is_no_interruption(text: str) -> None:
    assert not is_interruption(text)


def test_a_statement_after_an_interruption_is_still_stored(memory) -> None:
    report = memory.record_turn("My son is crying every night since the move.", "That sounds hard.", **U)
    assert [op for op in report.ops if op.status == "applied"]


@pytest.mark.parametrize(
    "text",
    [
        "If I won the lottery I'd probably just buy a boat, ha.",
        "If we had more room we'd get a dog.",
        "Honestly, if I ever quit my job I'd open a bakery.",
        "Anyway, enough about me.",
        "Hahaha stop it.",
        "Now make it rhyme.",
    ],
)
def test_a_wish_said_as_a_counterfactual_or_a_turn_back_to_the_assistant_stores_nothing(memory, text: str) -> None:
    memory.record_turn("I run a bakery in Ibadan.", "Okay.", **U)
    report = memory.record_turn(text, "Ha, fair.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []
    memory.end_session(U["session_id"], user_id=U["user_id"])
    assert not any("boat" in r.content or "dog" in r.content for r in memory.memories(user_id=U["user_id"]))


@pytest.mark.parametrize("text", ["If I get the job, I'll move to Leeds.", "I'd move to Spain if I could."])
def test_a_plan_on_a_condition_is_no_counterfactual(text: str) -> None:
    from kioko_intelligence.language import gate_reason

    assert gate_reason(text) is None


@pytest.mark.parametrize("text", ["Now we have three cats.", "Now I live in Leeds.", "Then add the eggs."])
def test_a_change_or_a_step_opened_by_a_word_of_sequence_is_no_request(text: str) -> None:
    from kioko_intelligence.language import gate_reason

    assert gate_reason(text) is None
