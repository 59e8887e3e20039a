"""AsyncRemoteMemory: RemoteMemory's calls on an ``httpx.AsyncClient``, each one awaited.

``async with AsyncRemoteMemory("http://127.0.0.1:8765", api_key=...) as memory:`` then
``await memory.add(...)``, ``await memory.recall(...)``, ``await memory.goals.add(...)``,
``await memory.graph.link(...)``: the same arguments, defaults, return types and errors as
:class:`kioko.remote.client.RemoteMemory` (both build their requests with :mod:`kioko.remote.calls`), and the
same retries (idempotent calls on a dropped connection or a 503; any call that never reached the server).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Iterable
from typing import Any

from kioko.protocol import Entities, Memory, MemoryGraph
from kioko.remote import calls
from kioko.remote.async_managers import MANAGERS, AsyncKindManagers
from kioko.remote.calls import IDEMPOTENT, Call, Calls, forward_async, where
from kioko.remote.client import DEFAULT_TIMEOUT, _error, _stats, auth_headers, base_url, import_httpx, ndjson
from kioko.remote.events import Callback, EventStream
from kioko_core.kinds import attribute_names
from kioko_core.store import ConnectionLostError, InvalidRecordError, Record, Scope, check_scope


class AsyncRemoteMemory(AsyncKindManagers, Calls):
    """The layer's API over HTTP, for asyncio code. Every call is a coroutine; ``memories`` and
    ``export_lines`` are async iterators."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = 2,
        backoff: float = 0.2,
        headers: dict[str, str] | None = None,
        transport: Any = None,
    ) -> None:
        httpx = import_httpx()
        self.url = base_url(url)
        self.retries, self.backoff = int(retries), float(backoff)
        self._httpx = httpx
        self._headers = auth_headers(api_key, headers)
        self._http = httpx.AsyncClient(base_url=self.url, timeout=timeout, headers=self._headers, transport=transport)
        self._bound: Scope | None = None
        self._owns_client = True
        self._events: EventStream | None = None
        self._install()

    def _install(self) -> None:
        self.graph = AsyncRemoteGraph(self)
        self.entities = AsyncRemoteEntities(self)
        built = {name: manager(self) for name, manager in MANAGERS.items()}
        self._managers = {name: built[own] for name, own in attribute_names().items() if own in built}
        self.intelligence = AsyncRemoteIntelligence(self)

    async def _send(self, call: Call) -> Any:
        query = {k: v for k, v in (call.params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = await self._http.request(call.verb, call.path, params=query, json=call.body)
            except self._httpx.TransportError as error:
                unsent = isinstance(error, (self._httpx.ConnectError, self._httpx.ConnectTimeout))
                if attempt < self.retries and (unsent or call.verb in IDEMPOTENT):
                    attempt += 1
                    await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise ConnectionLostError(f"the Kioko service at {self.url} did not answer: {error}") from None
            if response.status_code == 503 and call.verb in IDEMPOTENT and attempt < self.retries:
                attempt += 1
                await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            break
        if response.status_code >= 400:
            raise _error(response)
        return call.decode(response.json() if response.content else None)

    async def request(self, verb: str, path: str, *, params: dict[str, Any] | None = None, body: Any = None) -> Any:
        """One call: JSON in, JSON out; an error body becomes the library's exception."""
        return await self._send(Call(verb, path, params=params, body=body))

    async def close(self) -> None:
        """Close the connection (a :meth:`scoped` view leaves it open: it belongs to the client it came from)."""
        if self._events is not None:
            await asyncio.to_thread(self._events.close)
            self._events = None
        if self._owns_client:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncRemoteMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        bound = f", scope={tuple(self._bound)!r}" if self._bound is not None else ""
        return f"AsyncRemoteMemory({self.url!r}{bound})"

    @property
    def scope(self) -> Scope | None:
        """The scope this view is bound to (:meth:`scoped`); None for a client that serves every user."""
        return self._bound

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> AsyncRemoteMemory:
        """The same calls with ``user_id`` (and ``agent_id``) bound (not a coroutine: nothing is sent)."""
        if self._bound is not None:
            user, agent = calls._who(self._bound, user_id, agent_id)
        else:
            if user_id is None:
                raise InvalidRecordError("scoped() needs user_id")
            user, agent = user_id, agent_id
        view = copy.copy(self)
        view._bound = check_scope((user, agent))
        view._owns_client, view._events = False, None
        view._install()
        return view

    # -- every call of kioko.Memory, awaited: the protocol's signature, the request derived from the operations table

    add = forward_async(Memory.add)
    add_many = forward_async(Memory.add_many)
    get = forward_async(Memory.get)
    update = forward_async(Memory.update)
    delete = forward_async(Memory.delete)  # a 404 is False, as the library answers for a memory that is not there
    forget_user = forward_async(Memory.forget_user)
    forget_about = forward_async(Memory.forget_about)
    recall = forward_async(Memory.recall)
    context = forward_async(Memory.context)
    search = forward_async(Memory.search)
    plan = forward_async(Memory.plan)
    feedback = forward_async(Memory.feedback)
    manage = forward_async(Memory.manage)
    record_turn = forward_async(Memory.record_turn)
    learn = forward_async(Memory.learn)
    pin = forward_async(Memory.pin)
    unpin = forward_async(Memory.unpin)
    pinned = forward_async(Memory.pinned)
    kv = forward_async(Memory.kv)
    end_session = forward_async(Memory.end_session)
    maintain = forward_async(Memory.maintain)

    async def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> AsyncIterator[Record]:
        """Every memory of a scope, a page at a time."""
        cursor = None
        while True:
            page = await self._send(
                self._page(user_id=user_id, agent_id=agent_id, kinds=kinds, cursor=cursor, size=calls.PAGE)
            )
            for record in calls.records(page["items"]):
                yield record
            cursor = page["next_cursor"]
            if cursor is None:
                return

    async def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now (the service's ``maintain(tasks=["reflect"])``)."""
        done = await self.maintain(user_id=user_id, agent_id=agent_id, tasks=["reflect"])
        return dict(next(iter(done.values()))["reflect"])

    # -- events

    async def on(self, event: str, callback: Callback) -> Callback:
        """As :meth:`RemoteMemory.on`: ``callback(payload)`` runs on the stream's reader thread."""
        if self._events is None:
            user = self._bound.user_id if self._bound is not None else None
            self._events = EventStream(self.url, self._headers, user)
        return await asyncio.to_thread(self._events.on, event, callback)

    async def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``; the event stream closes when no callback is left."""
        if self._events is None:
            return False
        removed = self._events.off(event, callback)
        if self._events.idle:
            await asyncio.to_thread(self._events.close)
            self._events = None
        return removed

    # -- export and import

    async def export_lines(self, user_id: str, agent_ids: Iterable[str] = ()) -> AsyncIterator[str]:
        """The user's memories as JSON lines, streamed from the service's export."""
        params = {"user_id": user_id, "agent_id": list(agent_ids) or None}
        async with self._http.stream(*where("export_lines"), params={k: v for k, v in params.items() if v}) as response:
            if response.status_code >= 400:
                await response.aread()
                raise _error(response)
            async for line in response.aiter_lines():
                if line:
                    yield line + "\n"

    async def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
        """Send JSON lines to the service's import; ``{"records", "written", "unchanged"}`` counts."""
        response = await self._http.post(
            where("import_lines")[1], content=ndjson(lines), headers={"content-type": "application/x-ndjson"}
        )
        if response.status_code >= 400:
            raise _error(response)
        done: dict[str, int] = response.json()
        return done


class AsyncRemoteIntelligence:
    """``memory.intelligence``: ``await memory.intelligence.enabled()``, ``await memory.intelligence.stats()``."""

    def __init__(self, remote: AsyncRemoteMemory) -> None:
        self._remote = remote

    async def enabled(self) -> bool:
        """Whether the service has an intelligence."""
        return bool((await self._remote._send(self._remote._intelligence()))["enabled"])

    async def stats(self) -> dict[str, int]:
        """The service's intelligence counters."""
        return _stats(await self._remote._send(self._remote._intelligence()))


class AsyncRemoteGraph:
    """``memory.graph``: each call of RemoteGraph, awaited."""

    def __init__(self, remote: AsyncRemoteMemory) -> None:
        self._remote = remote

    def __repr__(self) -> str:
        return f"AsyncRemoteGraph({self._remote!r})"

    links = forward_async(MemoryGraph.links)
    link = forward_async(MemoryGraph.link)
    unlink = forward_async(MemoryGraph.unlink)
    explain = forward_async(MemoryGraph.explain)
    related = forward_async(MemoryGraph.related)
    trace = forward_async(MemoryGraph.trace)
    memories = forward_async(MemoryGraph.memories)
    connect = forward_async(MemoryGraph.connect)  # runs on the server in one call; progress is called once, at the end
    prune = forward_async(MemoryGraph.prune)
    merge = forward_async(MemoryGraph.merge)
    add = forward_async(MemoryGraph.add)
    delete_triple = forward_async(MemoryGraph.delete_triple)
    forget_entity = forward_async(MemoryGraph.forget_entity)
    relations = forward_async(MemoryGraph.relations)
    neighbors = forward_async(MemoryGraph.neighbors)
    path = forward_async(MemoryGraph.path)


class AsyncRemoteEntities:
    """``memory.entities``: each call of RemoteEntities, awaited."""

    def __init__(self, remote: AsyncRemoteMemory) -> None:
        self._remote = remote

    def __repr__(self) -> str:
        return f"AsyncRemoteEntities({self._remote!r})"

    add = forward_async(Entities.add)
    invalidate = forward_async(Entities.invalidate)
    delete = forward_async(Entities.delete)
    forget_entity = forward_async(Entities.forget_entity)
    relations = forward_async(Entities.relations)
    neighbors = forward_async(Entities.neighbors)
    path = forward_async(Entities.path)


__all__ = ["AsyncRemoteMemory"]
