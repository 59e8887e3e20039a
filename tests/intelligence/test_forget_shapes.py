"""Requests to forget read by their shape (#33, :mod:`kioko_intelligence.forget_requests`): the act said with an
everyday verb ("bin that number"), as a refusal to keep ("don't file my ..."), or with only a pronoun for a thing
said before it ("The gym locker code, please remove it from your notes"), a subject named in the sentence before
("Marta and I fell out. Let go of anything you know touching her."), a kind called by another name ("Targets,
ambitions, all that: bin the lot"). Each takes what it points at and stores nothing of the request; a step of a
procedure with the same verbs ("then wipe") and a rule ("Don't store passwords in plain text") forget nothing.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import json

import pytest

from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import Scope

U = {"user_id": "ines"}
SAID = [
    "My gym locker code is 5561.",
    "My passport number is XK2290417.",
    "My blood test result was a cholesterol of 6.8.",
    "Marta lends me her car on Sundays.",
    "Marta's partner is called Joaquim.",
    "I want to swim a mile without stopping.",
    "The grant report is due on 14 March.",
    "I play the oboe in a wind band.",
]


def _after(memory, request_text: str) -> tuple[list[str], list[str]]:
    """The memories' texts after the request, and what the request's own turn wrote."""
    for text in SAID:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    written = [op.op for op in report.ops if op.status == "applied" and not op.op.startswith("memory.")]
    return [r.content for r in memory.memories(**U)], written


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
        ("The gym locker code, please remove it from your notes.", "5561"),
        ("Oi, bin that passport number, my sister says it's asking for trouble.", "XK2290417"),
        ("Actually, don't file my blood test result, I'd rather not see it.", "cholesterol"),
        ("Right, that passport number. Ditch it.", "XK2290417"),
        ("I withdraw the remark about my blood test; kindly retain no note of it.", "cholesterol"),
    ],
)
def test_an_item_asked_for_by_its_shape_goes_and_the_request_is_not_stored(memory, request_text, gone) -> None:
    left, written = _after(memory, request_text)
    assert not [t for t in left if gone.lower() in t.lower()]
    assert len(left) >= len(SAID) - 2  # the item's memory (and a slot written beside it) only
    assert [t for t in left if "oboe" in t]
    assert written == []
    assert _held(memory, gone) == []


def test_a_subject_named_before_its_pronoun_goes_with_the_sentence_naming_it(memory) -> None:
    left, written = _after(memory, "Marta and I fell out. Let go of anything you know touching her.")
    assert not [t for t in left if "Marta" in t or "Joaquim" in t]
    assert [t for t in left if "oboe" in t]
    assert written == []
    assert _held(memory, "Marta") == []


@pytest.mark.parametrize(
    "request_text,gone,kept",
    [
        ("Targets, ambitions, all that: bin the lot for me.", "swim a mile", "grant report"),
        ("Righto, turf every due date you've got for me.", "grant report", "swim a mile"),
    ],
)
def test_a_kind_called_by_another_name_goes_whole(memory, request_text, gone, kept) -> None:
    left, written = _after(memory, request_text)
    assert not [t for t in left if gone in t.lower()]
    assert [t for t in left if kept in t.lower()]
    assert [t for t in left if "oboe" in t]
    assert written == []


def test_a_request_not_to_keep_what_follows_keeps_none_of_it(memory) -> None:
    left, _ = _after(memory, "Off the record, and don't you dare save this: my PIN hint is Lemonade.")
    assert _held(memory, "Lemonade") == []
    assert len(left) == len(SAID)


@pytest.mark.parametrize(
    "text",
    [
        "To descale the kettle, fill it with vinegar, wait an hour, then wipe.",
        "Don't store passwords in plain text.",
        "Ditch that old sofa of the neighbours, it's falling apart.",
    ],
)
def test_the_same_verbs_in_a_step_a_rule_or_about_the_world_forget_nothing(memory, text) -> None:
    for said in SAID:
        memory.record_turn(said, "Okay.", session_id="s1", **U)
    before = sorted(r.content for r in memory.memories(**U))
    report = memory.record_turn(text, "Okay.", session_id="s1", **U)
    assert not [op for op in report.ops if op.op == "memory.delete" and op.status == "applied"]
    after = sorted(r.content for r in memory.memories(**U))
    assert set(before) <= set(after)
