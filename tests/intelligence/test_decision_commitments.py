"""A choice made for another name replaces the decision in force (kioko_intelligence/commitments.py, #33).

"Signed with Moorcroft Lettings" after "going with Brightwater as the letting agent" names neither the old choice
nor a change word; "team voted Unity after all" names not even the topic. The decision it replaces shares a word
with the turn, or, when the turn says the earlier choice is over ("after all", "in the end"), is the user's newest.
A commitment with neither (a dinner booked at a restaurant) replaces nothing.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.commitments import committed_name


def applied(memory, said: str, session: str) -> list[str]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Noted.", user_id="u", session_id=session)
    return [op.op for op in report.ops if op.status == "applied"]


def decisions_in_force(memory) -> str:  # type: ignore[no-untyped-def]
    return memory.recall("What have we decided?", user_id="u", session_id="probe").text


@pytest.mark.parametrize(
    ("first", "then", "new", "old"),
    [
        (
            "We're going with Hartley as the caterer for the launch.",
            "Signed with Fenwick Catering for the launch yesterday.",  # shares "launch"
            "Fenwick",
            "Hartley",
        ),
        (
            "We'll go with Figma for the redesign.",
            "Design team picked Penpot in the end, it's open source.",  # no shared word: "in the end"
            "Penpot",
            "Figma",
        ),
    ],
)
def test_a_choice_made_for_another_name_replaces_the_decision(memory, first, then, new, old) -> None:  # type: ignore[no-untyped-def]
    assert "decision.add" in applied(memory, first, "s1")
    assert "decision.supersede" in applied(memory, then, "s2")
    context = decisions_in_force(memory)
    assert new in context
    assert old not in context


@pytest.mark.parametrize(
    "then",
    [
        "Booked Luigi's for Friday's team dinner.",  # another matter: no shared word, nothing said to be over
        "Signed with Figma for the redesign, the annual plan.",  # the same choice, committed to
    ],
)
def test_a_commitment_to_another_matter_or_the_same_choice_replaces_nothing(memory, then: str) -> None:  # type: ignore[no-untyped-def]
    applied(memory, "We're going with Figma for the redesign.", "s1")
    assert "decision.supersede" not in applied(memory, then, "s2")
    assert "Figma" in decisions_in_force(memory)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Signed with Moorcroft Lettings on Friday.", "Moorcroft Lettings"),
        ("team voted Unity after all", "Unity"),
        ("We picked Thursday for the launch.", None),  # a day is no name chosen
        ("we went with a lad from Athlone", None),  # the name is not what the verb takes
    ],
)
def test_the_name_committed_to_is_the_one_right_after_the_verb(said: str, name: str | None) -> None:
    assert committed_name(said) == name


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        # "it" / "this" / "that" before a colon points at what follows: no part of the decision (session 12)
        ("I've settled it: the design handoff happens in Figma.", "the design handoff happens in Figma"),
        ("We've decided this - the kiln goes in the garage.", "the kiln goes in the garage"),
        ("We agreed on Tuesdays for the standup.", "Tuesdays for the standup"),  # a body kept whole
    ],
)
def test_a_decision_pointed_at_by_it_is_stored_without_the_pointer(memory, said: str, decided: str) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Noted.", user_id="u", session_id="s1")
    texts = [str(op.fields.get("text") or "") for op in report.ops if op.op.startswith("decision")]
    assert any(t.rstrip(".").lower() == decided.lower() for t in texts), texts
