"""A running figure said again replaces the tally it updates (kioko_intelligence/slot_tallies.py; #33): "Fundraiser
total is £3,450" after "The school fundraiser has raised £1,200 so far". Real layers (memory:// with the offline
embedder, and a SQLite file) through the agent loop."""

from __future__ import annotations

import re

import pytest

import kioko
from kioko_intelligence.slot_tallies import figures

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path) -> str:
    return (
        "memory://?embedder=offline" if request.param == "memory" else f"sqlite:///{tmp_path / 't.db'}?embedder=offline"
    )


def _say(url: str, *sessions: str):
    memory = kioko.intelligent(url)
    for n, text in enumerate(sessions, 1):
        memory.record_turn(text, "Noted.", session_id=f"s{n}", **U)
        memory.end_session(f"s{n}", **U)
    return memory


def test_figures_have_a_sort() -> None:
    assert figures("The fundraiser has raised £1,200 so far.") == [("£", "1200")]
    assert figures("We have 57 open bugs.") == [("bug", "57")]
    assert figures("The survey is 40% done.") == [("%", "40")]


@pytest.mark.parametrize(
    ("old", "new", "question", "value", "stale"),
    [
        (
            "The school fundraiser has raised £1,200 so far toward the new playground.",
            "Fundraiser total is £3,450 after the bake sale.",
            "How much has the fundraiser raised?",
            "3,450",
            "1,200",
        ),
        (
            "The petition has 800 signatures at the moment.",
            "Petition just passed 2,100 signatures!",
            "How many signatures does the petition have?",
            "2,100",
            "800",
        ),
    ],
)
def test_a_newer_figure_of_a_tally_replaces_it(url, old, new, question, value, stale) -> None:
    with _say(url, old, new) as memory:
        newer = next(r for r in memory.memories(**U) if value in r.content)
        assert newer.metadata.get("conflicts_with")
        text = memory.recall(question, session_id="probe", **U).text
        assert value in text
        assert stale not in re.sub(r"\(was: [^)]*\)", "", text)


OLD = "The school fundraiser has raised £1,200 so far toward the new playground."


@pytest.mark.parametrize(
    "new",
    [
        "The fundraiser's raffle made £300 on the night.",  # a part of the thing, not its tally
        "My sister's marathon for the hospice raised £900.",  # someone else's tally
        "Fundraiser volunteers numbered 40 on the day.",  # another sort of figure
    ],
)
def test_what_the_tally_rule_leaves_alone(url, new) -> None:
    with _say(url, OLD, new) as memory:
        marked = [r.content for r in memory.memories(**U) if r.metadata.get("conflicts_with")]
        assert marked == []


def test_a_figure_with_no_word_of_a_tally_is_left_alone(url) -> None:
    old = "The school fundraiser raised £1,200 toward the new playground in the spring."
    with _say(url, old, "Fundraiser total is £3,450 after the bake sale.") as memory:
        assert not [r for r in memory.memories(**U) if r.metadata.get("conflicts_with")]
