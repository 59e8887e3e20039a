"""A standing request to book for the user, "a X person" said as become, and the seat on a flight as a slot.

"Book me an aisle seat whenever you can" was gated as a request for now and "These days book me the aisle" kept only
its reason; "I've become a window person" fell under the importance floor as an event; and nothing said that a window
seat and an aisle seat are one slot. Real layers, real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko


def _applied(*turns: str) -> list[list[str]]:
    with kioko.intelligent("memory://") as memory:
        found = []
        for index, turn in enumerate(turns):
            report = memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index}")
            found.append([op.op for op in report.ops if op.status == "applied"])
        return found


@pytest.mark.parametrize(
    "turn",
    [
        "These days book me the aisle, my knees need to stretch on the long hauls.",
        "Book me an aisle seat whenever you can, I'm up and down all flight.",
        "From now on reserve me a quiet room away from the lift.",
    ],
)
def test_a_standing_request_to_book_for_the_user_is_an_instruction(turn: str) -> None:
    assert "instruction.add" in _applied(turn)[0]


@pytest.mark.parametrize(
    "turn",
    [
        "Send me the report whenever you can.",  # "whenever you can" only with a booking
        "Book me a table for two at Nando's tonight.",  # a task for now
    ],
)
def test_a_request_for_now_stores_nothing(turn: str) -> None:
    assert _applied(turn) == [[]]


def test_become_a_kind_of_person_is_a_preference() -> None:
    assert _applied("I've become a window person, I sleep better against the wall.")[0][:1] == ["preference.add"]


def test_a_window_seat_and_an_aisle_seat_are_one_slot() -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("Always book me an aisle seat.", "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn("I'm a window seat person, I sleep better.", "Noted.", user_id="u", session_id="s2")
        memory.end_session("s2", user_id="u")
        context = memory.recall("Which seat do I prefer?", user_id="u").text
        assert "window seat person" in context
        assert "Always book me an aisle seat" not in context.replace("(was: Always book me an aisle seat", "")


def test_the_aisle_of_a_wedding_is_no_seat() -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("We walked down the aisle in June at St Mary's.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("I'm a window seat person on planes.", "Noted.", user_id="u", session_id="s2")
        wedding = next(r for r in memory.memories(user_id="u") if "aisle" in r.content)
        assert not wedding.metadata.get("superseded_by") and not wedding.metadata.get("conflicted_by")
