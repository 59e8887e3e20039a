"""A change of one step of a plan rewrites that step and keeps the others (kioko_intelligence/plan_changes.py
``one_step``, ``stepped_after``; #33).

The slot rules found such a change replacing (or in conflict with) the plan whole: "Swap the duck for venison on
Saturday" hid the starter and the dessert of a tasting menu behind a "(was: ...)" note. The step the change is about
(its words, or the step after the one it names: "After Birmingham it's down to Cardiff") takes the change's new value
of the step's own type (a date, a number, a name) or the thing swapped in. A plan said anew, a change that names no
one step or says no new value, and a memory that is no plan are left to the slot rules.

Real layers (memory:// and a SQLite file) through the agent loop.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.store import Record
from kioko_intelligence.plan_changes import one_step

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'plans.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _say(memory, plan: str, change: str) -> None:
    memory.record_turn(plan, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(change, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)


def _plans(memory, word: str) -> list[str]:
    return [
        r.content
        for r in memory.memories(**U)
        if word in r.content and not r.metadata.get("superseded_by") and not r.content.startswith("Summary")
    ]


@pytest.mark.parametrize(
    ("plan", "change", "word", "now", "kept"),
    [
        (
            "Tour itinerary: Berlin Friday, Prague Saturday, Vienna Sunday.",
            "Prague got cancelled, we're playing Leipzig on Saturday instead.",
            "Tour itinerary",
            "Leipzig Saturday",
            ["Berlin Friday", "Vienna Sunday"],
        ),
        (
            "Delivery run today: Dover, Ashford, then on to Croydon.",
            "After Ashford it's over to Guildford, the Croydon drop was cancelled.",
            "Delivery run",
            "Guildford",
            ["Dover", "Ashford"],
        ),
    ],
)
def test_one_step_changed_is_rewritten_and_the_other_steps_stay(
    memory, plan: str, change: str, word: str, now: str, kept: list[str]
) -> None:
    """Each failed before: the change replaced the plan whole (or was not seen at all) and the other steps left."""
    _say(memory, plan, change)
    found = _plans(memory, word)
    assert len(found) == 1, found
    assert now in found[0]
    for step in kept:
        assert step in found[0]
    context = memory.recall(f"What's the {word.lower()}?", session_id="s3", **U).text
    assert kept[0] in context


def test_a_change_naming_no_one_step_leaves_the_plan_to_the_slot_rules(memory) -> None:
    """ "Weather's turned" names none of the steps: the plan is not rewritten step by step."""
    _say(
        memory,
        "Plan is cut silage Monday, bale Wednesday, wrap Thursday.",
        "Weather's turned, cutting Thursday now, bale and wrap the weekend.",
    )
    assert not [p for p in _plans(memory, "silage") if "Plan is" in p and "Thursday" in p and "Monday" not in p]


@pytest.mark.parametrize(
    ("content", "change", "step", "new"),
    [
        (
            "Tasting menu for Saturday: scallop crudo, then duck breast, then a rhubarb tart.",
            "Swap the duck for venison on Saturday, the supplier's out of duck.",
            "then duck breast",
            "then venison breast",
        ),
        (
            "Allotment plan: 1) Lime the plot in February; 2) Plant onions in March; 3) Sow carrots in April",
            "Onions are going in in February this year, the frost has gone early.",
            "Plant onions in March",
            "Plant onions in February",
        ),
        (
            "Sunday plan: 1) Church at 10; 2) Lunch at Mum's at 1; 3) Walk the dogs at 4",
            "Lunch at Mum's is at 2 now, she's got the vicar coming.",
            "Lunch at Mum's at 1",
            "Lunch at Mum's at 2",
        ),
    ],
)
def test_the_step_a_change_is_about_takes_its_new_value(content: str, change: str, step: str, new: str) -> None:
    """The step named by the change's words (not its dates: "February" is in another step too) takes the change's
    one new value of the step's own type, or the thing swapped in."""
    assert one_step(Record(id="r", user_id="u", kind="procedural", content=content), change) == (step, new)


@pytest.mark.parametrize(
    ("content", "change"),
    [
        ("Plan: 1) Call the bank; 2) Post the forms; 3) Book the van", "The bank closes early on Fridays."),
        ("Plan: 1) Call the bank at 9; 2) Post the forms at 9; 3) Book the van", "Bank and forms at 10 now."),
        ("User's editor is Vim.", "Switched to Helix now."),
        (
            "Road trip plan: 1) Lyon; 2) Geneva; 3) Turin",
            "Change of route: we'll skip Geneva and go Lyon, Grenoble, Turin.",
        ),
    ],
)
def test_what_one_step_leaves_alone(content: str, change: str) -> None:
    """No new value of the step's type, two steps named, no plan at all, or a plan said anew (which replaces the old
    one whole): nothing is rewritten here."""
    record = Record(id="r", user_id="u", kind="procedural", content=content)
    assert one_step(record, change) is None
