"""A value said again as kept is no value changed (kioko_intelligence/slot_keeps.py, #33).

"switched to the anytime fitness by the office, still tues and thurs tho" after "my gym is puregym on dale st and i go
tues and thurs after work": the days are kept, the gym changed. The frame rule paired the new statement with the
days (they share the most words) and left the old gym current; a memory said again only in a keep clause is no
longer what the turn replaces. Real layers (``kioko.intelligent``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_keeps import keep_clauses, only_kept


def _stored(url: str, *turns: str) -> dict[str, kioko.Record]:
    with kioko.intelligent(url) as memory:
        for i, turn in enumerate(turns):
            memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{i}")
            memory.end_session(f"s{i}", user_id="u")
        return {r.content: r for r in memory.memories(user_id="u")}


def _replaced(record: kioko.Record) -> bool:
    return bool(record.metadata.get("superseded_by") or record.metadata.get("conflicted_by"))


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        (
            "my gym is puregym on dale st and i go tues and thurs after work",
            "switched to the anytime fitness by the office, still tues and thurs tho",
            "User goes Tues and Thurs after work.",
        ),
        # the same in other words and voices
        (
            "I get the 6:10 train from Stockport and I always sit in coach C.",
            "They've axed the 6:10 so it's the 6:40 for me now, coach C same as before.",
            "User always sits in coach C.",
        ),
    ],
)
def test_a_memory_said_again_as_kept_is_not_replaced(first: str, then: str, kept: str) -> None:
    stored = _stored("memory://", first, then)
    assert kept in stored
    assert not _replaced(stored[kept])


def test_the_change_beside_the_keep_finds_its_own_memory() -> None:
    # the nearest-memory rule, which reads the semantic embedder, then marks the gym the turn changed
    pytest.importorskip("kioko_core.embedding.semantic")
    stored = _stored(
        "memory://?embedder=semantic",
        "my gym is puregym on dale st and i go tues and thurs after work",
        "switched to the anytime fitness by the office, still tues and thurs tho",
    )
    assert _replaced(stored["User's gym is Puregym on dale ST."])


@pytest.mark.parametrize(
    ("content", "turn", "kept"),
    [
        ("User goes Tues and Thurs after work.", "switched to anytime fitness, still tues and thurs", True),
        ("User always sits in coach C.", "It's the 6:40 for me now, coach C same as before.", True),
        ("User tracks tasks in Todoist.", "Notes moved to Obsidian; Todoist stays for tasks.", True),
        ("User walks the dogs along the river.", "Mornings now instead of evenings, still the river walk.", True),
        # must not: the memory is named by the changed clause too (London is not kept)
        (
            "User works at Google in the London office.",
            "Still at Google, but they moved me to the Zurich office.",
            False,
        ),
        # must not: the changed clause says the memory's words (the rehearsals moved; their day is kept)
        ("We rehearse on Thursdays at the scout hut.", "We rehearse at St Anne's now, Thursdays as usual.", False),
        # must not: only a small part of the memory is kept
        ("User teaches piano at the church hall on Mondays.", "Lessons are at the library now, still Mondays.", False),
        # must not: no word of keeping
        ("User goes Tues and Thurs after work.", "switched to anytime fitness, going mon and weds now", False),
    ],
)
def test_only_kept(content: str, turn: str, kept: bool) -> None:
    assert only_kept(content, turn) is kept


def test_and_joins_one_value_in_a_keep_clause() -> None:
    kept, other = keep_clauses("switched to the anytime fitness by the office, still tues and thurs tho")
    assert kept == ["still tues and thurs tho"]
    assert other == ["switched to the anytime fitness by the office"]
