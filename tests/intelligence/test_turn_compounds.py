"""A subject of two, one of them the user, is read whole (kioko_intelligence/language.py ``clauses``).

"Jess and I fell out badly, we're not friends now" was cut at "and I" and before "we": "Jess" was too short
to keep, and the rest ("User fell out badly", "we're not friends now") named no one, so "Who is Jess to me?"
found nothing. A sentence that opens with "<Name> and I/me" (or "my <someone> and I") keeps its "and" and the
"we", "he", "she" or "they" that refers back to the two; any other sentence is cut as before.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import clauses


@pytest.mark.parametrize(
    ("said", "parts"),
    [
        ("Jess and I fell out badly, we're not friends now", ["Jess and I fell out badly, we're not friends now"]),
        (
            "Lukas and me, we are separated now, he is only my friend",
            ["Lukas and me, we are separated now, he is only my friend"],
        ),
        ("my wife and I moved to Porto, we love it", ["my wife and I moved to Porto, we love it"]),
        ("I'm Maya and I work at Zalando", ["I'm Maya", "I work at Zalando"]),
        ("I moved to Porto and I am vegetarian now", ["I moved to Porto", "I am vegetarian now"]),
        ("Jess is great, I live in Leeds", ["Jess is great", "I live in Leeds"]),
    ],
)
def test_a_subject_of_two_with_the_user_is_not_cut(said: str, parts: list[str]) -> None:
    assert clauses(said) == parts


def test_the_person_the_user_fell_out_with_is_found_by_name() -> None:
    memory = kioko.intelligent("memory://")
    try:
        memory.record_turn("Jess is my best friend, we talk every day.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn("Jess and I fell out badly, we're not friends now.", user_id="u", session_id="s2")
        memory.end_session("s2", user_id="u")
        context = memory.recall("Who is Jess to me?", user_id="u", session_id="s3").text
        assert "fell out" in context
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("said", "parts"),
    [
        # an order to the assistant run on after a comma in a long turn is a clause of its own
        (
            "my French is getting ok, the bakeries are dangerous, and honestly just use kilometres for me from now on",
            [
                "my French is getting ok, the bakeries are dangerous",
                "and honestly just use kilometres for me from now on",
            ],
        ),
        # a "he" or "she" right after a person named with a title stands for them: not cut from the name
        (
            "I registered on Elm Road and Dr Sandhu sorted me out, he's my dentist now",
            ["I registered on Elm Road and Dr Sandhu sorted me out, he's my dentist now"],
        ),
        # must-not: a verb of the list with no word of a standing order, and "he" with no titled name before it
        ("the bakeries are great, use of the trams is free", ["the bakeries are great, use of the trams is free"]),
        ("My brother called, he's moving to Leeds", ["My brother called", "he's moving to Leeds"]),
    ],
)
def test_a_long_turn_is_cut_where_a_new_statement_starts(said: str, parts: list[str]) -> None:
    assert clauses(said) == parts


def test_a_standing_order_buried_in_a_long_turn_is_kept() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(
            "I've been living in Lyon six months now, my French is getting ok, the bakeries are dangerous, and "
            "honestly just use kilometres for me from now on, everyone here does.",
            "Noted.",
            user_id="u",
            session_id="s1",
        )
        stored = [r.content for r in memory.memories(user_id="u")]
        assert any(c.startswith("Just use kilometres for me from now on") for c in stored)
