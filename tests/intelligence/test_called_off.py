"""A commitment called off leaves the context (kioko_intelligence/called_off.py, #33).

"We're going to Crete in August, flights are booked", then "Crete's off. ...": no change word the slot rules read and
no shared word with the new destination, so the Crete trip stayed in the context as current. A thing said to be off,
dead, on hold, deferred, cancelled ..., to slip to next sprint, or a name that cancelled on the user or took another
job, now supersedes the memory in force that holds all its words and says a commitment (a decision, a plan, or
"we'll / booked / offering ..." in its words); a step of a numbered plan is dropped from the plan instead.
A thing that is not a commitment ("the heating is off"), a pronoun ("all that's off"), a day off, and a name said
with another verb change nothing.

Real layers (memory:// and a SQLite file), real routing through the agent loop; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.called_off import all_off, called_off

U = {"user_id": "u"}


def _say(memory, first: str, then: str) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn(first, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    memory.record_turn(then, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)


def _current(memory) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        r.content
        for r in memory.memories(**U)
        if not r.metadata.get("superseded_by") and not r.content.startswith(("Summary", "Session"))
    ]


@pytest.mark.parametrize(
    ("first", "then", "old"),
    [
        (
            "We're going to Crete in August, flights are booked.",
            "Crete's off. My brother moved his wedding into August, so we've rebooked for Lisbon in October.",
            "Crete",
        ),
        (
            "The loyalty card launches in March, we agreed it at the team meeting.",
            "Loyalty card is on hold till after the summer, the till people can't integrate before then.",
            "launches in March",
        ),
        (
            "For the studio open day we've booked Crumbs & Co to do the food.",
            "Crumbs cancelled on us this morning, so Hattie's Kitchen is catering the open day.",
            "booked Crumbs",
        ),
        (
            "We're offering Priya the sous chef job.",
            "Priya took a job in Manchester, so the sous chef role has gone to Tomasz.",
            "offering Priya",
        ),
        (
            "Decision made: we're buying a second van for deliveries in the spring.",
            "Second van idea is dead, the numbers don't work.",
            "buying a second van",
        ),
    ],
)
def test_a_commitment_called_off_is_superseded(memory, first: str, then: str, old: str) -> None:  # type: ignore[no-untyped-def]
    _say(memory, first, then)
    assert not [c for c in _current(memory) if old in c]


@pytest.mark.parametrize(
    ("first", "then", "old"),
    [
        (
            "Sure look, we've decided Aoife's starting at the Gaelscoil in September.",
            "We're after holding off on the Gaelscoil for a year, she's not ready, so it's the playschool again.",
            "starting at the Gaelscoil",
        ),
        (  # paraphrase: on ice, a homeowner
            "We're going ahead with the loft conversion in March, the builder's booked.",
            "We've put the loft conversion on ice till the spring, the quote doubled.",
            "conversion in March",
        ),
        (  # paraphrase: someone else shelves it, a company secretary
            "Decision: we rebrand as Fernwood in the spring.",
            "The board shelved the rebrand at Tuesday's meeting, money's tight.",
            "rebrand as Fernwood",
        ),
        (  # paraphrase: decided against, a family holiday
            "We're going to Lisbon in May, flights booked.",
            "We've decided against Lisbon, too hot for Gran in May.",
            "Lisbon in May, flights",
        ),
    ],
)
def test_a_commitment_put_off_in_the_active_voice_is_superseded(memory, first: str, then: str, old: str) -> None:  # type: ignore[no-untyped-def]
    _say(memory, first, then)
    assert not [c for c in _current(memory) if old in c]


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        ("The heating comes on at 6 every morning.", "The heating is off, it's mild out.", "comes on at 6"),
        ("We're going to visit Dad on Sunday.", "Dad's off work this week.", "visit Dad"),
        ("We're going to Crete in August, flights are booked.", "Mum said all that's off for her.", "Crete"),
        ("We're offering Priya the sous chef job.", "Priya took the afternoon off.", "offering Priya"),
        # put off, but not the commitment: its words are not all held by it
        ("We're going to visit Dad on Sunday.", "I held off on the biscuits at the café.", "visit Dad"),
    ],
)
def test_what_is_no_commitment_called_off_stays(memory, first: str, then: str, kept: str) -> None:  # type: ignore[no-untyped-def]
    _say(memory, first, then)
    assert [c for c in _current(memory) if kept in c]


@pytest.mark.parametrize(
    ("plan", "then", "gone", "kept"),
    [
        (
            "Fundraiser plan for the year: bake sale in May, sponsored walk in June, auction in September.",
            "We're binning the auction, nobody will donate prizes.",
            "Auction in September",
            ["Bake sale in May", "Sponsored walk in June"],
        ),
        (
            "Sprint plan: 1) auth refactor 2) billing page 3) CSV export.",
            "Billing page slips to next sprint and the CSV export comes forward.",
            "Billing page",
            ["Auth refactor", "CSV export"],
        ),
        (
            "My plan for Chinese New Year: first go Guangzhou see my parents, after that go Hainan three days.",
            "Hainan cancel, ticket too expensive, I stay in Guangzhou the whole week.",
            "Hainan",
            ["Guangzhou see my parents"],
        ),
    ],
)
def test_a_step_called_off_leaves_its_plan_and_the_plan_stays(memory, plan: str, then: str, gone: str, kept) -> None:  # type: ignore[no-untyped-def]
    _say(memory, plan, then)
    plans = [c for c in _current(memory) if c.startswith(plan.split(":")[0].replace("My plan", "Plan"))]
    assert len(plans) == 1
    assert gone not in plans[0]
    assert all(k in plans[0] for k in kept)


@pytest.mark.parametrize(
    ("said", "things"),
    [
        ("Crete's off. We rebooked for Lisbon.", ["Crete"]),
        ("the resurfacing was deferred at last night's meeting", ["resurfacing"]),
        ("Billing page slips to next sprint.", ["Billing page"]),
        ("Mum got wind of the surprise, so all that's off.", []),  # a pronoun names nothing
        ("Monday's off for me.", []),  # a day off
        ("Dad's off work this week.", []),  # "off" does not end its clause
        ("We cancelled the gym.", []),  # the name before the verb is a pronoun
        # put off in the active voice (session 12)
        ("We're after holding off on the Gaelscoil for a year.", ["Gaelscoil"]),
        ("The board shelved the rebrand at Tuesday's meeting.", ["rebrand"]),
        ("We've put the loft conversion on ice till the spring.", ["loft conversion"]),
        ("It put me off the gym for good.", []),  # a person put off, not a thing
        ("Don't hold off on the invoice.", []),  # said not to
    ],
)
def test_the_things_a_turn_calls_off(said: str, things: list[str]) -> None:
    assert called_off(said) == things


MUM = "Plan for Mum's 70th: surprise dinner at Luigi's, then a slideshow back at ours."


def test_a_commitment_called_off_by_a_pronoun_is_the_one_its_sentence_names(memory) -> None:  # type: ignore[no-untyped-def]
    _say(memory, MUM, "Mum got wind of the surprise, so all that's off. She'd rather have lunch at the garden centre.")
    assert not [c for c in _current(memory) if "Surprise dinner" in c]
    assert [c for c in _current(memory) if "garden centre" in c]


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        ("The heating comes on at 6 every morning.", "The heating's broken again, so that's off.", "comes on at 6"),
        (MUM, "My back is killing me, so that's off.", "Surprise dinner"),  # names no commitment
    ],
)
def test_a_pronoun_called_off_naming_no_one_commitment_changes_nothing(
    memory, first: str, then: str, kept: str
) -> None:  # type: ignore[no-untyped-def]
    _say(memory, first, then)
    assert [c for c in _current(memory) if kept in c]


@pytest.mark.parametrize(
    ("said", "rest"),
    [
        ("Mum got wind of the surprise, so all that's off.", "Mum got wind of the surprise"),
        ("Rain all weekend. The whole thing's cancelled.", None),  # the sentence says nothing else
        ("That's off the table for now, I think.", None),  # "off" does not end the clause
    ],
)
def test_the_words_naming_what_a_pronoun_calls_off(said: str, rest: str | None) -> None:
    assert all_off(said) == rest
