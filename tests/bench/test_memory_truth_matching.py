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


def test_a_value_said_to_have_retired_or_gone_is_history() -> None:
    assert memory_truth.shown_as_current("Helga retired, my new manager is Tomasz Nowak.", "Helga") == []
    assert memory_truth.shown_as_current("The Panda's gone; our car is a Skoda now.", "Panda") == []
    assert memory_truth.shown_as_current("Helga has gone to Tokyo for the launch.", "Helga") == []
    assert memory_truth.shown_as_current("Helga leads the launch.", "Helga") == ["Helga leads the launch."]


def _scene(cls: str, sessions: list[list[str]], show: list[str], not_current: list[str]) -> memory_truth.Scene:
    turns = [[memory_truth.Turn(text) for text in session] for session in sessions]
    probe = memory_truth.Probe("q", show, not_current)
    return memory_truth.Scene("s", cls, "dev", turns, [probe])


def test_the_check_names_expectations_no_stored_turn_could_satisfy() -> None:
    unsaid = _scene("fact", [["The dog is Rex."]], ["Max"], ["Rover"])
    assert memory_truth.check(unsaid) == ["never said: Max", "not_current but never said: Rover"]
    repeated = _scene("fact", [["The dog is Max."], ["Max is a beagle, the dog is Rex."]], ["Rex"], ["Max"])
    assert memory_truth.check(repeated) == ["said again as current: Max: Max is a beagle, the dog is Rex."]
    fair = _scene("fact", [["The dog is Max."], ["Correction: the dog is Rex, not Max."]], ["Rex"], ["Max"])
    assert memory_truth.check(fair) == []


def test_every_dev_scene_passes_the_check() -> None:
    for split in (s for s in memory_truth.splits_present() if memory_truth.is_dev(s)):
        problems = [f"{scene.id}: {p}" for scene in memory_truth.load(split) for p in memory_truth.check(scene)]
        assert problems == [], split
