"""A value given to a thing by someone else's sentence: the newer statement's subject is who says it, and its
predicate names the older statement's thing again (kioko_intelligence/slot_subjects.py ``_named_again``; #33).

"Crits for the third-year architecture students are on Thursday 12 March", then "Head of school wants the third-year
crits done on the 19th": both sentences open on a capitalised word ("Crits", "Head"), which the subject rule reads as
two names, so the two statements looked like two things ("db-01" / "db-02") and the old date stayed in force beside
the new one. When the newer predicate says the older subject's words again, its own subject is the one who sets the
value, not another thing. Two things of one head noun ("the Berlin team" / "the Madrid team") and a subject the
newer predicate does not name stay two things.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_subjects import different_subjects


def _after(first: str, second: str) -> list[kioko.Record]:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s2")
        return list(memory.memories(user_id="u"))


def _marked(stored: list[kioko.Record]) -> list[kioko.Record]:
    return [r for r in stored if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")]


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "Crits for the third-year architecture students are on Thursday 12 March.",
            "Head of school wants the third-year crits done on the 19th, she's away the week before.",
            "12 March",
        ),
        (  # paraphrase: a choir's rehearsal, moved by the vicar
            "Rehearsals for the nativity are on Tuesday 3 December in the church hall.",
            "Vicar would rather have the nativity rehearsals on the 10th, the hall is double booked.",
            "3 December",
        ),
        (  # paraphrase: a landlord's inspection, a tenant's voice
            "Inspection of the boiler is on the 14th, a Gas Safe engineer.",
            "Landlord says the boiler inspection has to be on the 9th, his engineer is away after.",
            "14th",
        ),
    ],
)
def test_a_value_given_to_the_older_thing_by_someone_else_replaces_it(first: str, second: str, old: str) -> None:
    stored = _after(first, second)
    marked = _marked(stored)
    assert len(marked) == 1 and old in marked[0].content


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # another thing of the same kind: the newer predicate does not name the older subject
        ("Rehearsals for the play are on Tuesday 3 December.", "Auditions for the panto are on Friday 6 December."),
        # two things of one head noun, the older named only in a comparison
        ("The Berlin team has 8 engineers.", "The Madrid team has 5 engineers, fewer than Berlin."),
    ],
)
def test_another_thing_stays_beside_the_older_one(first: str, second: str) -> None:
    assert _marked(_after(first, second)) == []


def test_the_rule_reads_the_older_subject_in_the_newer_predicate() -> None:
    old = "Crits for the third-year architecture students are on Thursday 12 March."
    assert not different_subjects("Head of school wants the third-year crits done on the 19th.", old)
    assert different_subjects("Auditions for the panto are on the 19th.", old)
    assert different_subjects("db-02 has 32GB, twice db-01.", "db-01 has 16GB.")  # an identifier is a value
