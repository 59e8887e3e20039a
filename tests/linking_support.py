"""Shared pieces of the linking tests: the store matrix, the quick start's memories, link readers.

The store matrix is the ``matrix_store`` parameter (memory, sqlite, postgresql, qdrant-local), served
by conftest's session services (one PostgreSQL server for the session; SQLite and Qdrant local files of
our own in its session directory). Every test writes as a fresh user, so tests never see each other's
memories. A store that cannot start is skipped with the reason (under ``CI=true``, a failure).
Test modules import the fixtures they use from here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from remote_support import REMOTE_SURFACES, remote_surface
from services import store_unavailable

import kioko
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.layer.records import LayerStore
from kioko_core.linking import links
from kioko_core.store import Record, Scope, Store
from kioko_intelligence.surface import IntelligentMemory

STORE_NAMES = ("memory", "sqlite", "postgresql", "qdrant-local")
"""The matrix the linking tests run on, named as ``conftest.STORES`` names them."""

T0 = 1_790_000_000.0
"""When the quick start's memories were written (any fixed moment works; times are relative)."""


# --------------------------------------------------------------------------- the store matrix


class _SessionStores:
    """One open store per matrix name for the whole session (memory:// excepted: fresh per test)."""

    def __init__(self, session_dir: Path) -> None:
        self.session_dir = session_dir
        self.opened: dict[str, Store] = {}
        self.failed: dict[str, str] = {}

    def get(self, request: pytest.FixtureRequest, name: str) -> Store:
        if name in self.failed:
            store_unavailable(name, self.failed[name])
        if name not in self.opened:
            url = self._url(request, name)
            try:
                self.opened[name] = kioko.open_store(url)
            except Exception as error:  # whatever keeps a store from opening is reported, not hidden
                self.failed[name] = f"{type(error).__name__}: {error}"
                store_unavailable(name, self.failed[name])
        return self.opened[name]

    def _url(self, request: pytest.FixtureRequest, name: str) -> str:
        # files of our own in the session directory: the contract suite fills its shared ones with many
        # thousands of records, and qdrant+local counts postings by testing every point
        if name == "sqlite":
            return f"sqlite:///{self.session_dir / 'linking.db'}"
        if name == "qdrant-local":
            return f"qdrant+local:///{self.session_dir / 'linking-qdrant'}"
        return request.getfixturevalue(f"{name.replace('-', '_')}_store_url")  # conftest's servers

    def close(self) -> None:
        for opened in self.opened.values():
            opened.close()


@pytest.fixture(scope="session")
def linking_stores(session_dir: Path) -> Iterator[_SessionStores]:
    stores = _SessionStores(session_dir)
    yield stores
    stores.close()


@pytest.fixture(params=STORE_NAMES)
def matrix_store(request: pytest.FixtureRequest) -> str:
    """The matrix store under test (conftest reports pass/fail per store from this parameter)."""
    return request.param


@pytest.fixture
def store(request: pytest.FixtureRequest, matrix_store: str, linking_stores: _SessionStores) -> Iterator[Store]:
    """The store under test: a fresh memory:// per test, else the session's shared store."""
    if matrix_store == "memory":
        fresh_store = MemoryStore()
        yield fresh_store
        fresh_store.close()
    else:
        yield linking_stores.get(request, matrix_store)


@pytest.fixture
def user() -> str:
    """A user id no other test uses, so one shared store serves every test."""
    return "u-" + uuid.uuid4().hex[:12]


@pytest.fixture
def make_layer(store: Store) -> Callable[..., MemoryLayer]:
    """``make_layer(auto_link=True, linker={...}, store=other)``: a ``kioko.MemoryLayer`` (the layer with the
    intelligence's calls; ``intelligence=...`` is one of its options) over the store under test."""

    def build(*, store: Store = store, auto_link: bool = True, **options: Any) -> MemoryLayer:
        return IntelligentMemory(store, auto_link=auto_link, **options)

    return build


OVER_HTTP = pytest.mark.parametrize("matrix_store", [*STORE_NAMES, *REMOTE_SURFACES], indirect=True)
"""For a test whose ``layer`` also runs as ``remote-<store>``: a new store of that kind served on loopback by the
module's ``server`` (the module imports that fixture from remote_support), reached through RemoteMemory."""


@pytest.fixture
def layer(request: pytest.FixtureRequest, matrix_store: str, tmp_path: Path) -> Iterator[MemoryLayer]:
    """A linking MemoryLayer over the store under test (the layer does not own the shared store)."""
    if matrix_store in REMOTE_SURFACES:
        with remote_surface(request, matrix_store, tmp_path, auto_link=True) as remote:
            yield remote  # the same calls over HTTP
        return
    yield request.getfixturevalue("make_layer")()


# --------------------------------------------------------------------------- the quick start's memories


@dataclass
class QuickStart:
    """The nine linkable memories of spec section 1, by role."""

    goal: Record
    decision: Record
    jam: Record
    fault: Record
    fix: Record
    procedure: Record
    lesson: Record
    tea: Record
    plc: Record

    def named(self) -> dict[str, Record]:
        return dict(vars(self))

    def name_of(self, memory_id: str) -> str:
        return next(name for name, record in self.named().items() if record.id == memory_id)


def seed_quickstart(layer: MemoryLayer, user: str) -> QuickStart:
    """Write section 1's memories in its order, with its entity triple (Kioko uses pgvector)."""
    add = layer.add
    goal = add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal", created_at=T0)
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    decision = add(
        "Decision: Vector database - chose pgvector because we already run Postgres.",
        user_id=user,
        memory_type="decision",
        created_at=T0 + 60,
    )
    jam = add(
        "The line 3 conveyor jammed twice this morning.",
        user_id=user,
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 100,
    )
    fault = add(
        "Line 3 keeps faulting with error E-217.",
        user_id=user,
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 200,
    )
    fix = add(
        "Found it: the encoder cable on line 3 was loose.",
        user_id=user,
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 220,
    )
    procedure = add(
        "Clear a conveyor jam on line 3: 1) Press stop; 2) Open the guard; 3) Remove the jammed "
        "bottle; 4) Reset the drive",
        user_id=user,
        memory_type="procedural",
        metadata={"title": "Clear a conveyor jam on line 3"},
        created_at=T0 + 300,
    )
    lesson = add(
        "For clearing conveyor jams: reset the drive before reopening the guard (1/1 worked). Lesson: "
        "always check the photo-eye alignment after a jam",
        user_id=user,
        memory_type="strategy",
        created_at=T0 + 400,
    )
    tea = add("User likes green tea.", user_id=user, memory_type="preference", created_at=T0 + 500)
    plc = add(
        "The plant's PLC network uses the 10.20.0.0/16 subnet.",
        user_id=user,
        memory_type="factual",
        created_at=T0 + 600,
    )
    return QuickStart(goal, decision, jam, fault, fix, procedure, lesson, tea, plc)


# --------------------------------------------------------------------------- reading links back


def fresh(layer: MemoryLayer, record: Record | str, user: str, agent: str | None = None) -> Record:
    """The stored version of a memory now."""
    memory_id = record if isinstance(record, str) else record.id
    return layer.get(memory_id, user_id=user, agent_id=agent)


def entries(layer: MemoryLayer, record: Record | str, user: str, agent: str | None = None) -> list[dict[str, Any]]:
    """The link entries stored on a memory (its adjacency list, foreign entries left out)."""
    return links.link_entries(fresh(layer, record, user, agent))


def entry_between(layer: MemoryLayer, owner: Record | str, other: Record | str, user: str) -> dict[str, Any] | None:
    other_id = other if isinstance(other, str) else other.id
    return links.entry_for(fresh(layer, owner, user), other_id)


def scope_records(store: Store, scope: Scope) -> list[Record]:
    """The scope's records as the layer reads them (links and entities in ``system``, wherever the store keeps them)."""
    return list((store if isinstance(store, LayerStore) else LayerStore(store)).scan(scope))


def link_triples(records: list[Record]) -> set[tuple[str, str, str]]:
    """Every link among ``records`` as (source id, type, target id), read from the out entries."""
    found = set()
    for record in records:
        for entry in links.link_entries(record):
            if entry["dir"] == "out":
                found.add((record.id, entry["type"], entry["id"]))
    return found
