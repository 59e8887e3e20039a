"""A date of the same thing said again: a newer statement naming again the whole subject of an older dated memory (its
words, or its names) with another date is a newer value of that date (a marked conflict without a change word),
however many words of its own its sentence has; a part of the thing, a person's plans and another thing are not."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_dates import dated_again


def _after(first: str, second: str) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return list(memory.memories(user_id="u"))


def _marked(stored: list[kioko.Record]) -> list[kioko.Record]:
    return [r for r in stored if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")]


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "My defence of the dissertation is on 9 June, in the big hall of the faculty.",
            "One member of committee is sick, so they put my defence to 23 June. Same hall.",
            "9 June",
        ),
        (
            "The Okafor wedding flowers are for Saturday 14 June, peonies and eucalyptus.",
            "Bride rang in a state, the venue double-booked them, so the Okafors are getting married the Saturday "
            "after, the 21st.",
            "14 June",
        ),
    ],
)
def test_another_date_for_the_same_thing_replaces_the_old_one(first: str, second: str, old: str) -> None:
    stored = _after(first, second)
    marked = _marked(stored)
    assert len(marked) == 1
    assert old in marked[0].content
    newer = [r for r in stored if r.metadata.get("conflicts_with") or r.metadata.get("supersedes")]
    assert len(newer) == 1 and old not in newer[0].content


@pytest.mark.parametrize(
    "second",
    [
        # a part of the wedding, dated on its own, in a sentence of other news
        "Florist called, the bride wants lilies, and the Harper wedding rehearsal is on 13 June at the church.",
        # another thing of the same name
        "Florist called, the bride wants lilies, and the Harper christening is on 2 August at the church.",
        # the user's own day: no thing of the older one's
        "Busy summer: I'm off work on 13 June for my cousin's birthday in Leeds.",
    ],
)
def test_a_part_or_another_thing_replaces_nothing(second: str) -> None:
    stored = _after("The Harper wedding is on 14 June at the old mill by the river, with a ceilidh band.", second)
    assert _marked(stored) == []


def test_the_rule_reads_dates_and_whole_subjects_only() -> None:
    old = "User's defence of the dissertation is on 9 June, in the big hall of the faculty."
    assert dated_again("They put my defence to 23 June.", old, {"defenc"}, ["date"])
    assert not dated_again("They put my defence to 23 June.", old, {"defenc"}, ["number"])  # no date both hold
    assert not dated_again("I'm away from 23 June.", "I'm away on 9 June.", {"away"}, ["date"])  # the user: no thing
