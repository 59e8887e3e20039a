"""Requests to forget in more voices (#33, :mod:`kioko_intelligence.forget_requests`, :mod:`.forget_items`):
dialect spellings ("dat", "yow", "nothin'"), Tagalog's "paki-" before an English verb, a leading "omg"/"sorry" and
an emoji between the request and what follows, "me" for "my" before the user's data, "what you have on her", the
thing said first ("Everything about him you delete lah", "All my goals, please delete", "The WeChat ID I give you,
you help me delete"), "I'd rather you didn't have my birthday", "throw them out", and "my teacher's name" taking
the memory that names the teacher. Each takes what it points at, and what is not named stays.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import json

import pytest

from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import Scope

U = {"user_id": "tomas"}
SAID = [
    "My car registration is PCD 4471.",
    "My works number at the depot is 55207.",
    "My gym membership number is 88102.",
    "My birthday is 14 March.",
    "My teacher is Mrs Patel.",
    "Goal: pass the IELTS exam this year.",
    "Always answer me in short bullet points.",
    "My supplier Ah Keong sends durian every Thursday.",
    "I play the steel pan with Invaders on weekends.",
]


def _after(memory, *request: str) -> list[str]:
    """The memories' texts after the request's turns (in a second session)."""
    for text in SAID:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    for text in request:
        memory.record_turn(text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    return [r.content for r in memory.memories(**U)]


def _deleted_after(memory, said: list[str], text: str) -> list[str]:
    """The deletes applied by the turn ``text``, recorded after each of ``said``."""
    for line in said:
        memory.record_turn(line, "Okay.", session_id="s1", **U)
    report = memory.record_turn(text, "Okay.", session_id="s1", **U)
    return [op.op for op in report.ops if op.op == "memory.delete" and op.status == "applied"]


def _held(memory, word: str) -> list[str]:
    """Every stored record of the user holding ``word``: memories (superseded too), graph, session logs."""
    found = []
    for agent in (None, "@graph", SESSIONS_AGENT):
        for record in memory.store.scan(Scope(U["user_id"], agent)):
            if word.lower() in (record.content + json.dumps(record.metadata, default=str)).lower():
                found.append(record.content)
    return found


@pytest.mark.parametrize(
    "request_text,gone",
    [
        ("Boy, take out dat registration from yuh memory nah.", "PCD 4471"),
        ("Ey, bin me works number will yer, they're givin' us new ones.", "55207"),
        ("Ay sorry, pakidelete na lang yung gym membership number ko.", "88102"),
        ("omg pls delete the gym membership number \U0001f64f i cancelled", "88102"),
        ("Rather you didn't have my birthday, actually.", "14 March"),
        ("Can you forget my teacher's name? I'm moving to a new class.", "Patel"),
        ("The car registration I give you before, you help me delete, no need to save.", "PCD 4471"),
    ],
)
def test_an_item_asked_for_in_another_voice_goes(memory, request_text: str, gone: str) -> None:
    left = _after(memory, request_text)
    assert not [t for t in left if gone.lower() in t.lower()]
    assert [t for t in left if "Invaders" in t]
    assert _held(memory, gone) == []


@pytest.mark.parametrize(
    "request_text",
    [
        "Ah Keong cheat me already. Everything about him you delete lah, don't keep.",
        "Ah Keong and me done split, cher. Don't you keep nothin' on him no more.",
        "Ah Keong and me have fell out proper. Forget owt yow know about him, bab.",
    ],
)
def test_a_subject_asked_for_in_another_voice_goes(memory, request_text: str) -> None:
    left = _after(memory, request_text)
    assert not [t for t in left if "Keong" in t]
    assert [t for t in left if "Invaders" in t]
    assert _held(memory, "Keong") == []


def test_a_subject_named_in_the_turn_before_goes_for_what_you_have_on_her(memory) -> None:
    left = _after(
        memory, "Mrs Patel has left the school.", "She won't be teaching me anymore, so forget what you have on her."
    )
    assert not [t for t in left if "Patel" in t]
    assert _held(memory, "Patel") == []
    assert [t for t in left if "Invaders" in t]


@pytest.mark.parametrize(
    "request_text,gone,kept",
    [
        ("All my goals, please delete, I want to think again from zero.", "IELTS", "bullet points"),
        ("OK so all the rules I gave you for how to answer, you can throw them out.", "bullet points", "IELTS"),
    ],
)
def test_a_kind_said_first_goes_whole(memory, request_text: str, gone: str, kept: str) -> None:
    left = _after(memory, request_text)
    assert not [t for t in left if gone in t]
    assert [t for t in left if kept in t]


@pytest.mark.parametrize(
    "text",
    [
        "Throw them out of the house, the old chairs are rotten.",
        "Sorry, my mistake, the depot is in Leeds.",
        "Me and my brother took the car to the coast.",
    ],
)
def test_the_same_words_in_a_statement_forget_nothing(memory, text: str) -> None:
    assert not _deleted_after(memory, SAID, text)


def test_a_thing_named_after_the_request_goes_along_with_it(memory) -> None:
    for text in [
        "We're planning a choir tour to Bruges next June.",
        "The tour coach is booked with Dawson's.",
        "My accompanist is Mrs Lin.",
    ]:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn("The Bruges tour is off. Forget all of it, coach and all.", "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    left = [r.content for r in memory.memories(**U)]
    assert not [t for t in left if "Bruges" in t]
    assert not [t for t in left if "Dawson" in t]
    assert [t for t in left if "Lin" in t]
    assert _held(memory, "Dawson") == []


KINDS_SAID = [
    "To deploy, first run the tests, then tag the release, then push to prod.",
    "I prefer window seats on trains.",
    "My dog is called Biscuit.",
]


@pytest.mark.parametrize(
    "request_text,gone_kind",
    [
        ("Wipe all my routines.", "procedural"),
        ("Forget every procedure I taught you.", "procedural"),
        ("Bin all the workflows you have for me.", "procedural"),
        ("Drop every preference I've given you.", "preference"),
        ("Forget what I like and don't like.", "preference"),
        ("Forget how I like things done.", "preference"),
    ],
)
def test_a_kind_called_by_another_name_goes_and_the_rest_stays(memory, request_text: str, gone_kind: str) -> None:
    for text in KINDS_SAID:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.record_turn(request_text, "Done.", session_id="s2", **U)
    left = list(memory.memories(**U))
    assert not [r for r in left if r.kind == gone_kind]
    assert [r for r in left if "Biscuit" in r.content]


@pytest.mark.parametrize(
    "text",
    [
        "Clear out the workflows folder on the shared drive.",
        "Delete the processes that are hanging.",
        "Drop the routines from the dance show, they're too long.",
    ],
)
def test_a_kinds_name_in_a_task_forgets_nothing(memory, text: str) -> None:
    assert not _deleted_after(memory, KINDS_SAID, text)
