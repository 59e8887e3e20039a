"""A turn of several steps is read whole (kioko_intelligence/language.py ``clauses``, rules.py ``PROCEDURE``).

"Saturday errands: pick up the dry cleaning, then buy stamps, then call the bank" used to be cut at each
", then": the first step was stored, the steps in the middle were too short to keep, and the plan read as
one errand. A step that opens with "then" and no subject of its own continues the sentence before it; one
with a subject ("then I started at Monzo") is still a clause of its own. A list under "to-dos",
"itinerary" or "agenda" is a plan like one under "plan".

Real layers (``kioko.intelligent("memory://")``), real routing, dry runs; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import clauses
from kioko_intelligence.ops import SKIPPED


def planned(text: str) -> list[tuple[str, str]]:
    memory = kioko.intelligent("memory://")
    try:
        report = memory.manage(text, user_id="u", session_id="s", dry_run=True)
        return [
            (op.op, str(op.fields.get("text") or op.fields.get("title") or ""))
            for op in report.ops
            if op.status != SKIPPED
        ]
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("said", "middle"),
    [
        ("Saturday errands: pick up the dry cleaning, then buy stamps, then call the bank.", "buy stamps"),
        ("Tomorrow I will drop the kids at school, then go to the gym, and then meet Sara for lunch.", "gym"),
        ("For the launch we write the docs, then record a video and then post on HN.", "record a video"),
    ],
)
def test_no_step_of_a_sequence_is_lost(said: str, middle: str) -> None:
    texts = [text for _, text in planned(said)]
    assert len(texts) == 1, texts
    assert middle in texts[0]


def test_a_then_with_its_own_subject_is_still_a_clause() -> None:
    assert clauses("I moved to Porto in May, then I started at Monzo") == [
        "I moved to Porto in May",
        "then I started at Monzo",
    ]
    assert clauses("pick up the dry cleaning, then buy stamps") == ["pick up the dry cleaning, then buy stamps"]


@pytest.mark.parametrize("head", ["Wedding to-dos", "Wedding todo list", "Wedding itinerary", "Wedding agenda"])
def test_a_list_of_to_dos_is_a_plan_of_every_step(head: str) -> None:
    memory = kioko.intelligent("memory://")
    try:
        report = memory.manage(
            f"{head}: book the venue, then send invitations, then order flowers.", user_id="u", session_id="s"
        )
        procedures = [op for op in report.ops if op.op == "procedure.add"]
        assert len(procedures) == 1, report.summary()
        assert procedures[0].fields["steps"] == ["Book the venue", "Send invitations", "Order flowers"]
    finally:
        memory.close()
