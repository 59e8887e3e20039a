"""Orders to the assistant about how it answers, in more shapes, and what they change (#33, dev23).

- a word of an aspect of answering (kioko_intelligence/instruction_topics.ASPECTS: "professional", "longer",
  "12-hour") makes a sentence about answering as a word of ``rules.ANSWERING`` does; a name or pronouns (the user's
  own aspects) do not: "call me Bea" stays the profile's name;
- an order opening with a verb of talking ("Chat with me in Spanish", "Go back to plain talk", "Enough of the
  clues at the end of your answers", "Finish each answer with ...") is an instruction, and so is one after a "so"
  with no comma ("I'm using you for work now so keep it professional");
- "enough of" is a change cue, and a rule said fine "again" or "after all" lifts the one it names;
- a standing request that names a case of its own ("anything you draft for my clients") beside an instruction
  that does not is a second rule, not a change of the first.

Real layers (memory:// and a SQLite file), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
import kioko_intelligence.rules as rules
from kioko_intelligence.slot_nearest import own_case

U = {"user_id": "u"}


def _after(memory, turns: list[str], question: str) -> str:  # type: ignore[no-untyped-def]
    for index, said in enumerate(turns):
        memory.record_turn(said, "Noted.", session_id=f"s{index}", **U)
        memory.end_session(f"s{index}", **U)
    return memory.recall(question, session_id="probe", **U).text


def _instructions(memory) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.content for r in memory.memories(**U) if r.kind == "instruction" and not r.metadata.get("superseded_by")]


@pytest.mark.parametrize(
    "said",
    [
        "Chat with me in Spanish, I spend all day in English.",
        "Talk to me like a mate, nothing formal.",
        "Go back to plain talk till I catch up.",
        "Speak to me in Welsh when we're on our own.",
        "Finish each answer with a cryptic clue for me to solve.",
        "Begin every reply with a one-line summary.",
        "Enough of the emojis in your replies.",
        "I'm using you for work stuff now so keep it professional.",
        "12-hour with am and pm please.",
        "Keep it friendly.",
    ],
)
def test_an_order_about_answering_is_an_instruction(said: str) -> None:
    assert rules.instruction_rule(rules.plain(said.rstrip("."))) is not None


@pytest.mark.parametrize(
    "said",
    [
        "Please drop the temp table after the job.",  # a task for now
        "Go back to the previous example.",  # a step back in the talk
        "Chat soon, got to run.",  # no word of answering
        "call me Bea",  # the user's name: the profile's
        "Talk about a long day.",
    ],
)
def test_what_is_no_order_about_answering_stays_out(said: str) -> None:
    assert rules.instruction_rule(rules.plain(said.rstrip("."))) is None


def test_a_name_said_as_call_me_is_still_the_profiles(memory) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn("call me Bea", "Okay.", session_id="s1", **U)
    assert [op.op for op in report.ops if op.status == "applied"][:1] == ["profile.set"]


@pytest.mark.parametrize(
    ("old", "new", "question", "gone", "kept"),
    [
        (
            "Finish each answer with a cryptic clue for me to solve, it keeps the brain ticking over.",
            "Enough of the clues at the end of your answers. I've got a deadline.",
            "Is there anything you should add at the end of your answers?",
            "cryptic clue for me to solve",
            "Enough of the clues",
        ),
        (
            "Always end your replies with a fun fact.",
            "Enough of the fun facts in your replies, honestly.",
            "What should you end replies with?",
            "end your replies with a fun fact",
            "Enough of the fun facts",
        ),
        (
            "Give me times in 24-hour, it's how the boat runs.",
            "On leave for a month. 12-hour with am and pm please, the family find the other one confusing.",
            "Which clock format should you use?",
            "24-hour, it's how the boat runs",
            "12-hour",
        ),
        (
            "Give me every time in 12-hour with am and pm.",
            "Back on nights, 24-hour clock from now on please.",
            "How should you give me times?",
            "12-hour with am and pm",
            "24-hour",
        ),
    ],
)
def test_a_rule_dropped_or_set_anew_replaces_the_older(memory, old, new, question, gone, kept) -> None:  # type: ignore[no-untyped-def]
    shown = _after(memory, [old, new], question)
    assert kept in shown
    assert gone not in shown.split("(was:")[0]


@pytest.mark.parametrize(
    ("old", "new", "question", "gone"),
    [
        (
            "Never use abbreviations in anything you write for me.",
            "The court's new software expands them for me automatically, so abbreviations are fine again.",
            "Can you shorten words when you write for me?",
            "Never use abbreviations",
        ),
        (
            "Never put swear words in anything you write for me.",
            "The lads are all adults, swear words are okay again.",
            "Can you swear in what you write for me?",
            "Never put swear words",
        ),
        (
            "Don't ever mention calories when you give me recipes.",
            "My dietitian wants me to track them, so calories are fine after all.",
            "Should my recipes show calories?",
            "Don't ever mention calories",
        ),
    ],
)
def test_a_rule_said_fine_again_is_lifted(memory, old, new, question, gone) -> None:  # type: ignore[no-untyped-def]
    shown = _after(memory, [old, new], question)
    assert gone not in shown.split("(was:")[0]


def test_a_rule_said_fine_with_no_change_word_stays(memory) -> None:  # type: ignore[no-untyped-def]
    shown = _after(
        memory,
        ["Never use abbreviations in anything you write for me.", "Abbreviations are fine in the shopping list."],
        "Can you shorten words when you write for me?",
    )
    assert "Never use abbreviations" in shown


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Chat with me in Spanish, I spend all day in English and miss it.",
            "Anything you draft for my clients has to be in English though, they're all in Manchester.",
        ),
        (
            "Reply to me in Polish, it's quicker for me.",
            "Anything you write for the tenants has to be in English though, please.",
        ),
    ],
)
def test_a_rule_for_a_case_of_its_own_keeps_the_other(first: str, second: str) -> None:
    pytest.importorskip("kioko_core.embedding.semantic")
    with kioko.intelligent("memory://?embedder=semantic") as memory:
        _after(memory, [first, second], "Which language should you use?")
        held = [
            r.content
            for r in memory.memories(**U)
            if r.kind == "instruction" and not r.metadata.get("conflicted_by") and not r.metadata.get("superseded_by")
        ]
    assert sorted(held) == sorted([first, second])


def test_own_case_reads_a_case_the_older_rule_lacks() -> None:
    assert own_case("Anything you draft for my clients has to be in English though.", "Chat with me in Spanish.")
    # the older rule names the case too, or the request says a change: a change of it, as before
    assert not own_case("Anything you draft for my clients in English please.", "Write to my clients in French.")
    assert not own_case("Everything in English from now on, for all the emails.", "Chat with me in Spanish.")
    assert not own_case("Everything in English please.", "Chat with me in Spanish.")


@pytest.mark.parametrize(
    ("old", "new", "question", "gone", "kept"),
    [
        (
            "Short. Please. One line answers. Reading is hard since the stroke.",
            "Better now. Eyes much better. Longer is fine.",
            "How much detail should you give me?",
            "one line answers",
            "Longer is fine",
        ),
        (
            "Keep it formal with me, please.",
            "Honestly casual is fine.",
            "What tone should you take with me?",
            "formal with me",
            "casual is fine",
        ),
        (
            "Use bullet points for everything.",
            "Paragraphs are okay as well.",
            "How should you format answers?",
            "Use bullet points for everything",
            "Paragraphs are okay",
        ),
    ],
)
def test_a_permission_on_the_aspect_of_a_rule_is_the_rule_now(memory, old, new, question, gone, kept) -> None:  # type: ignore[no-untyped-def]
    shown = _after(memory, [old, new], question)
    assert kept in shown
    assert gone not in shown.split("(was:")[0]


def test_a_permission_on_another_aspect_changes_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    shown = _after(memory, ["Keep it formal with me, please.", "Longer is fine."], "What tone should you take with me?")
    assert "formal with me" in shown
