"""Forgetting what was said, asked with a verb that dismisses it (#33): "Scrap what I said about Dmitri", "You can
ignore the bit about my knee", "Never mind the Lisbon thing". The first was stored as an event (a false write,
and Dmitri kept), the third gated as chatter (Lisbon kept). Now each is read as "forget ...": the memories it
points at go, the others stay, and the request itself is never stored.

A dismissing verb forgets only with a pointer at something said ("what I said", "the ... thing / bit / stuff /
part"): "Never mind, the weather's fine" and "Scrap the old shed" stay what they were.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest

U = {"user_id": "noor"}
SAID = [
    "My knee has been sore since the marathon.",
    "We're thinking of a trip to Lisbon in May.",
    "My colleague Dmitri is moving to Oslo.",
    "I play the cello in a community orchestra.",
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


@pytest.mark.parametrize(
    "request_text,gone",
    [
        ("Scrap what I said about Dmitri.", "Dmitri"),
        ("You can ignore the bit about my knee.", "knee"),
        ("Never mind the Lisbon thing.", "Lisbon"),
        ("Actually, disregard the cello stuff.", "cello"),
        ("Just bin what I told you about Lisbon.", "Lisbon"),
    ],
)
def test_a_dismissed_statement_is_forgotten_and_the_request_not_stored(memory, request_text: str, gone: str) -> None:
    left, written = _after(memory, request_text)
    assert not [t for t in left if gone.lower() in t.lower()]
    assert len(left) == len(SAID) - 1
    assert written == []
    assert not [t for t in left if "scrap" in t.lower() or "never mind" in t.lower() or "ignore" in t.lower()]


@pytest.mark.parametrize("request_text", ["Never mind, the weather's fine today.", "Ignore me, just thinking aloud."])
def test_a_dismissal_pointing_at_nothing_said_forgets_nothing(memory, request_text: str) -> None:
    left, _ = _after(memory, request_text)
    for text in ("knee", "Lisbon", "Dmitri", "cello"):
        assert [t for t in left if text in t]


# -- a forget whose subject the turn's other sentence names, and other verbs


@pytest.mark.parametrize(
    "said,request_text,gone,kept",
    [
        (
            ["Gary Holt in flat 4 is three months behind on the rent.", "The boiler in flat 1 is brand new."],
            "Gary Holt has paid up and gone. Wipe everything you've got on him, I don't want it on file.",
            "Gary",
            "boiler",
        ),
        (
            ["My mentor at the beekeeping association is Clive Barrow.", "My apiary is at Hollins Farm."],
            "Clive and I have fallen out over the swarm business. Drop everything about him, please.",
            "Clive",
            "Hollins",
        ),
        (
            ["A parent, Mr Draper, keeps emailing me about homework.", "My class has 28 children."],
            "The Draper boy has moved schools, so you can forget everything about that family.",
            "Draper",
            "28 children",
        ),
        (
            ["We're planning a choir tour to Bruges next June.", "My accompanist is Mrs Lin."],
            "The Bruges tour is off. Forget all of it.",
            "Bruges",
            "Mrs Lin",
        ),
    ],
)
def test_a_pronoun_in_a_forget_is_the_name_the_turn_says(
    memory, said: list[str], request_text: str, gone: str, kept: str
) -> None:
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(request_text, "Done.", session_id="s2", **U)  # the turn's own statement is swept too
    left = [r.content for r in memory.memories(**U)]
    assert not [t for t in left if gone in t]
    assert [t for t in left if kept in t]


@pytest.mark.parametrize(
    "request_text",
    [
        "Scrub that pension number I gave you, my daughter says it shouldn't be floating about.",
        "Don't hang on to my pension number, the union says not to give it out.",
    ],
)
def test_other_verbs_of_forgetting_one_item(memory, request_text: str) -> None:
    memory.record_turn("My navy pension reference is PN-77310.", "Okay.", session_id="s1", **U)
    memory.record_turn("My daughter lives up in Bodmin.", "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(request_text, "Done.", session_id="s2", **U)
    left = [r.content for r in memory.memories(**U)]
    assert not [t for t in left if "PN-77310" in t]
    assert [t for t in left if "Bodmin" in t]
