"""More of the moment that stores nothing (#33, dev27, a dev half written before any change made for it): a mood said
"in a foul mood" with "don't mind me", a mood's result said as what the user could do ("so tired I could sleep on the
floor"), a posture stuck behind something, where the user is on the way right now ("I'm on the train right now, the
signal's terrible"), a mishap beside a reaction to it ("Just spilled coffee all down my shirt, brilliant."), what the
user makes of the assistant's reply beside a reaction ("Thanks a million, that spreadsheet tip saved my afternoon",
"Ha, that's not quite what I meant, but close enough", "Right, brew time."), and a wish said as a counterfactual with
"never" in it ("If I won the lottery I'd buy a wee boat and never come back": "never" had let it past the gate as an
instruction's word). Each was written as a memory before. What lasts in the same shapes is still read.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn).
"""

from __future__ import annotations

import pytest

from kioko_intelligence.language import gate
from kioko_intelligence.moments import is_passing_state

U = {"user_id": "rue", "session_id": "s1"}

MOMENTS = [
    "Stuck behind a tractor the whole way in.",
    "Right, brew time.",
    "Thanks a million, that spreadsheet tip saved my afternoon.",
    "Ha, that's not quite what I meant, but close enough.",
    "I'm on the train right now, the signal's terrible.",
    "Just spilled coffee all down my shirt, brilliant.",
    "Forgot my password again, typical.",
    "I'm in a foul mood today, don't mind me.",
    "I'm so tired I could sleep on the floor.",
    "If I won the lottery I'd buy a wee boat and never come back.",
    # dev28
    "Not quite what I asked for, but it'll do.",
    "I'm on the bus right now so excuse the typos.",
    "Ugh, this queue.",
]
LASTING = [
    "I'm on the train every morning at seven.",
    "Left my job at the bank, brilliant.",
    "I'm in a good mood about the new job at Arup.",
    "That tip about the visa worked, I'm moving to Berlin in May.",
    "Never book me on a red-eye flight.",
    "If I get the job in Leeds, I'll move in June.",
    "That will do, I'm moving to Leeds next week.",
    "Excuse the typos, I moved to Leeds.",
]


@pytest.mark.parametrize("text", MOMENTS)
def test_the_moment_is_gated(text: str) -> None:
    assert gate(text) is not None


@pytest.mark.parametrize("text", MOMENTS)
def test_the_moment_stores_nothing(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn("I'm a night porter at a hotel in Bath.", "Okay.", **U)
    before = sorted(r.id for r in memory.memories(user_id=U["user_id"]))
    report = memory.record_turn(text, "Sure.", **U)
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []
    assert sorted(r.id for r in memory.memories(user_id=U["user_id"])) == before


@pytest.mark.parametrize("text", LASTING)
def test_what_lasts_is_still_stored(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn(text, "Okay.", **U)
    assert [op for op in report.ops if op.status == "applied"], text


@pytest.mark.parametrize("text", ["That worked, thanks!", "That fixed it, cheers.", "That did the trick!"])
def test_an_outcome_is_left_to_the_feedback_step(text: str) -> None:
    """Must not: the outcome of a procedure or a strategy served is read by the router's feedback step."""
    assert not is_passing_state(text)
