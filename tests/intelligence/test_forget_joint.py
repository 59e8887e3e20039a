"""A forget of someone the user does something with takes the clause that speaks of the two of them as "we" right
after ("I'm in a double act with Kez, we're called Two Pints Short": "we're called Two Pints Short" is the act's
name) (#33, dev11): it stayed, and with it the act's name. A "we" further on, or after a memory that does not say the
user with the subject, is the user's own ("My sister Dana is a nurse." / "We're off to Crete in June.").

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

U = {"user_id": "kez"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["I'm in a double act with Kez, we're called Two Pints Short.", "My solo hour is called Mild Peril."],
            "Kez has gone solo. Wipe everything about Kez.",
            "Two Pints Short",
            "Mild Peril",
        ),
        (
            ["Me and Tomasz run a vintage stall, we're at Spitalfields on Sundays.", "I work weekdays at a bank."],
            "Forget everything about Tomasz, we've split the business.",
            "Spitalfields",
            "bank",
        ),
        (
            ["I play doubles with Anika, we train Tuesdays at the club.", "I teach maths at a sixth form."],
            "Please forget Anika entirely.",
            "Tuesdays",
            "maths",
        ),
    ],
)
def test_the_two_of_them_go_with_the_subject(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    assert not holds(contents, gone), contents
    assert holds(contents, kept), contents


@pytest.mark.parametrize(
    "said",
    [
        ["My sister Dana is a nurse in Leeds.", "We're off to Crete in June."],
        ["I'm in a band with Dana.", "I also teach guitar on Saturdays.", "We're off to Crete in June."],
    ],
)
def test_a_we_of_the_users_own_stays(memory, said: list[str]) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, "Forget everything about Dana.")
    assert not holds(contents, "Dana"), contents
    assert holds(contents, "Crete"), contents
