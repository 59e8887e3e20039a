"""Further along a sequence: a later lesson, level or chapter of the user's replaces the earlier one, though the two
statements share no other word; someone else's place, a place further back and a world statement replace nothing."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_sequences import places


def _after(first: str, second: str) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return list(memory.memories(user_id="u"))


def test_places_are_numbers_after_a_sequence_noun() -> None:
    assert places("Reached lesson 20 of the Spanish course, level 3 next") == {"lesson": {20}, "level": {3}}
    assert places("Line 2 jammed at 10:30, 5% scrap") == {}


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        ("I'm doing an online Spanish course, I'm at lesson 12.", "Reached lesson 20 of the Spanish course!", "12"),
        ("I've got my FA Level 1 coaching badge!", "Level 2 done at last!! UEFA C next.", "Level 1"),
    ],
)
def test_a_later_place_replaces_the_earlier(first: str, second: str, old: str) -> None:
    stored = _after(first, second)
    replaced = [r for r in stored if r.metadata.get("superseded_by")]
    assert len(replaced) == 1
    assert old in replaced[0].content


@pytest.mark.parametrize(
    "second",
    [
        "Back to lesson 3 to revise the past tense.",  # further back: a revision, not where the user is
        "My son is on lesson 20 of his piano course.",  # someone else's place
        "The course's lesson 20 is all about the subjunctive.",  # where the course is, not the user
        "Also signed up for lesson 20 of the cooking class.",  # adds a second course beside the first
    ],
)
def test_other_places_replace_nothing(second: str) -> None:
    stored = _after("I'm doing an online Spanish course, I'm at lesson 12.", second)
    assert [r for r in stored if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")] == []
