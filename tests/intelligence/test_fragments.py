"""A statement said as fragments ("Tea. Two sugars.") is one statement (#33): each fragment alone names nothing the
router keeps, and the turn stored nothing. A run of fragments that starts with a bare topic is joined and read as
one sentence; a question, a request, small talk or a forget is never joined, and a sentence that says its own
thing ("Moved to Leeds.") is read alone.

Real layers on memory:// and SQLite files (the package's ``memory`` fixture), driven through record_turn.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.fragments import joined_fragments

U = {"user_id": "kit", "session_id": "s1"}


def _plain(sentence: str) -> bool:
    return not sentence.rstrip().endswith("?") and not sentence.lower().startswith(("forget", "thanks", "please"))


@pytest.mark.parametrize(
    ("sentences", "joined"),
    [
        (["Tea.", "Two sugars."], ["Tea, two sugars."]),
        (["Chicken now.", "Half the price."], ["Chicken now, half the price."]),
        (["Earl Grey.", "Milk first."], ["Earl Grey, milk first."]),
        (["Vim.", "Always Vim."], ["Vim, always Vim."]),  # a rare word keeps its capital: it may be a name
        (["Moved to Leeds.", "New job."], ["Moved to Leeds.", "New job."]),  # three words say their own thing
        (["Tea.", "Thanks!"], ["Tea.", "Thanks!"]),  # small talk is never joined
        (["Tea.", "Any good brands?"], ["Tea.", "Any good brands?"]),  # nor a question
        (["Tea.", "I drink it all day with two sugars."], ["Tea.", "I drink it all day with two sugars."]),
    ],
)
def test_a_run_of_fragments_is_one_sentence(sentences: list[str], joined: list[str]) -> None:
    assert joined_fragments(sentences, _plain) == joined


def test_a_terse_preference_is_kept_and_its_change_replaces_it(memory) -> None:
    first = memory.record_turn("Tea. Two sugars.", "Noted.", **U)
    assert [op.op for op in first.ops if op.status == "applied"]
    memory.end_session("s1", user_id="kit")
    memory.record_turn("One sugar. Cutting down.", "Good for you.", user_id="kit", session_id="s2")
    memory.end_session("s2", user_id="kit")
    text = memory.recall("How do I take my tea?", user_id="kit").text
    assert "One sugar" in text


def test_a_forget_said_in_fragments_still_forgets(memory) -> None:
    memory.record_turn("My BSN is 123456782.", "Noted.", **U)
    memory.record_turn("I should not have given you my BSN. Remove it. Directly.", "Done.", **U)
    assert "123456782" not in memory.recall("What's my BSN?", user_id="kit").text
