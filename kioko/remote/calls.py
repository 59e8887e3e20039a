"""What RemoteMemory and AsyncRemoteMemory share: each public call as a :class:`Call` (verb, path, query or
body, and how the answer becomes the library's value), built once and sent by either client.

The clients differ only in how they send a Call (``httpx.Client`` or ``httpx.AsyncClient``), so the
arguments of a call, their defaults on the wire and the types that come back are written here once.
An argument left at None is not sent: the server applies the library's default, and a ``user_id`` left
out is the server's to decide (an API key bound to one user acts for that user).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Coroutine, Iterable, Mapping
from datetime import date, datetime
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import quote

from kioko.api import errors as _service_errors  # noqa: F401  (Unauthorized, Forbidden ... for error_in)
from kioko.api import operations
from kioko.api.wire import context_in, error_in, link_in, memory_in, plan_in, prefix_in, related_in, score_in, triple_in
from kioko_core.errors import MemoryNotFound
from kioko_core.recall.hybrid import Context
from kioko_core.recall.options import RECALL_KNOBS, RecallOptions
from kioko_core.store import InvalidRecordError, KiokoError, Record, Scope
from kioko_intelligence.planner import RecallPlan

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
    """The verb and path of ``call``'s operation (:data:`kioko.api.operations.MEMORY_ROUTES`), its ``{names}``
    filled with the arguments given (each checked non-empty and quoted)."""
    found = operations.route(call)
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
    """What a client of the memory surface holds: the scope a :meth:`scoped` view is bound to."""

    _bound: Scope | None = None

    def _scope_of(self, user_id: str | None, agent_id: str | None) -> dict[str, Any]:
        user, agent = _who(self._bound, user_id, agent_id)
        return {"user_id": user, "agent_id": agent}

    def _page(
        self, *, user_id: str | None, agent_id: str | None, kinds: set[str] | None, cursor: str | None, size: int
    ) -> Call:
        params = {**self._scope_of(user_id, agent_id), "kind": sorted(kinds) if kinds else None}
        return Call(*where("memories"), params={**params, "limit": size, "cursor": cursor})

    def _intelligence(self) -> Call:
        return Call(*where("intelligence"))


# -- every other call: derived from its signature (kioko.protocol) and its row of the operations table


OWNERS = {"Memory": "", "IntelligenceCalls": "", "MemoryGraph": "graph", "Entities": "entities"}
"""The protocol class a method is written in -> the prefix of its call's name (``graph.link``)."""


def call_name(method: Any) -> str:
    """``"graph.link"`` for ``MemoryGraph.link``, ``"add"`` for ``Memory.add``."""
    owner, _, name = method.__qualname__.rpartition(".")
    prefix = OWNERS[owner]
    return f"{prefix}.{name}" if prefix else name


def build_call(
    calls: Calls,
    call: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    written_in: Mapping[str, type] | None = None,
) -> Call:
    """The request of ``call(*args, **kwargs)``: the arguments bound to the call's signature in the protocol
    (a keyword it does not take is a TypeError, as in the library), the scope filled in from a scoped view,
    and each argument placed where its row of :data:`kioko.api.operations.MEMORY_ROUTES` says (path, body or
    query, under its wire name); an argument left out is not sent (the server applies the same default)."""
    sig = operations.signature(call, written_in=written_in)
    try:
        given = dict(sig.bind(*args, **kwargs).arguments)
    except TypeError as error:
        raise TypeError(f"{call}(): {error}") from None
    if "user_id" in sig.parameters:
        user, agent = _who(calls._bound, given.get("user_id"), given.get("agent_id"))
        given["user_id"] = user
        if "agent_id" in sig.parameters:
            given["agent_id"] = agent
    target = call
    prepare = PREPARE.get(operations.route(call).call)
    if prepare is not None:
        target, given = prepare(call, given)
    found = operations.route(target)
    path, body, query = found.path, {}, {}
    for param in operations.params(target, written_in=written_in):
        value = given.get(param.name)
        if value is None:
            continue
        value = OUTGOING.get(param.name, jsonable)(value)
        if param.where == "path":
            path = path.replace("{" + param.wire + "}", seg(value, param.wire))
        elif param.where == "body":
            body[param.wire] = value
        else:
            query[param.wire] = value
    if "{" in path:
        missing = ", ".join(found.path_params)
        raise InvalidRecordError(f"{call} needs {missing} (or call it on memory.scoped(user_id=...))")
    decode = decoder(call, written_in=written_in)
    if found.in_body:
        return Call(found.verb, path, params=query or None, body=body, decode=decode)
    return Call(found.verb, path, params=query, decode=decode)


def _recall_knobs(call: str, given: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """recall / context: ``options`` and the keywords beside it as one RecallOptions, sent as its fields.
    ``context`` follows links only when asked; options /v1/context does not take (the shared knowledge base,
    a RecallConfig) send it to /v1/recall, with the same links default."""
    if not isinstance(given.get("query"), str):
        raise InvalidRecordError("query must be a string")
    knobs = RecallOptions.merge(given.pop("options", None), **{k: given.pop(k) for k in RECALL_KNOBS if k in given})
    if call == "context":
        if knobs.links is None:
            knobs = knobs.replace(links=0)
        if knobs.include_shared or knobs.config is not None:
            call = "recall"
    return call, {**given, **knobs.keywords()}


def _query_is_text(call: str, given: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if not isinstance(given.get("query"), str):
        raise InvalidRecordError("query must be a string")
    return call, given


def _server_clock(call: str, given: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if given.pop("now", None) is not None:
        raise InvalidRecordError("prune(now=...) is not available over HTTP; the server prunes as of its clock")
    return call, given


PREPARE: dict[str, Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "recall": _recall_knobs,
    "context": _recall_knobs,
    "plan": _query_is_text,
    "graph.prune": _server_clock,
}
"""What a client does before sending a call (the table's ``local`` parameters: recall's options, prune's clock)."""


def _items(items: Iterable[str | Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"content": i} if isinstance(i, str) else {k: jsonable(v) for k, v in dict(i).items()} for i in items]


def _config(config: Any) -> Any:
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return dataclasses.asdict(config)  # a RecallConfig travels as its fields
    return jsonable(config)


def _plan(plan: Any) -> Any:
    return encode_plan(plan, None, None)["plan"]


OUTGOING: dict[str, Callable[[Any], Any]] = {
    "embedding": lambda embedding: _vector(embedding),
    "items": _items,
    "config": _config,
    "plan": _plan,
}
"""An argument's JSON where :func:`jsonable` is not enough (by parameter name)."""


def _optional(decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda found: decode(found) if found is not None else None


DECODERS: dict[str, Callable[[Any], Any]] = {
    "Record": memory_in,
    "Record | None": _optional(memory_in),
    "list[Record]": lambda found: records(found),
    "Context": context_in,
    "RecallPlan": plan_in,
    "ManageReport": lambda found: report(found),
    "StablePrefix": prefix_in,
    "MemoryLink": link_in,
    "list[MemoryLink]": lambda found: _links(found),
    "LinkScore": score_in,
    "list[RelatedMemory]": lambda found: [related_in(r) for r in found],
    "GraphDrawing": lambda found: drawing(found),
    "ConnectReport": lambda found: connect_report(found),
    "Triple": triple_in,
    "Triple | None": _optional(triple_in),
    "list[Triple]": lambda found: _triples(found),
    "list[str]": list,
    "bool": bool,
    "int": int,
    "dict[str, Any]": dict,
}
"""The library's value from the JSON answer, by the return type the protocol writes."""


def decoder(call: str, *, written_in: Mapping[str, type] | None = None) -> Callable[[Any], Any]:
    """How the answer of ``call`` becomes the library's return type (its field of the JSON, then its decoder)."""
    returns = operations.signature(call, written_in=written_in).return_annotation
    try:
        decode = DECODERS[returns]
    except KeyError:
        raise TypeError(f"{call} returns {returns}: no decoder for it in kioko.remote.calls.DECODERS") from None
    field = operations.route(call).answer
    if field:
        return lambda answer: decode(answer[field])
    return decode


P = ParamSpec("P")
R = TypeVar("R")


def forward(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A client method that is the protocol's ``method``: its signature (for mypy and ``inspect``), its request
    derived from the operations table, sent by the client's ``_send``."""
    call = call_name(method)
    found = operations.route(call)

    def send(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        client = getattr(self, "_remote", self)
        request = build_call(client, call, args, kwargs)
        try:
            result: R = client._send(request)
        except MemoryNotFound:
            if found.absent is None:
                raise
            return found.absent  # type: ignore[no-any-return]
        after = AFTER.get(call)
        if after is not None:
            after(args, kwargs, result)
        return result

    return _adopt_signature(send, method, call)


def forward_async(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """:func:`sent` for AsyncRemoteMemory: the same request, awaited."""
    call = call_name(method)
    found = operations.route(call)

    async def send(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        client = getattr(self, "_remote", self)
        request = build_call(client, call, args, kwargs)
        try:
            result: R = await client._send(request)
        except MemoryNotFound:
            if found.absent is None:
                raise
            return found.absent  # type: ignore[no-any-return]
        after = AFTER.get(call)
        if after is not None:
            after(args, kwargs, result)
        return result

    return _adopt_signature(send, method, call)


def _adopt_signature(send: Any, method: Any, call: str) -> Any:
    functools.update_wrapper(send, method)  # name, doc and (through __wrapped__) the protocol's signature
    send.__operation__ = call
    return send


def _progress(args: tuple[Any, ...], kwargs: dict[str, Any], done: Any) -> None:
    """``graph.connect(progress=...)``: the server connects in one call; progress is told once, at the end."""
    progress = kwargs.get("progress")
    if progress is not None:
        progress(done.memories, done.memories)


AFTER: dict[str, Callable[[tuple[Any, ...], dict[str, Any], Any], None]] = {"graph.connect": _progress}


# -- the typed managers: each call is the row of kioko.api.operations it names


def manager_call(calls: Calls, manager: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call:
    """The Call of ``memory.<manager>.<method>(*args, **kwargs)``, arguments checked against the library's own
    signature (so a keyword the library does not take is a TypeError here, as it is locally)."""
    op = operations.operation(manager, method)
    if op is None:
        raise AttributeError(f"memory.{manager} has no call {method!r} over HTTP")
    sig = operations.signature(op)
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
    kind = operations.returns(op)

    def decode(answer: Any) -> Any:
        return _decode_as(kind, answer, default)

    if op.verb in ("POST", "PUT", "PATCH"):
        return Call(op.verb, path, body=values, decode=decode)
    return Call(op.verb, path, params=values, decode=decode)


def manager_methods(manager: str) -> dict[str, Any]:
    """The public calls of the library's manager class ``manager`` (name -> function), aliases included."""
    cls = operations.manager_class(manager)
    return {name: member for name, member in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


def missing_operations() -> list[str]:
    """``manager.method`` for every public call of a manager that has no row in the operations table."""
    return sorted(
        f"{manager}.{name}"
        for manager in operations.MANAGERS
        for name in manager_methods(manager)
        if operations.operation(manager, name) is None
    )


# -- values


def _decode_as(kind: str, answer: Any, default: Any) -> Any:
    if kind == "record":
        return memory_in(answer)
    if kind == "records":
        return records(answer)
    if kind == "record?":
        return memory_in(answer) if answer is not None else None
    value = answer["result"]
    return default if value is None else value


def records(found: Any) -> list[Record]:
    """The records of a JSON list of memories."""
    return [memory_in(r) for r in found]


def _links(found: Any) -> list[Any]:
    return [link_in(k) for k in found]


def _triples(found: Any) -> list[Any]:
    return [triple_in(t) for t in found]


def _field(name: str) -> Callable[[Any], Any]:
    return lambda answer: answer[name]


def drawing(data: dict[str, Any]) -> Any:
    """The GraphDrawing of a JSON answer."""
    from kioko_core.graph.facade import GraphDrawing, GraphEdge, GraphNode, GraphStats

    return GraphDrawing(
        nodes=[GraphNode(**n) for n in data["nodes"]],
        edges=[GraphEdge(**e) for e in data["edges"]],
        stats=GraphStats(**data["stats"]),
    )


def connect_report(data: dict[str, Any]) -> Any:
    """The ConnectReport of a JSON answer."""
    from kioko_core.graph.facade import ConnectReport

    return ConnectReport(**data)


def report(data: dict[str, Any]) -> Any:
    """A ManageReport from its JSON (fields a newer server adds are left out)."""
    from kioko_intelligence.ops import ManageReport, MemoryOp

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
    """``value`` as one path segment, escaped; InvalidRecordError for an empty or non-string value."""
    if not isinstance(value, str) or not value:
        raise InvalidRecordError(f"{name} must be a non-empty string, got {value!r}")
    return quote(value, safe="")


def encode_plan(plan: Any, section_limits: Any, fill_recent: Any) -> dict[str, Any]:
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
    """``value`` as JSON carries it: times as timestamps, a Context as its memories' ids, tuples and sets as lists."""
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


def forward_manager_async(
    method: Callable[Concatenate[Any, P], R],
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """An AsyncRemoteMemory manager's call: the library manager's ``method`` (its signature, for mypy and
    ``inspect``), its request the operation of the managers' table it names, awaited."""
    name = method.__name__

    async def send(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        remote = self._remote
        result: R = await remote._send(manager_call(remote, self._manager, name, args, dict(kwargs)))
        return result

    functools.update_wrapper(send, method)
    return send
