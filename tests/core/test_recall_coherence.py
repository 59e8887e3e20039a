"""Session coherence (issue 34): without links followed, a match whose session holds other matches goes first.

Two memories hold the question's rare word alike. One sits in a session about the same thing (another of
its turns matches the question too); the other is a passing remark in a session about something else, and
it is the newer, so recency alone would put it first. With ``links=0`` the coherent one leads; with
``session_weight=0`` the order is recency's again; with links followed the links carry a session's context
and the signal is off (the order is the plain one).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.recall.coherence import named_period, session_coherent, session_mates, spoken_by_named
from kioko_core.store import Record

QUESTION = "Where did Mel go kayaking with the dog?"


@pytest.fixture(params=["memory", "sqlite"])
def layer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'coherence.db'}"
    opened = kioko.connect(url, auto_link=False, embedder="offline")
    day = 86_400.0
    rows = [
        ("trip", "Mel: We went kayaking, the water was calm.", 0.0),
        ("trip", "Sam: The lake looked gorgeous in your photos!", 60.0),
        ("trip", "Mel: Next time we will bring the dog along.", 120.0),
        ("work", "Sam: My report is due on Friday and I am behind.", day),
        ("work", "Mel: Kayaking helps me unwind after a week like that.", day + 60.0),
        ("work", "Sam: I should try it when the report is done.", day + 120.0),
    ]
    opened.add_many(
        [
            {"content": text, "session_id": session, "created_at": 1_700_000_000.0 + at, "id": f"m{i}"}
            for i, (session, text, at) in enumerate(rows)
        ],
        user_id="u",
    )
    yield opened
    opened.close()


def _order(layer: Any, **options: Any) -> list[str]:
    context = layer.recall(QUESTION, user_id="u", limit=6, **options)
    return [m.record.id for m in context.memories]


def test_a_match_among_matches_of_its_session_goes_first(layer: Any) -> None:
    order = _order(layer, links=0)
    assert order.index("m0") < order.index("m4")
    found = {m.record.id: m.signals for m in layer.recall(QUESTION, user_id="u", links=0, limit=6).memories}
    assert found["m0"]["session"] > 0
    assert "session" not in found["m4"]  # alone in its session among the matches


def test_off_the_order_is_recency_among_equal_matches(layer: Any) -> None:
    order = _order(layer, links=0, config={"session_weight": 0})
    assert order.index("m4") < order.index("m0")


def test_links_followed_leave_the_order_plain(layer: Any) -> None:
    assert _order(layer, links=3) == _order(layer, links=3, config={"session_weight": 0})


def _record(memory_id: str, session: str | None) -> Record:
    return Record(id=memory_id, user_id="u", kind="episodic", content=memory_id, session_id=session)


def test_each_candidate_gains_the_best_other_of_its_session() -> None:
    records = {
        "a": _record("a", "s1"),
        "b": _record("b", "s1"),
        "c": _record("c", "s1"),
        "d": _record("d", "s2"),
        "e": _record("e", None),
    }
    lexical = {"a": 4.0, "b": 2.0, "c": 1.0, "d": 3.0, "e": 5.0}
    raised = session_coherent(lexical, records, 0.5)
    assert raised == {"a": 5.0, "b": 4.0, "c": 3.0, "d": 3.0, "e": 5.0}


def test_two_best_of_a_session_tied_each_gain_the_other() -> None:
    records = {"a": _record("a", "s"), "b": _record("b", "s")}
    assert session_coherent({"a": 2.0, "b": 2.0}, records, 0.25) == {"a": 2.5, "b": 2.5}


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("When did Melanie go camping in July?", (None, 7)),
        ("Who did Maria have dinner with on May 3, 2023?", (2023, 5)),
        ("What did she plant in May?", (None, 5)),
        ("May I ask what she planted?", (None, None)),
        ("What did Joanna accomplish in January 2022?", (2022, 1)),
        ("What happened in 2021?", (2021, None)),
        ("What did she plant last spring?", (None, None)),
    ],
)
def test_the_period_a_question_names(question: str, period: tuple[int | None, int | None]) -> None:
    assert named_period(question) == period


def test_a_match_written_in_the_named_month_goes_first(tmp_path: Path) -> None:
    layer = kioko.connect("memory://", auto_link=False, embedder="offline")
    july = datetime(2023, 7, 10, tzinfo=UTC).timestamp()
    september = datetime(2023, 9, 10, tzinfo=UTC).timestamp()
    layer.add_many(
        [
            {"content": "Mel: We went hiking up the ridge.", "created_at": july, "id": "july"},
            {"content": "Mel: We went hiking by the river.", "created_at": september, "id": "september"},
        ],
        user_id="u",
    )
    found = layer.recall("Where did Mel go hiking in July?", user_id="u", links=0, limit=2).memories
    assert [m.record.id for m in found] == ["july", "september"]
    assert found[0].signals["period"] == 1.0
    plain = layer.recall("Where did Mel go hiking in July?", user_id="u", links=0, config={"period_weight": 0})
    assert [m.record.id for m in plain.memories] == ["september", "july"]  # recency alone
    layer.close()


PLACES = ("Lisbon", "Oslo", "Kyoto", "Quito", "Perth", "Cusco", "Hanoi", "Tunis", "Leeds", "Split")
MOODS = ("long", "short", "rainy", "sunny", "cheap", "costly", "quiet", "busy", "late", "early", "odd", "calm", "wild")


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_a_one_word_match_is_found_through_its_sessions_stronger_matches(store: str, tmp_path: Path) -> None:
    """The evidence holds one word of the question ("trip"), as do 130 memories in other sessions whose ids sort
    first (so they win the tie for the SESSION_POOL best matches); its session holds the question's strongest
    match. With ``session_mates`` the session lends the evidence back and the session signal lifts it into the
    first ten; without, it never becomes a candidate."""
    url = "memory://" if store == "memory" else f"sqlite:///{tmp_path / 'mates.db'}"
    layer = kioko.connect(url, auto_link=False, embedder="offline")
    start = 1_700_000_000.0
    rows = [
        {"content": "Sam: How was the kayaking trip, Mel?", "session_id": "lake", "id": "e0"},
        {"content": "Ann: Hot cocoa from a thermos, best part of the trip.", "session_id": "lake", "id": "e1"},
        {"content": "Sam: Sounds lovely, I want to come next time.", "session_id": "lake", "id": "e2"},
    ]
    rows += [
        {
            "content": f"Sam: The {MOODS[i % len(MOODS)]} trip to {PLACES[i % len(PLACES)]} was number {i}.",
            "session_id": f"travel-{i // 20}",
            "id": f"a{i:03d}",
        }
        for i in range(130)
    ]
    # other talk, so that "trip" (in 131 of 800 memories) is no word most memories hold
    rows += [
        {"content": f"Sam: Note {i} says the {PLACES[i % 10]} office opens at {i % 12 + 1}.", "id": f"n{i:03d}"}
        for i in range(670)
    ]
    layer.add_many([{**row, "created_at": start + 60.0 * i} for i, row in enumerate(rows)], user_id="u")
    question = "What did Mel have on the kayaking trip?"
    found = [m.record.id for m in layer.recall(question, user_id="u", links=0, limit=10).memories]
    assert "e1" in found
    assert found[0] == "e0"
    plain = [
        m.record.id
        for m in layer.recall(question, user_id="u", links=0, limit=10, config={"session_mates": 0}).memories
    ]
    assert "e1" not in plain
    layer.close()


def test_session_mates_scores_the_mates_by_their_words() -> None:
    records = {"a": _record("a", "s1"), "b": _record("b", "s2")}
    held = {
        "c": Record(id="c", user_id="u", kind="episodic", content="c", session_id="s1", terms=["t:trip", "t:cocoa"]),
        "d": Record(id="d", user_id="u", kind="episodic", content="d", session_id="s1", terms=["t:weather"]),
        "e": Record(id="e", user_id="u", kind="episodic", content="e", session_id="s2", terms=["t:trip", "t:kayak"]),
    }
    sessions = {"s:s1": ["a", "c", "d"], "s:s2": ["b", "e"]}
    asked: list[list[str]] = []

    def members(terms: Any) -> dict[str, list[str]]:
        asked.append(list(terms))
        return {t: sessions[t] for t in terms}

    read = lambda ids: {i: held[i] for i in ids}  # noqa: E731
    mates = session_mates({"a": 5.0, "b": 3.0}, records, {"t:trip": 1.5, "t:kayak": 4.0}, 1, members, read)
    assert mates == {"c": 1.5}  # only the best match's session; "d" holds no word of the question
    assert asked == [["s:s1"]]
    assert records["c"] is held["c"]
    assert session_mates({"a": 5.0, "b": 3.0}, records, {"t:trip": 1.5, "t:kayak": 4.0}, 2, members, read) == {
        "e": 5.5
    }  # "c" is among the records ranked already now


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_what_the_named_person_said_goes_before_the_same_words_said_to_them(store: str, tmp_path: Path) -> None:
    """Two memories hold the question's word alike; Sam's is the newer (recency alone puts it first), but the
    question names Mel, and Mel said the other one."""
    url = "memory://" if store == "memory" else f"sqlite:///{tmp_path / 'speaker.db'}"
    layer = kioko.connect(url, auto_link=False, embedder="offline")
    layer.add_many(
        [
            {"content": "Mel: Researching adoption agencies all week.", "created_at": 1_700_000_000.0, "id": "mel"},
            {"content": "Sam: Mel, your researching sounds tiring!", "created_at": 1_700_000_060.0, "id": "sam"},
        ],
        user_id="u",
    )
    found = layer.recall("What did Mel research?", user_id="u", links=0, limit=2).memories
    assert [m.record.id for m in found] == ["mel", "sam"]
    assert found[0].signals["speaker"] == 1.0
    assert "speaker" not in found[1].signals
    plain = layer.recall("What did Mel research?", user_id="u", links=0, limit=2, config={"speaker_weight": 0})
    assert [m.record.id for m in plain.memories] == ["sam", "mel"]  # recency alone
    layer.close()


@pytest.mark.parametrize(
    ("content", "question", "said"),
    [
        ("Caroline: I went to a support group.", "What did Caroline do?", True),
        ("Caroline: I went to a support group.", "what did caroline do?", True),
        ("Caroline: I went to a support group.", "What did Melanie do?", False),
        ("Mary Ann: I paint.", "What does Mary Ann paint?", True),
        ("Mary Ann: I paint.", "What does Ann paint, Mary?", False),
        ("Note: buy milk", "What did Caroline buy?", False),
        ("Caroline said: hello", "What did Caroline say?", False),  # no name and colon at the start
        ("I told Caroline: hello", "What did Caroline hear?", False),
    ],
)
def test_a_memory_is_said_by_the_name_it_opens_with(content: str, question: str, said: bool) -> None:
    records = {"m": Record(id="m", user_id="u", kind="episodic", content=content)}
    assert spoken_by_named(["m"], records, question) == ({"m"} if said else set())
