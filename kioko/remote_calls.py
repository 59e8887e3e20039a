"""What RemoteMemory and AsyncRemoteMemory share: each public call as a :class:`Call` (verb, path, query or
body, and how the answer becomes the library's value), built once and sent by either client.

The clients differ only in how they send a Call (``httpx.Client`` or ``httpx.AsyncClient``), so the
arguments of a call, their defaults on the wire and the types that come back are written here once.
An argument left at None is not sent: the server applies the library's default, and a ``user_id`` left
out is the server's to decide (an API key bound to one user acts for that user).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from typing import Any
from urllib.parse import quote

from kioko_core.intelligence.planner import RecallPlan
from kioko_core.recall import Context
from kioko_core.recall_options import RecallOptions
from kioko_core.store import InvalidRecordError, KiokoError, Record, Scope

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

IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})
PAGE = 500


@dataclasses.dataclass(frozen=True)
class Call:
    """One HTTP request and how to read its answer."""

    verb: str
    path: str
    params: dict[str, Any] | None = None
    body: Any = None
    decode: Callable[[Any], Any] = lambda answer: answer


def where(call: str, **segments: str) -> tuple[str, str]:
    """The verb and path of ``call``'s operation (:data:`kioko.service.surface.MEMORY_ROUTES`), its ``{names}``
    filled with the arguments given (each checked non-empty and quoted)."""
    found = surface.route(call)
    path = found.path
    for name, value in segments.items():
        if "{" + name + "}" not in path:
            raise KeyError(f"{found.path} has no {{{name}}}")
        path = path.replace("{" + name + "}", seg(value, "session_id" if name == "session_id" else "id"))
    return found.verb, path


def _who(bound: Scope | None, user_id: str | None, agent_id: str | None) -> tuple[str | None, str | None]:
    """The user and agent a call names: a scoped view's (the call may repeat them), else those given."""
    if bound is None:
        return user_id, agent_id
    if user_id is not None and user_id != bound.user_id:
        raise InvalidRecordError(f"this view is bound to user {bound.user_id!r}; it cannot act for {user_id!r}")
    if agent_id is not None and agent_id != bound.agent_id:
        raise InvalidRecordError(f"this view is bound to agent {bound.agent_id!r}; it cannot act for {agent_id!r}")
    return bound.user_id, bound.agent_id


class Calls:
    """The Calls of the memory surface; a client mixes this in and sends them."""

    _bound: Scope | None = None

    def _scope_of(self, user_id: str | None, agent_id: str | None) -> dict[str, Any]:
        user, agent = _who(self._bound, user_id, agent_id)
        return {"user_id": user, "agent_id": agent}

    # -- memories

    def _add(
        self,
        content: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        memory_type: str,
        metadata: dict[str, Any] | None,
        created_at: float | datetime | None,
        id: str | None,
        embedding: Any,
    ) -> Call:
        body = {
            "content": content,
            **self._scope_of(user_id, agent_id),
            "session_id": session_id,
            "memory_type": memory_type,
            "metadata": metadata,
            "created_at": jsonable(created_at),
            "id": id,
            "embedding": _vector(embedding),
        }
        return Call(*where("add"), body=present(body), decode=record_in)

    def _add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        memory_type: str,
    ) -> Call:
        listed = [{"content": i} if isinstance(i, str) else {k: jsonable(v) for k, v in dict(i).items()} for i in items]
        body = {
            "items": listed,
            **self._scope_of(user_id, agent_id),
            "session_id": session_id,
            "memory_type": memory_type,
        }
        return Call(*where("add_many"), body=present(body), decode=records)

    def _get(self, memory_id: str, *, user_id: str | None, agent_id: str | None) -> Call:
        return Call(*where("get", memory_id=memory_id), params=self._scope_of(user_id, agent_id), decode=record_in)

    def _update(
        self,
        memory_id: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        content: str | None,
        metadata: dict[str, Any] | None,
    ) -> Call:
        body = {**self._scope_of(user_id, agent_id), "content": content, "metadata": metadata}
        return Call(*where("update", memory_id=memory_id), body=present(body), decode=record_in)

    def _delete(self, memory_id: str, *, user_id: str | None, agent_id: str | None) -> Call:
        return Call(
            *where("delete", memory_id=memory_id),
            params=self._scope_of(user_id, agent_id),
            decode=_field("deleted"),
        )

    def _forget_user(self, *, user_id: str | None, agent_id: str | None) -> Call:
        user, agent = _who(self._bound, user_id, agent_id)
        if user is None:
            raise InvalidRecordError("forget_user needs user_id (or call it on memory.scoped(user_id=...))")
        return Call(*where("forget_user", user_id=user), params={"agent_id": agent}, decode=_field("deleted"))

    def _page(
        self, *, user_id: str | None, agent_id: str | None, kinds: set[str] | None, cursor: str | None, size: int
    ) -> Call:
        params = {**self._scope_of(user_id, agent_id), "kind": sorted(kinds) if kinds else None}
        return Call(*where("memories"), params={**params, "limit": size, "cursor": cursor})

    # -- recall

    def _recall(
        self,
        call: str,
        query: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        options: RecallOptions | None,
        links: int | None,
        limit: int | None,
        include_shared: bool,
        config: Any,
        plan: Any,
        section_limits: dict[str, int] | None,
        fill_recent: list[str] | None,
    ) -> Call:
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        knobs = RecallOptions.merge(
            options,
            links=links,
            limit=limit,
            include_shared=include_shared,
            config=config,
            plan=plan,
            section_limits=section_limits,
            fill_recent=fill_recent,
        )
        config = knobs.keywords()["config"]
        if dataclasses.is_dataclass(config) and not isinstance(config, type):
            config = dataclasses.asdict(config)  # a RecallConfig travels as its fields
        body = {
            "query": query,
            **self._scope_of(user_id, agent_id),
            "session_id": session_id,
            "links": knobs.links,
            "limit": knobs.limit,
            **({"include_shared": knobs.include_shared or None, "config": config} if call == "recall" else {}),
            **planned(knobs.plan, knobs.section_limits, knobs.fill_recent),
        }
        return Call(*where(call), body=present(body), decode=context_in)

    def _context(
        self,
        query: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        options: RecallOptions | None,
        links: int | None,
        limit: int | None,
        plan: Any,
        section_limits: dict[str, int] | None,
        fill_recent: list[str] | None,
    ) -> Call:
        """``context`` is recall with ``links`` 0 unless asked; options /v1/context does not take (the shared
        knowledge base, a RecallConfig) send it to /v1/recall, with the same links default."""
        knobs = RecallOptions.merge(
            options, links=links, limit=limit, plan=plan, section_limits=section_limits, fill_recent=fill_recent
        )
        if knobs.links is None:
            knobs = knobs.replace(links=0)
        call = "recall" if knobs.include_shared or knobs.config is not None else "context"
        return self._recall(
            call,
            query,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            options=knobs,
            links=None,
            limit=None,
            include_shared=False,
            config=None,
            plan=None,
            section_limits=None,
            fill_recent=None,
        )

    def _search(self, query: str, *, user_id: str | None, agent_id: str | None, limit: int) -> Call:
        body = {"query": query, **self._scope_of(user_id, agent_id), "limit": limit}
        return Call(*where("search"), body=present(body), decode=records)

    def _plan(self, query: str, *, user_id: str | None, agent_id: str | None, session_id: str | None) -> Call:
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        body = {"query": query, **self._scope_of(user_id, agent_id), "session_id": session_id}
        return Call(*where("plan"), body=present(body), decode=plan_in)

    def _feedback(
        self,
        worked: bool,
        *,
        user_id: str | None,
        credited: str | None,
        session_id: str | None,
        context: Context | None,
        agent_id: str | None,
        now: float | None,
    ) -> Call:
        body = {
            "worked": worked,
            **self._scope_of(user_id, agent_id),
            "credited": credited,
            "session_id": session_id,
            "context": jsonable(context),
            "now": now,
        }
        return Call(*where("feedback"), body=present(body), decode=lambda found: [link_in(k) for k in found])

    # -- the intelligence (executed by the server's layer)

    def _routed(self, call: str, fields: dict[str, Any], user_id: str | None, agent_id: str | None) -> Call:
        body = {**fields, **self._scope_of(user_id, agent_id)}
        return Call(*where(call), body=present(body), decode=report)

    def _pin(self, memory_id: str, pinned: bool, *, user_id: str | None, agent_id: str | None) -> Call:
        if pinned:
            return Call(
                *where("pin", memory_id=memory_id), body=present(self._scope_of(user_id, agent_id)), decode=record_in
            )
        return Call(*where("unpin", memory_id=memory_id), params=self._scope_of(user_id, agent_id), decode=record_in)

    def _pinned(self, *, user_id: str | None, agent_id: str | None) -> Call:
        return Call(*where("pinned"), params=self._scope_of(user_id, agent_id), decode=records)

    def _kv(self, *, user_id: str | None, agent_id: str | None) -> Call:
        return Call(*where("kv"), params=self._scope_of(user_id, agent_id), decode=prefix_in)

    def _end_session(self, session_id: str, *, user_id: str | None, agent_id: str | None) -> Call:
        return Call(
            *where("end_session", session_id=session_id),
            body=present(self._scope_of(user_id, agent_id)),
            decode=lambda found: record_in(found) if found is not None else None,
        )

    def _maintain(self, *, user_id: str | None, agent_id: str | None, tasks: list[str] | None) -> Call:
        body = {**self._scope_of(user_id, agent_id), "tasks": jsonable(tasks)}
        return Call(*where("maintain"), body=present(body))

    def _intelligence(self) -> Call:
        return Call(*where("intelligence"))


class GraphCalls:
    """``memory.graph``'s and ``memory.entities``' Calls."""

    def __init__(self, calls: Calls) -> None:
        self._calls = calls

    def _scope_of(self, user_id: str | None, agent_id: str | None) -> dict[str, Any]:
        return self._calls._scope_of(user_id, agent_id)

    def _user(self, user_id: str | None) -> dict[str, Any]:
        return {"user_id": _who(self._calls._bound, user_id, None)[0]}

    def links(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Call:
        return Call(*where("graph.links", memory_id=memory_id), params=self._scope_of(user_id, agent_id), decode=_links)

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
    ) -> Call:
        body = {"target": b, "type": type, "weight": weight, "why": why, **self._scope_of(user_id, agent_id)}
        return Call(*where("graph.link", memory_id=a), body=present(body), decode=link_in)

    def unlink(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> Call:
        return Call(
            *where("graph.unlink", memory_id=a, target=b),
            params=self._scope_of(user_id, agent_id),
            decode=_field("unlinked"),
        )

    def explain(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> Call:
        return Call(
            *where("graph.explain", memory_id=a, target=b),
            params=self._scope_of(user_id, agent_id),
            decode=score_in,
        )

    def related(
        self,
        memory_id: str,
        depth: int = 2,
        limit: int = 10,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> Call:
        params = {**self._scope_of(user_id, agent_id), "depth": depth, "limit": limit}
        return Call(
            *where("graph.related", memory_id=memory_id),
            params=params,
            decode=lambda found: [related_in(r) for r in found],
        )

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Call:
        params = {**self._scope_of(user_id, agent_id), "max_depth": max_depth}
        return Call(*where("graph.trace", memory_id=a, target=b), params=params, decode=_links)

    def memories(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        center: str | None = None,
        depth: int = 2,
        limit: int = 120,
    ) -> Call:
        params = {**self._scope_of(user_id, agent_id), "center": center, "depth": depth, "limit": limit}
        return Call(*where("graph.memories"), params=params, decode=drawing)

    def connect(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
    ) -> Call:
        body = {**self._scope_of(user_id, agent_id), "rebuild": rebuild, "limit": limit}
        return Call(*where("graph.connect"), body=present(body), decode=connect_report)

    def prune(self, *, user_id: str | None = None, agent_id: str | None = None, now: float | None = None) -> Call:
        if now is not None:
            raise InvalidRecordError("prune(now=...) is not available over HTTP; the server prunes as of its clock")
        return Call(*where("graph.prune"), body=present(self._scope_of(user_id, agent_id)), decode=_field("result"))

    def merge(self, duplicate: str, survivor: str, *, user_id: str | None = None, agent_id: str | None = None) -> Call:
        body = {"survivor": survivor, **self._scope_of(user_id, agent_id)}
        return Call(*where("graph.merge", memory_id=duplicate), body=present(body), decode=record_in)

    # -- the entity graph

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
    ) -> Call:
        body = {
            "subject": subject,
            "relation": relation,
            "object": object,
            **self._user(user_id),
            "single_valued": single_valued,
            "valid_from": valid_from,
            "source": source,
        }
        return Call(*where("entities.add"), body=present(body), decode=triple_in)

    def invalidate(self, triple_id: str, *, user_id: str | None = None, at: float | None = None) -> Call:
        body = {**self._user(user_id), "at": at}
        return Call(
            *where("entities.invalidate", triple_id=triple_id),
            body=present(body),
            decode=lambda found: triple_in(found) if found is not None else None,
        )

    def delete(self, triple_id: str, *, user_id: str | None = None) -> Call:
        return Call(
            *where("entities.delete", triple_id=triple_id),
            params=self._user(user_id),
            decode=lambda found: triple_in(found) if found is not None else None,
        )

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> Call:
        return Call(
            *where("entities.forget_entity", entity=entity), params=self._user(user_id), decode=_field("deleted")
        )

    def relations(
        self, entity: str, *, user_id: str | None = None, as_of: float | None = None, include_invalid: bool = False
    ) -> Call:
        params = {**self._user(user_id), "as_of": as_of, "include_invalid": include_invalid}
        return Call(*where("entities.relations", entity=entity), params=params, decode=_triples)

    def neighbors(self, entity: str, *, user_id: str | None = None, as_of: float | None = None) -> Call:
        params = {**self._user(user_id), "as_of": as_of}
        return Call(*where("entities.neighbors", entity=entity), params=params)

    def path(
        self, a: str, b: str, *, user_id: str | None = None, max_depth: int = 3, as_of: float | None = None
    ) -> Call:
        params = {**self._user(user_id), "max_depth": max_depth, "as_of": as_of}
        return Call(*where("entities.path", entity=a, other=b), params=params, decode=_triples)


GRAPH_CALLS = ("links", "link", "unlink", "explain", "related", "trace", "memories", "connect", "prune", "merge")
ENTITY_CALLS = ("add", "invalidate", "delete", "forget_entity", "relations", "neighbors", "path")
GRAPH_ENTITY_CALLS = ("add", "delete_triple", "forget_entity", "relations", "neighbors", "path")
"""The entity graph's calls that ``memory.graph`` has too (``graph.delete_triple`` is ``entities.delete``)."""
GRAPH_NAMES = {"delete_triple": "delete"}


# -- the typed managers: each call is the row of kioko.service.surface it names


def manager_call(calls: Calls, manager: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call:
    """The Call of ``memory.<manager>.<method>(*args, **kwargs)``, arguments checked against the library's own
    signature (so a keyword the library does not take is a TypeError here, as it is locally)."""
    op = surface.operation(manager, method)
    if op is None:
        raise AttributeError(f"memory.{manager} has no call {method!r} over HTTP")
    sig = surface.signature(op)
    if calls._bound is not None:
        user, agent = _who(calls._bound, kwargs.pop("user_id", None), kwargs.pop("agent_id", None))
        kwargs["user_id"] = user
        if "agent_id" in sig.parameters:
            kwargs["agent_id"] = agent
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{manager}.{method}(): {error}") from None
    given = dict(bound.arguments)
    default = given.pop("default", None)
    path = op.url
    for name in op.path_params:
        path = path.replace("{" + name + "}", seg(given.pop(name), name))
    values = {k: jsonable(v) for k, v in given.items()}
    kind = surface.returns(op)

    def decode(answer: Any) -> Any:
        return _decoded(kind, answer, default)

    if op.verb in ("POST", "PUT", "PATCH"):
        return Call(op.verb, path, body=values, decode=decode)
    return Call(op.verb, path, params=values, decode=decode)


def manager_methods(manager: str) -> dict[str, Any]:
    """The public calls of the library's manager class ``manager`` (name -> function), aliases included."""
    cls = surface.manager_class(manager)
    return {name: member for name, member in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


def missing_operations() -> list[str]:
    """``manager.method`` for every public call of a manager that has no row in the operations table."""
    return sorted(
        f"{manager}.{name}"
        for manager in surface.MANAGERS
        for name in manager_methods(manager)
        if surface.operation(manager, name) is None
    )


# -- values


def _decoded(kind: str, answer: Any, default: Any) -> Any:
    if kind == "record":
        return record_in(answer)
    if kind == "records":
        return records(answer)
    if kind == "record?":
        return record_in(answer) if answer is not None else None
    value = answer["result"]
    return default if value is None else value


def records(found: Any) -> list[Record]:
    return [record_in(r) for r in found]


def _links(found: Any) -> list[Any]:
    return [link_in(k) for k in found]


def _triples(found: Any) -> list[Any]:
    return [triple_in(t) for t in found]


def _field(name: str) -> Callable[[Any], Any]:
    return lambda answer: answer[name]


def drawing(data: dict[str, Any]) -> Any:
    from kioko_core.graph import GraphDrawing, GraphEdge, GraphNode, GraphStats

    return GraphDrawing(
        nodes=[GraphNode(**n) for n in data["nodes"]],
        edges=[GraphEdge(**e) for e in data["edges"]],
        stats=GraphStats(**data["stats"]),
    )


def connect_report(data: dict[str, Any]) -> Any:
    from kioko_core.graph import ConnectReport

    return ConnectReport(**data)


def report(data: dict[str, Any]) -> Any:
    """A ManageReport from its JSON (fields a newer server adds are left out)."""
    from kioko_core.intelligence.ops import ManageReport, MemoryOp

    names = {f.name for f in dataclasses.fields(MemoryOp)}
    ops = [MemoryOp(**{k: v for k, v in op.items() if k in names}) for op in data.get("ops", [])]
    fields = {f.name for f in dataclasses.fields(ManageReport)} - {"ops"}
    return ManageReport(ops=ops, **{k: v for k, v in data.items() if k in fields})


def error_of(status: int, text: str, body: Any) -> Exception:
    """The library's exception for an error answer (a body that is not Kioko's: a KiokoError with the status)."""
    try:
        error = body["error"]
        if not isinstance(error, dict):
            raise TypeError
    except Exception:
        return KiokoError(f"the Kioko service answered HTTP {status}: {text[:200]}")
    return error_in(error)


def seg(value: Any, name: str = "id") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidRecordError(f"{name} must be a non-empty string, got {value!r}")
    return quote(value, safe="")


def planned(plan: Any, section_limits: Any, fill_recent: Any) -> dict[str, Any]:
    """recall's plan arguments as JSON; a plan that is not "auto", a bool or a RecallPlan is refused as the
    library refuses it (a dict is not a plan: only a RecallPlan has been checked)."""
    if isinstance(plan, RecallPlan):
        plan = plan.to_dict()
    elif not (plan is None or isinstance(plan, bool) or plan == "auto"):
        raise InvalidRecordError(f"plan must be 'auto', False or a RecallPlan, got {plan!r}")
    return {"plan": plan, "section_limits": jsonable(section_limits), "fill_recent": jsonable(fill_recent)}


def present(body: dict[str, Any]) -> dict[str, Any]:
    """The body without the arguments left at None (the server applies the same defaults)."""
    return {k: v for k, v in body.items() if v is not None}


def _vector(embedding: Any) -> list[float] | None:
    if embedding is None:
        return None
    try:
        return [float(x) for x in embedding]
    except (TypeError, ValueError):
        raise InvalidRecordError("embedding must be a sequence of numbers") from None


def jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Context):
        return [m.record.id for m in value.memories]
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return value
