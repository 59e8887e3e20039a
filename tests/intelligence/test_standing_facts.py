"""Who the user is or what they work towards, said with a past participle or an -ing verb, is a standing fact (#33):
"I'm a retired magistrate" and "I'm training for a triathlon" were read as episodes, scored below the importance
floor as short episodes are, and stored nothing. With a time cue the statement stays an episode.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session, recall).
"""

from __future__ import annotations

import pytest

import kioko

U = {"user_id": "tove"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'standing.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


@pytest.mark.parametrize(
    "said,question,expected",
    [
        ("I'm a retired magistrate.", "What did I do for work?", "magistrate"),
        ("I'm training for a triathlon.", "What am I training for?", "triathlon"),
        ("We're saving up for a house deposit.", "What are we saving for?", "house deposit"),
        ("I'm a qualified electrician.", "What's my trade?", "electrician"),
    ],
)
def test_a_standing_fact_is_kept_and_recalled(memory, said: str, question: str, expected: str) -> None:
    report = memory.record_turn(said, "Okay.", session_id="s1", **U)
    assert [op.op for op in report.ops if op.status == "applied"]
    memory.end_session("s1", **U)
    assert expected in memory.recall(question, session_id="s2", **U).text


@pytest.mark.parametrize("said", ["I'm training for the race this week.", "I'm crying 😂"])
def test_an_act_of_the_moment_is_no_standing_fact(memory, said: str) -> None:
    report = memory.record_turn(said, "Okay.", session_id="s1", **U)
    assert "fact.add" not in [op.op for op in report.ops if op.status == "applied"]
