"""A statement said with a hedge and a rising "?" is a statement (kioko_intelligence/language.py
``hedged_statement``; #33).

Someone who hedges everything ends statements with a question mark: "I think, maybe, we'll probably go for the Volvo
estate?", "Okay so, I could be wrong, but the Skoda Superb makes more sense, I mean, we've put a deposit down on it,
so I guess that's that?". The gate read every sentence ending in "?" as a question to the assistant and kept nothing
of either, so the car the user chose was never remembered. A sentence that opens with a hedge ("I think", "I guess",
"maybe", "probably", "I could be wrong" ...), says something of the user's own ("we'll", "my" ...) and asks nothing
(no question word, no "you", no "should I / could we", no tag such as ", right?") is read as a statement. Musing
("Maybe I should switch to Neovim?"), questions to the assistant and tag questions stay questions.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import hedged_statement

U = {"user_id": "hedger"}


def _applied(memory, turn: str, session: str = "s1") -> list[str]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(turn, "Okay.", session_id=session, **U)
    return [op.op for op in report.ops if op.status == "applied"]


@pytest.fixture
def memory():  # type: ignore[no-untyped-def]
    with kioko.intelligent("memory://") as layer:
        yield layer


def test_a_hedged_choice_and_its_hedged_change_are_remembered(memory) -> None:  # type: ignore[no-untyped-def]
    assert _applied(memory, "I think, maybe, we'll probably go for the Volvo estate? Not a hundred percent.")
    memory.end_session("s1", **U)
    assert _applied(
        memory,
        "Okay so, I could be wrong, but the Skoda Superb makes more sense, I mean, we've put a deposit down on it, "
        "so I guess that's that?",
        "s2",
    )
    memory.end_session("s2", **U)
    text = memory.recall("Which car did we go for?", session_id="s3", **U).text
    assert "Skoda" in text
    # the Volvo only as what was before it, in a "(was: ...)" note
    assert all(
        line.find("(was:") != -1 and line.find("(was:") < line.find("Volvo")
        for line in text.splitlines()
        if "Volvo" in line
    )


@pytest.mark.parametrize(
    "turn",
    [
        "I reckon we're sticking with the allotment on Church Lane?",  # paraphrase: a gardener
        "I suppose my new team lead is Dana?",  # paraphrase: an office worker
        "Probably my sister's coming up for the weekend, I think?",  # paraphrase: the hedge at both ends
        "Maybe we're moving the book club to Thursdays?",  # paraphrase: a change said with a hedge
    ],
)
def test_a_hedged_statement_of_the_users_is_stored(memory, turn: str) -> None:  # type: ignore[no-untyped-def]
    assert _applied(memory, turn)


@pytest.mark.parametrize(
    "turn",
    [
        "Maybe I should switch to Neovim?",  # musing about what to do
        "I guess you can't help with that?",  # about the assistant
        "I think my flight is at 6, right?",  # a tag question: checking
        "I wonder what we'll cook tonight?",  # no hedge opens it
        "Probably best to ask: what time does our train leave?",  # a question word
    ],
)
def test_a_hedged_question_stays_a_question(memory, turn: str) -> None:  # type: ignore[no-untyped-def]
    assert not hedged_statement(turn)
    assert _applied(memory, turn) == []
