"""AsyncRemoteMemory: RemoteMemory's calls on an ``httpx.AsyncClient``, each one awaited.

``async with AsyncRemoteMemory("http://127.0.0.1:8765", api_key=...) as memory:`` then
``await memory.add(...)``, ``await memory.recall(...)``, ``await memory.goals.add(...)``,
``await memory.graph.link(...)``: the same arguments, defaults, return types and errors as
:class:`kioko.remote.RemoteMemory` (both build their requests with :mod:`kioko.remote_calls`), and the
same retries (idempotent calls on a dropped connection or a 503; any call that never reached the server).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from kioko_core.errors import MemoryNotFound
from kioko_core.intelligence.ops import ManageReport
from kioko_core.intelligence.pins import StablePrefix
from kioko_core.intelligence.planner import RecallPlan
from kioko_core.links import MemoryLink
from kioko_core.recall import Context
from kioko_core.recall_options import RecallOptions
from kioko_core.store import ConnectionLostError, InvalidRecordError, Record, Scope, check_scope

from . import remote_calls as C
from .remote import DEFAULT_TIMEOUT, _error, _stats, auth_headers, base_url, import_httpx, ndjson
from .remote_calls import IDEMPOTENT, Call, Calls, GraphCalls, where
from .remote_events import Callback, EventStream
from .service import surface


class AsyncRemoteMemory(Calls):
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
        self.graph = AsyncRemoteGraph(self, C.GRAPH_CALLS + C.GRAPH_ENTITY_CALLS)
        self.entities = AsyncRemoteGraph(self, C.ENTITY_CALLS)
        for name in surface.MANAGERS:
            setattr(self, name, AsyncRemoteManager(self, name))
        self.lessons = self.strategies  # type: ignore[attr-defined]
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
        return self._bound

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> AsyncRemoteMemory:
        """The same calls with ``user_id`` (and ``agent_id``) bound (not a coroutine: nothing is sent)."""
        if self._bound is not None:
            user, agent = C._who(self._bound, user_id, agent_id)
        else:
            if user_id is None:
                raise InvalidRecordError("scoped() needs user_id")
            user, agent = user_id, agent_id
        view = copy.copy(self)
        view._bound = check_scope((user, agent))
        view._owns_client, view._events = False, None
        view._install()
        return view

    # -- memories

    async def add(
        self,
        content: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | datetime | None = None,
        id: str | None = None,
        embedding: Any = None,
    ) -> Record:
        call = self._add(
            content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=memory_type,
            metadata=metadata,
            created_at=created_at,
            id=id,
            embedding=embedding,
        )
        stored: Record = await self._send(call)
        return stored

    async def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]:
        call = self._add_many(items, user_id=user_id, agent_id=agent_id, session_id=session_id, memory_type=memory_type)
        stored: list[Record] = await self._send(call)
        return stored

    async def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        found: Record = await self._send(self._get(memory_id, user_id=user_id, agent_id=agent_id))
        return found

    async def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        call = self._update(memory_id, user_id=user_id, agent_id=agent_id, content=content, metadata=metadata)
        changed: Record = await self._send(call)
        return changed

    async def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        try:
            return bool(await self._send(self._delete(memory_id, user_id=user_id, agent_id=agent_id)))
        except MemoryNotFound:
            return False

    async def forget_user(self, *, user_id: str | None = None, agent_id: str | None = None) -> int:
        return int(await self._send(self._forget_user(user_id=user_id, agent_id=agent_id)))

    async def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> AsyncIterator[Record]:
        """Every memory of a scope, a page at a time (``async for record in memory.memories(...)``)."""
        from . import remote

        cursor = None
        while True:
            call = self._page(user_id=user_id, agent_id=agent_id, kinds=kinds, cursor=cursor, size=remote.PAGE)
            page = await self._send(call)
            for record in C.records(page["items"]):
                yield record
            cursor = page["next_cursor"]
            if cursor is None:
                return

    # -- recall

    async def recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        include_shared: bool = False,
        config: Any = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
    ) -> Context:
        call = self._recall(
            "recall",
            query,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            options=options,
            links=links,
            limit=limit,
            include_shared=include_shared,
            config=config,
            plan=plan,
            section_limits=section_limits,
            fill_recent=fill_recent,
        )
        found: Context = await self._send(call)
        return found

    async def context(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
    ) -> Context:
        call = self._context(
            query,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            options=options,
            links=links,
            limit=limit,
            plan=plan,
            section_limits=section_limits,
            fill_recent=fill_recent,
        )
        found: Context = await self._send(call)
        return found

    async def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, limit: int = 10
    ) -> list[Record]:
        found: list[Record] = await self._send(self._search(query, user_id=user_id, agent_id=agent_id, limit=limit))
        return found

    async def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        found: RecallPlan = await self._send(
            self._plan(query, user_id=user_id, agent_id=agent_id, session_id=session_id)
        )
        return found

    async def feedback(
        self,
        worked: bool = True,
        *,
        user_id: str | None = None,
        credited: str | None = None,
        session_id: str | None = None,
        context: Context | None = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> list[MemoryLink]:
        call = self._feedback(
            worked,
            user_id=user_id,
            credited=credited,
            session_id=session_id,
            context=context,
            agent_id=agent_id,
            now=now,
        )
        made: list[MemoryLink] = await self._send(call)
        return made

    # -- the intelligence

    async def manage(
        self,
        text: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        fields = {"text": text, "session_id": session_id, "dry_run": dry_run}
        done: ManageReport = await self._send(self._routed("manage", fields, user_id, agent_id))
        return done

    async def record_turn(
        self,
        user: str,
        reply: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        fields = {"user": user, "reply": reply, "session_id": session_id, "dry_run": dry_run}
        done: ManageReport = await self._send(self._routed("record_turn", fields, user_id, agent_id))
        return done

    async def learn(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        fields = {"messages": messages, "session_id": session_id, "dry_run": dry_run}
        done: ManageReport = await self._send(self._routed("learn", fields, user_id, agent_id))
        return done

    async def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        pinned: Record = await self._send(self._pin(memory_id, True, user_id=user_id, agent_id=agent_id))
        return pinned

    async def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        unpinned: Record = await self._send(self._pin(memory_id, False, user_id=user_id, agent_id=agent_id))
        return unpinned

    async def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        found: list[Record] = await self._send(self._pinned(user_id=user_id, agent_id=agent_id))
        return found

    async def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        prefix: StablePrefix = await self._send(self._kv(user_id=user_id, agent_id=agent_id))
        return prefix

    async def end_session(
        self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record | None:
        episode: Record | None = await self._send(self._end_session(session_id, user_id=user_id, agent_id=agent_id))
        return episode

    async def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        done: dict[str, Any] = await self._send(self._maintain(user_id=user_id, agent_id=agent_id, tasks=tasks))
        return done

    async def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
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
        if self._events is None:
            return False
        removed = self._events.off(event, callback)
        if self._events.idle:
            await asyncio.to_thread(self._events.close)
            self._events = None
        return removed

    # -- export and import

    async def export_lines(self, user_id: str, agent_ids: Iterable[str] = ()) -> AsyncIterator[str]:
        params = {"user_id": user_id, "agent_id": list(agent_ids) or None}
        async with self._http.stream(*where("export_lines"), params={k: v for k, v in params.items() if v}) as response:
            if response.status_code >= 400:
                await response.aread()
                raise _error(response)
            async for line in response.aiter_lines():
                if line:
                    yield line + "\n"

    async def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
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
        return bool((await self._remote._send(self._remote._intelligence()))["enabled"])

    async def stats(self) -> dict[str, int]:
        return _stats(await self._remote._send(self._remote._intelligence()))


class AsyncRemoteGraph:
    """``memory.graph`` / ``memory.entities``: each call of RemoteGraph / RemoteEntities, awaited."""

    def __init__(self, remote: AsyncRemoteMemory, names: tuple[str, ...]) -> None:
        self._remote, self._names = remote, names
        self._calls = GraphCalls(remote)

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(name)
        build = getattr(self._calls, C.GRAPH_NAMES.get(name, name))
        remote = self._remote

        async def call(*args: Any, **kwargs: Any) -> Any:
            progress = kwargs.pop("progress", None) if name == "connect" else None
            done = await remote._send(build(*args, **kwargs))
            if progress is not None:
                progress(done.memories, done.memories)
            return done

        call.__name__ = name
        call.__doc__ = build.__doc__
        return call


class AsyncRemoteManager:
    """``memory.goals`` ...: the library manager's calls (the same signatures), each one awaited."""

    def __init__(self, remote: AsyncRemoteMemory, name: str) -> None:
        self._remote, self._name = remote, name
        self.kind = getattr(surface.manager_class(name), "kind", "")

    def __repr__(self) -> str:
        return f"AsyncRemoteManager({self._name!r})"

    def __getattr__(self, method: str) -> Callable[..., Awaitable[Any]]:
        if method.startswith("_") or surface.operation(self._name, method) is None:
            raise AttributeError(f"memory.{self._name} has no call {method!r} over HTTP")
        remote, manager = self._remote, self._name

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await remote._send(C.manager_call(remote, manager, method, args, dict(kwargs)))

        call.__name__ = method
        call.__doc__ = getattr(surface.manager_class(manager), method).__doc__
        return call


__all__ = ["AsyncRemoteMemory"]
