"""A wish about answers said without a verb is a standing instruction (kioko_intelligence/rules.py ``INSTRUCTION``).

"Strictly plain text please; I'm using a screen reader" was stored as the knowledge "Strictly plain text
please." and the false decision "use a screen reader". A short phrase with "please" about how to answer
(``rules.ANSWERING``: plain text, bullet points, units ...) is an instruction now, its reason kept with it;
one about anything else ("Coffee please", "The report please, by Friday") is not.

Real layers (``kioko.intelligent("memory://")``), real routing, dry runs; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.ops import SKIPPED


def planned(text: str) -> list[tuple[str, str]]:
    memory = kioko.intelligent("memory://")
    try:
        report = memory.manage(text, user_id="u", session_id="s", dry_run=True)
        return [(op.op, str(op.fields.get("text", ""))) for op in report.ops if op.status != SKIPPED]
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Strictly plain text please; I'm using a screen reader.",
            "Strictly plain text please; I'm using a screen reader.",
        ),
        ("Plain text only please, I'm using a screen reader.", "Plain text only please, I'm using a screen reader."),
        ("Bullet points please.", "Bullet points."),
    ],
)
def test_a_verbless_wish_about_answers_is_an_instruction(said: str, kept: str) -> None:
    assert planned(said) == [("instruction.add", kept)]


@pytest.mark.parametrize("said", ["Coffee please.", "The report please, by Friday."])
def test_a_verbless_wish_about_anything_else_is_no_instruction(said: str) -> None:
    assert "instruction.add" not in [op for op, _ in planned(said)]


def test_an_imperative_about_references_is_an_instruction_and_a_statement_about_them_is_not() -> None:
    assert planned("Skip references; I only need the gist.") == [
        ("instruction.add", "Skip references; I only need the gist.")
    ]
    assert "instruction.add" not in [op for op, _ in planned("The references are in the appendix.")]
