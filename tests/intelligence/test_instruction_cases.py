"""An instruction said for a recurring case, and the newer one for the same case (#33).

"When you give me commands, assume Ubuntu and apt", "When I ask for a pairing, give me one red and one white",
"Give me times in Zulu, always", "For pairings just give me your single best bottle": each was gated as a request
to the assistant (nothing stored) or kept as knowledge. A case that recurs ("when(ever) you / I ...", "each time",
"for <things>") or a habitual tail (", always") makes the imperative a standing instruction, on any topic
(kioko_intelligence/rules.py ``INSTRUCTION``); a newer instruction for the same case supersedes the older
(kioko_intelligence/instruction_cases.py). A case that happens once ("When you get a chance, check the logs") and
a plain request ("Give me a recipe for pancakes") stay requests.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.instruction_cases import case_words, same_case


def applied(memory, said: str, session: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "Noted.", user_id="u", session_id=session)
    return [(op.op, str(op.fields.get("text", ""))) for op in report.ops if op.status == "applied"]


@pytest.mark.parametrize(
    "said",
    [
        "When you give me shell commands, assume Debian and apt.",
        "Whenever I ask for a playlist, keep it under an hour.",
        "Give me distances in nautical miles, always.",
        "For recipes just give me the metric amounts.",
    ],
)
def test_an_imperative_for_a_recurring_case_is_a_standing_instruction(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert [op for op, _ in applied(memory, said, "s1")] == ["instruction.add"]


@pytest.mark.parametrize(
    "said",
    [
        "When you get a chance, check the logs.",  # once
        "Give me a recipe for pancakes.",  # a request now
        "For the kids, suggest some party games.",  # these kids, this once
    ],
)
def test_a_case_that_happens_once_or_a_plain_request_is_no_instruction(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    assert "instruction.add" not in [op for op, _ in applied(memory, said, "s1")]


def test_a_newer_instruction_for_the_same_case_supersedes_the_older(memory) -> None:  # type: ignore[no-untyped-def]
    applied(memory, "Whenever I ask for a playlist, keep it under an hour.", "s1")
    applied(memory, "Use British spellings, always.", "s1")
    applied(memory, "For playlists just give me ten songs, no time limit.", "s2")
    context = memory.recall("What should a playlist for me look like?", user_id="u", session_id="probe").text
    assert "ten songs" in context
    assert "under an hour" not in context
    assert "British spellings" in memory.recall("How should you spell?", user_id="u", session_id="probe").text


@pytest.mark.parametrize(
    ("new", "old", "same"),
    [
        ("For playlists just give me ten songs.", "Whenever I ask for a playlist, keep it short.", True),
        ("When you write me emails, sign off as Jo.", "When you give me shell commands, assume apt.", False),
        ("Use metric units, always.", "Whenever I ask for a playlist, keep it short.", False),  # no case
    ],
)
def test_two_instructions_are_for_the_same_case_when_their_cases_share_a_word(new: str, old: str, same: bool) -> None:
    assert same_case(new, old) is same


def test_the_words_of_asking_are_no_case() -> None:
    assert case_words("When I ask you for something, give me the short version.") == set()
