"""'Working for' and a name is an employer, no aim (kioko_intelligence/rules.py, the goal row's ``needs``).

"I am working for Škoda in Mladá Boleslav, process engineer on the paint line" was stored as the goal "Škoda in Mladá
Boleslav, process engineer ...", and the next session's change of employer updated that goal.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko


def _ops(turn: str) -> list[str]:
    with kioko.intelligent("memory://") as memory:
        report = memory.record_turn(turn, "Noted.", user_id="u", session_id="s")
        return [op.op for op in report.ops if op.status == "applied"]


@pytest.mark.parametrize(
    "turn",
    [
        "I am working for Škoda in Mladá Boleslav, process engineer on the paint line.",
        "I'm working for Deloitte, audit mostly.",
        "We're working for Médecins Sans Frontières in Chad this year.",
    ],
)
def test_working_for_a_name_is_no_goal(turn: str) -> None:
    ops = _ops(turn)
    assert ops and "goal.add" not in ops


@pytest.mark.parametrize(
    "turn",
    [
        "I'm working for a promotion to senior by the end of the year.",
        "We're aiming for SOC 2 compliance by Q4",
        "I'm working towards Grade 8 piano this year.",
    ],
)
def test_an_aim_after_working_for_is_still_a_goal(turn: str) -> None:
    assert "goal.add" in _ops(turn)


def test_a_graded_aim_with_a_capital_is_still_a_goal() -> None:
    assert "goal.add" in _ops("I'm working for Grade 8 by summer.")
