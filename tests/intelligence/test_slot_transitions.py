"""A change of role or level said as what happened ("Made partner at Hart & Doyle") replaces the user's state
("I'm a senior associate at Hart & Doyle"); steps said anew replace the old steps."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slots import stepwise


def _current(memory: kioko.Memory) -> list[str]:
    return [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]


@pytest.mark.parametrize(
    ("state", "event"),
    [
        ("I'm a senior associate at Hart & Doyle.", "Made partner at Hart & Doyle this spring."),
        ("My Spanish is beginner level.", "Passed my B2 Spanish exam!"),
        ("I'm a staff nurse on the cardiology ward.", "Moved to the ICU last month, still nursing."),
    ],
)
def test_a_transition_replaces_the_users_state(state: str, event: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(state, "Noted.", user_id="u", session_id="s1")
        memory.record_turn(event, "Noted.", user_id="u", session_id="s2")
        current = _current(memory)
        assert len(current) == 1
        assert current[0].rstrip(".!") == event.rstrip(".!")


@pytest.mark.parametrize(
    ("state", "event", "question", "now", "before"),
    [
        (
            "I'm a staff nurse on the cardiac ward at the Royal Free.",
            "Passed my panel! Ward sister from the first of the month, and I get the navy uniform.",
            "What's my grade on the ward?",
            "Ward sister",
            "staff nurse",
        ),
        (
            "I'm a second officer on the Dover ferries.",
            "First officer from next month, the captain put me forward.",
            "What rank am I on the ferries?",
            "First officer",
            "second officer",
        ),
        (
            "I'm assistant manager at the Fenwick food hall.",
            "Store manager as of this week, same food hall.",
            "What is my job at the food hall?",
            "Store manager",
            "assistant manager",
        ),
    ],
)
def test_a_title_said_with_the_time_it_starts_replaces_the_users_state(
    state: str, event: str, question: str, now: str, before: str
) -> None:
    """Before, "Ward sister from the first of the month" (no verb) was no transition: the staff nurse stayed current."""
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(state, "Noted.", user_id="u", session_id="s1")
        memory.record_turn(event, "Noted.", user_id="u", session_id="s2")
        context = memory.recall(question, user_id="u").text
        assert now in context
        assert not any(before in line and "(was:" not in line for line in context.splitlines())


@pytest.mark.parametrize(
    "event",
    [
        "The shop is closed from Monday.",  # a verb: a statement of the world
        "Pizza from Dominos tonight.",  # no time it starts
        "Night shifts from next week, ugh, the rota's out.",  # no topic word of the state
        "I'm off from Monday.",
    ],
)
def test_what_a_title_with_a_time_leaves_alone(event: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("I'm a staff nurse on the cardiac ward.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn(event, "Noted.", user_id="u", session_id="s2")
        assert any("staff nurse" in c for c in _current(memory))


def test_a_transition_on_another_topic_leaves_the_state() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("I'm a senior associate at Hart & Doyle.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("Passed my B2 Spanish exam!", "Noted.", user_id="u", session_id="s2")
        assert len(_current(memory)) == 2


def test_steps_said_anew_with_a_change_word_replace_the_old_steps() -> None:
    assert stepwise("User's bread method: knead 10 min, prove 2 hours, bake at 220.")
    assert stepwise("For release, first we do code freeze on Wednesday, then QA sign-off, then deploy Friday.")
    assert not stepwise("Note: the bakery opens at 8.")
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(
            "my bread method: knead 10 min, prove 2 hours, bake at 220", "Ok.", user_id="u", session_id="s"
        )
        memory.record_turn(
            "switched to no-knead: mix, rest overnight in the fridge, bake in a dutch oven at 250",
            "Ok.",
            user_id="u",
            session_id="s",
        )
        current = _current(memory)
        assert len(current) == 1
        assert "overnight" in current[0]


def test_a_change_of_steps_is_kept_whole_not_cut_into_clauses() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(
            "For release, first we do code freeze on Wednesday, then QA sign-off, then deploy Friday.",
            "Ok.",
            user_id="u",
            session_id="s1",
        )
        memory.record_turn(
            "Release process is changed now: QA sign-off happens on every PR itself, and we deploy daily, no code freeze.",
            "Ok.",
            user_id="u",
            session_id="s2",
        )
        current = _current(memory)
        assert len(current) == 1
        assert "deploy daily" in current[0]
