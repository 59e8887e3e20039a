"""A person who held a place leaves and another takes it (kioko_intelligence/successors.py, #33).

"My physio is Dr Okafor", then "Dr Okafor has retired, the clinic moved me to Dr Brandt": the later turn names neither
the role nor a change of it. The memory naming the leaver is rewritten with the newcomer's name; a leaver with no
successor, or a turn naming two newcomers, changes nothing.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.successors import succeeded


def said(memory, text: str, session: str) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn(text, "Noted.", user_id="u", session_id=session)


def context(memory, question: str) -> str:  # type: ignore[no-untyped-def]
    return memory.recall(question, user_id="u", session_id="probe").text


@pytest.mark.parametrize(
    ("first", "then", "question", "new", "old"),
    [
        (
            "My physio is Dr Okafor at the Riverside clinic.",
            "Dr Okafor has retired, the clinic moved me to Dr Brandt.",
            "Who is my physio?",
            "Brandt",
            "Okafor",
        ),
        (
            "I carpool with Marta and Jonas on weekdays.",
            "Jonas quit last month, Priya has taken his seat.",
            "Who do I carpool with?",
            "Priya",
            "Jonas",
        ),
        (
            "Our shift supervisor is Big Dave.",
            "Dave got the sack, it's Helena running the floor now.",
            "Who is our shift supervisor?",
            "Helena",
            "Dave",
        ),
    ],
)
def test_the_newcomer_takes_the_leavers_place(memory, first, then, question, new, old) -> None:  # type: ignore[no-untyped-def]
    said(memory, first, "s1")
    said(memory, then, "s2")
    shown = context(memory, question)
    assert new in shown
    assert f"{old} " not in shown.replace(f"{old} has", "").replace(f"{old} quit", "").replace(f"{old} got", "")


def test_the_other_holders_stay() -> None:
    # "Marta" is kept: only the leaver's name is replaced in the memory's text (checked on the pure reader)
    class Held:
        id, kind, content = "m1", "factual", "User carpools with Marta and Jonas on weekdays."

    found = succeeded(
        lambda terms: [Held()], lambda text: ["t:" + text.lower()], "Jonas quit, Priya has taken his seat."
    )
    assert [(r.id, old, new) for r, old, new in found] == [("m1", "Jonas", "Priya")]


@pytest.mark.parametrize(
    "then",
    [
        "Dr Okafor has retired, lovely man.",  # no one named in the place
        "Dr Okafor has retired, now it's Dr Brandt or Dr Lewis, I'll pick one.",  # two newcomers: not sure which
        "Dr Okafor is on the new ward rota now.",  # no verb of leaving
    ],
)
def test_no_single_successor_changes_nothing(memory, then: str) -> None:  # type: ignore[no-untyped-def]
    said(memory, "My physio is Dr Okafor at the Riverside clinic.", "s1")
    report = memory.record_turn(then, "Noted.", user_id="u", session_id="s2")
    # the leaver may still be marked as gone (the slot rules read "retired"), but no one is put in the place
    assert [op.fields["rewrites"] for op in report.ops if op.fields.get("rewrites")] == []


@pytest.mark.parametrize(
    ("first", "then", "question", "old_way"),
    [
        (
            "For refunds I fill the yellow form and pass it to Ms Chan in accounts.",
            "Refund all go through SAP now, Ms Chan retired already last month.",
            "How do I process a customer refund?",
            "pass it to SAP",
        ),
        (
            "My tax return goes through Linda, my accountant, every January.",
            "Linda retired, so I file straight with HMRC online now.",
            "How do I do my tax return?",
            "goes through HMRC",
        ),
        (
            "Leave requests go to Gary in the office, on paper.",
            "Gary left in May and it's all done in the HRIS portal now.",
            "How do I book time off?",
            "go to HRIS",
        ),
    ],
)
def test_an_acronym_takes_no_persons_place(memory, first, then, question, old_way) -> None:  # type: ignore[no-untyped-def]
    # a system or a body named in capitals ("SAP", "HMRC") is how the thing is done now, not the leaver's successor:
    # the old memory is not rewritten with it
    said(memory, first, "s1")
    report = memory.record_turn(then, "Noted.", user_id="u", session_id="s2")
    assert [op.fields["rewrites"] for op in report.ops if op.fields.get("rewrites")] == []
    assert old_way not in context(memory, question)


def test_initials_still_take_the_place(memory) -> None:  # type: ignore[no-untyped-def]
    # two capitals may be a person's initials: they take the leaver's place as a name does
    said(memory, "Our shift supervisor is Big Dave.", "s1")
    said(memory, "Dave got the sack, it's JP running the floor now.", "s2")
    assert "JP" in context(memory, "Who is our shift supervisor?")
