"""A role of the user's that one person holds at a time takes a new holder when a turn says so, whoever else the turn
names: the old holder's memory is superseded, not the memory where the new holder held another role; a role several
people hold, someone else's role and a holder said with no change are left to the other rules."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_roles import assignments

FIRST = "My team lead is Oksana, and my mentor is Dmytro."


def _after(first: str, second: str) -> dict[str, dict[str, object]]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return {r.content: r.metadata for r in memory.memories(user_id="u")}


def _marked(held: dict[str, dict[str, object]]) -> list[str]:
    return sorted(c for c, m in held.items() if m.get("superseded_by") or m.get("conflicted_by"))


@pytest.mark.parametrize(
    "second",
    [
        "Reorg happened. Oksana is QA manager now and Dmytro is become my team lead.",
        "Oksana got promoted to QA manager, so Dmytro is my team lead now.",
        "Big reorg: Dmytro became my team lead, Oksana runs QA.",
    ],
)
def test_a_new_holder_of_the_role_replaces_the_old_one_whoever_else_is_named(second: str) -> None:
    held = _after(FIRST, second)
    assert _marked(held) == ["User's team lead is Oksana."]  # not "User's mentor is Dmytro."


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (FIRST, "Dmytro is Oksana's team lead now."),  # someone else's role
        (FIRST, "Oksana became my team lead officially this week."),  # the same holder said again
        (FIRST, "Dmytro became my mentor's boss."),  # the role of someone of the user's
    ],
)
def test_other_roles_replace_nothing(first: str, second: str) -> None:
    assert _marked(_after(first, second)) == []


def test_assignments_read_a_holder_and_a_role_of_the_users() -> None:
    assert assignments("Oksana is QA manager now and Dmytro is become my team lead.") == [("team lead", "Dmytro", True)]
    assert assignments("User's line manager is the Reverend Alison Pryce.") == [
        ("line manager", "Reverend Alison Pryce", False)
    ]
    assert assignments("Luna is my dog.") == []
    assert assignments("Dmytro is Oksana's team lead.") == []
    assert assignments("Petra is my wife's team lead now.") == []  # the wife's role, not a wife
    assert assignments("Ben is my son now.") == []  # a role several hold is none of ROLES
