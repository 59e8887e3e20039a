"""The other memories of a found memory's turn, brought to the context, and the change such a turn says (#33,
kioko_core.recall.turn_mates, kioko_intelligence.turn_mates, change_pairs.turn_says_change).

A turn the router splits into clauses stores each as its own memory; the question finds the clause that shares its
words ("The boiler engineer rang."), and the clause with the newer value ("He comes at 2pm instead") shares none.
Real layers on memory:// and SQLite files, driven through the agent loop.
"""

from __future__ import annotations

from functools import partial

import pytest
from sessions_support import lines_with, play_sessions, semantic_layer

from kioko_core.layer.hooks import LayerHooks
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.recall.turn_mates import PARTNERS, PER_PARTNER, bring_turn_mates, drop_mates_of
from kioko_core.store import Record, Scope
from kioko_intelligence.change_pairs import ENDED

U = {"user_id": "wanjiru"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    with semantic_layer(request.param, tmp_path) as layer:
        yield layer


_turns = partial(play_sessions, user_id=U["user_id"])


def _memories_part(text: str) -> str:
    """A context's text without its links section (a link line quotes the memories it joins)."""
    return text.split("How these memories connect")[0]


def _turn_of(memory, text: str) -> int | None:
    [record] = [r for r in memory.memories(**U) if text in r.content]
    return record.metadata.get("turn")


# --- what failed before: the clause with the newer value never reached the context


@pytest.mark.parametrize(
    ("sessions", "question", "new", "old"),
    [
        (
            [
                ["The inspection of the boiler is at 9am on Tuesday."],
                ["The boiler engineer rang. He comes at 2pm instead, same day."],
            ],
            "What time is the boiler inspection?",
            "2pm",
            "9am",
        ),
        (
            [
                ["Parents evening is on Thursday at 6pm."],
                ["The school sent a letter about parents evening. It is on Monday at 5pm instead."],
            ],
            "When is parents evening?",
            "Monday at 5pm",
            "Thursday at 6pm",
        ),
    ],
    ids=["engineer", "letter"],
)
def test_the_clause_with_the_newer_value_comes_with_its_turn_and_shows_the_older_as_was(
    memory, sessions, question, new, old
) -> None:
    _turns(memory, sessions)
    text = _memories_part(memory.recall(question, session_id="p", **U).text)
    [line] = lines_with(text, new)
    assert "(was:" in line and old in line.split("(was:")[1]
    assert lines_with(text, old) == [line]  # the old value only inside the note


def test_every_memory_a_turn_writes_carries_its_number(memory) -> None:
    _turns(memory, [["The boiler engineer rang. He comes at 2pm instead, same day."], ["Our cat is called Miso."]])
    first, second = _turn_of(memory, "engineer rang"), _turn_of(memory, "2pm instead")
    assert first is not None and first == second
    assert _turn_of(memory, "Miso") == first + 1


# --- what it must leave alone


@pytest.mark.parametrize(
    ("sessions", "question", "both"),
    [
        (  # another thing beside the older: an adding word
            [
                ["The wedding reception is at the Grand Hotel."],
                ["The Grand Hotel cancelled the spa booking. We also booked the Old Mill barn for the ceilidh."],
            ],
            "Where is the wedding reception?",
            ("The wedding reception is at the Grand Hotel", "Old Mill"),
        ),
        (  # a turn that says no change: its clauses are shown, none in place of the older
            [
                ["The wedding reception is at the Grand Hotel."],
                ["The Grand Hotel sent the menu cards today. My sister designed the invitations."],
            ],
            "Where is the wedding reception?",
            ("The wedding reception is at the Grand Hotel",),
        ),
    ],
    ids=["adding", "no-change"],
)
def test_a_turn_mate_replaces_nothing_when_its_turn_says_no_change(memory, sessions, question, both) -> None:
    _turns(memory, sessions)
    text = memory.recall(question, session_id="p", **U).text
    assert "(was:" not in text
    for value in both:
        assert lines_with(text, value)


def test_the_core_alone_numbers_no_turns_and_brings_no_turn_mate(memory) -> None:
    _turns(memory, [["The boiler engineer rang. He comes at 2pm instead, same day."]])
    records = list(memory.memories(**U))
    assert memory.hooks.turn_mates(memory, Scope(U["user_id"]), records)  # the intelligence's reader finds them
    assert LayerHooks().turn_mates(memory, Scope(U["user_id"]), records) == {}


# --- the core's part, with a reader of its own


def _recalled(content: str, score: float, signals: dict[str, float], section: str = "memories") -> RecalledMemory:
    return RecalledMemory(Record(id=content, user_id="u", content=content, kind="semantic"), score, signals, section)


def test_only_the_best_found_memories_bring_their_turn_mates_each_a_few() -> None:
    found = {f"f{n}": _recalled(f"f{n}", 1.0 - n / 10, {"lexical": 1.0, "rrf": 0.1}) for n in range(PARTNERS + 1)}
    linked = _recalled("linked", 2.0, {"graph": 1.0})
    goal = _recalled("goal", 3.0, {"goal": 1.0}, "goals")
    recalled = {**found, "linked": linked, "goal": goal}
    asked: list[list[str]] = []

    def reader(scope: Scope, records: list[Record]) -> dict[str, list[Record]]:
        asked.append([r.id for r in records])
        return {
            r.id: [Record(id=f"{r.id}-m{k}", user_id="u", content=f"mate {k}", kind="semantic") for k in range(4)]
            for r in records
        } | {"f0": [Record(id="hidden", user_id="u", content="gone", kind="semantic")]}

    added = bring_turn_mates(recalled, {"linked"}, reader, Scope("u"), lambda r: r.id != "hidden")
    # the PARTNERS best searched memories found by words or meaning: not the linked one, not the goal
    assert asked == [[f"f{n}" for n in range(PARTNERS)]]
    assert "hidden" not in recalled
    assert added == {f"f{n}-m{k}": f"f{n}" for n in range(1, PARTNERS) for k in range(PER_PARTNER)}
    mate = recalled["f1-m0"]
    assert mate.signals["turn"] == 1.0 and mate.score < found["f1"].score  # just below its partner


def test_the_turn_mates_of_a_memory_shown_as_an_older_value_leave_with_it() -> None:
    recalled = {
        "old-mate": _recalled("old-mate", 0.5, {"turn": 1.0}),
        "new-mate": _recalled("new-mate", 0.5, {"turn": 1.0}),
        "noted-mate": _recalled("noted-mate", 0.5, {"turn": 1.0}),
    }
    recalled["noted-mate"].was = "an older one"  # itself shown in place of another: it stays
    added = {"old-mate": "old", "new-mate": "new", "noted-mate": "old"}
    assert drop_mates_of(recalled, added, {"old"}) == ["old-mate"]
    assert set(recalled) == {"new-mate", "noted-mate"}


def test_no_reader_brings_nothing() -> None:
    recalled = {"a": _recalled("a", 1.0, {"lexical": 1.0})}
    assert bring_turn_mates(recalled, set(), None, Scope("u"), lambda r: True) == {}
    assert list(recalled) == ["a"]


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("The STM has cut my line.", True),
        ("Second van idea is dead, the numbers don't work.", True),
        ("June's off, the boiler died.", True),
        ("Second restaurant, not Markham anymore.", True),
        ("Line 4 has a dead handset.", False),  # a thing's state, not an ending
        ("The boiler engineer rang.", False),
    ],
)
def test_an_ending_is_what_a_turn_says_of_the_earlier_plan_not_a_things_state(text: str, ends: bool) -> None:
    assert (ENDED.search(text) is not None) is ends
