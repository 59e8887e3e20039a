"""A turn that opens with an interjection ("Wow, ...", "Haha ok so ...") and goes on with a statement of the
user's is read, not dropped as chatter; an interjection alone, or one before chatter, still stores nothing.

The offline router on memory:// and a SQLite file, through record_turn.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import gate_reason, is_chatter

U = {"user_id": "ola"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'interjections.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


@pytest.mark.parametrize(
    "turn,word",
    [
        ("Wow, I got promoted to team lead today!", "team lead"),
        ("Haha ok so my sister moved to Lyon", "Lyon"),
        ("omg we're having a baby in May", "baby"),
    ],
)
def test_an_interjection_before_a_statement_of_the_user_is_read(memory, turn: str, word: str) -> None:
    report = memory.record_turn(turn, "Congratulations!", session_id="s1", **U)
    stored = [o.description for o in report.ops if o.status == "applied"]
    assert any(word in text for text in stored), stored
    assert gate_reason(turn) is None


@pytest.mark.parametrize(
    "turn",
    ["wow", "haha nice one", "Hmm, I guess", "haha yes, what a relief", "wow I see", "Hmm, let me think about it."],
)
def test_an_interjection_alone_or_before_chatter_stores_nothing(memory, turn: str) -> None:
    assert memory.record_turn(turn, "Sure.", session_id="s1", **U).ops == []


def test_is_chatter_judges_what_follows_the_interjection() -> None:
    assert not is_chatter("Wow, I got promoted to team lead today!")
    assert is_chatter("Wow, I see")  # what follows is chatter too
    assert is_chatter("Wow, nice")  # no statement of the user's follows
    assert not is_chatter("My sister moved to Lyon")  # no chatter to begin with
