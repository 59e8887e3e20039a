"""A hedged change ("I think we have sort of ended up in Todmorden, I suppose") keeps its weight: the hedge lowers
a statement's importance, but not that of a change of something the user had, which was then dropped whole."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import importance

pytest.importorskip("kioko_core.embedding.semantic")  # the older memory is found by meaning

HEDGED = [
    (
        "I live in Leeds with my husband.",
        "I think we have sort of ended up in Todmorden, I suppose, the rent was kinder.",
        "Where do I live?",
        "Todmorden",
    ),
    (
        "We keep the boat at Brixham marina.",
        "I think we sort of ended up mooring her at Dartmouth, maybe.",
        "Where is the boat kept?",
        "Dartmouth",
    ),
    (
        "I shop at Sainsbury's every Saturday.",
        "Perhaps it's mostly Lidl now, I think, kind of cheaper.",
        "Where do I do my shopping?",
        "Lidl",
    ),
    (
        "My GP is Dr Okafor at the Elm Street surgery.",
        "I suppose it's sort of Dr Mensah I see now, I think, since the practices merged.",
        "Who is my GP?",
        "Mensah",
    ),
]


@pytest.mark.parametrize(("old", "new", "question", "now"), HEDGED)
def test_a_hedged_change_is_kept_and_marks_what_it_changes(old: str, new: str, question: str, now: str) -> None:
    """Before, "I think we have sort of ended up in Todmorden" scored 0.34 (a hedge, -0.15) and was not kept: Leeds
    stayed the only home; "ended up" was no change word either."""
    with kioko.intelligent("memory://?embedder=semantic") as memory:
        memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
        memory.end_session("s2", user_id="u")
        context = memory.recall(question, user_id="u", session_id="q").text
        assert now in context
        assert "(was:" in context


def test_a_hedge_without_a_change_word_still_lowers_importance() -> None:
    assert importance("episodic", "I think we sort of went to the pub after work") < importance(
        "episodic", "We went to the pub after work"
    )
    assert importance("episodic", "I think we sort of ended up in Todmorden now") == importance(
        "episodic", "We ended up in Todmorden now"
    )


@pytest.mark.parametrize(
    "said",
    [
        "I think we sort of went to the pub after work",
        "Maybe I'll get a takeaway tonight, I suppose",
        "I guess the match was kind of boring",
    ],
)
def test_a_hedge_with_no_change_word_keeps_its_penalty(said: str) -> None:
    plain = said
    for hedge in ("I think ", "sort of ", "Maybe ", ", I suppose", "I guess ", "kind of "):
        plain = plain.replace(hedge, "")
    assert importance("episodic", said) < importance("episodic", plain)
