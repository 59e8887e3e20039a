"""The pronouns a user goes by are a profile slot: a set of pronouns ("she/her", "they/them") is a closed class of
the language, read in a turn whatever else it says, and a later set replaces the earlier one."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.profile_changes import _pronouns


@pytest.mark.parametrize(
    ("first", "then", "now", "before"),
    [
        (
            "Quick intro: I'm Robin, she/her, I run the bike co-op on Gloucester Road.",
            "Something to update on my end: they/them from now on please. It's felt right for a while.",
            "they/them",
            "she/her",
        ),
        (
            "hiya, Sam here (he/him), I do the late shift at the depot",
            "he/they is what I use now tbh",
            "he/they",
            "he/him",
        ),
        ("Pronouns: she/her. I teach year 6.", "Going by they/them these days, if you could.", "they/them", "she/her"),
        (
            "I'm Alex, they/them, nice to meet you.",
            "Honestly she/her feels right again, back to that.",
            "she/her",
            "they/them",
        ),
    ],
)
def test_a_later_set_of_pronouns_replaces_the_earlier(first: str, then: str, now: str, before: str) -> None:
    """Before, no set was a slot: "she/her" said beside a name was lost and "they/them from now on" was knowledge
    that "How should you refer to me?" did not find."""
    with kioko.intelligent("memory://") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(then, "Noted.", user_id="u", session_id="s2")
        memory.end_session("s2", user_id="u")
        context = memory.recall("How should the assistant refer to this user?", user_id="u", session_id="q").text
        assert f"User's pronouns are {now}" in context
        assert before not in context


@pytest.mark.parametrize(
    "said",
    [
        "My kid uses they/them now and school has been great about it.",  # someone else's
        "My friend Jo, she/her, is coming over later.",
        "Is it she/her or they/them for your new colleague?",  # two sets: whose is a guess
        "I never know whether to write he/she or they in reports.",
        "We split the bill 50/50.",
    ],
)
def test_a_set_that_is_not_the_users_sets_nothing(said: str) -> None:
    assert _pronouns(said) is None


def test_the_users_set_is_read() -> None:
    assert _pronouns("Quick intro: I'm Robin, she/her, I run the bike co-op.") == "she/her"
    assert _pronouns("ze/zir please") == "ze/zir"
