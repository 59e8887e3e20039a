"""A subject framed before a request, with what is said of it after the frame ("Nothing to do with him should stay,
please delete all", "Anything about Dana must not remain, wipe it") (#33, dev26): the subject is "him" or "Dana",
not "him should stay", so a pronoun is read back to the name said before ("About Kelvin." a turn earlier). Before,
the thing was "him should stay", which named no one, and nothing went.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_core.store import Scope
from kioko_intelligence.forget_requests import read_requests

U = {"user_id": "kit"}


def _after(memory, said: list[str], asked: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    return contents_after(memory, U, said, asked)


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My ex-boyfriend Kelvin works at HSBC in Central.", "He still has my rice cooker, very annoying."],
            ["About Kelvin.", "Nothing to do with him should stay, please delete all."],
            "Kelvin",
            None,
        ),
        (
            ["My cousin Dana is moving to Perth in June.", "I'm an auditor, busy season now."],
            ["Anything about Dana must not remain, wipe it."],
            "Dana",
            "auditor",
        ),
        (
            ["My neighbour Mrs Adeyemi feeds my cat when I'm away.", "I fly cargo out of East Midlands."],
            ["You know my neighbour, Mrs Adeyemi?", "Nothing about her should be kept, delete the lot."],
            "Adeyemi",
            "East Midlands",
        ),
    ],
)
def test_a_framed_subject_with_what_is_said_of_it_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, said, asked)
    assert not holds(contents, gone), contents
    if kept:
        assert holds(contents, kept), contents


@pytest.mark.parametrize(
    ("sentence", "thing"),
    [
        ("Nothing to do with him should stay, please delete all.", "him"),
        ("Anything about Dana must not remain, wipe it.", "Dana"),
        ("Everything to do with the Harlow job shouldn't stay, bin it.", "the Harlow job"),
        ("Anything you know about my old flat, bin it.", "my old flat"),
    ],
)
def test_the_framed_subject(sentence: str, thing: str) -> None:
    assert [r.thing for r in read_requests([sentence])] == [thing]


def test_a_wish_that_something_stay_is_no_request(memory) -> None:  # type: ignore[no-untyped-def]
    """Said of something else, "should stay" asks nothing to be forgotten."""
    contents = _after(memory, ["My cousin Dana is moving to Perth in June."], ["I think Dana should stay in Leeds."])
    assert holds(contents, "Perth"), contents


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["I have sickle cell trait, doctor say to drink plenty water.", "I coach netball on Saturdays."],
            "All the health stuff, take it out, nah. Is private.",
            "sickle cell",
            "netball",
        ),
        (
            ["I'm allergic to kiwi, it makes my mouth itch.", "I coach netball on Saturdays."],
            "That allergy thing I mentioned, take it out please.",
            "kiwi",
            "netball",
        ),
        (
            ["My salary is 41k before tax.", "I coach netball on Saturdays."],
            "My salary, just take that out, I overshared.",
            "41k",
            "netball",
        ),
    ],
)
def test_a_thing_said_before_and_taken_out_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, said, [asked])
    assert not holds(contents, gone), contents
    assert holds(contents, kept), contents


def test_a_chore_taken_out_takes_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    """Nothing kept is what the pronoun stands for: a chore, no forget."""
    contents = _after(
        memory,
        ["We put the bins out on Thursdays.", "I coach netball on Saturdays."],
        ["The recycling, take it out tonight."],
    )
    assert holds(contents, "bins"), contents
    assert holds(contents, "netball"), contents


@pytest.mark.parametrize(
    ("said", "asked", "gone"),
    [
        (
            ["This season my salary is 95,000 rupees per month from the agency.", "I am trekking guide in Annapurna."],
            "My salary information, please you do not keep.",
            "95,000",
        ),
        (
            ["The gate code for the allotment is 4471.", "I grow broad beans."],
            "The gate code, please don't keep.",
            "4471",
        ),
        (["My blood type is O negative.", "I grow broad beans."], "My blood type, you mustn't store.", "O negative"),
        (["I earn 52k at the council.", "I grow broad beans."], "Please forget my salary information.", "52k"),
    ],
)
def test_a_thing_named_before_a_refusal_to_keep_goes(memory, said, asked, gone) -> None:  # type: ignore[no-untyped-def]
    """The thing in the clause before a bare refusal ("..., please don't keep"), and "information" only framing the
    thing ("my salary information"): gone from every stored record, summaries included."""
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(asked, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    stored = [r.content for r in memory.store.scan(Scope(U["user_id"], None))]
    assert not holds(stored, gone), stored
    assert holds(stored, said[1].split()[-1].rstrip(".")), stored


def test_a_bare_refusal_takes_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, ["I coach netball on Saturdays."], ["Don't keep."])
    assert holds(contents, "netball"), contents


@pytest.mark.parametrize(
    ("sentence", "thing"),
    [
        ("Forget everything about my children please Their dad and I agreed nothing goes online", "my children"),
        ("forget my salary please i overshared", "my salary"),
        ("Delete the gate code please.", "the gate code"),
        ("Please forget my salary.", "my salary"),
    ],
)
def test_a_thing_ends_at_a_please_run_on_into_the_next_sentence(sentence: str, thing: str) -> None:
    """Said without punctuation (dictation, fragments), "please" between the request and what follows ends the
    thing: before, "my children please Their dad and I agreed ..." was the subject."""
    assert [r.thing for r in read_requests([sentence])] == [thing]
