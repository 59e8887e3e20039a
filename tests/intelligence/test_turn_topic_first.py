"""A topic said first and taken up by "it" (kioko_intelligence/topic_first.py, #33).

"Boiler service, I book it every October" keeps the topic in the memory ("User books the boiler service every
October"), so that a later change of the same topic ("Boiler service, now it's every March") finds and replaces it.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.topic_first import topic_first


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("Boiler service, I book it every October", "I book the boiler service every October"),
        ("Tomato plants, we water them twice a day", "we water the tomato plants twice a day"),
        ("My old Vespa, I still ride it on Sundays", "I still ride My old Vespa on Sundays"),
        ("Fire alarm test, now it is every Monday", "now the fire alarm test is every Monday"),
        # not a topic: a lead-in, a time, a clause with a verb, or "it" too far from the comma
        ("Honestly, I love it", "Honestly, I love it"),
        ("Last week, it rained", "Last week, it rained"),
        ("The kids are asleep, so it is quiet", "The kids are asleep, so it is quiet"),
        ("Garden shed, I think we should probably paint it", "Garden shed, I think we should probably paint it"),
    ],
)
def test_the_topic_stands_where_it_is_taken_up(said: str, read: str) -> None:
    assert topic_first(said) == read


def test_a_change_of_the_topic_replaces_the_memory(memory) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn("Boiler service, I book it every October.", "Noted.", user_id="u", session_id="s1")
    memory.record_turn("Boiler service, now it is every March, new landlord.", "Noted.", user_id="u", session_id="s2")
    shown = memory.recall("When is the boiler service?", user_id="u", session_id="probe").text
    assert "March" in shown
    assert "October" not in shown
