"""A code, a number, a PIN and a combination name one thing of the user's data (#33, dev26): "Wipe every code and
password I've given you" after "The bike lock combination is 3-8-1-4." left the combination, which holds no word
"code" (`rules.FORGET_ALIASES`). A thing named with another word besides ("my phone number") still needs that word.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

from forget_scene_support import contents_after, holds

U = {"user_id": "cy"}


def test_every_code_takes_the_combination(memory) -> None:  # type: ignore[no-untyped-def]
    said = ["The bike lock combination is 3-8-1-4.", "Home wifi password is Marmalade!Skies.", "I coach netball."]
    contents = contents_after(memory, U, said, "Wipe every code and password I've given you, I'm changing them all.")
    assert not holds(contents, "3-8-1-4"), contents
    assert holds(contents, "netball"), contents


def test_a_phone_number_is_no_door_code(memory) -> None:  # type: ignore[no-untyped-def]
    """Must not: "number" finds a code, but "phone" is not in the door code's memory."""
    said = ["The door code at the studio is 4471.", "My mobile is 07700 900318."]
    contents = contents_after(memory, U, said, "Please forget my phone number.")
    assert holds(contents, "4471"), contents
    assert not holds(contents, "900318"), contents
