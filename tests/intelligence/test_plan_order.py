"""A plan's steps said in another order are reordered in place, none lost (kioko_intelligence/plan_order.py; #33).

"Billing jumps the queue" after "Migration plan: auth service first, then billing, then search last" left the old
order in force beside the sentence (no step had a new value, none was dropped). A turn that names a step by its own
words and says where it goes now (before / after another step, first, last, swapped with another) rewrites the
plan's order; words that said a step's old place ("first", "to close") leave it. A move that names no one step, or
changes nothing, leaves the plan as it was.

Real layers (memory:// and a SQLite file) through the agent loop.
"""

from __future__ import annotations

import pytest

import kioko

U = {"user_id": "odile"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'order.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _say(memory, plan: str, change: str) -> None:
    memory.record_turn(plan, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(change, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)


def _plan(memory, word: str) -> str:
    held = [
        r.content
        for r in memory.memories(**U)
        if word in r.content and not r.metadata.get("superseded_by") and not r.content.startswith("Summary")
    ]
    assert len(held) == 1, held
    return held[0]


def _in_order(text: str, *items: str) -> bool:
    at = [text.lower().find(i.lower()) for i in items]
    return all(a >= 0 for a in at) and at == sorted(at)


@pytest.mark.parametrize(
    ("plan", "change", "word", "order", "gone"),
    [
        (  # a step to the front, the old first step's "first" dropped
            "Migration plan for the monolith: auth service first, then billing, then search last.",
            "Finance wants the money stuff off the old box by Q1, so billing jumps the queue.",
            "Migration plan",
            ("Billing", "Auth service", "Search"),
            "service first",
        ),
        (  # before another step, and the other one to the end
            "Running order for Saturday's village show: the choir opens, then the jugglers, then the raffle, then "
            "the ceilidh band to close.",
            "Band's fiddler has to leave by nine, so the band goes on before the raffle and the raffle closes the "
            "night.",
            "Running order",
            ("choir", "jugglers", "ceilidh band", "raffle"),
            "band to close",
        ),
        (  # "X first and Y after": X just before Y
            "Bathroom job, in order: rip out the old suite, re-plumb, tile, then fit the new suite.",
            "The tiler can't come till next week, so we're fitting the suite first and tiling after.",
            "Bathroom job",
            ("rip out", "re-plumb", "fit the new suite", "tile"),
            "then fit the new suite",
        ),
        (  # paraphrase: two steps swapped, said by a gig singer
            "Setlist for Friday: Valerie, then Jolene, then Dancing Queen.",
            "Swap Jolene and Valerie, I want to warm up on the slow one.",
            "Setlist",
            ("Jolene", "Valerie", "Dancing Queen"),
            None,
        ),
        (  # paraphrase: a revision timetable, "after" another step, a student's voice
            "Revision order: 1) biology 2) maths 3) chemistry 4) history",
            "ok so biology is going after chemistry now, the chem mock got moved earlier",
            "Revision order",
            ("maths", "chemistry", "biology", "history"),
            None,
        ),
        (  # paraphrase: a step to the end, a wedding planner's "finish with"
            "Reception running order: 1) speeches 2) first dance 3) cake cutting 4) buffet",
            "Couple want to finish with the cake cutting, the photographer leaves at ten.",
            "Reception running order",
            ("speeches", "first dance", "buffet", "cake cutting"),
            None,
        ),
    ],
)
def test_a_step_said_in_another_place_reorders_the_plan(memory, plan, change, word, order, gone) -> None:
    _say(memory, plan, change)
    now = _plan(memory, word)
    assert _in_order(now, *order), now
    if gone:
        assert gone not in now


@pytest.mark.parametrize(
    ("plan", "change", "word", "order"),
    [
        (  # the move says the order it already has
            "Errands: post office, dentist, then the bank.",
            "The dentist goes before the bank as usual, they shut at four.",
            "Errands",
            ("post office", "dentist", "bank"),
        ),
        (  # the other place names no step of the plan
            "Errands: post office, dentist, then the bank.",
            "My sister goes before me at the dentist, she booked first.",
            "Errands",
            ("post office", "dentist", "bank"),
        ),
        (  # the words name two steps as much as each other: which one moves is not said
            "Garden jobs: prune the apple tree, prune the pear tree, then mow.",
            "Pruning goes first, before anything else.",
            "Garden jobs",
            ("apple", "pear", "mow"),
        ),
    ],
)
def test_a_move_naming_no_one_step_or_changing_nothing_leaves_the_plan(memory, plan, change, word, order) -> None:
    _say(memory, plan, change)
    assert _in_order(_plan(memory, word), *order)


def test_an_order_said_anew_is_left_to_the_rules_of_a_plan_said_anew(memory) -> None:
    _say(
        memory,
        "Handover routine: brief the incoming controller on traffic, weather, then runway state.",
        "They've flipped the handover order on us: runway state first now, then weather, then traffic.",
    )
    # not rewritten step by step ("runway state, brief the incoming controller on traffic, then weather")
    assert not [r for r in memory.memories(**U) if "runway state, brief" in r.content]
