"""A forget of a whole category (health, money, phone numbers, work) takes what the session summaries and logs say
of it too, also when no memory holds it (#33, dev26): "Had my gallbladder out in 2019." stored no memory but was a
point of the session's summary, and "Could you lose my medical bits?" left it there. What the summary says of
something else stays.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest

from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import Scope
from kioko_intelligence.forget_reading import says_category

U = {"user_id": "tomas"}

SAID = [
    "I'm a keen birdwatcher.",
    "Had my gallbladder out in 2019.",
    "We went to the Lakes at half term, lovely.",
    "This season my salary is 95,000 rupees per month from the agency.",
]


def _stored(memory) -> str:  # type: ignore[no-untyped-def]
    """Every record of the user (memories, summaries, graph, session logs) as one text."""
    texts = []
    for agent in (None, "@graph", SESSIONS_AGENT):
        for record in memory.store.scan(Scope(U["user_id"], agent)):
            texts.append(f"{record.content} {record.metadata}")
    return "\n".join(texts).lower()


def _after(memory, said: list[str], request: str) -> str:  # type: ignore[no-untyped-def]
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(request, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    return _stored(memory)


@pytest.mark.parametrize(
    ("asked", "gone", "kept"),
    [
        ("All my health info, please wipe it.", "gallbladder", ["95,000", "birdwatcher"]),
        ("Could you lose my medical bits? I'd rather not have them written down.", "gallbladder", ["95,000"]),
        ("Clear out anything health-wise, please.", "gallbladder", ["95,000"]),
        ("Forget everything money-related about me.", "95,000", ["gallbladder", "birdwatcher"]),
    ],
)
def test_a_category_forget_takes_the_summaries_points_of_it(memory, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    stored = _after(memory, SAID, asked)
    assert gone not in stored
    for word in kept:
        assert word in stored, word


def test_a_category_holding_nothing_takes_nothing_else(memory) -> None:  # type: ignore[no-untyped-def]
    stored = _after(
        memory, ["I'm a keen birdwatcher.", "We went to the Lakes at half term, lovely."], "Forget all my health info."
    )
    assert "birdwatcher" in stored
    assert "lakes" in stored


@pytest.mark.parametrize(
    ("text", "category", "says"),
    [
        ("Had my gallbladder out in 2019.", "health", True),
        ("This season my salary is 95,000 rupees per month.", "money", True),
        ("I manage the night shift at a warehouse.", "work", True),
        ("We went to the Lakes at half term, lovely.", "health", False),
        ("Had my gallbladder out in 2019.", "money", False),
        ("My sister Ana is a doctor.", "family", False),  # the people groups are read from memories only
    ],
)
def test_what_a_said_text_says_of_a_category(text: str, category: str, says: bool) -> None:
    assert says_category(text, category) is says
