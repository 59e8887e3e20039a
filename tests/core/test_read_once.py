"""A question and a new memory are read once (issue 22): ``analyze()`` runs once per recall and once per written
memory, and the user's entity graph is matched once, whatever reads the text afterwards (planner, retrieval,
the context's sections; the embedder and the linker).

The calls are counted with an interpreter profile hook (``sys.setprofile``) on the code objects of
:func:`kioko_core.reading.analysis.analyze` and :meth:`EntityGraph.match_entities`: every call is seen, however a module
imported the function, and the functions run as they always do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from call_support import calls_during

import kioko
from kioko_core.embedding.embedders import OfflineEmbedder
from kioko_core.graph.entities import EntityGraph
from kioko_core.linking.links import SHARED_USER, entities_of
from kioko_core.reading import analysis as text
from kioko_core.reading.analysis import analyze
from kioko_core.reading.query_and_draft import Query

USER = "kumar"
QUESTION = "What did Kumar do about Line 3 on press 4?"
WATCHED = {text.analyze.__code__: "analyze", EntityGraph.match_entities.__code__: "match"}


def counted(action: Callable[[], Any]) -> tuple[Any, Counter[str]]:
    """What ``action`` returns, and how often it called analyze() and match_entities()."""
    return calls_during(WATCHED, action)


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'read-once.db'}"


@pytest.fixture
def layer(url: str) -> Iterator[kioko.MemoryLayer]:
    """A linking layer whose user's entity graph knows the names the question uses."""
    with kioko.connect(url, auto_link=True) as memory:
        memory.entities.add("Kumar", "maintains", "Line 3", user_id=USER)
        memory.entities.add("Line 3", "feeds", "press 4", user_id=USER)
        memory.add_many(
            [
                {"content": "Line 3 jammed again at the infeed", "memory_type": "episodic", "session_id": "s1"},
                {"content": "Kumar reseated the sensor on Line 3", "memory_type": "episodic", "session_id": "s1"},
                {"content": "Press 4 needs its seal checked weekly", "memory_type": "procedural"},
                {"content": "Goal: keep Line 3 running all week", "memory_type": "goal"},
            ],
            user_id=USER,
        )
        yield memory


def test_each_write_reads_its_content_once(layer: kioko.MemoryLayer) -> None:
    record, calls = counted(lambda: layer.add("Kumar swapped the belt on Line 3", user_id=USER))
    assert calls == {"analyze": 1, "match": 1}
    assert "line 3" in entities_of(record)  # the linker read the graph's names

    _, calls = counted(lambda: layer.add("Always log the press 4 counter", user_id=USER, memory_type="instruction"))
    assert calls == {"analyze": 1}  # an unlinked kind: read for the embedder only, no names matched

    texts = ["Press 4 stopped twice today", "Kumar ordered a new seal for press 4", "Line 3 restarted at noon"]
    written, calls = counted(lambda: layer.add_many(texts, user_id=USER, memory_type="episodic"))
    assert [r.content for r in written] == texts
    assert calls == {"analyze": 3, "match": 3}

    _, calls = counted(lambda: layer.update(record.id, user_id=USER, content="Kumar swapped both belts on Line 3"))
    assert calls == {"analyze": 1, "match": 1}


@pytest.mark.parametrize("call", ["recall", "context", "include_shared"])
def test_a_plain_recall_reads_its_question_once(layer: kioko.MemoryLayer, call: str) -> None:
    if call == "recall":
        context, calls = counted(lambda: layer.recall(QUESTION, user_id=USER, links=3))
    elif call == "context":
        context, calls = counted(lambda: layer.context(QUESTION, user_id=USER))
    else:
        # the shared base's graph is matched too: it knows none of the names, so the text-alone part of the one
        # reading serves its scope; a shared graph that knows other names gives its scope other terms, the one
        # case a question is analysed a second time
        context, calls = counted(lambda: layer.recall(QUESTION, user_id=USER, include_shared=True))
        assert calls == {"analyze": 1, "match": 2}
        layer.entities.add("press 4", "part_of", "the north hall", user_id=SHARED_USER)
        _, calls = counted(lambda: layer.recall(QUESTION, user_id=USER, include_shared=True))
        assert calls == {"analyze": 2, "match": 2}
        return
    assert context.memories
    assert context.query == QUESTION
    assert type(context.query) is str
    assert calls == {"analyze": 1, "match": 1}


def test_a_planned_recall_with_sections_reads_its_question_once(url: str) -> None:
    with kioko.connect(url, auto_link=True, intelligence=True) as memory:
        memory.entities.add("Kumar", "maintains", "Line 3", user_id=USER)
        memory.add("Line 3 jammed again at the infeed", user_id=USER, memory_type="episodic")
        context, calls = counted(lambda: memory.recall(QUESTION, user_id=USER))
        assert context.plan is not None  # the planner saw the names
        assert "relational" in context.plan.intents
        assert [t.line() for t in context.sections.relations]  # the sections showed what the names relate
        assert calls == {"analyze": 1, "match": 1}
        planned, calls = counted(lambda: memory.plan(QUESTION, user_id=USER))
        assert planned.intents == context.plan.intents
        assert calls == {"match": 1}


@pytest.mark.parametrize(
    "content",
    [
        "Kumar fixed Line 3 on press 4 with seal 7",
        "Route 66 is closed near exit 12; Kumar took route 9",
        "plain words only here",
        "INC-4521 and E-217 on 10.20.0.0/16",
    ],
)
def test_one_reading_gives_what_two_gave(content: str) -> None:
    """With the graph's names, the analysis still holds what the text alone gives: the embedder's vector and
    the terms a goal is matched by are those of an analysis without the names (a number inside a known name
    is the case where the terms differ)."""
    known = ["kumar", "route 66", "seal 7", "line 3"]
    read = analyze(content, known)
    alone = analyze(content)
    assert list(read.text_terms) == alone.terms
    assert list(read.text_entities) == alone.entities
    assert read.alone() == alone
    embedder = OfflineEmbedder(64)
    assert embedder.embed_analysis(read).tolist() == embedder.embed(content).tolist()
    if "route 66" in content.lower():
        assert "n:66" in alone.terms  # the case text_terms exists for
        assert "n:66" not in read.terms


def test_a_query_is_its_text_and_is_reused_only_for_its_user() -> None:
    class Names:
        def __init__(self, known: list[str]) -> None:
            self.known, self.calls = known, 0

        def match_entities(self, text: str, *, user_id: str) -> list[str]:
            self.calls += 1
            return [k for k in self.known if k in text.lower()]

    names = Names(["pgvector"])
    query = Query.read("do we still use pgvector?", USER, names)
    assert query == "do we still use pgvector?"
    assert query.known == ("pgvector",)
    assert not query.about_goals
    assert "e:pgvector" in query.analysis.terms
    assert Query.of(query, USER, names) is query
    assert names.calls == 1
    other = Query.of(query, "someone-else", Names([]))
    assert other.known == ()  # another user's graph: read anew
    assert "e:pgvector" not in other.analysis.terms
    assert Query.read("when is our goal due?", USER, None).about_when
