"""Repeats (issue 34): a memory that says largely what a better-ranked one says takes a place only when no
other memory is left for it.

Four memories repeat one remark about the blue kayak, each with its own ending, and they are the newest: they
hold more of the question's words than the one other memory about the kayak, so without the collapse they fill
the first places. With it the first of them stays first, the other memory comes next, and the repeats take the
places left; nothing is dropped. It holds with links followed and without, on memory:// and SQLite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.recall.repeats import repeats, repeats_last, word_runs

QUESTION = "Where did Mel get the blue kayak?"
REMARK = "Mel: the blue kayak from the harbour shop is the best thing I own"
ENDINGS = ("and it floats well", "so I paddle daily", "even in the rain", "since last June")


@pytest.fixture(params=["memory", "sqlite"])
def layer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'repeats.db'}"
    opened = kioko.connect(url, auto_link=False, embedder="offline")
    rows = [("other", "Sam: Mel said the kayak came from her uncle's garage sale.")]
    rows += [(f"r{i}", f"{REMARK} {ending}.") for i, ending in enumerate(ENDINGS)]
    rows += [(f"x{i}", f"Sam: the weather report for day {i} says rain.") for i in range(6)]
    opened.add_many(
        [
            {"content": text, "session_id": f"s{i}", "created_at": 1_700_000_000.0 + 3_600 * i, "id": memory_id}
            for i, (memory_id, text) in enumerate(rows)
        ],
        user_id="u",
    )
    yield opened
    opened.close()


def _order(layer: Any, links: int, **config: Any) -> list[str]:
    context = layer.recall(QUESTION, user_id="u", links=links, limit=5, config=config or None)
    return [m.record.id for m in context.memories]


@pytest.mark.parametrize("links", [0, 3])
def test_repeats_give_way_to_another_memory(layer: Any, links: int) -> None:
    plain = _order(layer, links, repeat_share=0)
    assert plain[:4] == ["r3", "r2", "r1", "r0"]  # the newest first among equal matches
    collapsed = _order(layer, links)
    assert collapsed[:2] == ["r3", "other"]
    assert collapsed[2:] == ["r2", "r1", "r0"]  # the repeats keep their order and fill what is left


def test_a_wider_pool_is_read_only_without_links(layer: Any) -> None:
    assert _order(layer, 0, repeat_pool=0)[:2] == ["r3", "other"]  # the selection still collapses them


def test_word_runs_and_repeats() -> None:
    assert word_runs("One two three four") == {"one two three", "two three four"}
    assert word_runs("Hi there") == {"hi there"}
    assert word_runs("Hi there, you") != word_runs("Hi there you two")  # a run of two words is not one of three
    assert word_runs("...") == frozenset()
    first = word_runs(f"{REMARK} {ENDINGS[0]}.")
    second = word_runs(f"{REMARK} {ENDINGS[1]}.")
    assert repeats(second, first, 0.5)
    assert not repeats(word_runs("Sam: Mel said the kayak came from a sale."), first, 0.3)
    assert not repeats(frozenset(), first, 0.3)


def test_repeats_last_keeps_order_and_count() -> None:
    texts = {"a": "we went to the lake by the old mill", "b": "we went to the lake by the old mill again", "c": "x y"}
    assert repeats_last(["a", "b", "c"], texts.__getitem__, 0.5, 3) == ["a", "c", "b"]
    assert repeats_last(["a", "b", "c"], texts.__getitem__, 0.5, 2) == ["a", "c"]
    assert repeats_last(["a", "b", "c"], texts.__getitem__, 0.0, 2) == ["a", "b"]
    assert repeats_last(["a", "b"], texts.__getitem__, 0.5, 5) == ["a", "b"]


def test_the_counted_collapse_is_the_pairwise_rule() -> None:
    """repeats_last counts a candidate's shared runs through a map of the kept memories' runs; on texts built to
    share wording in every degree, it keeps and defers exactly what comparing each pair with repeats() does."""
    import random

    words = [f"w{i}" for i in range(12)]
    draw = random.Random(7)
    texts = {f"m{i}": " ".join(draw.choice(words) for _ in range(draw.randint(1, 14))) for i in range(300)}
    ids = list(texts)

    def pairwise(wanted: int) -> list[str]:
        kept: list[str] = []
        later: list[str] = []
        for memory_id in ids:
            if len(kept) >= wanted:
                break
            runs = word_runs(texts[memory_id])
            if any(repeats(runs, word_runs(texts[k]), 0.5) for k in kept):
                later.append(memory_id)
            else:
                kept.append(memory_id)
        return (kept + later)[:wanted]

    for wanted in (5, 40, 300):
        assert repeats_last(ids, texts.__getitem__, 0.5, wanted) == pairwise(wanted)


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_repeats_give_their_places_in_the_session_pool(store: str, tmp_path: Path) -> None:
    """150 memories repeat one remark about the kayak, each with its own ending, and one other memory holds the
    question's word as they do: all 151 tie, and the repeats' ids sort first, so they filled the 100 places the session
    signals read and the other memory was never a candidate. With ``distinct_read`` the repeats give their places
    there to the next matches, and the other memory comes second (after the first of the repeats)."""
    url = "memory://" if store == "memory" else f"sqlite:///{tmp_path / 'distinct.db'}"
    layer = kioko.connect(url, auto_link=False, embedder="offline")
    rows = [
        {"content": f"{REMARK} and that was note {i}.", "session_id": f"talk-{i // 40}", "id": f"r{i:03d}"}
        for i in range(150)
    ]
    rows.append({"content": "Ann: my sister borrowed the kayak for the weekend.", "session_id": "lake", "id": "zz"})
    # other talk, so that "kayak" (in 151 of 851 memories) is no word most memories hold
    rows += [
        {"content": f"Sam: memo {i} says the office opens at {i % 12 + 1}.", "id": f"n{i:03d}"} for i in range(700)
    ]
    layer.add_many([{**row, "created_at": 1_700_000_000.0 + 60.0 * i} for i, row in enumerate(rows)], user_id="u")
    question = "Who has the kayak?"
    distinct = {"distinct_read": 200}
    found = [m.record.id for m in layer.recall(question, user_id="u", links=0, limit=10, config=distinct).memories]
    assert found[1] == "zz"
    assert found[0].startswith("r")
    plain = layer.recall(question, user_id="u", links=0, limit=10).memories  # off by default
    assert "zz" not in [m.record.id for m in plain]
    layer.close()
