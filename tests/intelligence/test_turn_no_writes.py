"""Small talk stores nothing, and an emoji closing a sentence does not hide what it says (#33).

"Cheers, that's sorted then.", "Lovely, thanks love.", "Ah that explains it", "No worries at all." and "Brill,
speak tomorrow" were each stored as knowledge (false writes). "so that's 6 now 😭❤️" stored nothing: the
continuation rule reads a bare number closing its clause, and the emoji stood after it.

Real layers (``kioko.intelligent`` on memory:// and SQLite), real routing; no mocks.
"""

from __future__ import annotations

import pytest

from kioko_intelligence.normalise import normalise


@pytest.mark.parametrize(
    "said",
    [
        "Cheers, that's sorted then.",
        "Lovely, thanks love.",
        "Ah that explains it",
        "No worries at all.",
        "Brill, speak tomorrow",
        "Catch you later!",
        "ha, if only",
        "right, off out",
        "👍",
    ],
)
def test_small_talk_stores_nothing(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn(said, "You're welcome!", user_id="u", session_id="s1")
    assert [op.op for op in report.ops if op.status == "applied"] == []
    assert list(memory.memories(user_id="u")) == []


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("so that's 6 now 😭❤️", "So that's 6 now"),  # a turn without case gets its capitals
        ("🎉 Got the job!", "Got the job!"),
        ("Done ✅, moving on", "Done, moving on"),
        ("Done. 🎉 Next one", "Done. Next one"),
        ("I love 🍕 and pasta", "I love 🍕 and pasta"),  # an emoji standing for a word stays
    ],
)
def test_emoji_around_a_sentence_are_not_read(said: str, read: str) -> None:
    assert normalise(said) == read


def test_a_count_closed_by_an_emoji_replaces_the_last_count(memory) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn("i have 5 grandchildren 🥰", "Lovely!", user_id="u", session_id="s1")
    memory.end_session("s1", user_id="u")
    memory.record_turn("our Lucy had her baby boy last night!!", "Congratulations!", user_id="u", session_id="s2")
    memory.record_turn("so that's 6 now 😭❤️", "Wonderful!", user_id="u", session_id="s2")
    text = memory.recall("how many grandchildren do i have", user_id="u", session_id="probe").text
    assert "6 grandchildren" in text
    assert "5 grandchildren" not in text
