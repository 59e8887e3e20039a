"""The typed managers' calls as REST operations: one table read by the server (routes) and RemoteMemory.

Each row names a manager method; its route's parameters come from the method's own signature, so a
new keyword on ``memory.goals.add`` appears in the API, its OpenAPI schema and RemoteMemory at once.
Path parameters are the ``{names}`` in the path; the other parameters are the JSON body (POST, PUT,
PATCH) or the query string (GET, DELETE).
"""

from __future__ import annotations

import functools
import inspect
import operator
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args, get_origin

from kioko_core import kinds as K
from kioko_core.store import Record

TEXT_MANAGERS = (
    "goals",
    "decisions",
    "procedures",
    "strategies",
    "skills",
    "episodes",
    "facts",
    "preferences",
    "knowledge",
    "insights",
    "summaries",
    "instructions",
)
MANAGERS = TEXT_MANAGERS + ("profile", "working")
URL_NAME = {"strategies": "lessons"}
"""Where a manager's routes live when its URL name differs from its attribute (``/v1/lessons``)."""
OUTCOMES = ("decisions", "procedures", "strategies", "skills")

# parameters whose Python type does not travel as JSON as it is
WIRE_TYPES: dict[str, Any] = {
    "created_at": float | None,  # Unix seconds (RemoteMemory converts a datetime)
    "due": str | None,  # an ISO date, or free text such as "March 31"
}
CONTEXT_IDS = list[str] | None
"""``outcome(context=...)``: the ids of the memories the recall returned (the server reads them again)."""
CLIENT_ONLY = frozenset({"default"})
"""Answered by the client: ``profile.get(key, default=...)`` returns ``default`` when the server says null."""


@dataclass(frozen=True)
class Operation:
    manager: str
    method: str
    verb: str
    path: str
    write: bool

    @property
    def url(self) -> str:
        return f"/v1/{URL_NAME.get(self.manager, self.manager)}{self.path}"

    @property
    def path_params(self) -> list[str]:
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]

    @property
    def name(self) -> str:
        return f"{self.manager}.{self.method}"


def _operations() -> list[Operation]:
    ops: list[Operation] = []
    for manager in TEXT_MANAGERS:
        # fixed paths before /{memory_id}, so /v1/goals/open is not read as the goal "open"
        if manager == "goals":
            ops.append(Operation(manager, "open", "GET", "/open", False))
        if manager == "decisions":
            ops.append(Operation(manager, "current", "GET", "/current", False))
        ops += [
            Operation(manager, "add", "POST", "", True),
            Operation(manager, "list", "GET", "", False),
            Operation(manager, "get", "GET", "/{memory_id}", False),
            Operation(manager, "update", "PATCH", "/{memory_id}", True),
            Operation(manager, "delete", "DELETE", "/{memory_id}", True),
        ]
        if manager in OUTCOMES:
            ops.append(Operation(manager, "outcome", "POST", "/{memory_id}/outcome", True))
    ops += [
        Operation("goals", "progress", "POST", "/{memory_id}/progress", True),
        Operation("goals", "complete", "POST", "/{memory_id}/complete", True),
        Operation("goals", "drop", "POST", "/{memory_id}/drop", True),
        Operation("goals", "reopen", "POST", "/{memory_id}/reopen", True),
        Operation("goals", "subgoals", "GET", "/{memory_id}/subgoals", False),
        Operation("decisions", "supersede", "POST", "/{old_id}/supersede", True),
        Operation("decisions", "chain", "GET", "/{memory_id}/chain", False),
        Operation("facts", "verify", "POST", "/{memory_id}/verify", True),
        Operation("profile", "all", "GET", "", False),
        Operation("profile", "list", "GET", "/slots", False),
        Operation("profile", "set", "PUT", "/slots/{key}", True),
        Operation("profile", "get", "GET", "/slots/{key}", False),
        Operation("profile", "record", "GET", "/slots/{key}/record", False),
        Operation("profile", "remove", "DELETE", "/slots/{key}", True),
        Operation("working", "all", "GET", "/{session_id}", False),
        Operation("working", "clear", "DELETE", "/{session_id}", True),
        Operation("working", "set", "PUT", "/{session_id}/{key}", True),
        Operation("working", "get", "GET", "/{session_id}/{key}", False),
        Operation("working", "remove", "DELETE", "/{session_id}/{key}", True),
        Operation("working", "promote", "POST", "/{session_id}/{key}/promote", True),
    ]
    return ops


OPERATIONS: list[Operation] = _operations()
ALIASES = {("instructions", "remove"): ("instructions", "delete")}
"""Calls that are another row under a second name."""


def operation(manager: str, method: str) -> Operation | None:
    manager, method = ALIASES.get((manager, method), (manager, method))
    for op in OPERATIONS:
        if op.manager == manager and op.method == method:
            return op
    return None


def manager_class(manager: str) -> type:
    return K.MANAGERS[manager]


def signature(op: Operation) -> inspect.Signature:
    """The method's signature without ``self``."""
    method = getattr(manager_class(op.manager), op.method)
    sig = inspect.signature(method)
    return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "self"])


def wire_hints(op: Operation) -> dict[str, Any]:
    """Per parameter (path ones and client-only ones excluded): the type it has on the wire."""
    method = getattr(manager_class(op.manager), op.method)
    # No namespace passed: the hints resolve in the module that defines the method (its __globals__),
    # wherever in kioko_core.kinds that is.
    hints = typing.get_type_hints(method)
    result: dict[str, Any] = {}
    for name in signature(op).parameters:
        if name in op.path_params or name in CLIENT_ONLY:
            continue
        if name == "user_id":
            result[name] = str  # over HTTP every call names its user (there is no bound view)
        elif name == "context" and op.method == "outcome":
            result[name] = CONTEXT_IDS
        elif name in WIRE_TYPES:
            result[name] = WIRE_TYPES[name]
        else:
            result[name] = _json_type(hints.get(name, Any))
    return result


def _json_type(hint: Any) -> Any:
    """``Sequence[str]`` -> ``list[str]``; unions keep only their JSON members."""
    origin = get_origin(hint)
    if origin is Sequence or origin is typing.Sequence:
        return list[get_args(hint)[0]]  # type: ignore[misc]
    if origin in (typing.Union, __import__("types").UnionType):
        members = [_json_type(a) for a in get_args(hint)]
        return functools.reduce(operator.or_, members)
    return hint


def returns(op: Operation) -> str:
    """How the result travels: ``record``, ``record?``, ``records`` or ``value`` (wrapped as {"result": ...})."""
    method = getattr(manager_class(op.manager), op.method)
    hint = typing.get_type_hints(method).get("return", Any)
    if hint is Record:
        return "record"
    if get_origin(hint) is list and get_args(hint) == (Record,):
        return "records"
    if get_origin(hint) in (typing.Union, __import__("types").UnionType) and set(get_args(hint)) == {
        Record,
        type(None),
    }:
        return "record?"
    return "value"


# -- the rest of kioko.Memory: each public call as one REST operation


@dataclass(frozen=True)
class Route:
    """A call of :class:`kioko.Memory` (``"add"``), of its graph (``"graph.link"``) or of its entity graph
    (``"entities.add"``) as the REST operation that executes it; ``{names}`` in the path are its arguments."""

    call: str
    verb: str
    path: str


MEMORY_ROUTES: tuple[Route, ...] = (
    Route("add", "POST", "/v1/memories"),
    Route("add_many", "POST", "/v1/memories/batch"),
    Route("memories", "GET", "/v1/memories"),
    Route("get", "GET", "/v1/memories/{memory_id}"),
    Route("update", "PATCH", "/v1/memories/{memory_id}"),
    Route("delete", "DELETE", "/v1/memories/{memory_id}"),
    Route("forget_user", "DELETE", "/v1/users/{user_id}/memories"),
    Route("recall", "POST", "/v1/recall"),
    Route("context", "POST", "/v1/context"),
    Route("search", "POST", "/v1/search"),
    Route("plan", "POST", "/v1/plan"),
    Route("feedback", "POST", "/v1/feedback"),
    Route("manage", "POST", "/v1/manage"),
    Route("record_turn", "POST", "/v1/turns"),
    Route("learn", "POST", "/v1/learn"),
    Route("pin", "POST", "/v1/memories/{memory_id}/pin"),
    Route("unpin", "DELETE", "/v1/memories/{memory_id}/pin"),
    Route("pinned", "GET", "/v1/pins"),
    Route("kv", "GET", "/v1/kv"),
    Route("end_session", "POST", "/v1/sessions/{session_id}/end"),
    Route("maintain", "POST", "/v1/maintain"),
    Route("intelligence", "GET", "/v1/intelligence"),
    Route("on", "GET", "/v1/events"),
    Route("export_lines", "GET", "/v1/export"),
    Route("import_lines", "POST", "/v1/import"),
    Route("graph.links", "GET", "/v1/memories/{memory_id}/links"),
    Route("graph.link", "POST", "/v1/memories/{memory_id}/links"),
    Route("graph.unlink", "DELETE", "/v1/memories/{memory_id}/links/{target}"),
    Route("graph.explain", "GET", "/v1/memories/{memory_id}/links/{target}/explain"),
    Route("graph.related", "GET", "/v1/memories/{memory_id}/related"),
    Route("graph.trace", "GET", "/v1/memories/{memory_id}/trace/{target}"),
    Route("graph.memories", "GET", "/v1/graph/memories"),
    Route("graph.connect", "POST", "/v1/graph/connect"),
    Route("graph.prune", "POST", "/v1/graph/prune"),
    Route("graph.merge", "POST", "/v1/memories/{memory_id}/merge"),
    Route("entities.add", "POST", "/v1/entities/triples"),
    Route("entities.invalidate", "POST", "/v1/entities/triples/{triple_id}/invalidate"),
    Route("entities.delete", "DELETE", "/v1/entities/triples/{triple_id}"),
    Route("entities.forget_entity", "DELETE", "/v1/entities/{entity}"),
    Route("entities.relations", "GET", "/v1/entities/{entity}/relations"),
    Route("entities.neighbors", "GET", "/v1/entities/{entity}/neighbors"),
    Route("entities.path", "GET", "/v1/entities/{entity}/path/{other}"),
)
"""Where each call of the protocol is executed over HTTP (RemoteMemory and AsyncRemoteMemory send these)."""

ROUTE_ALIASES = {
    "graph.add": "entities.add",
    "graph.delete_triple": "entities.delete",
    "graph.forget_entity": "entities.forget_entity",
    "graph.relations": "entities.relations",
    "graph.neighbors": "entities.neighbors",
    "graph.path": "entities.path",
    "off": "on",
    "reflect": "maintain",
}
"""Calls that are another call's operation: the graph's entity calls, ``off`` (the same event stream) and
``reflect`` (``maintain`` with the one task)."""

CLIENT_SIDE = {
    "scoped": "binds the scope in the client; every call of the view names it",
    "scope": "the scope a view is bound to, held by the client",
    "close": "closes the client's connections",
}
"""Members of the protocol that no request carries, and why."""


def route(call: str) -> Route:
    """The operation of ``call`` (``"add"``, ``"graph.link"``, ``"graph.relations"`` ...); KeyError if none."""
    name = ROUTE_ALIASES.get(call, call)
    for found in MEMORY_ROUTES:
        if found.call == name:
            return found
    raise KeyError(f"{call!r} has no operation in kioko.service.surface.MEMORY_ROUTES")
