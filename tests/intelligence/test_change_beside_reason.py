"""A change said after its reason keeps the new value (kioko_intelligence/slots.py ``_what_follows_the_reason``;
#33).

"The Skutt was backordered for months, so we went for a Nabertherm instead": the router cut the sentence into the
reason, which names the old choice and so found the old memory, and the new choice, kept apart (or dropped as
unimportant) and replacing nothing. The op that found the old memory now carries the whole sentence, and the
clause after the reason gives way. A change said in one clause, and a sentence whose reason replaces nothing, are
left as they were.

Real layers (memory:// with the offline embedder) through the agent loop.
"""

from __future__ import annotations

import pytest

import kioko


def _current(*turns: str) -> list[str]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for index, turn in enumerate(turns):
            memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index}")
            memory.end_session(f"s{index}", user_id="u")
        return [
            r.content
            for r in memory.memories(user_id="u")
            if not r.metadata.get("superseded_by") and not r.content.startswith(("Summary", "Session"))
        ]


@pytest.mark.parametrize(
    ("old", "change", "new"),
    [
        (
            "We're buying the Skutt kiln for the studio.",
            "The Skutt was backordered for months, so we went for a Nabertherm instead.",
            "Nabertherm",
        ),
        (
            "We'll renew the membership of the climbing gym.",
            "Not renewing the climbing gym membership, we're getting a hangboard for home.",
            "hangboard",
        ),
    ],
)
def test_the_new_value_after_the_reason_replaces_the_old_one(old: str, change: str, new: str) -> None:
    """Failed before: the reason replaced the old memory and the new value was kept apart or dropped."""
    current = _current(old, change)
    carrying = [c for c in current if new in c]
    assert len(carrying) == 1, current
    assert carrying[0].rstrip(".") == change.rstrip("."), current


def test_a_change_in_one_clause_is_left_as_it_is() -> None:
    current = _current("We're buying the Skutt kiln for the studio.", "We went for a Nabertherm kiln instead.")
    assert any(c.startswith("We went for a Nabertherm kiln instead") for c in current), current


def test_a_reason_that_replaces_nothing_is_not_joined_to_the_next_clause() -> None:
    current = _current(
        "We're buying the Skutt kiln for the studio.", "The glaze order came late, so we fired on Sunday."
    )
    assert not any("glaze order came late, so we fired" in c for c in current), current


@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        # a reason only the talk explains ("it"), then what follows from it: the consequence is stored
        (
            "It was peaking way too early so the starter's on a bedtime feed these days.",
            "bedtime feed",
        ),
        ("It kept crashing, so we moved the database to Postgres.", "Postgres"),
    ],
)
def test_what_follows_a_reason_only_the_talk_explains_is_kept(turn: str, kept: str) -> None:
    assert any(kept in content for content in _current(turn))


@pytest.mark.parametrize(
    "turn",
    [
        "It was so good I cried.",  # "so" of degree: no subject after it
        "That was great, so thanks.",  # no subject after "so" either
    ],
)
def test_a_reason_with_no_consequence_of_its_own_stores_nothing(turn: str) -> None:
    assert _current(turn) == []
