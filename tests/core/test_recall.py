"""Recall that follows the links (spec section 6), feedback (section 7), isolation (section 9), on every store."""

from __future__ import annotations

import random
import time

import networkx as nx
import numpy as np
import pytest
from linking_support import (  # noqa: F401  (fixtures)
    OVER_HTTP,
    layer,
    linking_stores,
    make_layer,
    matrix_store,
    seed_quickstart,
    store,
    user,
)
from remote_support import server  # noqa: F401  (a fixture: the live server of the remote surfaces)

import kioko
from contract_tests.counting import CountingStore
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer, MemoryNotFound
from kioko_core.linking import links
from kioko_core.linking.activation import personalized_pagerank
from kioko_core.store import Scope

QUESTION = "line 3 is faulting with E-217 again"

SPEC_LINKS_SECTION = [
    'lesson "For clearing conveyor jams: reset the drive before reopenin…" refines procedure "Clear a conveyor jam on line 3"',
    'event "Found it: the encoder cable on line 3 was loose" resolves event "Line 3 keeps faulting with error E-217"',
    'event "Found it: the encoder cable on line 3 was loose" resolves event "The line 3 conveyor jammed twice this morning"',
    'procedure "Clear a conveyor jam on line 3" applies to event "The line 3 conveyor jammed twice this morning"',
    'event "Line 3 keeps faulting with error E-217" follows event "The line 3 conveyor jammed twice this morning"',
]


def _section(text: str, title: str) -> list[str]:
    lines = text.split("\n")
    if title not in lines:
        return []
    body = []
    for line in lines[lines.index(title) + 1 :]:
        if not line.startswith("- "):
            break
        body.append(line[2:])
    return body


@OVER_HTTP
def test_quick_start_context_reads_as_the_spec(layer: MemoryLayer, user: str) -> None:
    """Section 1: the question retrieves the faults, the fix, the jam and the procedure; the lesson comes by its link."""
    qs = seed_quickstart(layer, user)
    ctx = layer.recall(QUESTION, user_id=user)
    assert _section(ctx.text, "How these memories connect:") == SPEC_LINKS_SECTION
    assert set(_section(ctx.text, "Relevant memories:")) == {qs.fault.content, qs.fix.content, qs.jam.content}
    assert _section(ctx.text, "Procedures that may apply:") == [qs.procedure.content]
    assert _section(ctx.text, "Lessons from earlier attempts:") == [qs.lesson.content]
    by_id = {m.record.id: m for m in ctx.memories}
    lesson = by_id[qs.lesson.id]
    assert "rrf" not in lesson.signals, "the question's words must not retrieve the lesson"
    assert 0 < lesson.signals["linked"] <= 1
    assert qs.tea.id not in by_id
    assert qs.plc.id not in by_id


@OVER_HTTP
def test_links_zero_turns_expansion_off(layer: MemoryLayer, user: str) -> None:
    """links=0: no memory is brought in by a link; the links among retrieved memories are still listed."""
    qs = seed_quickstart(layer, user)
    ctx = layer.recall(QUESTION, user_id=user, links=0)
    ids = {m.record.id for m in ctx.memories}
    assert qs.lesson.id not in ids
    assert not any("linked" in m.signals for m in ctx.memories)
    assert _section(ctx.text, "How these memories connect:") == SPEC_LINKS_SECTION[1:]
    assert layer.context(QUESTION, user_id=user).text == ctx.text


@OVER_HTTP
def test_open_goals_are_in_context_and_seed_when_named(layer: MemoryLayer, user: str) -> None:
    """A question naming the goal brings the decision that serves it."""
    qs = seed_quickstart(layer, user)
    ctx = layer.recall("how is shipping the Kioko memory layer going?", user_id=user)
    ids = {m.record.id for m in ctx.memories}
    assert qs.goal.id in ids
    assert qs.decision.id in ids
    assert any(link.type == "serves" for link in ctx.links)


def test_recall_never_scans_and_makes_bounded_store_calls(user: str) -> None:
    """Recall reads through knn, postings and get only, a fixed number of times whatever the store holds."""
    counting = CountingStore(MemoryStore())
    layer = MemoryLayer(counting, auto_link=True)
    seed_quickstart(layer, user)
    counting.reset()
    layer.recall(QUESTION, user_id=user)
    small = counting.snapshot()
    for i in range(150):
        layer.add(
            f"Line {i % 9 + 1} shift report {i}: output normal, no alarms.",
            user_id=user,
            memory_type="episodic",
            session_id=f"r{i // 10}",
        )
    counting.reset()
    layer.recall(QUESTION, user_id=user)
    large = counting.snapshot()
    assert small["scan"] == large["scan"] == 0
    assert sum(large.values()) <= 10, large
    assert sum(large.values()) <= sum(small.values()) + 1, (small, large)


def _fix_clocks(layer: MemoryLayer, now: float = 1_000.0) -> None:
    """Stop the layer's cache clocks: what a lookup reads (ttl, sweeps) then never depends on the machine's speed."""
    for cache in (layer.index, layer.entities._read_cache):
        if cache is not None:
            cache.clock = lambda: now


@pytest.mark.parametrize("generations", [False, True], ids=["every-read-counted", "record-cache"])
def test_write_makes_bounded_store_calls(user: str, generations: bool) -> None:
    """A linked write: no scan, and a handful of calls whatever the store holds.

    The caches' clocks are fixed and the ids named, so the count is the same on any machine and in any
    run: the write below drops links at the degree cap to memories it had not loaded (their far ends are
    read in one call; read one by one they made 14 calls here)."""
    counting = CountingStore(MemoryStore(), generations=generations)
    layer = MemoryLayer(counting, auto_link=True)
    _fix_clocks(layer)
    seed_quickstart(layer, user)
    for i in range(120):
        layer.add(
            f"Line {i % 9 + 1} keeps faulting with error E-{200 + i % 7}.",
            user_id=user,
            memory_type="episodic",
            session_id=f"w{i // 6}",
            id=f"{user}-w{i:03d}",
        )
    counting.reset()
    layer.add("Found it: the encoder cable on line 4 was loose.", user_id=user, memory_type="episodic", session_id="w3")
    calls = counting.snapshot()
    assert calls["scan"] == 0
    assert calls["update_many"] == 1
    # postings: the exact-copy check, the linker's terms, the entity graph's names; get: the candidates and
    # the far ends of the links the degree cap drops (each get brings its links); generation: the caches'
    # freshness checks when the store counts its writes
    assert calls["get"] <= 2, calls
    assert calls["links"] <= 2, calls
    assert calls["postings"] <= 3, calls
    assert sum(calls.values()) <= 8, calls


def test_users_never_see_each_other(make_layer, user: str) -> None:
    """Two users with look-alike memories: no call of one returns anything of the other."""
    layer = make_layer()
    other = user + "-other"
    mine, theirs = seed_quickstart(layer, user), seed_quickstart(layer, other)
    their_ids = {r.id for r in theirs.named().values()}
    ctx = layer.recall(QUESTION, user_id=user)
    assert not {m.record.id for m in ctx.memories} & their_ids
    assert not {x for k in ctx.links for x in (k.source, k.target)} & their_ids
    for record in mine.named().values():
        assert not {x for k in layer.graph.links(record.id, user_id=user) for x in (k.source, k.target)} & their_ids
        assert not {r.record.id for r in layer.graph.related(record.id, user_id=user)} & their_ids
    with pytest.raises(MemoryNotFound):
        layer.graph.trace(mine.fix.id, theirs.fault.id, user_id=user)
    with pytest.raises(MemoryNotFound):
        layer.graph.explain(mine.fix.id, theirs.fault.id, user_id=user)
    with pytest.raises(MemoryNotFound):
        layer.get(theirs.fix.id, user_id=user)
    for record in theirs.named().values():
        for entry in links.link_entries(layer.get(record.id, user_id=other)):
            assert entry["id"] in their_ids


def test_agents_are_separate_scopes(make_layer, user: str) -> None:
    """An agent's memories link and recall only within that agent."""
    layer = make_layer()
    a = layer.add(
        "Line 3 keeps faulting with error E-217.", user_id=user, agent_id="ops", memory_type="episodic", session_id="s"
    )
    b = layer.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episodic", session_id="s"
    )
    assert links.link_entries(layer.get(a.id, user_id=user, agent_id="ops")) == []
    assert links.link_entries(layer.get(b.id, user_id=user)) == []
    assert {m.record.id for m in layer.recall(QUESTION, user_id=user, agent_id="ops").memories} == {a.id}


def test_shared_knowledge_links_live_only_on_the_users_memory(make_layer, user: str) -> None:
    """@shared knowledge: linked from a user's memory, never written into, never followed by others by default."""
    layer = make_layer()
    shared = layer.add(
        "OPC UA servers listen on port 4840; the S7-1500 exposes OPC UA when enabled.",
        user_id=links.SHARED_USER,
        memory_type="semantic",
    )
    mine = layer.add(
        "The S7-1500 on line 3 refuses OPC UA connections from the SCADA host.", user_id=user, memory_type="episodic"
    )
    entry = links.entry_for(layer.get(mine.id, user_id=user), shared.id)
    assert entry is not None
    assert entry.get("shared") is True
    assert links.link_entries(layer.get(shared.id, user_id=links.SHARED_USER)) == []
    assert [k.target for k in layer.graph.links(mine.id, user_id=user)] == [shared.id]
    question = "OPC UA on the S7-1500"
    assert shared.id not in {m.record.id for m in layer.recall(question, user_id=user).memories}
    assert shared.id in {m.record.id for m in layer.recall(question, user_id=user, include_shared=True).memories}


@OVER_HTTP
def test_feedback_links_the_fix_and_strengthens_what_was_used(layer: MemoryLayer, user: str) -> None:
    """ "That worked": the credited procedure resolves the session's problems (0.8, feedback); used links grow."""
    qs = seed_quickstart(layer, user)
    now = time.time()
    problem = layer.add(
        "Line 3 jammed again at the filler.",
        user_id=user,
        memory_type="episodic",
        session_id="s9",
        created_at=now - 600,
    )
    stale = layer.add(
        "Press 12 jammed at the capper last week.",
        user_id=user,
        memory_type="episodic",
        session_id="s9",
        created_at=now - 7 * 3600,
    )
    ctx = layer.recall(QUESTION, user_id=user)
    before = links.entry_for(layer.get(qs.fix.id, user_id=user), qs.fault.id)
    layer.feedback(user_id=user, credited=qs.procedure.id, session_id="s9", context=ctx)
    made = links.entry_for(layer.get(qs.procedure.id, user_id=user), problem.id)
    assert made is not None
    assert made["type"] == "resolves"
    assert made["by"] == "feedback"
    assert made["w"] == 0.8
    assert made["dir"] == "out"
    assert links.entry_for(layer.get(qs.procedure.id, user_id=user), stale.id) is None, "older than 6 hours"
    after = links.entry_for(layer.get(qs.fix.id, user_id=user), qs.fault.id)
    assert after["w"] == pytest.approx(before["w"] + 0.2 * (1 - before["w"]), abs=1e-4)
    assert after["seen"] >= now
    mirror = links.entry_for(layer.get(qs.fault.id, user_id=user), qs.fix.id)
    assert mirror["w"] == after["w"]


@OVER_HTTP
def test_related_and_trace_follow_the_links(layer: MemoryLayer, user: str) -> None:
    """related() returns connected memories with their chain of links; trace() the shortest chain."""
    qs = seed_quickstart(layer, user)
    related = layer.graph.related(qs.lesson.id, user_id=user)
    assert related[0].record.id == qs.procedure.id
    assert [k.type for k in related[0].path] == ["refines"]
    deeper = {r.record.id: r for r in related}
    assert qs.jam.id in deeper
    assert [k.type for k in deeper[qs.jam.id].path] == ["refines", "applies_to"]
    chain = layer.graph.trace(qs.lesson.id, qs.fault.id, user_id=user)
    assert len(chain) == 3
    assert chain[0].source == qs.lesson.id
    assert layer.graph.trace(qs.tea.id, qs.fault.id, user_id=user) == []
    drawing = layer.graph.memories(user_id=user)
    assert drawing.stats.nodes == 9
    assert drawing.stats.edges == 6
    assert {n.id for n in drawing.nodes} >= {e.source for e in drawing.edges} | {e.target for e in drawing.edges}
    assert drawing.to_dict()["stats"]["edges"] == 6
    assert drawing.to_dict()["edges"][0]["line"] == drawing.edges[0].line
    scoped = layer.scoped(user_id=user)
    assert [k.line() for k in scoped.graph.links(qs.lesson.id)] == [
        k.line() for k in layer.graph.links(qs.lesson.id, user_id=user)
    ]


def _dense_reference(nodes, weights, seeds, restart=0.5, pass_on=None):
    index = {n: i for i, n in enumerate(nodes)}
    size = len(nodes)
    a = np.zeros((size, size))
    for (u, v), w in weights.items():
        a[index[u], index[v]] = a[index[v], index[u]] = w
    s = np.zeros(size)
    for n, v in seeds.items():
        s[index[n]] = v
    s /= s.sum()
    rows = a.sum(axis=1)
    flow = np.array([(pass_on or {}).get(n, 1.0) if rows[index[n]] > 0 else 0.0 for n in nodes])
    p = np.divide(a, rows[:, None], out=np.zeros_like(a), where=rows[:, None] > 0) * flow[:, None]
    matrix = np.eye(size) - (1 - restart) * (p.T + np.outer(s, 1 - flow))
    exact = np.linalg.solve(matrix, restart * s)
    return {n: exact[index[n]] for n in nodes}


@pytest.mark.parametrize("seed", range(40))
def test_ppr_matches_networkx_and_a_linear_solve(seed: int) -> None:
    """Our 20-iteration PPR equals networkx's personalized PageRank and the exact solution to 1e-6."""
    rnd = random.Random(seed)
    size = rnd.randint(2, 40)
    nodes = [f"m{i}" for i in range(size)]
    weights = {}
    for _ in range(rnd.randint(0, 3 * size)):
        u, v = rnd.sample(nodes, 2)
        weights[(u, v)] = rnd.uniform(0.1, 1.0)
    seeds = {n: rnd.uniform(0.1, 1.0) for n in rnd.sample(nodes, rnd.randint(1, min(5, size)))}
    ours = personalized_pagerank(nodes, weights, seeds, restart=0.5, iterations=20)
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for (u, v), w in weights.items():
        graph.add_edge(u, v, weight=w)
    theirs = nx.pagerank(
        graph, alpha=0.5, personalization=seeds, dangling=seeds, weight="weight", tol=1e-13, max_iter=10_000
    )
    exact = _dense_reference(nodes, weights, seeds)
    for node in nodes:
        assert ours[node] == pytest.approx(theirs[node], abs=1e-6)
        assert ours[node] == pytest.approx(exact[node], abs=1e-6)


def test_superseded_decisions_pass_on_thirty_percent() -> None:
    """A superseded decision sends 30 % of its mass along its links and the rest back to the seeds."""
    nodes = ["q", "old", "goal", "x"]
    weights = {("q", "old"): 0.9, ("old", "goal"): 0.8, ("goal", "x"): 0.5}
    ours = personalized_pagerank(nodes, weights, {"q": 1.0}, pass_on={"old": 0.3})
    exact = _dense_reference(nodes, weights, {"q": 1.0}, pass_on={"old": 0.3})
    plain = personalized_pagerank(nodes, weights, {"q": 1.0})
    for node in nodes:
        assert ours[node] == pytest.approx(exact[node], abs=1e-6)
    assert ours["goal"] < plain["goal"]


@OVER_HTTP
def test_recall_leaves_superseded_decisions_out(layer: MemoryLayer, user: str) -> None:
    """A superseded decision is history: recall shows the decision that replaced it."""
    old = layer.add("Decision: use pgvector for the Kioko vector store.", user_id=user, memory_type="decision")
    new = layer.add(
        "Decision: use Qdrant for the Kioko vector store because it is managed.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": old.id},
    )
    ids = {m.record.id for m in layer.recall("which vector store does Kioko use?", user_id=user).memories}
    assert new.id in ids
    assert old.id not in ids
    assert Scope(user) == layer.get(new.id, user_id=user).scope


def test_a_number_or_code_in_the_question_finds_the_memory_that_names_it(layer: MemoryLayer, user: str) -> None:
    """Forty look-alike notes differ only in a number: the question's number ("12", "3", "E-217") decides."""
    for i in range(1, 41):
        layer.add(f"Station {i} uses a {['Siemens', 'ABB', 'Rockwell'][i % 3]} drive.", user_id=user)
        layer.add(f"OPC UA endpoint {i} listens on port {4839 + i}.", user_id=user)
        layer.add(f"Error E-{200 + i} means the {['encoder', 'fan', 'brake'][i % 3]} tripped.", user_id=user)

    def top(question: str) -> str:
        return layer.recall(question, user_id=user, links=0, limit=3).memories[0].record.content

    assert top("Which device does station 12 use?") == "Station 12 uses a Siemens drive."
    assert top("What is the port of OPC UA endpoint 3?") == "OPC UA endpoint 3 listens on port 4842."
    assert top("What does error E-217 mean?") == "Error E-217 means the brake tripped."


def test_what_recall_hands_out_is_the_callers_to_change(layer: MemoryLayer, user: str) -> None:
    """Recall reads through the index cache; changing a recalled record changes neither the cache nor the store."""
    seed_quickstart(layer, user)
    first = layer.recall(QUESTION, user_id=user)
    for memory in first.memories:
        memory.record.metadata["scribbled"] = True
        memory.record.metadata.get("_kioko", {}).get("links", []).clear()
        memory.record.terms.clear()
        if memory.record.embedding is not None:
            memory.record.embedding[:] = 0
    again = layer.recall(QUESTION, user_id=user)
    assert again.text == first.text or [m.record.id for m in again.memories] == [m.record.id for m in first.memories]
    for memory in again.memories:
        assert "scribbled" not in memory.record.metadata
        assert memory.record.terms
        stored = layer.store.get(Scope(user), [memory.record.id])[0]
        assert "scribbled" not in stored.metadata
        assert stored.terms == memory.record.terms
    assert layer.recall(QUESTION, user_id=user).links == again.links


def test_recall_sees_a_write_another_layer_made_to_the_same_file(tmp_path, user: str) -> None:
    """A second process (here a second layer on the file) writes: the first one's cached records are not used."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with kioko.connect(url) as mine, kioko.connect(url) as theirs:
        note = mine.add("The spare encoder cable for line 3 is in cabinet B.", user_id=user)
        assert "cabinet B" in mine.recall("where is the spare encoder cable?", user_id=user).text
        theirs.update(note.id, user_id=user, content="The spare encoder cable for line 3 moved to cabinet D.")
        text = mine.recall("where is the spare encoder cable?", user_id=user).text
        assert "cabinet D" in text
        assert "cabinet B" not in text
