"""A vector search of weight 0 is skipped only where it cannot change the answer (issue 34).

With the offline (lexical) embedder the vector signal weighs 0: a memory only the vector search finds joins
the list after the others, ranked by recency alone. Recall skips the search (the HNSW walk, the largest
cost of a recall in a large scope) when ``limit`` lexical candidates already score more than such a memory
could; these tests hold that the answer is then the one the search would have given, and that the search
still runs where it can place a memory (a question whose words find fewer than ``limit`` memories).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.recall import hybrid as recall_module

WORDS = (
    "garden tomato violin harbour lantern meadow copper ribbon saddle orchard pepper quilt anchor glacier "
    "bridge castle desert feather island"
).split()
QUESTIONS = [
    "When did she plant the tomato garden by the harbour?",
    "What did he say about the copper lantern?",
    "Which violin did they tune near the meadow?",
    "How long was the ribbon on the saddle?",
    "Tell me about the orchard and the pepper quilt",
    # words every memory holds (they nominate nothing, the vector search finds them) beside a rare and a
    # common one: the lexical list is weak past its first, and a time-telling memory gains in a "when" question
    "When did Alex and Sam talk about the zebra and the garden yesterday?",
    "Did Alex and Sam talk about the zebra and the kettle?",
    "When did Alex and Sam talk about the zebra, the giraffe and the kettle yesterday?",
]


@pytest.fixture(params=["memory", "sqlite"])
def layer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'skip.db'}"
    opened = kioko.connect(url, auto_link=False, embedder="offline")
    # the question's rare word, then a common one (50 memories, the most that still nominate here) that tells no
    # time: in a "when" question a newer memory only the vector search finds, which tells a time, outranks them
    texts = ["Sam: the zebra and the giraffe"] + [f"The kettle, number {i}" for i in range(50)]
    for i in range(200):
        # three words each, some shared by many memories and some by few, plus names every memory holds; half
        # of them tell a time
        picked = [WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)], WORDS[(i * 11 + 5) % len(WORDS)]]
        when = " yesterday" if i % 2 else ""
        texts.append(f"Alex and Sam talked about the {picked[0]}, the {picked[1]} and the {picked[2]}{when}")
    opened.add_many(
        [{"content": t, "created_at": 1_700_000_000.0 + 3600.0 * i} for i, t in enumerate(texts)], user_id="u"
    )
    yield opened
    opened.close()


def _counting_knn(layer: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = layer.store.knn

    def knn(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(layer.store, "knn", knn)
    return calls


@pytest.mark.parametrize("links", [0, 3])
def test_skipping_the_search_gives_the_answer_it_would_have_given(
    layer: Any, monkeypatch: pytest.MonkeyPatch, links: int
) -> None:
    skipped = {
        q: [m.record.id for m in layer.recall(q, user_id="u", links=links, limit=10).memories] for q in QUESTIONS
    }
    calls = _counting_knn(layer, monkeypatch)
    monkeypatch.setattr(recall_module, "_dense_cannot_place", lambda *args: False)
    searched = {
        q: [m.record.id for m in layer.recall(q, user_id="u", links=links, limit=10).memories] for q in QUESTIONS
    }
    assert calls[0] == len(QUESTIONS)  # the search ran this time, for every question
    assert searched == skipped


def test_the_search_is_skipped_where_the_words_fill_the_list_and_runs_where_they_do_not(
    layer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting_knn(layer, monkeypatch)
    assert len(layer.recall("the tomato garden by the harbour", user_id="u", links=0, limit=10).memories) == 10
    assert calls[0] == 0
    # no word of this question is held by a memory: only the vector search could place one
    layer.recall("zebra xylophone", user_id="u", links=0, limit=10)
    assert calls[0] == 1


def test_a_semantic_weight_always_searches(layer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting_knn(layer, monkeypatch)
    layer.recall("the tomato garden by the harbour", user_id="u", links=0, limit=10, config={"dense_weight": 0.5})
    assert calls[0] == 1
