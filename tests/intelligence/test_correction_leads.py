"""A correction of something said to the assistant is a change lead (kioko_intelligence/rules.py ``CHANGE_LEAD``).

"Quick correction to something I told you: the school is Oakwood Academy, not Oakfield" was dropped whole: a
sentence said to "you" is about the talk. The lead-in is cut and what follows read as a statement.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.rules import CHANGE_LEAD


@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        ("Quick correction to something I told you: the school is Oakwood Academy, not Oakfield.", "Oakwood"),
        ("A correction to what I told you earlier: my school is Oakwood Academy.", "Oakwood"),
        ("One small fix to what I said to you yesterday - I have three kids, not two.", "three kids"),
    ],
)
def test_what_follows_a_correction_said_to_the_assistant_is_kept(turn: str, kept: str) -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("I'm a Year 9 form tutor at Oakfield Academy.", "Noted.", user_id="u", session_id="s1")
        report = memory.record_turn(turn, "Noted.", user_id="u", session_id="s2")
        assert any(kept in str(op.fields.get("text", "")) for op in report.ops if op.status == "applied")


@pytest.mark.parametrize(
    "said",
    [
        "Small correction to something I told you.",  # nothing follows: no lead-in
        "A correction to what I told you would be welcome",  # no punctuation after it
        "Thanks for the correction to what I told you: very helpful.",  # not opening the sentence
    ],
)
def test_what_is_no_correction_lead(said: str) -> None:
    assert CHANGE_LEAD.match(said) is None
