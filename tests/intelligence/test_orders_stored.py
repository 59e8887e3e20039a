"""Orders to the assistant the offline router kept nothing of, or kept as a plain statement: a standing instruction in
a later clause of a run of orders ("Drop the cheerleading, just give me straight answers, no pep"), a way to treat the
user ("Please be relentlessly cheerful with me"), and a permission to use a name ("You may call me Dorothy"). Through
the agent loop (``record_turn``, the offline router); must-not cases are one-off requests and statements."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.rules import instruction_rule


def _kinds(text: str) -> list[tuple[str, str]]:
    memory = kioko.intelligent("memory://")
    memory.record_turn(text, "Noted.", user_id="u", session_id="s1")
    return [(r.kind, r.content) for r in memory.memories(user_id="u") if r.kind != "summary"]


STANDING = [
    "Drop the cheerleading, just give me straight answers, no pep.",
    "Skip the small talk, keep your answers short.",
    "Please be relentlessly cheerful with me, I need it.",
    "Be gentle with me.",
    "Be a bit more patient with me when I ask about maths.",
]


@pytest.mark.parametrize("text", STANDING)
def test_an_order_of_how_to_answer_is_an_instruction(text: str) -> None:
    assert [kind for kind, _ in _kinds(text)] == ["instruction"], _kinds(text)


NOT_STANDING = [
    "I'm off to bed, give me the summary tomorrow.",  # a subject first: no run of orders
    "Thanks, that was helpful.",
    "Pick up milk on the way home, the shop shuts at six.",  # orders, none of them about answering
    "Be there by six, the doors close early.",  # no "with me" / "to me"
]


@pytest.mark.parametrize("text", NOT_STANDING)
def test_other_orders_and_statements_are_no_instruction(text: str) -> None:
    assert instruction_rule(text) is None
    assert "instruction" not in [kind for kind, _ in _kinds(text)]


@pytest.mark.parametrize("text", ["You may call me Dorothy.", "Feel free to call me Dorothy."])
def test_a_permission_to_use_a_name_sets_it(text: str) -> None:
    assert ("profile", "User's name is Dorothy.") in _kinds(text)


def test_a_name_said_of_someone_else_is_not_the_users() -> None:
    assert not [c for kind, c in _kinds("You may call my manager Dorothy.") if kind == "profile"]
