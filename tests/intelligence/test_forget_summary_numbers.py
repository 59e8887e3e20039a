"""An item forgotten by its number leaves no summary point that says the number in other words (#33, dev27): "My
mobile is 07700 900318." was kept as "User's phone number is 07700 900318" and summed up as "User's mobile is 07700
900318"; "Please forget my phone number" deleted the slot, but the summary point shares none of its indexed words
(digits are not indexed) and stayed. A number of five digits or more now carries the memory; a year or a count does
not, so a point that only shares one stays.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest

from kioko_intelligence.summaries import _long_numbers

U = {"user_id": "ash"}


def _everything(memory, said: list[str], asked: str) -> list[str]:  # type: ignore[no-untyped-def]
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(asked, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    return [r.content for r in memory.memories(**U)]


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My mobile is 07700 900318.", "I am writing a crime novel set in Hull."],
            "Please forget my phone number.",
            "900318",
            "Hull",
        ),
        (
            ["My mobile is 07700 900318.", "My email is inkpot.harriet@fastmail.com.", "I'm writing a novel."],
            "Strike my mobile and my email from your notes, both of them.",
            "900318",
            "novel",
        ),
    ],
)
def test_the_number_leaves_the_summary(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _everything(memory, said, asked)
    assert not any(gone in c for c in contents), contents
    assert any(kept in c for c in contents), contents


def test_a_point_sharing_a_year_stays(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: the year 2019 is no item of the forgotten memory's own."""
    said = ["My locker code is 48213 since 2019.", "We moved to Hull in 2019 for my wife's job."]
    contents = _everything(memory, said, "Please forget my locker code.")
    assert not any("48213" in c for c in contents), contents
    assert any("Hull" in c for c in contents), contents


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("User's mobile is 07700 900318.", {"07700900318"}),
        ("The sort code is 20-44-91.", {"204491"}),
        ("In 2019 I had 3 kids.", set()),
        ("The deposit was £1,150.", set()),
        ("Pi is 3.14159.", set()),
    ],
)
def test_long_numbers(text: str, numbers: set[str]) -> None:
    assert _long_numbers(text) == numbers
