"""A commitment called off is replaced by the turn's new commitment, not by the first thing the turn says
(kioko_intelligence/slots.py ``_new_commitment``; #33).

"Crete's off. My brother moved his wedding into August, so we've rebooked for Lisbon in October": the router keeps
nothing of "Crete's off" and two memories of the second sentence; every op of the turn may reach the called-off
thing, and the first (the brother's wedding) claimed it. The question "Where are we going on holiday this year?"
finds the Crete trip, and recall answers with what replaced it: the brother's wedding, not Lisbon. When no op's own
sentence names the old thing, an op that says a commitment in its words ("rebooked", "booked", "starting", "will
go", "going with" ...) claims it first. An op naming the old thing still claims it first, and a turn calling
nothing off keeps its order. Not handled: a called-off sentence the router keeps as a memory of its own
("Harbour Inn cancelled on us, a flood in the kitchen. So we've booked the Red Lion") names the old thing and claims
it, and the new commitment stays beside it unlinked.
"""

from __future__ import annotations

import pytest

import kioko

U = {"user_id": "claims"}


def _replacer_of(first: str, then: str, old: str) -> str | None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn(first, "Okay.", session_id="s1", **U)
        memory.end_session("s1", **U)
        memory.record_turn(then, "Okay.", session_id="s2", **U)
        memory.end_session("s2", **U)
        held = {r.id: r for r in memory.memories(**U)}
        olds = [r for r in held.values() if old in r.content and r.metadata.get("superseded_by")]
        if not olds:
            return None
        newer = held.get(olds[0].metadata["superseded_by"])
        return newer.content if newer is not None else None


@pytest.mark.parametrize(
    ("first", "then", "old", "new"),
    [
        (
            "We're going to Crete in August, flights are booked.",
            "Crete's off. My brother moved his wedding into August, so we've rebooked for Lisbon in October.",
            "Crete",
            "Lisbon",
        ),
        (  # paraphrase: another family's news first, a grandmother
            "We're going to Madeira in June, flights are booked.",
            "Madeira's off. My sister's baby is due in June, so we've rebooked for Porto in September.",
            "Madeira",
            "Porto",
        ),
        (  # a contractor pulls out, an office manager (its own memory claims it, as before: must still hold)
            "We're going with Acme for the office cleaning, they start next month.",
            "Acme pulled out. Their van got nicked last week, so Sparkle and Co are starting on Monday.",
            "Acme",
            "Sparkle",
        ),
    ],
)
def test_the_new_commitment_replaces_the_one_called_off(first: str, then: str, old: str, new: str) -> None:
    replacer = _replacer_of(first, then, old)
    assert replacer is not None and new in replacer


def test_with_no_new_commitment_the_turn_keeps_its_order() -> None:
    replacer = _replacer_of(
        "We're going to Crete in August, flights are booked.",
        "Crete's off. My brother moved his wedding into August.",
        "Crete",
    )
    assert replacer is not None and "wedding" in replacer
