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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, get_args, get_origin

from kioko_core import kinds
from kioko_core.kinds.registry import KINDS
from kioko_core.store import Record

TEXT_MANAGERS: tuple[str, ...] = tuple(info.manager for info in KINDS if not info.keyed)
"""The managers of the kinds held by text, in the kind registry's order: each has the same five routes."""
MANAGERS = TEXT_MANAGERS + tuple(info.manager for info in KINDS if info.keyed)
URL_NAME = {"strategies": "lessons"}
"""Where a manager's routes live when its URL name differs from its attribute (``/v1/lessons``)."""
OUTCOMES = tuple(manager for manager in TEXT_MANAGERS if hasattr(kinds.MANAGERS[manager], "outcome"))
"""The managers whose memories report an outcome (``decisions.outcome`` ...): their class has the call."""

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
        """The operation's URL under ``/v1`` (the manager's URL name, then its path)."""
        return f"/v1/{URL_NAME.get(self.manager, self.manager)}{self.path}"

    @property
    def path_params(self) -> list[str]:
        """The names of the path's ``{placeholders}``, in order."""
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]

    @property
    def name(self) -> str:
        """``manager.method``, as the table and the clients name the operation."""
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
    """The manager operation ``manager.method`` (an alias resolved), or None when the table has none."""
    manager, method = ALIASES.get((manager, method), (manager, method))
    for op in OPERATIONS:
        if op.manager == manager and op.method == method:
            return op
    return None


def manager_class(manager: str) -> type:
    """The library's manager class of ``manager`` (``goals`` -> Goals), from the kinds' registry."""
    return kinds.MANAGERS[manager]


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


# -- the rest of kioko.Memory: each public call as one REST operation, with its parameters
#
# A call's parameters are written once, in its signature in kioko.protocol (names, order, types, defaults).
# The row below says how they travel: the verb and path ({names} in the path are path parameters, the others
# the JSON body of a POST/PUT/PATCH or the query string of a GET/DELETE), a parameter's name on the wire
# where it differs (``graph.link(a, b)``: ``memory_id`` in the path, ``target`` in the body), the JSON type
# and bounds a parameter has on the wire (WIRE below, or the row's own), and the parameters no request
# carries (answered by the client). From that the server builds its request models and endpoint parameters
# (kioko.http.schemas.request_model, kioko.http.call_routes) and both HTTP clients build their requests
# (kioko.remote.calls.derived): a new keyword in the protocol appears in all of them at once.


SCHEMA = "schema"
"""A wire type the server's schemas give (``kioko.http.schemas.WIRE_TYPES``: a plan object, a batch item, the
messages of a turn, the link types): the clients send the value as JSON."""


@dataclass(frozen=True)
class Wire:
    """How one parameter travels: its JSON type (None: its annotation, which must then be plain JSON), the
    pydantic ``Field`` bounds and description, and whether the wire requires it whatever its default."""

    type: Any = None
    field: Mapping[str, Any] = dataclass_field(default_factory=dict)
    required: bool = False
    default: Any = inspect.Parameter.empty


USER_ID_HELP = (
    "whose memories, one of the API key's users; a key bound to one user may leave it out (the server fills in "
    "that user before the request is checked)"
)
ID = {"min_length": 1, "max_length": 200}
WIRE: dict[str, Wire] = {
    # over HTTP every call names its user (a key bound to one user: the gate fills it in before validation)
    "user_id": Wire(str, {**ID, "description": USER_ID_HELP}, required=True),
    "agent_id": Wire(str | None, {**ID, "description": "one of the user's agents (its own scope)"}),
    "session_id": Wire(str | None),
    "metadata": Wire(dict[str, Any] | None),
    "created_at": Wire(float | None),  # Unix seconds (the clients convert a datetime)
    "embedding": Wire(list[float] | None, {"description": "the memory's vector, when the caller computed it"}),
    "section_limits": Wire(dict[str, int] | None, {"description": 'caps per context section, e.g. {"procedures": 0}'}),
    "fill_recent": Wire(list[str] | None, {"max_length": 20, "description": 'sections to fill, e.g. ["decisions"]'}),
    "config": Wire(dict[str, Any] | None, {"description": "RecallConfig fields to change for this call"}),
    "budget": Wire(
        int | None,
        {
            "ge": 1,
            "le": 1_000_000,
            "description": "tokens the context's text may take (about 4 characters each); default 2000",
        },
    ),
    "plan": Wire(
        SCHEMA,  # "auto", a bool or a plan object
        {
            "description": '"auto" plans from the query\'s intents (the default when the served layer has '
            "intelligence), false does not (the default without), or a plan object to follow"
        },
    ),
}
"""Parameters that travel the same way on every route that has them."""

SCOPE_IN = "ScopeIn"
"""The body of a write that names only its scope (pin, end_session, graph.prune)."""


@dataclass(frozen=True)
class Route:
    """A call of :class:`kioko.Memory` (``"add"``), of its graph (``"graph.link"``) or of its entity graph
    (``"entities.add"``) as the REST operation that executes it; ``{names}`` in the path are its arguments.

    ``model``: the request body's name in the API document; ``wire``: parameter -> its name on the wire;
    ``fields``: a parameter's wire type and bounds on this route (over :data:`WIRE`); ``local``: parameters
    no request carries, and why; ``legacy``: an older wire name of the text still accepted (deprecated);
    ``answer``: the field of the JSON answer that holds the value; ``absent``: the value when the server
    answers 404 (``delete`` of a missing memory is False, as in the library); ``composed``: why the clients
    build this call by hand (a stream, pages), empty when they derive it from the row.
    """

    call: str
    verb: str
    path: str
    model: str = ""
    wire: Mapping[str, str] = dataclass_field(default_factory=dict)
    fields: Mapping[str, Wire] = dataclass_field(default_factory=dict)
    local: Mapping[str, str] = dataclass_field(default_factory=dict)
    legacy: str = ""
    answer: str = ""
    absent: Any = None
    composed: str = ""

    @property
    def path_params(self) -> list[str]:
        """The names of the path's ``{placeholders}``, in order."""
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]

    @property
    def in_body(self) -> bool:
        """Whether the call's arguments travel in a JSON body (POST, PUT, PATCH) rather than the query."""
        return self.verb in ("POST", "PUT", "PATCH")


SCOPE_ONLY = {"user_id": Wire(str, {**ID, "description": USER_ID_HELP}, required=True)}
RECALL_LIMIT = Wire(int | None, {"ge": 1, "le": 200})
RECALL_LINKS = Wire(
    int | None, {"ge": 0, "le": 50, "description": "linked memories to add; the default plan when omitted"}
)
OPTIONS_LOCAL = {"options": "a RecallOptions travels as its fields (the keywords of the same names)"}
TRIPLE_ID = Wire(str | None, ID)

MEMORY_ROUTES: tuple[Route, ...] = (
    Route(
        "add",
        "POST",
        "/v1/memories",
        model="MemoryCreate",
        fields={
            "content": Wire(
                str, {"min_length": 1, "description": "up to the layer's content limit (413 TooLargeError beyond)"}
            ),
            "id": Wire(str | None, ID),
        },
    ),
    Route(
        "add_many",
        "POST",
        "/v1/memories/batch",
        model="MemoryBatch",
        fields={"items": Wire(SCHEMA, {"max_length": 1000})},
    ),
    Route("memories", "GET", "/v1/memories", composed="pages of memories (limit, cursor), read as one iterator"),
    Route("get", "GET", "/v1/memories/{memory_id}"),
    Route(
        "update",
        "PATCH",
        "/v1/memories/{memory_id}",
        model="MemoryPatch",
        fields={"content": Wire(str | None, {"min_length": 1})},
    ),
    Route("delete", "DELETE", "/v1/memories/{memory_id}", answer="deleted", absent=False),
    Route("forget_user", "DELETE", "/v1/users/{user_id}/memories", answer="deleted"),
    Route(
        "forget_about",
        "POST",
        "/v1/forget",
        model="ForgetAboutIn",
        fields={
            "subject": Wire(
                str, {"min_length": 1, "max_length": 200, "description": "who or what to forget, e.g. 'Krutika'"}
            ),
            "dry_run": Wire(bool, {"description": "only list what would go"}),
        },
    ),
    Route(
        "recall",
        "POST",
        "/v1/recall",
        model="RecallIn",
        fields={"query": Wire(str), "links": RECALL_LINKS, "limit": RECALL_LIMIT},
        local=OPTIONS_LOCAL,
    ),
    Route(
        "context",
        "POST",
        "/v1/context",
        model="ContextIn",
        fields={"query": Wire(str), "links": Wire(int | None, {"ge": 0, "le": 50}), "limit": RECALL_LIMIT},
        local=OPTIONS_LOCAL,
    ),
    Route("search", "POST", "/v1/search", model="SearchIn", fields={"limit": Wire(int, {"ge": 1, "le": 200})}),
    Route("plan", "POST", "/v1/plan", model="PlanQuery"),
    Route(
        "feedback",
        "POST",
        "/v1/feedback",
        model="FeedbackIn",
        fields={
            "credited": Wire(str | None, ID),
            "context": Wire(
                list[str] | None, {"max_length": 200, "description": "ids of the memories the recall returned"}
            ),
        },
    ),
    Route(
        "manage",
        "POST",
        "/v1/manage",
        model="ManageIn",
        wire={"text": "content"},
        legacy="text",
        fields={"content": Wire(SCHEMA, {"description": "the user's words, or the turn's messages"})},
    ),
    Route(
        "record_turn",
        "POST",
        "/v1/turns",
        model="TurnIn",
        wire={"user": "content"},
        legacy="user",
        fields={
            "content": Wire(str, {"description": "what the user said"}),
            "reply": Wire(str | None, {"description": "what the agent answered"}),
        },
    ),
    Route("learn", "POST", "/v1/learn", model="LearnIn", fields={"messages": Wire(SCHEMA)}),
    Route("pin", "POST", "/v1/memories/{memory_id}/pin", model=SCOPE_IN),
    Route("unpin", "DELETE", "/v1/memories/{memory_id}/pin"),
    Route("pinned", "GET", "/v1/pins"),
    Route("kv", "GET", "/v1/kv"),
    Route("end_session", "POST", "/v1/sessions/{session_id}/end", model=SCOPE_IN),
    Route(
        "maintain",
        "POST",
        "/v1/maintain",
        model="MaintainIn",
        fields={
            "user_id": Wire(
                str | None,
                {
                    **ID,
                    "description": "one user; omitted: every user (an admin key only); a key bound to one user may "
                    "leave it out (the server fills in that user)",
                },
            ),
            "tasks": Wire(
                list[str] | None,
                {
                    "max_length": 50,
                    "description": "the scheduler's task names; omitted: all of them (422 for an unknown one)",
                },
            ),
        },
    ),
    Route("intelligence", "GET", "/v1/intelligence", composed="a property: whether the server has one, its stats"),
    Route("on", "GET", "/v1/events", composed="a server-sent event stream read on a thread of its own"),
    Route("export_lines", "GET", "/v1/export", composed="a stream of JSON lines"),
    Route("import_lines", "POST", "/v1/import", composed="a body of JSON lines"),
    Route("graph.links", "GET", "/v1/memories/{memory_id}/links"),
    Route(
        "graph.link",
        "POST",
        "/v1/memories/{memory_id}/links",
        model="LinkIn",
        wire={"a": "memory_id", "b": "target"},
        fields={
            "target": Wire(str, ID),
            "type": Wire(SCHEMA),  # the link types of kioko_core.linking.links
            "weight": Wire(float, {"gt": 0.0, "le": 1.0}),
            "why": Wire(str, {"max_length": 2000}),
        },
    ),
    Route(
        "graph.unlink",
        "DELETE",
        "/v1/memories/{memory_id}/links/{target}",
        wire={"a": "memory_id", "b": "target"},
        answer="unlinked",
    ),
    Route(
        "graph.explain",
        "GET",
        "/v1/memories/{memory_id}/links/{target}/explain",
        wire={"a": "memory_id", "b": "target"},
    ),
    Route(
        "graph.related",
        "GET",
        "/v1/memories/{memory_id}/related",
        fields={"depth": Wire(int, {"ge": 1, "le": 6}), "limit": Wire(int, {"ge": 1, "le": 200})},
    ),
    Route(
        "graph.trace",
        "GET",
        "/v1/memories/{memory_id}/trace/{target}",
        wire={"a": "memory_id", "b": "target"},
        fields={"max_depth": Wire(int, {"ge": 1, "le": 8})},
    ),
    Route(
        "graph.memories",
        "GET",
        "/v1/graph/memories",
        fields={"depth": Wire(int, {"ge": 1, "le": 6}), "limit": Wire(int, {"ge": 1, "le": 2000})},
    ),
    Route(
        "graph.connect",
        "POST",
        "/v1/graph/connect",
        model="ConnectIn",
        fields={"limit": Wire(int | None, {"ge": 1})},
        local={"progress": "the server connects in one call; the client calls progress once, at the end"},
    ),
    Route(
        "graph.prune",
        "POST",
        "/v1/graph/prune",
        model=SCOPE_IN,
        answer="result",
        local={"now": "the server prunes as of its own clock"},
    ),
    Route(
        "graph.merge",
        "POST",
        "/v1/memories/{memory_id}/merge",
        model="MergeIn",
        wire={"duplicate": "memory_id"},
        fields={"survivor": Wire(str, ID)},
    ),
    Route(
        "entities.add",
        "POST",
        "/v1/entities/triples",
        model="TripleIn",
        fields={
            "subject": Wire(str, {"min_length": 1, "max_length": 1000}),
            "relation": Wire(str, {"min_length": 1, "max_length": 200}),
            "object": Wire(str, {"min_length": 1, "max_length": 1000}),
        },
    ),
    Route("entities.invalidate", "POST", "/v1/entities/triples/{triple_id}/invalidate", model="InvalidateIn"),
    Route("entities.delete", "DELETE", "/v1/entities/triples/{triple_id}"),
    Route("entities.forget_entity", "DELETE", "/v1/entities/{entity}", answer="deleted"),
    Route("entities.relations", "GET", "/v1/entities/{entity}/relations"),
    Route("entities.neighbors", "GET", "/v1/entities/{entity}/neighbors"),
    Route(
        "entities.path",
        "GET",
        "/v1/entities/{entity}/path/{other}",
        wire={"a": "entity", "b": "other"},
        fields={"max_depth": Wire(int, {"ge": 0, "le": 6})},
    ),
)
"""Where and how each call of the protocol is executed over HTTP (the server serves these, RemoteMemory and
AsyncRemoteMemory send them)."""

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

CLIENT_COMPOSED = {
    "off": "stops a callback of the event stream on() opened",
    "reflect": "maintain with the one task, its result unwrapped",
}
"""Aliases a client answers with another call (besides the rows whose ``composed`` says why)."""

SERVICE_ONLY = {
    "/v1/whoami": "what the API key may do: a question about the service's key, not about memories",
    "/v1/webhooks": "the service's webhook registrations (a library listens with on())",
    "/v1/webhooks/{webhook_id}": "one webhook registration",
}
"""REST paths under /v1 that are no call of kioko.Memory, and why."""

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
    raise KeyError(f"{call!r} has no operation in kioko.api.operations.MEMORY_ROUTES")


# -- a call's parameters, from its signature in kioko.protocol


def protocols() -> dict[str, type]:
    """Where each call's signature is written: ``"add"`` in Memory, ``"graph.link"`` in MemoryGraph ..."""
    import kioko.protocol as protocol

    return {"": protocol.Memory, "graph": protocol.MemoryGraph, "entities": protocol.Entities}


def signature(call: str | Operation, *, written_in: Mapping[str, type] | None = None) -> inspect.Signature:
    """The parameters of ``call`` (without ``self``) as the protocol writes them; a typed manager's
    :class:`Operation`: its library method's. ``written_in`` replaces the protocols (a test grows one)."""
    if isinstance(call, Operation):
        method = getattr(manager_class(call.manager), call.method)
    else:
        owner, _, name = call.rpartition(".")
        method = getattr((written_in or protocols())[owner], name)
    sig = inspect.signature(method)
    return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "self"])


@dataclass(frozen=True)
class Param:
    """One parameter of a call as it travels: its name in Python and on the wire, where (``path``, ``body``
    or ``query``), its JSON type, its default (``...``: required) and its Field bounds."""

    name: str
    wire: str
    where: str
    type: Any
    default: Any
    field: Mapping[str, Any]


JSON_NAMES = {"Any": Any, "None": None}


def _annotation(call: str, param: inspect.Parameter) -> Any:
    """A parameter's annotation as a type, for the plain JSON ones (``str | None``, ``dict[str, Any]``); a
    parameter with another type needs its wire type in the row or in :data:`WIRE`."""
    hint = param.annotation
    if isinstance(hint, str):
        try:
            hint = eval(hint, {"__builtins__": __builtins__}, JSON_NAMES)  # noqa: S307 - our own annotations
        except NameError:
            raise TypeError(f"{call}({param.name}): {hint} is not JSON; give its wire type in surface.WIRE") from None
    return hint


def params(call: str, *, written_in: Mapping[str, type] | None = None) -> list[Param]:
    """``call``'s parameters that a request carries, in the signature's order (path ones first)."""
    found = route(call)
    sig = signature(call, written_in=written_in)
    out: list[Param] = []
    for param in sig.parameters.values():
        if param.name in found.local or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        wire = found.wire.get(param.name, param.name)
        spec = found.fields.get(wire) or WIRE.get(wire) or Wire()
        where = "path" if wire in found.path_params else "body" if found.in_body else "query"
        kind = str if where == "path" else spec.type if spec.type is not None else _annotation(call, param)
        default = spec.default if spec.default is not inspect.Parameter.empty else param.default
        if spec.required or default is inspect.Parameter.empty or where == "path":
            default = ...
        out.append(Param(param.name, wire, where, kind, default, spec.field))
    out.sort(key=lambda p: p.where != "path")
    return out


def to_library(call: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """Wire names -> the call's keyword arguments (``{"memory_id": a, "target": b}`` -> ``{"a": ..., "b": ...}``)."""
    back = {p.wire: p.name for p in params(call)}
    return {back.get(name, name): value for name, value in given.items()}
