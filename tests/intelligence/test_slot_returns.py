"""A return to an earlier value (kioko_intelligence/slot_returns.py): the memory that replaced it gives way.

Real layers (``kioko.intelligent(...)``), real routing; no mocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kioko

pytest.importorskip("kioko_core.embedding.semantic")  # the Arc -> Firefox change is found by meaning first


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://?embedder=semantic"
    return f"sqlite:///{tmp_path / 'returns.db'}?embedder=semantic"


def _said(url: str, *turns: str) -> kioko.Memory:
    memory = kioko.intelligent(url)
    for index, turn in enumerate(turns):
        memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index + 1}")
        memory.end_session(f"s{index + 1}", user_id="u")
    return memory


RETURNS = [
    (
        (
            "Please address me as Margaret.",
            "You may call me Maggie, dear, we're friends now.",
            "On reflection I'd rather you went back to Margaret. Only my sister uses the short form.",
        ),
        "What should you call me?",
        "Margaret",
        "Maggie",
    ),
    (
        (
            "I use Firefox for everything.",
            "Switched to Arc, Firefox felt slow.",
            "Arc ate all my RAM, so I'm back on Firefox.",
        ),
        "Which browser do I use?",
        "Firefox",
        "Switched to Arc",
    ),
]


@pytest.mark.parametrize(("turns", "question", "now", "before"), RETURNS)
def test_a_return_to_an_earlier_value_supersedes_the_value_that_replaced_it(
    url: str, turns: tuple[str, ...], question: str, now: str, before: str
) -> None:
    with _said(url, *turns) as memory:
        context = memory.recall(question, user_id="u").text
        assert now in context
        assert before not in context
        replacing = next(r for r in memory.memories(user_id="u") if before in r.content)
        assert replacing.metadata.get("superseded_by")  # kept in the history, out of the context


def test_moved_back_to_a_place_sets_the_location_again(url: str) -> None:
    """ "We've moved back to Leeds": the location slot's move words read "we've" as well as "we have"."""
    turns = (
        "We live in Leeds.",
        "We moved to York in the spring.",
        "We've moved back to Leeds, the York job fell through.",
    )
    with _said(url, *turns) as memory:
        assert memory.profile.get("location", user_id="u") == "Leeds"


@pytest.mark.parametrize(
    "then",
    [
        "I'm back to work after the holiday, so busy.",  # no named value
        "Can we go back to Margaret's question from earlier?",  # a question
        "My sister Margaret is back to her old self after the operation.",  # the value after "back to" is no name
    ],
)
def test_what_the_return_rule_leaves_alone(url: str, then: str) -> None:
    turns = ("Please address me as Margaret.", "You may call me Maggie, dear, we're friends now.", then)
    with _said(url, *turns) as memory:
        maggie = next(r for r in memory.memories(user_id="u") if "Maggie" in r.content)
        assert not maggie.metadata.get("superseded_by")


AGAIN = [
    (
        (
            "Everyone calls me Bex, has done since school.",
            "New job, fresh start: I'm introducing myself as Rebecca now, please use that with me.",
            "Bex again, please. Nobody at work could manage the long version.",
        ),
        "What should you call me?",
        "Bex",
        "Rebecca",
    ),
    (
        (
            "I use Firefox for everything.",
            "Switched to Arc, Firefox felt slow.",
            "Arc ate all my RAM, I'm on Firefox again.",
        ),
        "Which browser do I use?",
        "Firefox",
        "Switched to Arc",
    ),
    (
        (
            "Please address me as Margaret.",
            "You may call me Maggie, dear, we're friends now.",
            "It's Margaret again, if you please. Only my sister uses the short form.",
        ),
        "What should you call me?",
        "Margaret",
        "Maggie",
    ),
]


@pytest.mark.parametrize(("turns", "question", "now", "before"), AGAIN)
def test_a_named_value_said_again_is_a_return(
    url: str, turns: tuple[str, ...], question: str, now: str, before: str
) -> None:
    """Before, only "back to X" was a return: "Bex again, please" left "introducing myself as Rebecca" current."""
    with _said(url, *turns) as memory:
        context = memory.recall(question, user_id="u").text
        assert now in context
        assert before not in context


@pytest.mark.parametrize(
    "then",
    [
        "Talked to Margaret again today, my sister, lovely as ever.",  # someone talked to
        "Margaret again next week for the book club.",  # the clause goes on: no return
        "We did it again, won the quiz!",  # no named value
    ],
)
def test_what_the_again_reading_leaves_alone(url: str, then: str) -> None:
    turns = ("Please address me as Margaret.", "You may call me Maggie, dear, we're friends now.", then)
    with _said(url, *turns) as memory:
        maggie = next(r for r in memory.memories(user_id="u") if "Maggie" in r.content)
        assert not maggie.metadata.get("superseded_by")
