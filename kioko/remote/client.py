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
(:mod:`kioko.remote.async_client`) makes the same calls on an httpx.AsyncClient.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from kioko.api import operations
from kioko.protocol import Entities, Memory, MemoryGraph
from kioko.remote import calls
from kioko.remote.calls import IDEMPOTENT, Call, Calls, error_of, forward, where
from kioko.remote.events import EventStream
from kioko.remote.url import REMOTE_SCHEMES as REMOTE_SCHEMES
from kioko.remote.url import is_remote_url as is_remote_url
from kioko_core.kinds import attribute_names
from kioko_core.layer.declared_managers import KindManagers
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import ConnectionLostError, InvalidRecordError, Record, Scope, check_scope

if TYPE_CHECKING:
    from kioko.protocol import Callback

# the HTTP library logs every request's URL at INFO; a memory or session id in a path may hold a secret
get_logger("httpx")

DEFAULT_TIMEOUT = 30.0
PAGE = calls.PAGE


def base_url(url: str) -> str:
    """The service's base URL of a ``kioko+http(s)://`` or ``http(s)://`` URL, without a trailing slash."""
    return (url.split("+", 1)[1] if url.lower().startswith("kioko+") else url).rstrip("/")


def auth_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    """The request headers: those given, and the API key as a bearer token."""
    sent = dict(headers or {})
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    return sent


def import_httpx() -> Any:
    """httpx, or MissingExtraError naming the extra that installs it."""
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


class RemoteMemory(KindManagers, Calls):
    """The layer's API over HTTP (a :class:`kioko.Memory`). :func:`kioko.connect` with an ``http(s)://`` URL
    builds one."""

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
        built = {name: remote_manager(self, name) for name in operations.MANAGERS}
        self._managers = {name: built[own] for name, own in attribute_names().items() if own in built}

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

    # -- every call of kioko.Memory: its signature the protocol's, its request derived from the operations table

    add = forward(Memory.add)
    add_many = forward(Memory.add_many)
    get = forward(Memory.get)
    update = forward(Memory.update)
    delete = forward(Memory.delete)  # a 404 is False, as the library answers for a memory that is not there
    forget_user = forward(Memory.forget_user)
    forget_about = forward(Memory.forget_about)
    recall = forward(Memory.recall)
    context = forward(Memory.context)
    search = forward(Memory.search)
    plan = forward(Memory.plan)
    feedback = forward(Memory.feedback)
    manage = forward(Memory.manage)
    record_turn = forward(Memory.record_turn)
    learn = forward(Memory.learn)
    pin = forward(Memory.pin)
    unpin = forward(Memory.unpin)
    pinned = forward(Memory.pinned)
    kv = forward(Memory.kv)
    end_session = forward(Memory.end_session)
    maintain = forward(Memory.maintain)

    def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> Iterator[Record]:
        """Every memory of a scope, a page at a time."""
        cursor = None
        while True:
            page = self._send(self._page(user_id=user_id, agent_id=agent_id, kinds=kinds, cursor=cursor, size=PAGE))
            yield from calls.records(page["items"])
            cursor = page["next_cursor"]
            if cursor is None:
                return

    @property
    def intelligence(self) -> RemoteIntelligence | None:
        """The server's intelligence (``.stats()``), or None when it serves a layer without one."""
        if self._has_intelligence is None:
            self._has_intelligence = bool(self._send(self._intelligence())["enabled"])
        return RemoteIntelligence(self) if self._has_intelligence else None

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
        """The server's export of ``user_id`` as JSON lines, streamed (see :mod:`kioko.api.exchange`)."""
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
    from kioko.api.errors import Forbidden

    if answer.get("stats") is None:
        raise Forbidden("the intelligence's stats are shown to an admin key only")
    return dict(answer["stats"])


class RemoteGraph:
    """``remote.graph``: the memory links' and the entity graph's calls."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote

    def __repr__(self) -> str:
        return f"RemoteGraph({self._remote!r})"

    links = forward(MemoryGraph.links)
    link = forward(MemoryGraph.link)
    unlink = forward(MemoryGraph.unlink)
    explain = forward(MemoryGraph.explain)
    related = forward(MemoryGraph.related)
    trace = forward(MemoryGraph.trace)
    memories = forward(MemoryGraph.memories)
    connect = forward(MemoryGraph.connect)  # runs on the server in one call; progress is called once, at the end
    prune = forward(MemoryGraph.prune)
    merge = forward(MemoryGraph.merge)
    add = forward(MemoryGraph.add)
    delete_triple = forward(MemoryGraph.delete_triple)
    forget_entity = forward(MemoryGraph.forget_entity)
    relations = forward(MemoryGraph.relations)
    neighbors = forward(MemoryGraph.neighbors)
    path = forward(MemoryGraph.path)


class RemoteEntities:
    """``remote.entities``: the user's entity graph (its triples), on the server."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote

    def __repr__(self) -> str:
        return f"RemoteEntities({self._remote!r})"

    add = forward(Entities.add)
    invalidate = forward(Entities.invalidate)
    delete = forward(Entities.delete)
    forget_entity = forward(Entities.forget_entity)
    relations = forward(Entities.relations)
    neighbors = forward(Entities.neighbors)
    path = forward(Entities.path)


# -- the typed managers


_MANAGER_CLASSES: dict[str, type] = {}


def remote_manager(remote: RemoteMemory, name: str) -> Any:
    """``remote.goals`` ...: an instance of a subclass of the library's manager class (so it has the same
    type and signatures), every public call of which is the operation of :mod:`kioko.api.operations`
    it names, sent to the server. A call without an operation is refused when the class is made."""
    cls = _MANAGER_CLASSES.get(name)
    if cls is None:
        cls = _MANAGER_CLASSES[name] = _derive(name)
    manager: Any = object.__new__(cls)
    manager._remote, manager._manager = remote, name
    return manager


def _derive(name: str) -> type:
    library = operations.manager_class(name)
    missing = [m for m in calls.manager_methods(name) if operations.operation(name, m) is None]
    if missing:
        raise TypeError(f"memory.{name} has calls without an operation in kioko.api.operations: {missing}")

    def sending(method: str, original: Any) -> Any:
        @functools.wraps(original)  # name, doc and (through __wrapped__) the library's signature
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            remote = self._remote
            return remote._send(calls.manager_call(remote, self._manager, method, args, kwargs))

        return call

    members: dict[str, Any] = {m: sending(m, f) for m, f in calls.manager_methods(name).items()}
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
