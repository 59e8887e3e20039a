"""One set of tests written against ``kioko.Memory``, run on every surface that claims to be one.

The ``memory`` fixture is, in turn: the library over memory:// and over a SQLite file, RemoteMemory and
AsyncRemoteMemory (through a small adapter that runs each coroutine on a loop of its own) talking HTTP to
one ``kioko serve --intelligence`` process on a loopback port for the module. Tests whose calls Kioko's MCP
server offers as tools (``ALSO_MCP``) also run through the MCP SDK's client, to a server over the library
and to one over RemoteMemory; tests whose answers a store could change (``ALSO_STORES``) also run on the
library over the session's PostgreSQL and a Qdrant local folder. Every surface serves a layer with the
intelligence on, so the same call must give the same kind of answer everywhere. Each test works for a user
of its own.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from console_support import kioko_serve

import kioko
from kioko import Memory, RecallOptions
from kioko.protocol import export_lines, import_lines
from kioko.remote.async_client import AsyncRemoteMemory
from kioko.remote.client import RemoteMemory
from kioko_core.errors import MemoryNotFound
from kioko_core.graph.entities import Triple
from kioko_core.linking.linker import LinkScore
from kioko_core.linking.links import MemoryLink
from kioko_core.recall.hybrid import Context
from kioko_core.store import InvalidRecordError, KiokoError, Record
from kioko_intelligence.ops import ManageReport
from kioko_intelligence.pins import StablePrefix
from kioko_intelligence.planner import RecallPlan


@dataclass(frozen=True)
class Served:
    url: str


SURFACES = ("library-memory", "library-sqlite", "remote", "remote-async")
ALSO_MCP = pytest.mark.parametrize("memory", [*SURFACES, "mcp", "mcp-remote"], indirect=True)
"""For a test that makes only calls Kioko's MCP server offers as tools: it runs through the SDK's client too, to a
server over the library and to one over RemoteMemory (tests/mcp_support.py's ToolMemory)."""
ALSO_STORES = pytest.mark.parametrize(
    "memory", [*SURFACES, "library-postgresql", "library-qdrant-local"], indirect=True
)
"""For a test whose calls a store can answer differently: the library over the session's PostgreSQL and over a
Qdrant local folder too."""


class Synced:
    """An AsyncRemoteMemory seen through blocking calls (each coroutine runs on this adapter's own loop), so
    the tests below drive it exactly as they drive the other surfaces."""

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._target, self._loop = target, loop

    def _run(self, awaitable: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(awaitable, self._loop).result(timeout=60)

    def _list(self, iterator: Any) -> list[Any]:
        async def collect() -> list[Any]:
            return [item async for item in iterator]

        return self._run(collect())

    @property
    def intelligence(self) -> Any:
        brain = self._target.intelligence
        return Synced(brain, self._loop) if self._run(brain.enabled()) else None

    def scoped(self, **scope: Any) -> Synced:
        return Synced(self._target.scoped(**scope), self._loop)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._target, name)
        if name in ("memories", "export_lines"):
            return lambda *a, **k: iter(self._list(found(*a, **k)))
        if callable(found) and not isinstance(found, type):

            def call(*args: Any, **kwargs: Any) -> Any:
                result = found(*args, **kwargs)
                return self._run(result) if inspect.isawaitable(result) else result

            return call
        if hasattr(found, "__dict__") and not isinstance(found, (str, int, float)):
            return Synced(found, self._loop)
        return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``kioko serve`` itself, in a process of its own on a loopback port, for the module (webhooks on by default:
    they bring the event stream)."""
    log = tmp_path_factory.mktemp("surface-serve") / "serve.log"
    with kioko_serve("memory://", "--intelligence", "--log-level", "warning", log=log) as url:
        yield Served(url)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, name="surface-async", daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(timeout=5)
    running.close()


@pytest.fixture(params=SURFACES)
def memory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    if request.param == "library-memory":
        with kioko.intelligent("memory://") as layer:
            yield layer
    elif request.param == "library-sqlite":
        with kioko.intelligent(f"sqlite:///{tmp_path_factory.mktemp('surface') / 'kioko.db'}") as layer:
            yield layer
    elif request.param == "library-postgresql":
        with kioko.intelligent(request.getfixturevalue("postgresql_store_url")) as layer:
            yield layer
    elif request.param == "library-qdrant-local":
        with kioko.intelligent(f"qdrant+local:///{tmp_path_factory.mktemp('surface-qdrant')}") as layer:
            yield layer
    elif request.param == "remote":
        with RemoteMemory(request.getfixturevalue("server").url) as remote:
            yield remote
    elif request.param.startswith("mcp"):
        pytest.importorskip("mcp", reason="the MCP surface needs the mcp extra: pip install 'kioko[mcp]'")
        from mcp_support import ToolMemory

        served: Any = (
            RemoteMemory(request.getfixturevalue("server").url)
            if request.param == "mcp-remote"
            else kioko.intelligent("memory://")
        )
        with served:
            yield ToolMemory(served)  # type: ignore[misc]
    else:
        loop = request.getfixturevalue("loop")
        made = asyncio.run_coroutine_threadsafe(_async_client(request.getfixturevalue("server").url), loop).result()
        synced = Synced(made, loop)
        yield synced  # type: ignore[misc]
        asyncio.run_coroutine_threadsafe(made.close(), loop).result()


async def _async_client(url: str) -> AsyncRemoteMemory:
    return AsyncRemoteMemory(url)  # built on the loop that will use it


@pytest.fixture
def user() -> str:
    return f"surface-{uuid.uuid4().hex[:10]}"


def raised(memory: Any, error: type[Exception]) -> type[Exception]:
    """The error a surface raises for a refusal of type ``error``: MCP carries the sentence, not the type
    (mcp_support.ToolRefused); every other surface raises the library's own class."""
    return getattr(memory, "refused", error)


@ALSO_MCP
def test_one_memory_added_read_corrected_listed_and_forgotten(memory: Memory, user: str) -> None:
    stored = memory.add(
        "The boiler is serviced every October.", user_id=user, memory_type="fact", metadata={"room": "cellar"}
    )
    assert (stored.kind, stored.user_id, stored.metadata["room"]) == ("factual", user, "cellar")
    got = memory.get(stored.id, user_id=user)
    assert (got.id, got.content, got.kind, got.metadata["room"]) == (stored.id, stored.content, "factual", "cellar")
    changed = memory.update(stored.id, user_id=user, content="The boiler is serviced every November.")
    assert changed.id == stored.id
    assert changed.version > stored.version
    assert memory.get(stored.id, user_id=user).content == "The boiler is serviced every November."
    tea = memory.add("Tea after lunch.", user_id=user, memory_type="preference")
    assert {r.id for r in memory.memories(user_id=user)} == {stored.id, tea.id}
    assert [r.id for r in memory.memories(user_id=user, kinds={"preference"})] == [tea.id]
    assert memory.delete(stored.id, user_id=user) is True
    with pytest.raises(raised(memory, MemoryNotFound)) as missing:
        memory.get(stored.id, user_id=user)
    assert str(missing.value) == f"no memory {stored.id!r} for user {user!r}"  # the same sentence everywhere
    assert [r.id for r in memory.memories(user_id=user)] == [tea.id]


@ALSO_MCP
def test_search_context_and_a_link_made_by_hand(memory: Memory, user: str) -> None:
    fault = memory.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic")
    cable = memory.add("The spare encoder cable is in cabinet B.", user_id=user)
    memory.add("Lunch is at noon.", user_id=user)
    assert memory.search("error E-217", user_id=user, limit=1)[0].id == fault.id
    link = memory.graph.link(cable.id, fault.id, "resolves", 0.9, "swap the cable", user_id=user)
    assert (link.source, link.type, link.target, link.why) == (cable.id, "resolves", fault.id, "swap the cable")
    text = memory.recall("line 3 error E-217", user_id=user).text
    assert "E-217" in text  # the linked fix comes with the fault
    assert "cabinet B" in text
    assert "resolves" in text


@ALSO_MCP
def test_pins_and_a_learned_turn(memory: Memory, user: str) -> None:
    fact = memory.add("The office is on the third floor.", user_id=user)
    assert memory.pin(fact.id, user_id=user).metadata["pinned"] is True
    assert memory.unpin(fact.id, user_id=user).metadata["pinned"] is False
    learned = memory.learn([{"role": "user", "content": "I live in Nairobi."}], user_id=user, session_id="s1")
    assert isinstance(learned, ManageReport)
    assert learned.ops
    assert any("Nairobi" in r.content for r in memory.memories(user_id=user))


@ALSO_MCP
def test_refusals_are_one_clear_sentence(memory: Memory, user: str) -> None:
    with pytest.raises(raised(memory, InvalidRecordError)) as bad_kind:
        memory.add("Some text.", user_id=user, memory_type="nosuch")
    with pytest.raises(raised(memory, MemoryNotFound)) as missing:
        memory.update("no-such-id", user_id=user, content="Corrected.")
    assert str(missing.value) == f"no memory 'no-such-id' for user {user!r}"
    for caught in (bad_kind, missing):
        text = str(caught.value)
        assert isinstance(caught.value, KiokoError)
        assert text.strip() == text
        assert "\n" not in text
        assert "pydantic" not in text
        assert "Traceback" not in text
        assert "memory_type" in str(bad_kind.value)


def test_another_users_memory_is_not_there(memory: Memory, user: str) -> None:
    other = f"{user}-other"
    mine = memory.add("The safe's code is kept by the manager.", user_id=user)
    with pytest.raises(MemoryNotFound):
        memory.get(mine.id, user_id=other)
    with pytest.raises(MemoryNotFound):
        memory.update(mine.id, user_id=other, content="Taken over.")
    assert memory.delete(mine.id, user_id=other) is False
    assert list(memory.memories(user_id=other)) == []
    assert memory.search("safe code", user_id=other) == []
    assert memory.get(mine.id, user_id=user).content == mine.content


@ALSO_STORES
def test_the_entity_graph(memory: Memory, user: str) -> None:
    works = memory.entities.add("Kumar", "works at", "Acme", user_id=user)
    memory.entities.add("Acme", "is based in", "Pune", user_id=user)
    assert isinstance(works, Triple)
    assert (works.subject, works.relation, works.object) == ("Kumar", "works_at", "Acme")
    assert [t.id for t in memory.entities.relations("Kumar", user_id=user)] == [works.id]
    assert memory.entities.neighbors("Acme", user_id=user) == sorted(memory.entities.neighbors("Acme", user_id=user))
    assert set(memory.entities.neighbors("Acme", user_id=user)) == {"Kumar", "Pune"}
    assert [t.object for t in memory.entities.path("Kumar", "Pune", user_id=user)] == ["Acme", "Pune"]
    closed = memory.entities.invalidate(works.id, user_id=user)
    assert closed is not None
    assert closed.id == works.id
    assert memory.entities.relations("Kumar", user_id=user) == []
    assert [t.id for t in memory.entities.relations("Kumar", user_id=user, include_invalid=True)] == [works.id]
    assert memory.entities.relations("Kumar", user_id=f"{user}-other", include_invalid=True) == []
    assert memory.entities.forget_entity("Pune", user_id=user) == 1
    assert memory.entities.neighbors("Acme", user_id=user) == []


@ALSO_STORES
def test_memories_round_trip(memory: Memory, user: str) -> None:
    stored = memory.add("The boiler is serviced every October.", user_id=user, metadata={"room": "cellar"})
    assert isinstance(stored, Record)
    assert stored.user_id == user
    assert stored.metadata["room"] == "cellar"
    assert memory.get(stored.id, user_id=user).content == stored.content
    changed = memory.update(stored.id, user_id=user, content="The boiler is serviced every November.")
    assert "November" in changed.content
    batch = memory.add_many(
        ["Tea in the morning.", {"content": "Coffee after lunch.", "memory_type": "preference"}], user_id=user
    )
    assert [r.kind for r in batch] == ["factual", "preference"]
    assert {r.id for r in memory.memories(user_id=user)} == {stored.id, *(r.id for r in batch)}
    assert [r.kind for r in memory.memories(user_id=user, kinds={"preference"})] == ["preference"]
    assert memory.delete(stored.id, user_id=user) is True
    assert memory.delete(stored.id, user_id=user) is False
    with pytest.raises(MemoryNotFound):
        memory.get(stored.id, user_id=user)
    assert memory.forget_user(user_id=user) == 2


def test_typed_managers(memory: Memory, user: str) -> None:
    goal = memory.goals.add("Ship the surface suite", user_id=user)
    assert isinstance(goal, Record)
    assert goal.kind == "goal"
    assert [g.id for g in memory.goals.open(user_id=user)] == [goal.id]
    memory.goals.complete(goal.id, user_id=user)
    assert memory.goals.open(user_id=user) == []
    assert memory.lessons.add("Run the suite on every surface", user_id=user).kind == "strategy"
    memory.profile.set("city", "Nairobi", user_id=user)
    assert memory.profile.get("city", user_id=user) == "Nairobi"
    assert memory.profile.get("missing", user_id=user, default="none") == "none"
    memory.working.set("ticket", "KIO-21", user_id=user, session_id="s1")
    assert memory.working.all(user_id=user, session_id="s1") == {"ticket": "KIO-21"}


def test_recall_options_and_keywords_agree(memory: Memory, user: str) -> None:
    for text in ("Line 3 faults with error E-217.", "The encoder cable on line 3 was loose.", "Lunch is at noon."):
        memory.add(text, user_id=user)
    by_keywords = memory.recall("line 3 error E-217", user_id=user, limit=2, links=0, plan=False)
    options = RecallOptions(limit=2, links=0, plan=False)
    by_options = memory.recall("line 3 error E-217", user_id=user, options=options)
    assert isinstance(by_options, Context)
    assert 0 < len(by_options.memories) <= 2
    assert [m.record.id for m in by_options.memories] == [m.record.id for m in by_keywords.memories]
    narrower = memory.recall("line 3 error E-217", user_id=user, options=options, limit=1)  # a keyword wins
    assert [m.record.id for m in narrower.memories] == [by_options.memories[0].record.id]
    context = memory.context("line 3 error", user_id=user, options=RecallOptions(plan=False))
    assert "E-217" in context.text
    assert isinstance(memory.plan("what did we decide about line 3?", user_id=user), RecallPlan)
    assert all(isinstance(r, Record) for r in memory.search("encoder cable", user_id=user))


def test_graph_and_entities(memory: Memory, user: str) -> None:
    a = memory.add("The build fails on the CI runner.", user_id=user, memory_type="episodic")
    b = memory.add("Pinning the compiler version fixed the build.", user_id=user, memory_type="procedural")
    link = memory.graph.link(b.id, a.id, "resolves", 0.9, "pinned the compiler", user_id=user)
    assert isinstance(link, MemoryLink)
    assert link.type == "resolves"
    assert any(k.target == a.id for k in memory.graph.links(b.id, user_id=user))
    explained = memory.graph.explain(b.id, a.id, user_id=user)
    assert isinstance(explained, LinkScore)
    assert explained.linked
    assert memory.graph.unlink(b.id, a.id, user_id=user) is True
    triple = memory.graph.add("Kumar", "works at", "Acme", user_id=user)
    assert isinstance(triple, Triple)
    assert [t.id for t in memory.entities.relations("Kumar", user_id=user)] == [triple.id]
    assert memory.graph.forget_entity("Acme", user_id=user) == 1
    assert memory.entities.relations("Kumar", user_id=user) == []


def test_intelligence_pins_and_maintenance(memory: Memory, user: str) -> None:
    report = memory.manage("Remember that my car is blue.", user_id=user, session_id="s1")
    assert isinstance(report, ManageReport)
    assert report.ops
    turn = memory.record_turn("I prefer tea over coffee.", "Noted.", user_id=user, session_id="s1")
    assert isinstance(turn, ManageReport)
    assert isinstance(memory.learn([{"role": "user", "content": "I live in Nairobi."}], user_id=user), ManageReport)
    fact = memory.add("The office is on the third floor.", user_id=user)
    pinned = memory.pin(fact.id, user_id=user)
    assert isinstance(pinned, Record)
    assert pinned.metadata["pinned"] is True
    assert [r.id for r in memory.pinned(user_id=user)] == [fact.id]
    prefix = memory.kv(user_id=user)
    assert isinstance(prefix, StablePrefix)
    assert fact.id in prefix.memory_ids
    assert memory.unpin(fact.id, user_id=user).metadata["pinned"] is False
    episode = memory.end_session("s1", user_id=user)
    assert episode is None or isinstance(episode, Record)
    assert isinstance(memory.maintain(user_id=user, tasks=["pin"]), dict)
    assert memory.intelligence is not None
    assert isinstance(memory.intelligence.stats(), dict)


def test_events_on_and_off(memory: Memory, user: str) -> None:
    heard: list[dict[str, Any]] = []
    arrived = threading.Event()

    def listener(payload: dict[str, Any]) -> None:
        if payload.get("user_id") == user:
            heard.append(payload)
            arrived.set()

    assert memory.on("memory.managed", listener) is listener
    try:
        memory.manage("Remember that the meeting moved to Friday.", user_id=user)
        assert arrived.wait(15), "no memory.managed event arrived"
        assert heard[0]["event"] == "memory.managed"
        assert heard[0]["user_id"] == user
    finally:
        assert memory.off("memory.managed", listener) is True
    assert memory.off("memory.managed", listener) is False


@ALSO_STORES
def test_export_and_import(memory: Memory, user: str) -> None:
    kept = memory.add("The spare key is under the blue pot.", user_id=user)
    memory.graph.add("Kumar", "keeps", "the spare key", user_id=user)
    lines = list(memory.export_lines(user))
    assert json.loads(lines[0])["format"] == "kioko-export"
    assert json.loads(lines[-1])["end"]["records"] >= 2
    assert any(kept.id in line for line in lines)
    memory.forget_user(user_id=user)
    with pytest.raises(MemoryNotFound):
        memory.get(kept.id, user_id=user)
    done = memory.import_lines(lines)
    assert done["records"] == done["written"] >= 2
    assert done["unchanged"] == 0
    assert memory.get(kept.id, user_id=user).content == kept.content
    assert [t.object for t in memory.entities.relations("Kumar", user_id=user)] == ["the spare key"]
    again = memory.import_lines(lines)  # importing twice changes nothing
    assert (again["written"], again["unchanged"]) == (0, done["records"])
    assert list(export_lines(memory, user))[1:-1] == lines[1:-1]  # the module function is the same call
    assert import_lines(memory, lines)["written"] == 0


def test_an_export_is_checked_whole_before_anything_is_written(memory: Memory, user: str) -> None:
    memory.add("Written before the export.", user_id=user)
    lines = list(memory.export_lines(user))
    memory.forget_user(user_id=user)
    with pytest.raises(InvalidRecordError):
        memory.import_lines(lines[:-1])  # cut off: no end line
    assert list(memory.memories(user_id=user)) == []


def test_a_scoped_view(memory: Memory, user: str) -> None:
    view = memory.scoped(user_id=user)
    stored = view.add("Bound to one user.")
    assert stored.user_id == user
    assert view.get(stored.id).id == stored.id
    assert view.goals.add("A bound goal").user_id == user
    with pytest.raises(InvalidRecordError):
        view.get(stored.id, user_id=f"{user}-other")


def test_user_id_is_required_without_a_scope_or_a_bound_key(memory: Memory) -> None:
    with pytest.raises(InvalidRecordError):
        memory.add("Whose memory is this?")


def test_every_surface_has_the_protocols_calls_with_its_parameters(server: Served) -> None:
    members = [name for name in dir(Memory) if not name.startswith("_")]
    properties = {name for name in members if isinstance(getattr(Memory, name), property)}
    layer = kioko.intelligent("memory://")
    remote = RemoteMemory(server.url)
    asynchronous = AsyncRemoteMemory(server.url)
    try:
        for name in sorted(set(members) - properties):
            expected = _parameters(getattr(Memory, name), drop_self=True)
            for surface in (layer, remote, asynchronous):
                assert _parameters(getattr(surface, name)) == expected, f"{type(surface).__name__}.{name}"
        for name in properties:
            for surface in (layer, remote, asynchronous):
                assert hasattr(surface, name), f"{type(surface).__name__}.{name}"
    finally:
        layer.close()
        remote.close()
        asyncio.run(asynchronous.close())


def _parameters(call: Any, drop_self: bool = False) -> list[tuple[str, Any]]:
    """Names and kinds of a call's parameters (defaults differ in spelling: ``...`` in the protocol)."""
    params = list(inspect.signature(call).parameters.values())
    if drop_self:
        params = params[1:]
    return [(p.name, p.kind) for p in params]


def test_connect_returns_a_remote_memory_for_http_urls(server: Served) -> None:
    for url in (server.url, "kioko+" + server.url):
        with kioko.connect(url) as remote:
            assert isinstance(remote, RemoteMemory)
            assert remote.url == server.url


def test_a_bound_library_view_exports_and_imports_its_own_user_only(user: str) -> None:
    other = f"{user}-other"
    with kioko.intelligent("memory://") as layer:
        view = layer.scoped(user_id=user)
        mine = view.add("The spare key is under the blue pot.")
        layer.add("Someone else's note.", user_id=other)
        lines = list(view.export_lines())  # the view fills in its user
        assert any(mine.id in line for line in lines)
        assert not any("Someone else" in line for line in lines)
        with pytest.raises(InvalidRecordError):
            list(view.export_lines(other))
        with pytest.raises(InvalidRecordError):
            view.import_lines(list(layer.export_lines(other)))
        assert view.import_lines(lines)["unchanged"] == len(lines) - 2  # header and end line aside


def test_a_core_layer_without_kioko_says_what_export_needs() -> None:
    code = (
        "from kioko_backends.memory import MemoryStore\n"
        "from kioko_core.layer.memory_layer import MemoryLayer\n"
        "from kioko_core.errors import InvalidRecordError\n"
        "try:\n    MemoryLayer(MemoryStore()).export_lines('u')\n"
        "except InvalidRecordError as error:\n    print(error)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "export and import need Kioko's export format, which is not loaded: import kioko first"
