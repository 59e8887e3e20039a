"""RemoteMemory: a MemoryLayer's calls, executed by a Kioko service over HTTP.

``kioko.connect("http://host:8765", api_key=...)`` returns one. It is a :class:`kioko.Memory`, as a
MemoryLayer is: methods, arguments, return types and errors are the layer's (``remote.goals.add(...)``
returns a Record, ``remote.graph.link(...)`` a MemoryLink, a missing memory raises MemoryNotFound, a
secret SecretDropped). Records come back without their embedding (the server keeps the vectors).
``user_id`` may be omitted where the library allows it: a :meth:`RemoteMemory.scoped` view fills it in,
else nothing is sent and the server decides (an API key bound to one user acts for that user).

Built on one httpx.Client (connections are reused). Calls that are safe to repeat (GET, PUT, DELETE)
are retried on a dropped connection, a timeout or a 503; any call is retried when the connection
could not be made at all, since then nothing reached the server. :class:`AsyncRemoteMemory`
(:mod:`kioko.remote_async`) makes the same calls on an httpx.AsyncClient.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kioko_core.entities import Triple
from kioko_core.errors import MemoryNotFound
from kioko_core.graph import ConnectReport, GraphDrawing, RelatedMemory
from kioko_core.intelligence.ops import ManageReport
from kioko_core.intelligence.pins import StablePrefix
from kioko_core.intelligence.planner import RecallPlan
from kioko_core.linker import LinkScore
from kioko_core.links import MemoryLink
from kioko_core.recall import Context
from kioko_core.recall_options import RecallOptions
from kioko_core.secrets import get_logger
from kioko_core.store import ConnectionLostError, InvalidRecordError, Record, Scope, check_scope

from . import remote_calls as C
from .remote_calls import IDEMPOTENT, Call, Calls, GraphCalls, error_of, where
from .remote_events import EventStream
from .remote_url import REMOTE_SCHEMES as REMOTE_SCHEMES
from .remote_url import is_remote_url as is_remote_url
from .service import surface

if TYPE_CHECKING:
    from kioko_core.kinds import (
        Decisions,
        Episodes,
        Facts,
        Goals,
        Insights,
        Instructions,
        Knowledge,
        Preferences,
        Procedures,
        Profile,
        Skills,
        Strategies,
        Summaries,
        WorkingMemory,
    )

    from .protocol import Callback

# the HTTP library logs every request's URL at INFO; a memory or session id in a path may hold a secret
get_logger("httpx")

DEFAULT_TIMEOUT = 30.0
PAGE = C.PAGE


def base_url(url: str) -> str:
    return (url.split("+", 1)[1] if url.lower().startswith("kioko+") else url).rstrip("/")


def auth_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    sent = dict(headers or {})
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    return sent


def import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        from kioko_core.store import MissingExtraError

        raise MissingExtraError("RemoteMemory needs httpx: pip install 'kioko[service]'") from None
    return httpx


def ndjson(lines: Iterable[str | bytes]) -> bytes:
    """An export's lines as one request body, each ending in a newline."""
    text = "".join(
        line if line.endswith("\n") else line + "\n"
        for line in (raw.decode("utf-8") if isinstance(raw, bytes) else raw for raw in lines)
    )
    return text.encode("utf-8")


class RemoteMemory(Calls):
    """The layer's API over HTTP (a :class:`kioko.Memory`). :func:`kioko.connect` with an ``http(s)://`` URL
    builds one."""

    goals: Goals
    decisions: Decisions
    procedures: Procedures
    strategies: Strategies
    lessons: Strategies
    skills: Skills
    episodes: Episodes
    facts: Facts
    preferences: Preferences
    knowledge: Knowledge
    insights: Insights
    summaries: Summaries
    instructions: Instructions
    profile: Profile
    working: WorkingMemory

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
        self._http = httpx.Client(base_url=self.url, timeout=timeout, headers=self._headers, transport=transport)
        self._bound: Scope | None = None
        self._owns_client = True
        self._events: EventStream | None = None
        self._has_intelligence: bool | None = None
        self._install()

    def _install(self) -> None:
        self.graph = RemoteGraph(self)
        self.entities = RemoteEntities(self)
        for name in surface.MANAGERS:
            setattr(self, name, remote_manager(self, name))
        self.lessons = self.strategies

    # -- transport

    def request(
        self, verb: str, path: str, *, params: dict[str, Any] | None = None, body: Any = None, stream: bool = False
    ) -> Any:
        """One call: JSON in, JSON out; an error body becomes the library's exception."""
        return self._send(Call(verb, path, params=params, body=body))

    def _send(self, call: Call) -> Any:
        query = {k: v for k, v in (call.params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self._http.request(call.verb, call.path, params=query, json=call.body)
            except self._httpx.TransportError as error:
                unsent = isinstance(error, (self._httpx.ConnectError, self._httpx.ConnectTimeout))
                if attempt < self.retries and (unsent or call.verb in IDEMPOTENT):
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise ConnectionLostError(f"the Kioko service at {self.url} did not answer: {error}") from None
            if response.status_code == 503 and call.verb in IDEMPOTENT and attempt < self.retries:
                attempt += 1
                time.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            break
        if response.status_code >= 400:
            raise _error(response)
        return call.decode(response.json() if response.content else None)

    def close(self) -> None:
        """Close the connection (a :meth:`scoped` view leaves it open: it belongs to the client it came from)."""
        if self._events is not None:
            self._events.close()
            self._events = None
        if self._owns_client:
            self._http.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        bound = f", scope={tuple(self._bound)!r}" if self._bound is not None else ""
        return f"RemoteMemory({self.url!r}{bound})"

    # -- views

    @property
    def scope(self) -> Scope | None:
        """The scope this view is bound to (:meth:`scoped`); None for a client that names its user per call."""
        return self._bound

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> RemoteMemory:
        """The same calls with ``user_id`` (and ``agent_id``) bound, managers and graph included, as on a
        MemoryLayer; naming another user or agent in a call of the view raises InvalidRecordError."""
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

    # -- writing

    def add(
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
        stored: Record = self._send(call)
        return stored

    def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]:
        call = self._add_many(items, user_id=user_id, agent_id=agent_id, session_id=session_id, memory_type=memory_type)
        stored: list[Record] = self._send(call)
        return stored

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        found: Record = self._send(self._get(memory_id, user_id=user_id, agent_id=agent_id))
        return found

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        call = self._update(memory_id, user_id=user_id, agent_id=agent_id, content=content, metadata=metadata)
        changed: Record = self._send(call)
        return changed

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        # the server answers 404 for a memory that is not there; the library's answer for it is False
        try:
            return bool(self._send(self._delete(memory_id, user_id=user_id, agent_id=agent_id)))
        except MemoryNotFound:
            return False

    def forget_user(self, *, user_id: str | None = None, agent_id: str | None = None) -> int:
        return int(self._send(self._forget_user(user_id=user_id, agent_id=agent_id)))

    def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> Iterator[Record]:
        """Every memory of a scope, a page at a time."""
        cursor = None
        while True:
            page = self._send(self._page(user_id=user_id, agent_id=agent_id, kinds=kinds, cursor=cursor, size=PAGE))
            yield from C.records(page["items"])
            cursor = page["next_cursor"]
            if cursor is None:
                return

    # -- reading

    def recall(
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
        found: Context = self._send(call)
        return found

    def context(
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
        """Like :meth:`recall`, but follows links only when asked (``links`` defaults to 0)."""
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
        found: Context = self._send(call)
        return found

    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, limit: int = 10
    ) -> list[Record]:
        found: list[Record] = self._send(self._search(query, user_id=user_id, agent_id=agent_id, limit=limit))
        return found

    def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        """The RecallPlan the server's recall would follow for ``query``."""
        found: RecallPlan = self._send(self._plan(query, user_id=user_id, agent_id=agent_id, session_id=session_id))
        return found

    def feedback(
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
        made: list[MemoryLink] = self._send(call)
        return made

    # -- the intelligence (executed by the server's layer)

    def manage(
        self,
        text: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        fields = {"text": text, "session_id": session_id, "dry_run": dry_run}
        done: ManageReport = self._send(self._routed("manage", fields, user_id, agent_id))
        return done

    def record_turn(
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
        done: ManageReport = self._send(self._routed("record_turn", fields, user_id, agent_id))
        return done

    def learn(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        fields = {"messages": messages, "session_id": session_id, "dry_run": dry_run}
        done: ManageReport = self._send(self._routed("learn", fields, user_id, agent_id))
        return done

    @property
    def intelligence(self) -> RemoteIntelligence | None:
        """The server's intelligence (``.stats()``), or None when it serves a layer without one."""
        if self._has_intelligence is None:
            self._has_intelligence = bool(self._send(self._intelligence())["enabled"])
        return RemoteIntelligence(self) if self._has_intelligence else None

    # -- pins, the stable prefix and maintenance

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        pinned: Record = self._send(self._pin(memory_id, True, user_id=user_id, agent_id=agent_id))
        return pinned

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        unpinned: Record = self._send(self._pin(memory_id, False, user_id=user_id, agent_id=agent_id))
        return unpinned

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        found: list[Record] = self._send(self._pinned(user_id=user_id, agent_id=agent_id))
        return found

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        prefix: StablePrefix = self._send(self._kv(user_id=user_id, agent_id=agent_id))
        return prefix

    def end_session(self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record | None:
        episode: Record | None = self._send(self._end_session(session_id, user_id=user_id, agent_id=agent_id))
        return episode

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """``{user: {task: result}}`` from the server; without ``user_id`` every user (an admin key only)."""
        done: dict[str, Any] = self._send(self._maintain(user_id=user_id, agent_id=agent_id, tasks=tasks))
        return done

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now, on the server: ``{"insights": [ids], "themes": [ids],
        "error": ...}``, as ``MemoryLayer.reflect`` (the server's ``maintain`` with the one task)."""
        done = self.maintain(user_id=user_id, agent_id=agent_id, tasks=["reflect"])
        return dict(next(iter(done.values()))["reflect"])

    # -- events

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after every ``event`` the server's layer emits (``"memory.added"``,
        ``"memory.managed"``, ``"*"``), read from its event stream (``GET /v1/events``) on a thread of its own.
        A scoped view hears its user's events; otherwise every user's (an admin key), or the key's one user.
        Callbacks run on that thread, shortly after the write that caused them."""
        if self._events is None:
            user = self._bound.user_id if self._bound is not None else None
            self._events = EventStream(self.url, self._headers, user)
        return self._events.on(event, callback)

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event`` (the stream closes when nothing listens)."""
        if self._events is None:
            return False
        removed = self._events.off(event, callback)
        if self._events.idle:
            self._events.close()
            self._events = None
        return removed

    # -- export and import

    def export_lines(self, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
        """The server's export of ``user_id`` as JSON lines, streamed (see :mod:`kioko.service.exchange`)."""
        params = {"user_id": user_id, "agent_id": list(agent_ids) or None}
        with self._http.stream(*where("export_lines"), params={k: v for k, v in params.items() if v}) as response:
            if response.status_code >= 400:
                response.read()
                raise _error(response)
            for line in response.iter_lines():
                if line:
                    yield line + "\n"

    def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
        """Send an export to the server; ``{"records", "written", "unchanged"}``."""
        response = self._http.post(
            where("import_lines")[1], content=ndjson(lines), headers={"content-type": "application/x-ndjson"}
        )
        if response.status_code >= 400:
            raise _error(response)
        done: dict[str, int] = response.json()
        return done


class RemoteIntelligence:
    """``remote.intelligence``: the server's intelligence, as far as a client may see it."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote

    def stats(self) -> dict[str, int]:
        """The server's counts since it started (turns, model calls, operations, plans ...), over every user:
        shown to an admin key (or a server without keys) only; another key gets a Forbidden error."""
        return _stats(self._remote._send(self._remote._intelligence()))


def _stats(answer: dict[str, Any]) -> dict[str, int]:
    from .service.errors import Forbidden

    if answer.get("stats") is None:
        raise Forbidden("the intelligence's stats are shown to an admin key only")
    return dict(answer["stats"])


class RemoteGraph:
    """``remote.graph``: the memory links' and the entity graph's calls."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote
        self._calls = GraphCalls(remote)

    def __repr__(self) -> str:
        return f"RemoteGraph({self._remote!r})"

    def links(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[MemoryLink]:
        found: list[MemoryLink] = self._remote._send(self._calls.links(memory_id, user_id=user_id, agent_id=agent_id))
        return found

    def link(
        self,
        a: str,
        b: str,
        type: str = "related_to",
        weight: float = 1.0,
        why: str = "",
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> MemoryLink:
        made: MemoryLink = self._remote._send(
            self._calls.link(a, b, type, weight, why, user_id=user_id, agent_id=agent_id)
        )
        return made

    def unlink(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        return bool(self._remote._send(self._calls.unlink(a, b, user_id=user_id, agent_id=agent_id)))

    def explain(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> LinkScore:
        score: LinkScore = self._remote._send(self._calls.explain(a, b, user_id=user_id, agent_id=agent_id))
        return score

    def related(
        self,
        memory_id: str,
        depth: int = 2,
        limit: int = 10,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> list[RelatedMemory]:
        call = self._calls.related(memory_id, depth, limit, user_id=user_id, agent_id=agent_id)
        found: list[RelatedMemory] = self._remote._send(call)
        return found

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[MemoryLink]:
        found: list[MemoryLink] = self._remote._send(
            self._calls.trace(a, b, max_depth, user_id=user_id, agent_id=agent_id)
        )
        return found

    def memories(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        center: str | None = None,
        depth: int = 2,
        limit: int = 120,
    ) -> GraphDrawing:
        call = self._calls.memories(user_id=user_id, agent_id=agent_id, center=center, depth=depth, limit=limit)
        drawn: GraphDrawing = self._remote._send(call)
        return drawn

    def connect(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ConnectReport:
        """Runs on the server in one call; ``progress`` is called once, at the end."""
        call = self._calls.connect(user_id=user_id, agent_id=agent_id, rebuild=rebuild, limit=limit)
        done: ConnectReport = self._remote._send(call)
        if progress is not None:
            progress(done.memories, done.memories)
        return done

    def prune(self, *, user_id: str | None = None, agent_id: str | None = None, now: float | None = None) -> int:
        return int(self._remote._send(self._calls.prune(user_id=user_id, agent_id=agent_id, now=now)))

    def merge(
        self, duplicate: str, survivor: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record:
        kept: Record = self._remote._send(self._calls.merge(duplicate, survivor, user_id=user_id, agent_id=agent_id))
        return kept

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str | None = None,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple:
        return self._remote.entities.add(
            subject,
            relation,
            object,
            user_id=user_id,
            single_valued=single_valued,
            valid_from=valid_from,
            source=source,
        )

    def delete_triple(self, triple_id: str, *, user_id: str | None = None) -> Triple | None:
        return self._remote.entities.delete(triple_id, user_id=user_id)

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> int:
        return self._remote.entities.forget_entity(entity, user_id=user_id)

    def relations(
        self, entity: str, *, user_id: str | None = None, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        return self._remote.entities.relations(entity, user_id=user_id, as_of=as_of, include_invalid=include_invalid)

    def neighbors(self, entity: str, *, user_id: str | None = None, as_of: float | None = None) -> list[str]:
        return self._remote.entities.neighbors(entity, user_id=user_id, as_of=as_of)

    def path(
        self, a: str, b: str, *, user_id: str | None = None, max_depth: int = 3, as_of: float | None = None
    ) -> list[Triple]:
        return self._remote.entities.path(a, b, user_id=user_id, max_depth=max_depth, as_of=as_of)


class RemoteEntities:
    """``remote.entities``: the user's entity graph (its triples), on the server."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote
        self._calls = GraphCalls(remote)

    def __repr__(self) -> str:
        return f"RemoteEntities({self._remote!r})"

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str | None = None,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple:
        call = self._calls.add(
            subject,
            relation,
            object,
            user_id=user_id,
            single_valued=single_valued,
            valid_from=valid_from,
            source=source,
        )
        made: Triple = self._remote._send(call)
        return made

    def invalidate(self, triple_id: str, *, user_id: str | None = None, at: float | None = None) -> Triple | None:
        closed: Triple | None = self._remote._send(self._calls.invalidate(triple_id, user_id=user_id, at=at))
        return closed

    def delete(self, triple_id: str, *, user_id: str | None = None) -> Triple | None:
        """Delete one triple, no history kept; None when the user's graph has none."""
        gone: Triple | None = self._remote._send(self._calls.delete(triple_id, user_id=user_id))
        return gone

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> int:
        """Delete every triple naming ``entity``, history included; how many."""
        return int(self._remote._send(self._calls.forget_entity(entity, user_id=user_id)))

    def relations(
        self, entity: str, *, user_id: str | None = None, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        call = self._calls.relations(entity, user_id=user_id, as_of=as_of, include_invalid=include_invalid)
        found: list[Triple] = self._remote._send(call)
        return found

    def neighbors(self, entity: str, *, user_id: str | None = None, as_of: float | None = None) -> list[str]:
        return list(self._remote._send(self._calls.neighbors(entity, user_id=user_id, as_of=as_of)))

    def path(
        self, a: str, b: str, *, user_id: str | None = None, max_depth: int = 3, as_of: float | None = None
    ) -> list[Triple]:
        found: list[Triple] = self._remote._send(
            self._calls.path(a, b, user_id=user_id, max_depth=max_depth, as_of=as_of)
        )
        return found


# -- the typed managers


_MANAGER_CLASSES: dict[str, type] = {}


def remote_manager(remote: RemoteMemory, name: str) -> Any:
    """``remote.goals`` ...: an instance of a subclass of the library's manager class (so it has the same
    type and signatures), every public call of which is the operation of :mod:`kioko.service.surface`
    it names, sent to the server. A call without an operation is refused when the class is made."""
    cls = _MANAGER_CLASSES.get(name)
    if cls is None:
        cls = _MANAGER_CLASSES[name] = _derive(name)
    manager: Any = object.__new__(cls)
    manager._remote, manager._manager = remote, name
    return manager


def _derive(name: str) -> type:
    library = surface.manager_class(name)
    missing = [m for m in C.manager_methods(name) if surface.operation(name, m) is None]
    if missing:
        raise TypeError(f"memory.{name} has calls without an operation in kioko.service.surface: {missing}")

    def sending(method: str, original: Any) -> Any:
        @functools.wraps(original)  # name, doc and (through __wrapped__) the library's signature
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            remote = self._remote
            return remote._send(C.manager_call(remote, self._manager, method, args, kwargs))

        return call

    members: dict[str, Any] = {m: sending(m, f) for m, f in C.manager_methods(name).items()}
    members["__init__"] = _no_init
    members["__repr__"] = lambda self: f"Remote{library.__name__}()"
    members["__module__"] = __name__
    return type(f"Remote{library.__name__}", (library,), members)


def _no_init(self: Any, *args: Any, **kwargs: Any) -> None:
    raise TypeError("a remote manager is made by its RemoteMemory (remote.goals ...)")


def _error(response: Any) -> Exception:
    try:
        body = response.json()
    except Exception:
        body = None
    return error_of(response.status_code, response.text, body)
