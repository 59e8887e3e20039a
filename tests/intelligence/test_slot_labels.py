"""A number that names a thing ("line 2", "press 1") is part of the subject, not a value a newer turn replaces."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.labels import different_things, labels


def test_labels_are_numbers_after_a_noun_not_amounts_or_dates() -> None:
    assert labels("The line 2 conveyor jammed twice this morning.") == {"line": {"2"}}
    assert labels("We have 3 kids and lost 8 kilos by May 3.") == {}
    assert different_things("the line 2 conveyor jammed", "The line 1 conveyor jammed")
    assert not different_things("the line 2 conveyor jammed", "The line 2 conveyor stopped")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The line 1 conveyor jammed twice this morning.", "The line 2 conveyor jammed twice this morning."),
        ("Goal: Cut scrap on press 1 by 10% by March 31.", "Goal: Cut scrap on press 2 by 17% by March 31."),
    ],
)
def test_two_things_named_by_number_both_stay_current(first: str, second: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s")
        stored = list(memory.memories(user_id="u"))
        assert sorted(r.content for r in stored) == sorted([first, second])
        assert [r.content for r in stored if r.metadata.get("superseded_by")] == []


def test_a_statement_that_looks_like_a_new_value_of_many_memories_marks_none() -> None:
    """A slot holds one value: an unsure match with many memories is no conflict with each of them."""
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for line, code in ((5, 201), (6, 217), (3, 204), (4, 209), (7, 201)):
            memory.add(f"Line {line} keeps faulting with error E-{code} during the morning shift.", user_id="u")
        memory.record_turn(
            "I'm debugging ticket INC-4502, the drive shows error E-200 on line 1.",
            "Noted.",
            user_id="u",
            session_id="s",
        )
        marked = [r for r in memory.memories(user_id="u") if len(r.metadata.get("conflicts_with") or []) > 2]
        assert marked == []
