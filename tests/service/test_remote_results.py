"""The remote clients return exactly what the library returns (issue 35): one script of calls runs on the library,
on RemoteMemory and on AsyncRemoteMemory (each against a server over its own fresh memory:// layer), and every
result is compared field by field, with the ids each surface made mapped to the order they were first seen.

The old client decoded a memory's JSON in the stored shape, so ``RemoteMemory.get(id).metadata`` carried the
``_kioko`` bookkeeping (links, entities) the library and the REST answer leave out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import kioko
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko_core.linking import links
from kioko_core.store import Record

U = "kumar"
WHEN = 1_700_000_000.0  # every memory gets this time, so recency weighs the same on every surface


class _Blocking:
    """An AsyncRemoteMemory driven through blocking calls, each coroutine run on this adapter's loop."""

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._target, self._loop = target, loop

    def _run(self, awaitable: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(awaitable, self._loop).result(timeout=60)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._target, name)
        if name in ("memories", "export_lines"):

            def listed(*args: Any, **kwargs: Any) -> Iterator[Any]:
                async def collect() -> list[Any]:
                    return [item async for item in found(*args, **kwargs)]

                return iter(self._run(collect()))

            return listed
        if callable(found):

            def call(*args: Any, **kwargs: Any) -> Any:
                result = found(*args, **kwargs)
                return self._run(result) if inspect.isawaitable(result) else result

            return call
        return _Blocking(found, self._loop)


class _Ids:
    """Each surface's ids, named by the order they were first seen (the same script makes them in the same order)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        return self.names.setdefault(value, f"<id {len(self.names)}>")


def _plain(value: Any, ids: _Ids) -> Any:
    """``value`` as plain data: ids named by order, a record's times left out (each surface wrote at its own
    moment), its metadata exactly and its bookkeeping with its ids named."""
    if isinstance(value, Record):
        data = value.model_dump(exclude={"embedding", "created_at", "updated_at", "version", "terms", "system"})
        data["id"] = ids(value.id)
        data["entities"] = sorted(links.entities_of(value))
        data["links"] = sorted((ids(e["id"]), e.get("type")) for e in links.link_entries(value))
        return data
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {type(value).__name__: _plain(fields, ids)}
    if isinstance(value, dict):
        return {k: _plain(v, ids) for k, v in value.items() if k not in ("created_at", "updated_at", "at", "seen")}
    if isinstance(value, (list, tuple)):
        return [_plain(v, ids) for v in value]
    if isinstance(value, str) and value in ids.names:
        return ids.names[value]
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, np.ndarray):
        return None
    return value


def _script(memory: Any) -> list[tuple[str, Any]]:
    """The calls, each with its result."""
    out: list[tuple[str, Any]] = []

    def did(name: str, call: Callable[[], Any]) -> Any:
        result = call()
        out.append((name, result))
        return result

    fault = did(
        "add",
        lambda: memory.add(
            "Line 3 keeps faulting with error E-217 at the encoder.",
            user_id=U,
            memory_type="episodic",
            metadata={"room": "hall"},
            created_at=WHEN,
        ),
    )
    cable = did(
        "add",
        lambda: memory.add("The spare encoder cable for line 3 is in cabinet B.", user_id=U, created_at=WHEN),
    )
    did("add_many", lambda: memory.add_many(["Lunch is at noon.", "Tea after lunch."], user_id=U))
    did("get", lambda: memory.get(fault.id, user_id=U))
    did("update", lambda: memory.update(cable.id, user_id=U, metadata={"shelf": 2}))
    did("memories", lambda: sorted(memory.memories(user_id=U), key=lambda r: r.content))
    did("search", lambda: memory.search("encoder cable", user_id=U, limit=2))
    did("graph.link", lambda: memory.graph.link(cable.id, fault.id, "resolves", 0.9, "swap it", user_id=U))
    did("graph.links", lambda: memory.graph.links(fault.id, user_id=U))
    did("get linked", lambda: memory.get(cable.id, user_id=U))
    did("recall", lambda: memory.recall("encoder fault on line 3", user_id=U, limit=3))
    did("context", lambda: memory.context("where is the encoder cable?", user_id=U))
    did("graph.explain", lambda: memory.graph.explain(cable.id, fault.id, user_id=U).type)
    did("graph.related", lambda: [(r.record.id, len(r.path)) for r in memory.graph.related(fault.id, user_id=U)])
    did("goals.add", lambda: memory.goals.add("Keep line 3 running", user_id=U))
    did("goals.open", lambda: memory.goals.open(user_id=U))
    did("facts.add", lambda: memory.facts.add("The plant runs two shifts.", user_id=U))
    did("profile.set", lambda: memory.profile.set("role", "maintenance lead", user_id=U))
    did("profile.get", lambda: memory.profile.get("role", user_id=U))
    did("entities.add", lambda: memory.entities.add("line 3", "uses", "encoder", user_id=U).subject)
    did("entities.relations", lambda: [t.object for t in memory.entities.relations("line 3", user_id=U)])
    did("graph.unlink", lambda: memory.graph.unlink(cable.id, fault.id, user_id=U))
    did("delete", lambda: memory.delete(fault.id, user_id=U))
    did("delete again", lambda: memory.delete(fault.id, user_id=U))
    return out


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, name="results-async", daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(timeout=5)
    running.close()


def _served_results(client: Callable[[str], Any]) -> list[tuple[str, Any]]:
    layer = kioko.connect("memory://", auto_link=True)
    try:
        with LiveServer(create_app(layer)) as server:
            return client(server.url)
    finally:
        layer.close()


def test_every_call_returns_on_the_clients_what_the_library_returns(loop: asyncio.AbstractEventLoop) -> None:
    with kioko.connect("memory://", auto_link=True) as layer:
        library = _script(layer)

    def sync(url: str) -> list[tuple[str, Any]]:
        with kioko.RemoteMemory(url) as remote:
            return _script(remote)

    def async_(url: str) -> list[tuple[str, Any]]:
        async def made() -> Any:
            return kioko.AsyncRemoteMemory(url)

        client = asyncio.run_coroutine_threadsafe(made(), loop).result()
        try:
            return _script(_Blocking(client, loop))
        finally:
            asyncio.run_coroutine_threadsafe(client.close(), loop).result()

    ids = _Ids()
    expected = [(name, _plain(value, ids)) for name, value in library]
    for surface in (sync, async_):
        results = _served_results(surface)
        assert [type(value) for _, value in results] == [type(value) for _, value in library], surface.__name__
        ids = _Ids()
        got = [(name, _plain(value, ids)) for name, value in results]
        for want, have in zip(expected, got):
            assert have == want, f"{surface.__name__}: {want[0]}"


def test_a_remote_memory_carries_the_librarys_metadata_and_bookkeeping_apart() -> None:
    layer = kioko.connect("memory://", auto_link=True)
    try:
        first = layer.add("Kumar drinks tea from Assam every morning.", user_id=U, metadata={"cup": "blue"})
        second = layer.add("Kumar buys his tea from Assam online.", user_id=U)
        with LiveServer(create_app(layer)) as server, kioko.RemoteMemory(server.url) as remote:
            for memory_id in (first.id, second.id):
                local, far = layer.get(memory_id, user_id=U), remote.get(memory_id, user_id=U)
                assert far.metadata == local.metadata
                assert links.BOOKKEEPING not in far.metadata
                assert links.entities_of(far) == links.entities_of(local)
                assert [e["id"] for e in links.link_entries(far)] == [e["id"] for e in links.link_entries(local)]
            listed = {r.id: r.metadata for r in remote.memories(user_id=U)}
            assert listed == {first.id: {"cup": "blue"}, second.id: {}}
    finally:
        layer.close()


def test_both_clients_are_exported_by_kioko() -> None:
    from kioko.remote.async_client import AsyncRemoteMemory
    from kioko.remote.client import RemoteMemory

    assert kioko.RemoteMemory is RemoteMemory
    assert kioko.AsyncRemoteMemory is AsyncRemoteMemory
    assert {"RemoteMemory", "AsyncRemoteMemory"} <= set(kioko.__all__)
