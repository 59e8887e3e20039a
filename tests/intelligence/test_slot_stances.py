"""A stance reversed on the same topic supersedes the older one ("... is gross" after "... is the best")."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.stances import reversed_stance


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("pineapple on pizza is the best, don't @ me", "ok pineapple on pizza is gross, i was wrong"),
        ("We're keeping the Leeds office.", "We're closing the Leeds office and moving everyone to Manchester."),
        (
            "Enable the new checkout for all users on Monday.",
            "Disable the new checkout for everyone, it broke Apple Pay.",
        ),
        ("I'm accepting the offer from Brightwave.", "I'm declining the Brightwave offer, the salary didn't move."),
        ("For the record, I consider open-plan offices perfectly workable.", "Open-plan offices are unbearable."),
    ],
)
def test_the_opposite_judgement_or_action_supersedes(old: str, new: str) -> None:
    assert reversed_stance(new, old)
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
        memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
        current = [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]
        assert len(current) == 1


def test_a_negated_action_reverses_it() -> None:
    assert reversed_stance("Not renewing the Shoreditch lease.", "We'll renew the lease on the Shoreditch studio.")
    assert not reversed_stance("We'll renew the lease again.", "We'll renew the lease on the Shoreditch studio.")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I love the new bus route.", "The new bus route is very handy."),  # the same stance said again
        ("We're keeping the Leeds office.", "We're keeping the Leeds office and the Bristol one."),
        ("Pineapple on pizza is the best.", "Pineapple on pizza is the best and so is ham."),
    ],
)
def test_the_same_stance_is_no_reversal(old: str, new: str) -> None:
    assert not reversed_stance(new, old)


def test_a_reversal_on_another_topic_supersedes_nothing() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("I love the new bus route.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("Pineapple on pizza is gross.", "Noted.", user_id="u", session_id="s2")
        assert [r for r in memory.memories(user_id="u") if r.metadata.get("superseded_by")] == []
