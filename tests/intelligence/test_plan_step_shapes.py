"""A step of a plan given another value for a reason, and a step added beside one the turn names
(kioko_intelligence/plan_changes.py ``keyed``, ``added_step``; #33, dev16).

- "River's far too high after the rain, so Saturday is the climbing wall in town" after "Scout camp plan: Friday ...,
  Saturday canoeing on the river, Sunday ...": a clause *key is value* said as the consequence of a reason ("so",
  "which means") changes the step keyed so, though no change word is said; "so Saturday is going to be busy" with
  no plan keyed by the word, or a key the plan does not hold, changes nothing;
- "Put one more step in before tagging: a migration dry-run on staging" after "Release checklist: freeze the API,
  write the changelog, tag the release": the step goes in before (or after) the one named, the others kept; a
  numbered plan is renumbered. Words naming no step add nothing.

Real layers (memory:// and a SQLite file), real routing; no mocks.
"""

from __future__ import annotations

import pytest

U = {"user_id": "u"}


def _plans(memory, first: str, then: str, word: str) -> list[str]:  # type: ignore[no-untyped-def]
    memory.record_turn(first, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(then, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)
    return [
        r.content for r in memory.memories(**U) if r.content.startswith(word) and not r.metadata.get("superseded_by")
    ]


CAMP = "Scout camp plan: Friday pitch tents and a campfire, Saturday canoeing on the river, Sunday orienteering."


def test_a_step_keyed_anew_for_a_reason_is_rewritten(memory) -> None:  # type: ignore[no-untyped-def]
    then = "River's far too high after the rain, so Saturday is the climbing wall in town."
    plans = _plans(memory, CAMP, then, "Scout camp plan")
    assert len(plans) == 1
    assert "Saturday the climbing wall in town" in plans[0]
    assert "canoeing" not in plans[0]
    assert "Sunday orienteering" in plans[0]


@pytest.mark.parametrize(
    "then",
    [
        "Rain all week, so Monday is the wettest day.",  # a key the plan does not hold
        "Saturday is the climbing wall in town.",  # no reason, no change word: the plan's own rules decide
    ],
)
def test_a_key_said_without_a_reason_or_not_in_the_plan_rewrites_nothing(memory, then: str) -> None:  # type: ignore[no-untyped-def]
    plans = _plans(memory, CAMP, then, "Scout camp plan")
    assert len(plans) == 1
    assert "Saturday canoeing on the river" in plans[0]


@pytest.mark.parametrize(
    ("first", "then", "word", "now"),
    [
        (
            "Release checklist: freeze the API, write the changelog, tag the release.",
            "Put one more step in before tagging: a migration dry-run on staging.",
            "Release checklist",
            "write the changelog, a migration dry-run on staging, tag the release",
        ),
        (
            "Sprint plan: 1) auth refactor 2) billing page 3) CSV export.",
            "We're adding a step after the billing page: a load test.",
            "Sprint plan",
            "1) Auth refactor; 2) Billing page; 3) A load test; 4) CSV export",
        ),
    ],
)
def test_a_step_added_beside_one_named_goes_in_there(memory, first: str, then: str, word: str, now: str) -> None:  # type: ignore[no-untyped-def]
    plans = _plans(memory, first, then, word)
    assert len(plans) == 1
    assert now in plans[0]


def test_a_step_added_beside_no_step_of_the_plan_adds_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    plans = _plans(
        memory,
        "Sprint plan: 1) auth refactor 2) billing page 3) CSV export.",
        "We're adding a step after lunch: call the bank.",
        "Sprint plan",
    )
    assert plans == ["Sprint plan: 1) Auth refactor; 2) Billing page; 3) CSV export"]
