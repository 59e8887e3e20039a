"""A number that names a thing ("line 2", "press 1") is part of the subject, not a value a newer turn replaces."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.labels import different_things, labels


def test_labels_are_numbers_after_a_noun_not_amounts_or_dates() -> None:
    assert labels("The line 2 conveyor jammed twice this morning.") == {"line": {"2"}}
    assert labels("We have 3 kids and lost 8 kilos by May 3.") == {}
    assert different_things("the line 2 conveyor jammed", "The line 1 conveyor jammed")
    assert not different_things("the line 2 conveyor jammed", "The line 2 conveyor stopped")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The line 1 conveyor jammed twice this morning.", "The line 2 conveyor jammed twice this morning."),
        ("Goal: Cut scrap on press 1 by 10% by March 31.", "Goal: Cut scrap on press 2 by 17% by March 31."),
    ],
)
def test_two_things_named_by_number_both_stay_current(first: str, second: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s")
        stored = list(memory.memories(user_id="u"))
        assert sorted(r.content for r in stored) == sorted([first, second])
        assert [r.content for r in stored if r.metadata.get("superseded_by")] == []


def test_a_statement_that_looks_like_a_new_value_of_many_memories_marks_none() -> None:
    """A slot holds one value: an unsure match with many memories is no conflict with each of them."""
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for line, code in ((5, 201), (6, 217), (3, 204), (4, 209), (7, 201)):
            memory.add(f"Line {line} keeps faulting with error E-{code} during the morning shift.", user_id="u")
        memory.record_turn(
            "I'm debugging ticket INC-4502, the drive shows error E-200 on line 1.",
            "Noted.",
            user_id="u",
            session_id="s",
        )
        marked = [r for r in memory.memories(user_id="u") if len(r.metadata.get("conflicts_with") or []) > 2]
        assert marked == []


def test_things_named_by_different_label_words_are_different_things() -> None:
    assert different_things("cut scrap on press 4 by 31% by march 31", "Goal: cut scrap on line 5 by 5%.")
    assert different_things("opc ua servers on cell 5 listen on port 204", "The UPS runs at 03:00 on server 3.")
    assert not different_things("we have 4 kids now", "We have 3 kids.")  # no label at all: a count


def test_a_label_after_an_article_names_a_thing_before_a_plural_noun() -> None:
    assert labels("use Grafana for the line 4 dashboards") == {"line": {"4"}}
    assert labels("we bought the 3 dashboards") == {}
    assert labels("we're 65 people now") == {}


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        # world statements sharing one stem ("server", "listen") and a number, each naming its own labelled thing
        ("The UPS runs at 03:00 on server 3.", "OPC UA servers on cell 5 listen on port 204 by default.", "episodic"),
        (
            "Redid lesson 82 of JLPT N3 listening.",
            "OPC UA servers on cell 5 listen on port 204 by default.",
            "episodic",
        ),
        (
            "Goal: cut scrap on line 5 by 5% before the quarterly review.",
            "My goal is to cut scrap on press 4 by 31%.",
            "goal",
        ),
        # a decision about line 3's dashboards is no older value of one about line 4's
        (
            "We decided to use Grafana for the line 3 dashboards because it alerts well.",
            "We decided to use Grafana for the line 4 dashboards because it alerts well.",
            None,
        ),
        # steps for a task are no newer value of an event that names the task's words
        (
            "The torque sensor on line 4 jammed again and the line stopped for 27 minutes.",
            "To clear a jam on line 4, press stop, then open the guard, then remove the bottle.",
            "episodic",
        ),
    ],
)
def test_a_world_statement_marks_no_other_thing_replaced(first: str, second: str, kind: str | None) -> None:
    """The agent loop's false marks (benchmarks/false_supersedes.py): none of these marks the first memory."""
    with kioko.intelligent("memory://?embedder=offline") as memory:
        if kind is None:
            memory.record_turn(first, "Noted.", user_id="u", session_id="s")
        else:
            memory.add(first, user_id="u", memory_type=kind)
        memory.record_turn(second, "Noted.", user_id="u", session_id="s")
        stored = list(memory.memories(user_id="u"))
        assert len(stored) == 2
        marked = [r.content for r in stored if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")]
        assert marked == []


def test_a_verb_in_s_after_the_number_is_no_plural_noun() -> None:
    assert labels("The Yunnan Dianhong from batch 150 was harvested in April.") == {"batch": {"150"}}
    assert labels("We have 3 kids.") == {}
    assert different_things(
        "the vision camera on station 6 lost focus after the 214 batch.",
        "The Yunnan Dianhong from batch 150 was harvested in April.",
    )
