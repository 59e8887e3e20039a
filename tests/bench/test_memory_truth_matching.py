"""benchmarks/memory_truth.py matches expected words in their simple inflections, either way round, for what a
context must show and for what it must not show as current alike, and still as whole words (#33)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import memory_truth  # noqa: E402


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        ("Sunday evening", "User wants reminders on Sunday evenings."),
        ("Sunday evenings", "Remind the user on Sunday evening."),
        ("Thursdays", "Quiz night moved to Thursday."),
        ("mulch", "Potatoes and mulching still on."),
        ("bake", "User likes baking."),
        ("party", "Two parties this month."),
        ("bus", "User takes the buses."),
        ("stays on a Wednesday", "Quiz night stayed on a Wednesday."),
    ],
)
def test_an_inflected_word_is_shown(entry: str, text: str) -> None:
    assert memory_truth.shown(text, entry)


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        ("cat", "User's category is gold."),
        ("evening", "User likes eventide."),
        ("bus", "User is busy today."),
        ("news", "A new phone."),
        ("frostbyte_77", "Discord: frostbytes_77"),
        ("a", "as agreed"),
    ],
)
def test_other_words_are_not_taken_for_inflections(entry: str, text: str) -> None:
    assert not memory_truth.shown(text, entry)


def test_a_stale_value_said_in_another_inflection_is_caught_as_current() -> None:
    stale = memory_truth.shown_as_current("User prefers window seats.", "window seat")
    assert stale == ["User prefers window seats."]


def test_an_inflected_stale_value_said_as_history_is_allowed() -> None:
    assert memory_truth.shown_as_current("User no longer prefers window seats, aisle now.", "window seat") == []
    assert memory_truth.shown_as_current("User sits in aisles (was: window seats).", "window seat") == []
