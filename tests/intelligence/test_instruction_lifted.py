"""A standing instruction taken back or lifted by a later turn that does not say it as an instruction (#33).

"Give me train times in 24-hour clock, always", then "Retired now, so am and pm times are fine": the later turn sets the same aspect
(units) with another word, or says, with a change word, that something the instruction is about is fine now. The
one instruction it changes leaves the context (kioko_intelligence/instruction_topics.lifted, instruction_cases.
taken_back). A turn that shares no word with any instruction, or says nothing is fine now, changes none.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest


def instructions_after(memory, first: str, then: str, question: str) -> str:  # type: ignore[no-untyped-def]
    memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
    memory.record_turn(then, "Noted.", user_id="u", session_id="s2")
    return memory.recall(question, user_id="u", session_id="probe").text


@pytest.mark.parametrize(
    ("first", "then", "question", "old"),
    [
        (
            "Give me train times in 24-hour clock, always.",
            "Retired now, so am and pm times are fine.",
            "How should you give me train times?",
            "24-hour clock",
        ),
        (
            "Give me distances in miles, always.",
            "Living in Spain now, so distances in kilometres are fine.",
            "How should you give me distances?",
            "in miles",
        ),
        (
            "Correct my French spelling every time, please.",
            "You don't need to fix my mistakes more, it slows me down, just reply normally please.",
            "Should you correct my French?",
            "Correct my French spelling",
        ),
    ],
)
def test_a_later_turn_takes_the_instruction_back(memory, first, then, question, old) -> None:  # type: ignore[no-untyped-def]
    shown = instructions_after(memory, first, then, question)
    assert old not in shown
    assert then.split(",")[0].split()[0] in shown  # the newer word is what the context shows


@pytest.mark.parametrize(
    "then",
    [
        "Plain text is fine for the shopping list.",  # no change word: not said as a change
        "The weather is fine now, we can go out.",  # shares no word with the instruction
    ],
)
def test_a_turn_that_lifts_nothing_keeps_the_instruction(memory, then: str) -> None:  # type: ignore[no-untyped-def]
    shown = instructions_after(
        memory, "Send me the weekly report as a PDF, always.", then, "How should you send the report?"
    )
    assert "as a PDF" in shown
