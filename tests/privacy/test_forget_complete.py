"""Forgets that forget (#33): a subject's memories that name it only as "he"/"she" go with it, a whole kind and
one item go when asked in the ways people ask, the request itself is never stored, and another user's memories,
the same words included, are never touched."""

from __future__ import annotations

from typing import Any

import pytest

import kioko
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import Scope

OTHER = "someone-else"


def stored_texts(memory: Any, user_id: str) -> str:
    """Every text the store holds for the user: memories, the entity graph and the session logs, as one string."""
    parts = []
    for agent in (None, "@graph", SESSIONS_AGENT):
        for record in memory.store.scan(Scope(user_id, agent)):
            parts += [record.content, repr(record.metadata)]
    return "\n".join(parts).lower()


def say(memory: Any, user_id: str, *sessions: list[str]) -> None:
    for number, turns in enumerate(sessions, start=1):
        for turn in turns:
            memory.record_turn(turn, "Okay.", user_id=user_id, session_id=f"s{number}")
        memory.end_session(f"s{number}", user_id=user_id)


DANA = [
    "My sister Dana just started a new job as a nurse.",
    "She works night shifts at St. Mary's hospital.",
    "She's also training for the Berlin marathon.",
    "I had lunch with my colleague Sam today.",
    "She thinks the new office is too far away.",
    "I took my kids to their swimming lesson.",
]


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'forget.db'}"
    with kioko.intelligent(url) as opened:
        yield opened


def test_a_pronoun_after_the_subject_is_the_subject_until_another_name(memory) -> None:
    say(memory, "dana-brother", DANA)
    say(memory, OTHER, DANA)
    before_other = stored_texts(memory, OTHER)

    listed = memory.forget_about("Dana", user_id="dana-brother", dry_run=True)
    contents = [m["content"] for m in listed["memories"]]
    assert any("night shifts" in c for c in contents)
    assert any("Berlin marathon" in c for c in contents)
    # "she" after Sam is named is Sam; "their" next to User is the user
    assert not any("office" in c or "swimming" in c for c in contents)
    assert "night shifts" in stored_texts(memory, "dana-brother")  # a dry run removes nothing

    done = memory.forget_about("Dana", user_id="dana-brother")
    assert done["deleted"] == len(listed["memories"])
    left = stored_texts(memory, "dana-brother")
    for gone in ("dana", "night shifts", "st. mary", "berlin marathon"):
        assert gone not in left, gone
    assert "office" in left
    assert "swimming" in left
    assert stored_texts(memory, OTHER) == before_other  # another user's identical memories are theirs


def test_a_pronoun_opening_a_later_session_is_the_subject_named_last(memory) -> None:
    say(
        memory,
        "dana-friend",
        ["My sister Dana just started a new job as a nurse.", "I also bought a new bike."],
        ["She got promoted to head nurse already.", "She loves her new team at St. Mary's."],
        ["I had lunch with my colleague Sam today.", "She thinks the new office is too far away."],
    )
    listed = [m["content"] for m in memory.forget_about("Dana", user_id="dana-friend", dry_run=True)["memories"]]
    assert any("head nurse" in c for c in listed)
    assert any("St. Mary" in c for c in listed)
    assert not any("office" in c for c in listed)  # the "she" after Sam is Sam, in whichever session
    memory.forget_about("Dana", user_id="dana-friend")
    left = stored_texts(memory, "dana-friend")
    for gone in ("dana", "head nurse", "st. mary"):
        assert gone not in left, gone
    assert "office" in left
    assert "bike" in left


def test_a_pronoun_never_becomes_an_entity_of_the_graph(memory) -> None:
    say(memory, "graph-user", ["My sister Dana works at Acme.", "She reports to Maria.", "He works at Globex."])
    subjects = {t.subject.lower() for t in memory.graph.relations("Maria", user_id="graph-user")}
    subjects |= {t.subject.lower() for t in memory.graph.relations("Globex", user_id="graph-user")}
    assert not subjects & {"she", "he"}


@pytest.mark.parametrize(
    ("request_text", "gone", "kept"),
    [
        ("Drop all the instructions I gave you about how to answer.", ["bullet points", "emojis"], ["dublin"]),
        ("Please clear out my preferences, they're outdated.", ["aisle seats", "coffee black"], ["dublin"]),
        ("Actually, I'd rather you didn't keep my birthday. Please erase it.", ["14 march"], ["aisle seats"]),
        ("Please don't remember my salary, remove it.", ["85k"], ["dublin", "aisle seats"]),
        ("Forget the licence plate I gave you.", ["kx19"], ["skoda"]),
        ("Forget Tom entirely, we're not friends anymore.", ["tom", "cargo airline"], ["skoda"]),
    ],
)
def test_a_request_to_forget_takes_what_it_names_and_is_never_stored(memory, request_text, gone, kept) -> None:
    first = [
        "Always reply in bullet points.",
        "Never use emojis when talking to me.",
        "I work as a nurse in Dublin.",
        "I prefer aisle seats when flying.",
        "I like my coffee black, no sugar.",
        "My birthday is on 14 March.",
        "I earn 85k a year at the agency.",
        "My car's licence plate is KX19 TPZ.",
        "I drive a blue Skoda Octavia.",
        "I went hiking with my friend Tom last weekend.",
        "He's a pilot for a cargo airline.",
    ]
    say(memory, "asker", first, [request_text])
    say(memory, OTHER, first)
    before_other = stored_texts(memory, OTHER)
    left = stored_texts(memory, "asker")
    for word in gone:
        assert word not in left, (request_text, word)
    for word in kept:
        assert word in left, (request_text, word)
    request_words = {"rather", "outdated", "entirely", "remove it", "drop all", "i gave you"}
    assert not any(word in left for word in request_words), left
    assert stored_texts(memory, OTHER) == before_other


@pytest.mark.parametrize(
    ("said", "request_text", "gone", "kept"),
    [
        # a role alone: the name the memories give it goes too
        (
            ["My ex, Jordan, still has my bike.", "Jordan texted me again last night."],
            "Delete everything about my ex.",
            ["jordan"],
            [],
        ),
        (
            ["Our dog is called Biscuit, he's a beagle.", "Biscuit hates the vet.", "I also run on Sundays."],
            "Forget about the dog.",
            ["biscuit", "vet"],
            ["sundays"],
        ),
        (
            ["My boss is called Henrik.", "Henrik wants the slides by Thursday."],
            "Forget everything about my boss.",
            ["henrik", "slides"],
            [],
        ),
        # a profile slot: the relation the managed turn wrote beside it goes too, whichever way it is named
        (["My employer is Deloitte.", "I live in Bristol."], "Please forget my employer.", ["deloitte"], ["bristol"]),
        (["I work at Asda as a shift lead.", "I live in Bristol."], "Forget where I work.", ["asda"], ["bristol"]),
        # "them" is the one name of the sentence the memories know; a note quoting a forgotten memory lets go of it
        (
            [
                "Client: Marlow Systems, logistics, 12 depots.",
                "Their COO wants a call every Monday.",
                "My other client, Penrose Bakeries, is on quarterly reviews.",
            ],
            "Contract with Marlow is over, please purge everything about them.",
            ["marlow", "every monday"],
            ["penrose"],
        ),
        # "all" and a category without "my": the deadlines, also one said as what must be delivered on a day
        (
            ["The grant report I must submit on 3 March.", "The audit is due on 20 May.", "I live in Ghent."],
            "Please clear all deadlines, they are in my calendar now.",
            ["3 march", "20 may"],
            ["ghent"],
        ),
        # held only by a summary point: the point goes ("Delete my X" of a slot is a forget, not a request)
        (["You can note my phone number, it's 07700 900123."], "Delete my phone number please.", ["900123"], []),
    ],
)
def test_a_forget_takes_the_names_relations_and_summary_points_of_what_it_names(
    memory, said: list[str], request_text: str, gone: list[str], kept: list[str]
) -> None:
    say(memory, "asker", said, [request_text])
    left = stored_texts(memory, "asker")
    for word in gone:
        assert word not in left, (request_text, word)
    for word in kept:
        assert word in left, (request_text, word)


def test_a_request_to_forget_everything_is_not_acted_on_and_not_stored(memory) -> None:
    say(
        memory,
        "wiper",
        ["I live in Lisbon and I do ceramics on weekends."],
        ["Please wipe your memory of me completely."],
    )
    left = stored_texts(memory, "wiper")
    assert "ceramics" in left
    assert "wipe" not in left


def test_a_remark_on_the_answer_is_no_summary_point(memory) -> None:
    say(memory, "critic", ["I'm a structural engineer.", "That answer was spot on, well done."])
    assert "spot on" not in stored_texts(memory, "critic")


def test_a_recap_question_shows_the_memories_of_that_session(memory) -> None:
    say(
        memory,
        "recap",
        ["Today I set up the CI pipeline with GitHub Actions."],
        ["I started a pottery class."],
        ["My favourite tea is genmaicha."],
    )
    first = memory.recall("What did we do in our first session?", user_id="recap", session_id="now").text
    last = memory.recall("What did we talk about last time?", user_id="recap", session_id="now").text
    assert "GitHub Actions" in first
    assert "genmaicha" in last
    assert "genmaicha" not in first


def test_a_subject_with_a_name_takes_what_its_session_said_under_the_name_alone(memory) -> None:
    """ "The Globex pitch": in the session that named the pitch, "The Globex buyer ..." is about it too; a later
    session's memory naming Globex for something else is not."""
    say(
        memory,
        "pitcher",
        ["We're pitching to Globex next Tuesday.", "The Globex buyer said the budget is tight."],
        ["Globex also sponsors our football team."],
        ["Forget all about the Globex pitch, it got cancelled."],
    )
    left = stored_texts(memory, "pitcher")
    assert "pitching" not in left
    assert "budget is tight" not in left
    assert "football" in left


def test_a_forget_of_what_was_said_about_a_thing_finds_it_by_its_other_words(memory) -> None:
    say(memory, "swimmer", ["I weigh 70 kilos.", "I swim twice a week."], ["Forget what I told you about my weight."])
    left = stored_texts(memory, "swimmer")
    assert "70 kilos" not in left
    assert "twice a week" in left


def test_reactions_store_nothing_and_what_the_user_did_is_shown_when_asked_about_them(memory) -> None:
    """Whole-sentence reactions are no write; "What do you know about me?" shows the user's newest facts and
    events (an event about the user is about them), not someone else's."""
    reactions = [
        "Sounds like a plan.",
        "Great suggestion, I'll try it.",
        "Sorry, I was away for a bit.",
        "brilliant, cheers mate",
    ]
    for text in reactions:
        report = memory.record_turn(text, "Okay.", user_id="pilot", session_id="s1")
        assert [op for op in report.ops if op.status == "applied"] == [], text
    memory.record_turn("I'm training to be a pilot in Dublin.", "Okay.", user_id="pilot", session_id="s1")
    memory.record_turn("My neighbour repainted her fence.", "Okay.", user_id="pilot", session_id="s1")
    memory.end_session("s1", user_id="pilot")
    text = memory.recall("What do you know about me?", user_id="pilot", session_id="s2").text
    assert "pilot" in text
    assert "sounds like a plan" not in stored_texts(memory, "pilot")
