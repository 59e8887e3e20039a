"""RemoteMemory: a MemoryLayer's calls, executed by a Kioko service over HTTP.

``kioko.connect("http://host:8765", api_key=...)`` returns one. Methods, arguments, return types and
errors are the layer's: ``remote.goals.add(...)`` returns a Record, ``remote.graph.link(...)`` a
MemoryLink, a missing memory raises MemoryNotFound, a secret SecretDropped. Records come back without
their embedding (the server keeps the vectors).

Built on one httpx.Client (connections are reused). Calls that are safe to repeat (GET, PUT, DELETE)
are retried on a dropped connection, a timeout or a 503; any call is retried when the connection
could not be made at all, since then nothing reached the server.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any, Callable
from urllib.parse import quote

from kioko_core.entities import Triple
from kioko_core.errors import MemoryNotFound
from kioko_core.graph import RelatedMemory
from kioko_core.intelligence.pins import StablePrefix
from kioko_core.intelligence.planner import RecallPlan
from kioko_core.linker import LinkScore
from kioko_core.links import MemoryLink
from kioko_core.recall import Context
from kioko_core.secrets import get_logger
from kioko_core.store import ConnectionLostError, InvalidRecordError, KiokoError, Record, check_scope

from .service import errors as _service_errors  # noqa: F401  (Unauthorized, Forbidden ... for error_in)
from .service import surface
from .service.wire import (
    context_in,
    error_in,
    link_in,
    plan_in,
    prefix_in,
    record_in,
    related_in,
    score_in,
    triple_in,
)

# the HTTP library logs every request's URL at INFO; a memory or session id in a path may hold a secret
get_logger("httpx")

REMOTE_SCHEMES = ("http", "https", "kioko+http", "kioko+https")
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})
DEFAULT_TIMEOUT = 30.0
PAGE = 500


def is_remote_url(target: Any) -> bool:
    return isinstance(target, str) and target.split("://", 1)[0].lower() in REMOTE_SCHEMES and "://" in target


class RemoteMemory:
    """The layer's API over HTTP. Use :func:`kioko.connect` with an ``http(s)://`` URL to build one."""

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
        try:
            import httpx
        except ImportError:
            from kioko_core.store import MissingExtraError

            raise MissingExtraError("RemoteMemory needs httpx: pip install 'kioko[service]'") from None
        base = url.split("+", 1)[1] if url.lower().startswith("kioko+") else url
        sent = dict(headers or {})
        if api_key:
            sent["Authorization"] = f"Bearer {api_key}"
        self.url = base.rstrip("/")
        self.retries, self.backoff = int(retries), float(backoff)
        self._httpx = httpx
        self._http = httpx.Client(base_url=self.url, timeout=timeout, headers=sent, transport=transport)
        self.graph = RemoteGraph(self)
        for name in surface.MANAGERS:
            setattr(self, name, RemoteManager(self, name))
        self.lessons = self.strategies  # type: ignore[attr-defined]

    # -- transport

    def request(
        self, verb: str, path: str, *, params: dict[str, Any] | None = None, body: Any = None, stream: bool = False
    ) -> Any:
        """One call: JSON in, JSON out; an error body becomes the library's exception."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self._http.request(verb, path, params=query, json=body)
            except self._httpx.TransportError as error:
                unsent = isinstance(error, (self._httpx.ConnectError, self._httpx.ConnectTimeout))
                if attempt < self.retries and (unsent or verb in IDEMPOTENT):
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise ConnectionLostError(f"the Kioko service at {self.url} did not answer: {error}") from None
            if response.status_code == 503 and verb in IDEMPOTENT and attempt < self.retries:
                attempt += 1
                time.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            break
        if response.status_code >= 400:
            raise _error(response)
        return response.json() if response.content else None

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteMemory({self.url!r})"

    # -- writing

    def add(
        self,
        content: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | None = None,
        id: str | None = None,
    ) -> Record:
        body = {
            "content": content,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "memory_type": memory_type,
            "metadata": metadata,
            "created_at": _jsonable(created_at),
            "id": id,
        }
        return record_in(self.request("POST", "/v1/memories", body=_present(body)))

    def add_many(
        self,
        items: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]:
        listed = [
            {"content": i} if isinstance(i, str) else {k: _jsonable(v) for k, v in dict(i).items()} for i in items
        ]
        body = {
            "items": listed,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "memory_type": memory_type,
        }
        return [record_in(r) for r in self.request("POST", "/v1/memories/batch", body=_present(body))]

    def get(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> Record:
        return record_in(
            self.request("GET", f"/v1/memories/{_seg(memory_id)}", params={"user_id": user_id, "agent_id": agent_id})
        )

    def update(
        self,
        memory_id: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        body = {"user_id": user_id, "agent_id": agent_id, "content": content, "metadata": metadata}
        return record_in(self.request("PATCH", f"/v1/memories/{_seg(memory_id)}", body=_present(body)))

    def delete(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> bool:
        # the server answers 404 for a memory that is not there; the library's answer for it is False
        try:
            return self.request(
                "DELETE", f"/v1/memories/{_seg(memory_id)}", params={"user_id": user_id, "agent_id": agent_id}
            )["deleted"]
        except MemoryNotFound:
            return False

    def forget_user(self, *, user_id: str, agent_id: str | None = None) -> int:
        return self.request("DELETE", f"/v1/users/{_seg(user_id)}/memories", params={"agent_id": agent_id})["deleted"]

    # -- reading

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        links: int | None = None,
        limit: int | None = None,
        include_shared: bool = False,
        config: Any = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
    ) -> Context:
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        if dataclasses.is_dataclass(config) and not isinstance(config, type):
            config = dataclasses.asdict(config)  # a RecallConfig travels as its fields
        body = {
            "query": query,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "links": links,
            "limit": limit,
            "include_shared": include_shared,
            "config": config,
            **_planned(plan, section_limits, fill_recent),
        }
        return context_in(self.request("POST", "/v1/recall", body=_present(body)))

    def context(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        links: int = 0,
        limit: int | None = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
    ) -> Context:
        body = {
            "query": query,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "links": links,
            "limit": limit,
            **_planned(plan, section_limits, fill_recent),
        }
        return context_in(self.request("POST", "/v1/context", body=_present(body)))

    def search(self, query: str, *, user_id: str, agent_id: str | None = None, limit: int = 10) -> list[Record]:
        body = {"query": query, "user_id": user_id, "agent_id": agent_id, "limit": limit}
        return [record_in(r) for r in self.request("POST", "/v1/search", body=_present(body))]

    def feedback(
        self,
        worked: bool = True,
        *,
        user_id: str,
        credited: str | None = None,
        session_id: str | None = None,
        context: Context | None = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> list[MemoryLink]:
        body = {
            "worked": worked,
            "user_id": user_id,
            "agent_id": agent_id,
            "credited": credited,
            "session_id": session_id,
            "context": _jsonable(context),
            "now": now,
        }
        return [link_in(k) for k in self.request("POST", "/v1/feedback", body=_present(body))]

    def memories(self, *, user_id: str, agent_id: str | None = None, kinds: set[str] | None = None) -> Iterator[Record]:
        """Every memory of a scope, a page at a time."""
        cursor = None
        while True:
            page = self.request(
                "GET",
                "/v1/memories",
                params={
                    "user_id": user_id,
                    "agent_id": agent_id,
                    "kind": sorted(kinds) if kinds else None,
                    "limit": PAGE,
                    "cursor": cursor,
                },
            )
            yield from (record_in(r) for r in page["items"])
            cursor = page["next_cursor"]
            if cursor is None:
                return

    # -- the intelligence (executed by the server's layer)

    def manage(
        self,
        text: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> Any:
        body = {"text": text, "user_id": user_id, "agent_id": agent_id, "session_id": session_id, "dry_run": dry_run}
        return _report(self.request("POST", "/v1/manage", body=_present(body)))

    def record_turn(
        self,
        user: str,
        reply: str | None = None,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> Any:
        body = {
            "user": user,
            "reply": reply,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "dry_run": dry_run,
        }
        return _report(self.request("POST", "/v1/turns", body=_present(body)))

    def learn(
        self,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> Any:
        body = {
            "messages": messages,
            "user_id": user_id,
            "agent_id": agent_id,
            "session_id": session_id,
            "dry_run": dry_run,
        }
        return _report(self.request("POST", "/v1/learn", body=_present(body)))

    def plan(
        self, query: str, *, user_id: str, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        """The RecallPlan the server's recall would follow for ``query``."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        body = {"query": query, "user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        return plan_in(self.request("POST", "/v1/plan", body=_present(body)))

    # -- pins, the stable prefix and maintenance

    def pin(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> Record:
        body = {"user_id": user_id, "agent_id": agent_id}
        return record_in(self.request("POST", f"/v1/memories/{_seg(memory_id)}/pin", body=_present(body)))

    def unpin(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> Record:
        return record_in(
            self.request(
                "DELETE", f"/v1/memories/{_seg(memory_id)}/pin", params={"user_id": user_id, "agent_id": agent_id}
            )
        )

    def pinned(self, *, user_id: str, agent_id: str | None = None) -> list[Record]:
        return [
            record_in(r) for r in self.request("GET", "/v1/pins", params={"user_id": user_id, "agent_id": agent_id})
        ]

    def kv(self, *, user_id: str, agent_id: str | None = None) -> StablePrefix:
        return prefix_in(self.request("GET", "/v1/kv", params={"user_id": user_id, "agent_id": agent_id}))

    def end_session(self, session_id: str, *, user_id: str, agent_id: str | None = None) -> Record | None:
        body = {"user_id": user_id, "agent_id": agent_id}
        found = self.request("POST", f"/v1/sessions/{_seg(session_id, 'session_id')}/end", body=_present(body))
        return record_in(found) if found is not None else None

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """``{user: {task: result}}`` from the server; without ``user_id`` every user (an admin key only)."""
        body = {"user_id": user_id, "agent_id": agent_id, "tasks": _jsonable(tasks)}
        return self.request("POST", "/v1/maintain", body=_present(body))

    def reflect(self, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now, on the server: ``{"insights": [ids], "themes": [ids],
        "error": ...}``, as ``MemoryLayer.reflect`` (the server's ``maintain`` with the one task)."""
        done = self.maintain(user_id=user_id, agent_id=agent_id, tasks=["reflect"])
        return dict(next(iter(done.values()))["reflect"])

    def export_lines(self, user_id: str, agent_ids: Any = ()) -> Iterator[str]:
        """The server's export of ``user_id`` as JSON lines, streamed (see :mod:`kioko.service.exchange`)."""
        params = {"user_id": user_id, "agent_id": list(agent_ids) or None}
        with self._http.stream("GET", "/v1/export", params={k: v for k, v in params.items() if v}) as response:
            if response.status_code >= 400:
                response.read()
                raise _error(response)
            for line in response.iter_lines():
                if line:
                    yield line + "\n"

    def import_lines(self, lines: Any) -> dict[str, int]:
        """Send an export to the server; ``{"records", "written", "unchanged"}``."""
        data = "".join(
            line if line.endswith("\n") else line + "\n"
            for line in (raw.decode("utf-8") if isinstance(raw, bytes) else raw for raw in lines)
        )
        response = self._http.post(
            "/v1/import", content=data.encode("utf-8"), headers={"content-type": "application/x-ndjson"}
        )
        if response.status_code >= 400:
            raise _error(response)
        return response.json()

    def scoped(self, *, user_id: str, agent_id: str | None = None) -> Any:
        """The same calls with ``user_id`` (and ``agent_id``) bound, managers and graph included, as on a
        MemoryLayer; naming another user or agent in a call of the view raises InvalidRecordError."""
        return ScopedRemote(self, check_scope((user_id, agent_id)))


class ScopedRemote:
    """``remote.scoped(user_id=...)``: every call of the remote, its managers and its graph, with the scope bound."""

    def __init__(self, target: Any, scope: Any) -> None:
        self._target, self._scope = target, scope

    @property
    def scope(self) -> Any:
        return self._scope

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> ScopedRemote:
        self._check(user_id, agent_id)
        return self

    def _check(self, user_id: Any, agent_id: Any) -> None:
        if user_id is not None and user_id != self._scope.user_id:
            raise InvalidRecordError(
                f"this view is bound to user {self._scope.user_id!r}; it cannot act for {user_id!r}"
            )
        if agent_id is not None and agent_id != self._scope.agent_id:
            raise InvalidRecordError(
                f"this view is bound to agent {self._scope.agent_id!r}; it cannot act for {agent_id!r}"
            )

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._target, name)
        if isinstance(found, (RemoteGraph, RemoteManager)):
            return ScopedRemote(found, self._scope)
        if not callable(found) or name.startswith("_") or name in ("close", "request"):
            return found

        def bound(*args: Any, **kwargs: Any) -> Any:
            self._check(kwargs.pop("user_id", None), kwargs.pop("agent_id", None))
            return found(*args, user_id=self._scope.user_id, **_agent(found, self._scope.agent_id), **kwargs)

        bound.__name__ = name
        return bound

    def __repr__(self) -> str:
        return f"ScopedRemote({self._target!r}, user_id={self._scope.user_id!r}, agent_id={self._scope.agent_id!r})"


def _agent(call: Any, agent_id: str | None) -> dict[str, Any]:
    """``agent_id=`` for calls that take one (the entity graph's calls are per user only)."""
    import inspect

    try:
        parameters = inspect.signature(call).parameters
        takes = "agent_id" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    except (TypeError, ValueError):
        takes = True
    return {"agent_id": agent_id} if takes else {}


class RemoteGraph:
    """``remote.graph``: the memory links' and the entity graph's calls."""

    def __init__(self, remote: RemoteMemory) -> None:
        self._remote = remote

    def _get(self, path: str, **params: Any) -> Any:
        return self._remote.request("GET", path, params=params)

    def links(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> list[MemoryLink]:
        return [
            link_in(k) for k in self._get(f"/v1/memories/{_seg(memory_id)}/links", user_id=user_id, agent_id=agent_id)
        ]

    def link(
        self,
        a: str,
        b: str,
        type: str = "related_to",
        weight: float = 1.0,
        why: str = "",
        *,
        user_id: str,
        agent_id: str | None = None,
    ) -> MemoryLink:
        body = {"target": b, "type": type, "weight": weight, "why": why, "user_id": user_id, "agent_id": agent_id}
        return link_in(self._remote.request("POST", f"/v1/memories/{_seg(a)}/links", body=_present(body)))

    def unlink(self, a: str, b: str, *, user_id: str, agent_id: str | None = None) -> bool:
        return self._remote.request(
            "DELETE", f"/v1/memories/{_seg(a)}/links/{_seg(b)}", params={"user_id": user_id, "agent_id": agent_id}
        )["unlinked"]

    def explain(self, a: str, b: str, *, user_id: str, agent_id: str | None = None) -> LinkScore:
        return score_in(
            self._get(f"/v1/memories/{_seg(a)}/links/{_seg(b)}/explain", user_id=user_id, agent_id=agent_id)
        )

    def related(
        self, memory_id: str, depth: int = 2, limit: int = 10, *, user_id: str, agent_id: str | None = None
    ) -> list[RelatedMemory]:
        return [
            related_in(r)
            for r in self._get(
                f"/v1/memories/{_seg(memory_id)}/related", user_id=user_id, agent_id=agent_id, depth=depth, limit=limit
            )
        ]

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str, agent_id: str | None = None
    ) -> list[MemoryLink]:
        return [
            link_in(k)
            for k in self._get(
                f"/v1/memories/{_seg(a)}/trace/{_seg(b)}", user_id=user_id, agent_id=agent_id, max_depth=max_depth
            )
        ]

    def memories(
        self, *, user_id: str, agent_id: str | None = None, center: str | None = None, depth: int = 2, limit: int = 120
    ) -> Any:
        data = self._get(
            "/v1/graph/memories", user_id=user_id, agent_id=agent_id, center=center, depth=depth, limit=limit
        )
        return _drawing(data)

    def connect(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Runs on the server in one call; ``progress`` is called once, at the end."""
        body = {"user_id": user_id, "agent_id": agent_id, "rebuild": rebuild, "limit": limit}
        result = self._remote.request("POST", "/v1/graph/connect", body=_present(body))
        if progress is not None:
            progress(result["memories"], result["memories"])
        return _connect_report(result)

    def prune(self, *, user_id: str, agent_id: str | None = None, now: float | None = None) -> int:
        if now is not None:
            raise InvalidRecordError("prune(now=...) is not available over HTTP; the server prunes as of its clock")
        return self._remote.request(
            "POST", "/v1/graph/prune", body=_present({"user_id": user_id, "agent_id": agent_id})
        )["result"]

    def merge(self, duplicate: str, survivor: str, *, user_id: str, agent_id: str | None = None) -> Record:
        body = {"survivor": survivor, "user_id": user_id, "agent_id": agent_id}
        return record_in(self._remote.request("POST", f"/v1/memories/{_seg(duplicate)}/merge", body=_present(body)))

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple:
        body = {
            "subject": subject,
            "relation": relation,
            "object": object,
            "user_id": user_id,
            "single_valued": single_valued,
            "valid_from": valid_from,
            "source": source,
        }
        return triple_in(self._remote.request("POST", "/v1/entities/triples", body=_present(body)))

    def delete_triple(self, triple_id: str, *, user_id: str) -> Triple | None:
        found = self._remote.request("DELETE", f"/v1/entities/triples/{_seg(triple_id)}", params={"user_id": user_id})
        return triple_in(found) if found is not None else None

    def forget_entity(self, entity: str, *, user_id: str) -> int:
        return int(
            self._remote.request("DELETE", f"/v1/entities/{_seg(entity)}", params={"user_id": user_id})["deleted"]
        )

    def relations(
        self, entity: str, *, user_id: str, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        return [
            triple_in(t)
            for t in self._get(
                f"/v1/entities/{_seg(entity)}/relations", user_id=user_id, as_of=as_of, include_invalid=include_invalid
            )
        ]

    def neighbors(self, entity: str, *, user_id: str, as_of: float | None = None) -> list[str]:
        return self._get(f"/v1/entities/{_seg(entity)}/neighbors", user_id=user_id, as_of=as_of)

    def path(self, a: str, b: str, *, user_id: str, max_depth: int = 3, as_of: float | None = None) -> list[Triple]:
        return [
            triple_in(t)
            for t in self._get(
                f"/v1/entities/{_seg(a)}/path/{_seg(b)}", user_id=user_id, max_depth=max_depth, as_of=as_of
            )
        ]


class RemoteManager:
    """``remote.goals``, ``remote.profile`` ...: each call is the row of :mod:`kioko.service.surface` it names."""

    def __init__(self, remote: RemoteMemory, name: str) -> None:
        self._remote, self._name = remote, name

    def __repr__(self) -> str:
        return f"RemoteManager({self._name!r})"

    def __getattr__(self, method: str) -> Callable[..., Any]:
        attribute = getattr(surface.manager_class(self._name), method, None)
        if method.startswith("_") or (attribute is not None and not callable(attribute)):
            if attribute is None:
                raise AttributeError(method)
            return attribute  # kind, noun: what the manager stores, as on the layer
        op = surface.operation(self._name, method)
        if op is None:
            raise AttributeError(f"memory.{self._name} has no call {method!r} over HTTP")
        sig = surface.signature(op)
        kind = surface.returns(op)
        remote = self._remote

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{self._name}.{method}(): {error}") from None
            given = dict(bound.arguments)
            default = given.pop("default", None)
            path = op.url
            for name in op.path_params:
                path = path.replace("{" + name + "}", _seg(given.pop(name), name))
            values = {k: _jsonable(v) for k, v in given.items()}
            if op.verb in ("POST", "PUT", "PATCH"):
                answer = remote.request(op.verb, path, body=values)
            else:
                answer = remote.request(op.verb, path, params=values)
            return _decode(kind, answer, default)

        call.__name__ = method
        call.__doc__ = getattr(surface.manager_class(self._name), method).__doc__
        return call


def _drawing(data: dict[str, Any]) -> Any:
    """The GraphDrawing the server drew (a plain dict from a server whose library still returns one)."""
    try:
        from kioko_core.graph import GraphDrawing, GraphEdge, GraphNode, GraphStats
    except ImportError:
        return data
    return GraphDrawing(
        nodes=[GraphNode(**n) for n in data["nodes"]],
        edges=[GraphEdge(**e) for e in data["edges"]],
        stats=GraphStats(**data["stats"]),
    )


def _connect_report(data: dict[str, Any]) -> Any:
    try:
        from kioko_core.graph import ConnectReport
    except ImportError:
        return data
    return ConnectReport(**data)


def _report(data: dict[str, Any]) -> Any:
    from kioko_core.intelligence.ops import ManageReport, MemoryOp

    names = {f.name for f in dataclasses.fields(MemoryOp)}
    ops = [MemoryOp(**{k: v for k, v in op.items() if k in names}) for op in data.get("ops", [])]
    fields = {f.name for f in dataclasses.fields(ManageReport)} - {"ops"}
    return ManageReport(ops=ops, **{k: v for k, v in data.items() if k in fields})


def _decode(kind: str, answer: Any, default: Any) -> Any:
    if kind == "record":
        return record_in(answer)
    if kind == "records":
        return [record_in(r) for r in answer]
    if kind == "record?":
        return record_in(answer) if answer is not None else None
    value = answer["result"]
    return default if value is None else value


def _error(response: Any) -> Exception:
    try:
        body = response.json()["error"]
        if not isinstance(body, dict):
            raise TypeError
    except Exception:
        return KiokoError(f"the Kioko service answered HTTP {response.status_code}: {response.text[:200]}")
    return error_in(body)


def _seg(value: Any, name: str = "id") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidRecordError(f"{name} must be a non-empty string, got {value!r}")
    return quote(value, safe="")


def _planned(plan: Any, section_limits: Any, fill_recent: Any) -> dict[str, Any]:
    """recall's plan arguments as JSON; a plan that is not "auto", a bool or a RecallPlan is refused as the
    library refuses it (a dict is not a plan: only a RecallPlan has been checked)."""
    if isinstance(plan, RecallPlan):
        plan = plan.to_dict()
    elif not (plan is None or isinstance(plan, bool) or plan == "auto"):
        raise InvalidRecordError(f"plan must be 'auto', False or a RecallPlan, got {plan!r}")
    return {"plan": plan, "section_limits": section_limits, "fill_recent": _jsonable(fill_recent)}


def _present(body: dict[str, Any]) -> dict[str, Any]:
    """The body without the arguments left at None (the server applies the same defaults)."""
    return {k: v for k, v in body.items() if v is not None}


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Context):
        return [m.record.id for m in value.memories]
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return value
