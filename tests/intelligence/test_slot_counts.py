"""A count changed by what happened to it: the old count and the turn's change make its new total, so the old
statement gets the new total although the turn shares no word with it."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_counts import counts


def _after(first: str, second: str) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return list(memory.memories(user_id="u"))


def _current(stored: list[kioko.Record]) -> list[str]:
    return [r.content for r in stored if not r.metadata.get("superseded_by")]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Seven new altos joined, which takes us to 39.", [7, 39]),
        ("Sold the two in Dunstable, so it's four now.", [2, 4]),
        ("The app passed 1,200 users", [1200]),
        # a number word of tens and units is one count, hyphened or not
        ("Three chicks hatched, so that's twenty-six on the books", [3, 26]),
        ("thirty one kids on the trip", [31]),
        ("twenty-first birthday, ninety-nine problems", [99]),
        # a time, a date, a percentage, an ordinal, a code and a year are no counts
        ("Up at 7:30 on 14 October, 5% done, the 3rd try on HEK293 since 2019", []),
    ],
)
def test_counts_are_numbers_standing_alone(text: str, said: list[int]) -> None:
    assert [n for n, _ in counts(text)] == said


@pytest.mark.parametrize(
    ("first", "second", "now"),
    [
        (
            "We have 32 singers on the books.",
            "Seven new altos joined after the open evening, which takes us to 39.",
            "We have 39 singers on the books.",
        ),
        # an event holding a count ("booked up with ...") takes the new total as an event
        (
            "Booked up with 12 clients this month.",
            "Four cancellations, so eight.",
            "Booked up with eight clients this month.",
        ),
        (
            "I let out 6 flats in total, all in Bedfordshire.",
            "Completed on the sale of the two in Dunstable, so it's four to look after now.",
            "User let out four flats in total, all in Bedfordshire.",
        ),
        # a total said as a number word of tens and units, in other voices
        (
            "Humboldt colony's at 23 birds after the winter count.",
            "Good week on the penguin beat! Three chicks hatched overnight Tuesday, so that's twenty-six on the books.",
            "Humboldt colony's at twenty-six birds after the winter count.",
        ),
        (
            "The choir has 40 voices this term.",
            "Two sopranos moved away over the summer, leaving thirty-eight.",
            "The choir has thirty-eight voices this term.",
        ),
        # the old count said in words too (the index keeps "twelve" as its stem)
        (
            "We've got twelve hens in the run.",
            "A fox got two of them, so ten left.",
            "We've got ten hens in the run.",
        ),
        (
            "Our allotment society has twenty-one plots let.",
            "Four more let this spring, so twenty five now.",
            "Our allotment society has twenty five plots let.",
        ),
    ],
)
def test_the_old_count_takes_the_new_total(first: str, second: str, now: str) -> None:
    stored = _after(first, second)
    old = [r for r in stored if r.metadata.get("superseded_by")]
    assert len(old) == 1
    assert now in _current(stored)


@pytest.mark.parametrize(
    "second",
    [
        "Seven new altos joined after the open evening, which takes us to 40.",  # 32 + 7 is not 40
        "Seven new altos joined after the open evening, which takes us to thirty-eight.",  # nor 38
        "Seven of us went to the pub, so 39 pints later I'm home.",  # the total counts pints, not singers
        "Seven new altos joined after the open evening and 39 people came.",  # no outcome: two counts side by side
    ],
)
def test_a_total_the_arithmetic_does_not_tie_to_the_old_count_changes_nothing(second: str) -> None:
    stored = _after("We have 32 singers on the books.", second)
    assert [r for r in stored if r.metadata.get("superseded_by")] == []
    assert "We have 32 singers on the books." in _current(stored)


def test_two_counts_the_arithmetic_fits_change_neither() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("We have 32 singers on the books.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("The hall seats 46 people.", "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn("Seven joined, which takes us to 39.", "Noted.", user_id="u", session_id="s2")
        assert [r for r in memory.memories(user_id="u") if r.metadata.get("superseded_by")] == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "We still have 4 vials of the flu vaccine in the ward ref, good for this week na.",
            "Ubos na! The last vial went this morning, none left until the Friday delivery.",
        ),
        # the same in other words and voices
        ("I've got 3 jars of passata in the cupboard.", "Ran out of passata making the lasagne last night."),
        ("We have 2 spare rooms for guests.", "No spare rooms left now, my sister's moved in with her kids."),
        ("There are 12 tickets left for Saturday's gig.", "Saturday's tickets sold out this afternoon!"),
    ],
)
def test_a_count_come_to_nothing_replaces_the_old_count(first: str, second: str) -> None:
    stored = _after(first, second)
    old = [r for r in stored if r.metadata.get("superseded_by")]
    assert len(old) == 1 and counts(old[0].content)  # the old count, as the router kept it
    assert not any(counts(text) for text in _current(stored))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # another thing come to nothing
        ("We still have 4 vials of the flu vaccine in the ward ref.", "Ran out of milk this morning, typical."),
        # two counts in the old memory: not sure which came to nothing
        ("I have 2 cats and 3 dogs at home.", "No dogs left at the rescue centre, they all got homed."),
        # a question
        ("We still have 4 vials of the flu vaccine in the ward ref.", "Have we run out of vials yet?"),
    ],
)
def test_nothing_left_of_another_thing_changes_nothing(first: str, second: str) -> None:
    stored = _after(first, second)
    assert [r for r in stored if r.metadata.get("superseded_by")] == []


def _said_in_two_turns(first: str, change: str, total: str, same_session: bool = True) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(change, "Oh no.", user_id="u", session_id="s2")
        if not same_session:
            memory.end_session("s2", user_id="u")
        memory.record_turn(total, "Noted.", user_id="u", session_id="s2" if same_session else "s3")
        return list(memory.memories(user_id="u"))


@pytest.mark.parametrize(
    ("first", "change", "total", "now"),
    [
        (
            "Got 8 barrels of the Doom Bar in the cellar.",
            "Three went over the weekend.",
            "so five left",
            "Got five barrels of the Doom Bar in the cellar.",
        ),
        # the same in other words and voices: the change in one message, the total in the next
        (
            "We have 32 singers on the books.",
            "Seven new altos joined after the open evening!",
            "which takes us to 39",
            "We have 39 singers on the books.",
        ),
        (
            "We've got twelve hens in the run.",
            "fox took two of them last night",
            "ten now",
            "We've got ten hens in the run.",
        ),
    ],
)
def test_a_change_said_a_turn_before_its_total(first: str, change: str, total: str, now: str) -> None:
    stored = _said_in_two_turns(first, change, total)
    assert now in _current(stored)
    assert first not in _current(stored)


@pytest.mark.parametrize(
    ("change", "total", "same_session"),
    [
        ("Three went over the weekend.", "so six left", True),  # 8 - 3 is not 6
        ("Three went over the weekend.", "so five left", False),  # the change was said in another session
        ("Three went over the weekend.", "Is it five left?", True),  # a question
    ],
)
def test_a_total_the_turn_before_does_not_explain_changes_nothing(change: str, total: str, same_session: bool) -> None:
    stored = _said_in_two_turns("Got 8 barrels of the Doom Bar in the cellar.", change, total, same_session)
    assert "Got 8 barrels of the Doom Bar in the cellar." in _current(stored)
