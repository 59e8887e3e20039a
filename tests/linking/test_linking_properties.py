"""Properties of the memory graph under any sequence of writes (hypothesis, rule-based state machine).

Random adds, edits, deletes, merges, supersedes, manual links and unlinks, raw deletes behind the
layer's back, prunes and backfills, over memories built from a small vocabulary of realistic notes for
several users and an agent. After every step:

- adjacency is symmetric: every entry has its mirror on the other memory (opposite dir, same type,
  weight and author);
- no memory holds more than max_degree automatic (auto + llm) links; the cap is 2 here so it bites often;
- no link crosses users or agents;
- a memory the layer deleted is gone from its neighbours at once; one deleted behind the layer's back
  may dangle until prune(), and not after;
- a replaced decision keeps no automatic links.

The machine runs on memory:// (the reference store) and on a private SQLite database.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from kioko_backends.memory import MemoryStore
from kioko_backends.sqlite import SQLiteStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.store import Delete, Scope, Store

MAX_DEGREE = 2
T0 = 1_790_000_000.0

SCOPES = (Scope("ana"), Scope("ben"), Scope("ana", "ops-bot"))

NOTES: tuple[tuple[str, str], ...] = (
    ("episodic", "Line 3 keeps faulting with error E-217."),
    ("episodic", "Error E-217 again on line 3 after the shift change."),
    ("episodic", "Line 3 stopped twice with E-217 encoder faults."),
    ("episodic", "Found it: the encoder cable on line 3 was loose."),
    ("episodic", "The line 3 conveyor jammed twice this morning."),
    ("episodic", "Pump 7 leaks coolant near the E-41 valve."),
    ("episodic", "Coolant leak on pump 7 again, the E-41 valve is wet."),
    ("episodic", "Replaced the E-41 valve seal on pump 7; the leak stopped."),
    ("episodic", "DB-17 replica lag spiked during the nightly backup."),
    ("episodic", "Replica lag on DB-17 during the nightly backup again."),
    ("episodic", "Finished the pgvector benchmark for Kioko: 12 ms at p95."),
    ("procedural", "Clear a conveyor jam on line 3: press stop, open the guard, remove the bottle, reset the drive."),
    ("procedural", "Restart DB-17 replication: pause the backup, resync the replica, resume the backup."),
    ("strategy", "For clearing conveyor jams: reset the drive before reopening the guard."),
    ("strategy", "Lesson: check the E-41 valve seal whenever pump 7 pressure drops."),
    ("goal", "Goal: Ship the Kioko memory layer by December 15."),
    ("goal", "Goal: Cut unplanned downtime on line 3 by half this quarter."),
    ("decision", "Decision: Vector database - chose pgvector because we already run Postgres."),
    ("decision", "Decision: run the DB-17 backup at 03:00 instead of midnight."),
    ("semantic", "The plant's PLC network uses the 10.20.0.0/16 subnet."),
    ("semantic", "pgvector supports HNSW indexes for approximate nearest neighbour search."),
    ("factual", "Krutika leads the line 3 maintenance crew."),
    ("factual", "Pump 7 was installed in 2019 by Grundfos."),
    ("preference", "User likes green tea."),
    ("preference", "User prefers short status updates in the morning."),
    ("insight", "Most line 3 stoppages trace back to loose cables and misaligned photo-eyes."),
)
DECISIONS = tuple(text for kind, text in NOTES if kind == "decision") + (
    "Decision: switch the vector store to Qdrant because pgvector is too slow for Kioko.",
    "Decision: move the DB-17 backup to the replica so the primary stays fast.",
)
TRIPLES = (("Kioko", "uses", "pgvector"), ("Line 3", "has", "conveyor"), ("Krutika", "maintains", "Pump 7"))
LINK_TYPES = ("related_to", "informs", "resolves", "serves")

pick = st.integers(min_value=0, max_value=10**6)
scope_index = st.sampled_from((0, 0, 0, 1, 2))  # mostly one scope, so its graph gets dense


class LinkGraphMachine(RuleBasedStateMachine):
    """A MemoryLayer with auto_link on and max_degree 2, driven by random operations."""

    make_store: Callable[[], Store] = MemoryStore

    def __init__(self) -> None:
        super().__init__()
        self.store = self.make_store()
        self.layer = MemoryLayer(self.store, auto_link=True, linker={"max_degree": MAX_DEGREE})
        self.live: dict[Scope, list[str]] = {scope: [] for scope in SCOPES}
        self.gone: set[str] = set()  # deleted through the layer: must never be referenced again
        self.dangling: dict[Scope, set[str]] = {scope: set() for scope in SCOPES}  # deleted behind its back
        self.counter = 0

    def teardown(self) -> None:
        self.store.close()

    # -- helpers

    def _next(self) -> tuple[str, float]:
        self.counter += 1
        return f"m{self.counter:04d}", T0 + 60.0 * self.counter

    def _choose(self, scope: Scope, index: int) -> str:
        ids = self.live[scope]
        return ids[index % len(ids)]

    def _forget(self, scope: Scope, memory_id: str) -> None:
        self.live[scope].remove(memory_id)

    # -- rules

    @initialize(
        triples=st.lists(st.sampled_from(TRIPLES), max_size=3, unique=True),
        seed=st.lists(
            st.tuples(scope_index, st.sampled_from(NOTES), st.sampled_from([None, "s1", "s2"])), min_size=6, max_size=16
        ),
    )
    def start(self, triples: list[tuple[str, str, str]], seed: list[tuple[int, tuple[str, str], str | None]]) -> None:
        """An entity graph for bridges, and a populated store, so the cap and the takeover come into play."""
        for scope in SCOPES[:2]:
            for subject, relation, obj in triples:
                self.layer.graph.add(subject, relation, obj, user_id=scope.user_id)
        for where, note, session in seed:
            self.add(where, [(note, session)])

    @rule(
        where=scope_index,
        notes=st.lists(st.tuples(st.sampled_from(NOTES), st.sampled_from([None, "s1", "s2"])), min_size=1, max_size=4),
    )
    def add(self, where: int, notes: list[tuple[tuple[str, str], str | None]]) -> None:
        # several notes per step, so the graph grows faster than the other rules shrink it
        scope = SCOPES[where]
        for (kind, text), session in notes:
            memory_id, at = self._next()
            self.layer.add(
                text,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                memory_type=kind,
                session_id=session,
                created_at=at,
                id=memory_id,
            )
            self.live[scope].append(memory_id)

    @rule(where=scope_index, which=pick, note=st.sampled_from(NOTES))
    def edit(self, where: int, which: int, note: tuple[str, str]) -> None:
        scope = SCOPES[where]
        if self.live[scope]:
            self.layer.update(
                self._choose(scope, which), user_id=scope.user_id, agent_id=scope.agent_id, content=note[1]
            )

    @rule(where=scope_index, which=pick)
    def delete(self, where: int, which: int) -> None:
        scope = SCOPES[where]
        if self.live[scope]:
            memory_id = self._choose(scope, which)
            assert self.layer.delete(memory_id, user_id=scope.user_id, agent_id=scope.agent_id)
            self._forget(scope, memory_id)
            self.gone.add(memory_id)

    @rule(where=scope_index, first=pick, second=pick)
    def merge(self, where: int, first: int, second: int) -> None:
        """Merge a memory into another: often one of its linked neighbours, the near-duplicates consolidation finds."""
        scope = SCOPES[where]
        if len(self.live[scope]) < 2:
            return
        kept = self.layer.get(self._choose(scope, second), user_id=scope.user_id, agent_id=scope.agent_id)
        if kept.metadata.get("superseded_by"):
            return  # consolidation merges into a live memory, not into history
        neighbours = [e["id"] for e in links.link_entries(kept) if e["id"] in self.live[scope]]
        anyone = [i for i in self.live[scope] if i != kept.id]
        others = neighbours if neighbours and first % 2 == 0 else anyone
        duplicate = others[first % len(others)]
        self.layer.graph.merge(duplicate, kept.id, user_id=scope.user_id, agent_id=scope.agent_id)
        self._forget(scope, duplicate)
        self.gone.add(duplicate)

    @rule(where=scope_index, which=pick, text=st.sampled_from(DECISIONS))
    def supersede(self, where: int, which: int, text: str) -> None:
        scope = SCOPES[where]
        current = [
            r
            for r in self.store.get(scope, self.live[scope])
            if r is not None and r.kind == "decision" and not r.metadata.get("superseded_by")
        ]
        if not current:
            return
        old = current[which % len(current)]
        memory_id, at = self._next()
        self.layer.add(
            text,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            memory_type="decision",
            metadata={"supersedes": old.id},
            created_at=at,
            id=memory_id,
        )
        self.live[scope].append(memory_id)

    @rule(
        where=scope_index,
        first=pick,
        second=pick,
        kind=st.sampled_from(LINK_TYPES),
        weight=st.sampled_from([0.3, 0.7, 1.0]),
    )
    def link_by_hand(self, where: int, first: int, second: int, kind: str, weight: float) -> None:
        scope = SCOPES[where]
        if len(self.live[scope]) < 2:
            return
        a, b = self._choose(scope, first), self._choose(scope, second)
        if a == b:
            return
        try:
            made = self.layer.graph.link(a, b, kind, weight, user_id=scope.user_id, agent_id=scope.agent_id)
        except links.LinkConflict:
            existing = links.entry_for(self.layer.get(a, user_id=scope.user_id, agent_id=scope.agent_id), b)
            assert existing is not None
            assert existing["by"] == "structure"
        else:
            assert made.by == "manual"

    @rule(where=scope_index, first=pick, second=pick)
    def unlink(self, where: int, first: int, second: int) -> None:
        scope = SCOPES[where]
        if len(self.live[scope]) >= 2:
            a, b = self._choose(scope, first), self._choose(scope, second)
            self.layer.graph.unlink(a, b, user_id=scope.user_id, agent_id=scope.agent_id)

    @rule(where=scope_index, which=pick)
    def delete_behind_the_layers_back(self, where: int, which: int) -> None:
        scope = SCOPES[where]
        if self.live[scope]:
            memory_id = self._choose(scope, which)
            self.store.update_many([Delete(id=memory_id, scope=scope)])
            self._forget(scope, memory_id)
            self.dangling[scope].add(memory_id)

    @rule(where=scope_index)
    def prune(self, where: int) -> None:
        scope = SCOPES[where]
        self.layer.graph.prune(user_id=scope.user_id, agent_id=scope.agent_id)
        self.dangling[scope].clear()

    @rule(where=scope_index, rebuild=st.booleans())
    def connect(self, where: int, rebuild: bool) -> None:
        scope = SCOPES[where]
        self.layer.graph.connect(user_id=scope.user_id, agent_id=scope.agent_id, rebuild=rebuild)

    # -- invariants

    @invariant()
    def the_graph_is_well_formed(self) -> None:
        everywhere = {memory_id: scope for scope, ids in self.live.items() for memory_id in ids}
        for scope in SCOPES:
            records = {r.id: r for r in self.store.scan(scope)}
            assert set(records) == set(self.live[scope])
            for record in records.values():
                capped = links.capped_entries(record)
                assert len(capped) <= MAX_DEGREE, f"{record.id} holds {len(capped)} automatic links"
                if record.kind == "decision" and record.metadata.get("superseded_by"):
                    assert capped == [], f"replaced decision {record.id} holds automatic links"
                for entry in links.link_entries(record):
                    other_id = entry["id"]
                    assert other_id not in self.gone, f"{record.id} still links to deleted {other_id}"
                    assert everywhere.get(other_id, scope) == scope, f"{record.id} links across scopes"
                    if other_id in self.dangling[scope]:
                        continue
                    other = records.get(other_id)
                    assert other is not None, f"{record.id} links to missing {other_id}"
                    mirror = links.entry_for(other, record.id)
                    assert mirror is not None, f"{other_id} lacks the other half of {record.id}'s link"
                    assert mirror["dir"] == ("in" if entry["dir"] == "out" else "out")
                    assert (mirror["type"], mirror["w"], mirror["by"]) == (entry["type"], entry["w"], entry["by"])


class SQLiteLinkGraphMachine(LinkGraphMachine):
    """The same machine on a private SQLite database (real transactions, JSON metadata round trips)."""

    make_store = staticmethod(lambda: SQLiteStore(":memory:"))  # type: ignore[assignment]


LinkGraphMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SQLiteLinkGraphMachine.TestCase.settings = settings(
    max_examples=20, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

test_link_graph_on_memory = LinkGraphMachine.TestCase
test_link_graph_on_sqlite = SQLiteLinkGraphMachine.TestCase
