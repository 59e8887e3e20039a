"""A kind named with what qualifies it, and a refusal said after a clause of its own (#33, dev27).

- "All medical things about me, please delete": the kind's head is "things", and "about me" qualifies it. Before, the
  plural was made of the whole phrase ("... about mes"), no kind was read, and the bare "please delete" took nothing;
  "Can you bin every phone number I've given you?" likewise ("... given yous").
- "I've thought about it and I don't want you keeping anything about my kids": the refusal opens its own clause after
  "and". Before, it was read only at the start of a clause, and nothing went.
- "Neither of them.": a sentence of no content word of its own stores nothing (before: knowledge "Neither of them.").

Real layers on memory://, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_intelligence.forget_requests import kind_named, read_requests
from kioko_intelligence.language import says_nothing

U = {"user_id": "mo"}


def _after(memory, said: list[str], asked: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    return contents_after(memory, U, said, asked)


@pytest.mark.parametrize(
    ("thing", "kind"),
    [
        ("All medical things about me", "health"),
        ("every phone number I have given you", "phone numbers"),
        ("all the phone numbers I've given you", "phone numbers"),
        ("every goal I set", "goals"),
        # must not: unchanged readings
        ("every person", "people"),
        ("every due date", "deadlines"),
        ("all my family photos from the trip", None),
    ],
)
def test_a_kind_named_with_its_qualifier(thing: str, kind: str | None) -> None:
    assert kind_named(thing) == kind


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            [
                "I have type 1 diabetes since I was child.",
                "I take insulin pen, Novorapid, before meals.",
                "I am working as bus mechanic at depot in Vilnius.",
            ],
            ["All medical things about me, please delete. Employer can maybe see it."],
            ["diabetes", "Novorapid"],
            "mechanic",
        ),
        (
            [
                "I run a boarding kennels near Exeter.",
                "My vet is on 01392 555017.",
                "My sister's mobile is 07700 900442.",
            ],
            ["Can you bin every phone number I've given you?"],
            ["555017", "900442"],
            "kennels",
        ),
        (
            [
                "My son Oskar is eight and mad about dinosaurs.",
                "My daughter Lene starts nursery in January.",
                "I'm a glazier, mostly sash windows.",
            ],
            ["I've thought about it and I don't want you keeping anything about my kids. Neither of them."],
            ["Oskar", "Lene", "Neither"],
            "glazier",
        ),
    ],
)
def test_the_request_takes_the_kind(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, said, asked)
    for word in gone:
        assert not holds(contents, word), contents
    assert holds(contents, kept), contents


def test_a_refusal_after_and() -> None:
    requests = read_requests(["I've thought about it and I don't want you keeping anything about my kids."])
    assert [(r.thing, r.subject) for r in requests] == [("my kids", True)]


def test_and_before_a_statement_is_no_cut() -> None:
    """Must not: "and I don't want ..." of something else than the assistant is no refusal to keep."""
    assert read_requests(["I moved to Leeds and I don't want to go back to London."]) == []


@pytest.mark.parametrize(
    ("sentence", "empty"),
    [
        ("Neither of them.", True),
        ("All of it.", True),
        ("Both of them, Ana and Luis.", False),
        ("Not anymore.", False),
        ("It is 42.", False),
        ("Same here.", False),
    ],
)
def test_says_nothing(sentence: str, empty: bool) -> None:
    assert says_nothing(sentence) is empty
