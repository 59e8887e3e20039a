"""A turn that goes on from the last statement without naming its slot ("so two now", "rebooked it for 19 June")
gives that statement's slot a new value."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.slot_continuations import carry_rewrites, continued_value


@pytest.mark.parametrize(
    ("turn", "said"),
    [
        ("Someone nicked one from the shed, so two now.", ("number", "two")),
        ("Sold a couple, down to 5 now.", ("number", "5")),
        ("They cancelled it, rebooked for 19 June.", ("date", "19 june")),
    ],
)
def test_a_bare_value_goes_on_from_the_last_statement(turn: str, said: tuple[str, str]) -> None:
    assert continued_value(turn) == said


@pytest.mark.parametrize(
    "turn",
    [
        "I'm 34 now.",  # a value of the user's own ("I'm"), not a count left bare
        "We bought 2 new lamps today.",  # the number has its noun
        "The party is on 19 June.",  # a date of its own slot, no "it" and no change
    ],
)
def test_a_value_with_its_own_slot_goes_on_from_nothing(turn: str) -> None:
    assert continued_value(turn) is None


@pytest.mark.parametrize(
    ("first", "second", "now"),
    [
        ("We own three bikes.", "Someone nicked one from the shed, so two now.", "We own two bikes."),
        (
            "My driving test is on 8 May.",
            "They cancelled it, rebooked for 19 June.",
            "User's driving test is on 19 June.",
        ),
    ],
)
def test_the_last_statement_gets_the_new_value(first: str, second: str, now: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        stored = list(memory.memories(user_id="u"))
        old = [r for r in stored if r.metadata.get("superseded_by")]
        assert len(old) == 1
        current = [r.content for r in stored if not r.metadata.get("superseded_by")]
        assert now in current


def test_a_bare_value_changes_nothing_when_no_recent_memory_holds_its_type() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("I live in Leeds with my partner.", "Noted.", user_id="u", session_id="s")
        memory.record_turn("Someone nicked one from the shed, so two now.", "Noted.", user_id="u", session_id="s")
        assert [r for r in memory.memories(user_id="u") if r.metadata.get("superseded_by")] == []


def _current_after(first: str, second: str) -> list[str]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]


def test_two_values_of_one_memory_changed_in_one_turn_are_both_in_its_newer_version() -> None:
    # the count's newer version carried the old date, which the date's rewrite had changed in the memory it replaced
    held = _current_after(
        "My improvers' class has 18 couples and the showcase is on 2 March.",
        "Flu took out three couples so we're at fifteen, and the showcase got pushed to 16 March.",
    )
    assert "User's improvers' class has fifteen couples and the showcase is on 16 March." in held
    assert not any("2 March" in text for text in held)


def test_a_rewrite_of_another_memory_or_value_is_left_to_its_op() -> None:
    made = MemoryOp(
        "fact.add",
        fields={"text": "User's class has fifteen couples and the showcase is on 2 March.", "supersedes": ["a"]},
    )
    other = MemoryOp("fact.add", fields={"text": "x", "rewrites": [["b", "2 March", "16 March"]]})  # another memory
    unsaid = MemoryOp("fact.add", fields={"text": "y", "rewrites": [["a", "Tuesdays", "Thursdays"]]})  # not in its text
    carry_rewrites([made, other, unsaid], made)
    assert made.fields["text"] == "User's class has fifteen couples and the showcase is on 2 March."
    assert other.fields["rewrites"] == [["b", "2 March", "16 March"]]
    assert unsaid.fields["rewrites"] == [["a", "Tuesdays", "Thursdays"]]
