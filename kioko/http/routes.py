"""The hand-written routes: memories, recall, the memory graph and the entity graph, users."""

from __future__ import annotations

import base64
import tempfile
import time
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

import kioko.http.schemas as schemas
from kioko.api.auth import Principal
from kioko.api.exchange import OWN_AGENTS, SPOOL_IN_MEMORY, export_lines, export_scopes, import_lines
from kioko.api.wire import context_out, link_out, plan_in, record_out, related_out, score_out, triple_out
from kioko.http.call_routes import serve_call
from kioko.http.deps import ERROR_RESPONSES, Service, authorized, principal, service
from kioko_core.errors import MemoryNotFound
from kioko_core.kinds.registry import canonical_kind
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking.links import link_entries
from kioko_core.recall.hybrid import Context, RecalledMemory
from kioko_core.recall.options import RECALL_KNOBS, RecallOptions
from kioko_core.store import Filter, InvalidRecordError, Record, Scope

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
MAX_PAGE = 1000
NDJSON = "application/x-ndjson"

UserQ = Query(min_length=1, max_length=200, description=schemas.USER_ID_HELP)
AgentQ = Query(None, min_length=1, max_length=200)


def render_json(data: Any) -> Any:
    """The answer as JSON, rendered here on the worker thread.

    FastAPI checks a plain function endpoint's return value against its response_model on one more hop
    to a worker thread; the hot read routes build their answers with :mod:`.wire` to that model (the
    schema test checks every answer), so they hand back the rendered response and skip the hop. A value
    plain JSON cannot carry (a NaN score, a numpy number in metadata a library caller wrote) goes the
    usual way.
    """
    try:
        return JSONResponse(data)
    except (TypeError, ValueError):
        return data


def _event(svc: Service, name: str, record: Record | None = None, **extra: Any) -> None:
    payload: dict[str, Any] = dict(extra)
    if record is not None:
        payload.update(user_id=record.user_id, agent_id=record.agent_id, memory=record_out(record))
    svc.emit(name, payload)
    if name == "memory.added" and record is not None:
        # the links a new memory made at write time: every entry on it is new
        for entry in link_entries(record):
            source, target = (record.id, entry["id"]) if entry.get("dir") == "out" else (entry["id"], record.id)
            svc.emit(
                "memory.linked",
                {
                    "user_id": record.user_id,
                    "agent_id": record.agent_id,
                    "link": {
                        "source": source,
                        "target": target,
                        "type": entry.get("type"),
                        "weight": entry.get("w"),
                        "by": entry.get("by"),
                        "why": entry.get("why", ""),
                    },
                },
            )


# --------------------------------------------------------------------------- memories


@serve_call(router, "add", tags=["memories"], response_model=schemas.RecordOut, status_code=201)
def add_memory(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Store a memory (and, with linking on, link it); 422 SecretDropped for a credential."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        stored = svc.layer.add(**args)
    _event(svc, "memory.added", stored)
    return record_out(stored)


@serve_call(router, "add_many", tags=["memories"], response_model=list[schemas.RecordOut], status_code=201)
def add_memories(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Store many memories in order (``add_many``): every item is checked first, so a bad one stores nothing."""
    authorized(who, args["user_id"], args["agent_id"])
    args["items"] = [{k: v for k, v in item.items() if v is not None} for item in args["items"]]
    with svc.write_lock:
        stored = svc.layer.add_many(**args)
    for record in stored:
        _event(svc, "memory.added", record)
    return [record_out(r) for r in stored]


@router.get("/memories", tags=["memories"], response_model=schemas.Page)
def list_memories(
    user_id: str = UserQ,
    agent_id: str | None = AgentQ,
    kind: list[str] | None = Query(
        None, description="memory types to keep (repeat the parameter); aliases (fact, lesson ...) are accepted"
    ),
    session_id: str | None = None,
    # finite Unix seconds: NaN and infinities are a 422 here, as in a memory's created_at
    created_after: float | None = Query(None, allow_inf_nan=False),
    created_before: float | None = Query(None, allow_inf_nan=False),
    limit: int = Query(50, ge=1, le=MAX_PAGE),
    cursor: str | None = Query(None, max_length=400),
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
):
    """A page of the scope's memories in id order; ``next_cursor`` fetches the next page."""
    scope = authorized(who, user_id, agent_id)
    after = _cursor_in(cursor)
    wanted = Filter(
        kinds=frozenset(canonical_kind(k) for k in kind) if kind else None,  # 422 naming the kinds
        session_id=session_id,
        created_after=created_after,
        created_before=created_before,
    )
    items: list[Record] = []
    for record in svc.layer.store.scan(scope, wanted):
        if after is not None and record.id <= after:
            continue
        items.append(record)
        if len(items) > limit:
            break
    more = len(items) > limit
    items = items[:limit]
    return render_json(
        {"items": [record_out(r) for r in items], "next_cursor": _cursor_out(items[-1].id) if more else None}
    )


def _cursor_out(memory_id: str) -> str:
    return base64.urlsafe_b64encode(memory_id.encode("utf-8")).decode("ascii")


def _cursor_in(cursor: str | None) -> str | None:
    if not cursor:
        return None
    try:
        return base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True).decode("utf-8")
    except (ValueError, UnicodeError):
        raise InvalidRecordError("cursor is not one this server handed out; start again without it") from None


@serve_call(router, "get", tags=["memories"], response_model=schemas.RecordOut)
def get_memory(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The memory, or 404 when it is not in this scope."""
    authorized(who, args["user_id"], args["agent_id"])
    return render_json(record_out(svc.layer.get(**args)))


@serve_call(router, "update", tags=["memories"], response_model=schemas.RecordOut)
def update_memory(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Change the content (links are derived again) and/or merge metadata."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        stored = svc.layer.update(**args)
    _event(svc, "memory.updated", stored)
    return record_out(stored)


@serve_call(router, "delete", tags=["memories"], response_model=schemas.Deleted)
def delete_memory(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Delete a memory; its neighbours forget their links to it. 404 MemoryNotFound when there is none."""
    user_id, agent_id = args["user_id"], args["agent_id"]
    authorized(who, user_id, agent_id)
    with svc.write_lock:
        deleted = svc.layer.delete(**args)
    if not deleted:
        raise MemoryNotFound(args["memory_id"], user_id)
    _event(svc, "memory.deleted", None, user_id=user_id, agent_id=agent_id, id=args["memory_id"])
    return {"deleted": True}


# --------------------------------------------------------------------------- recall


@serve_call(router, "recall", tags=["recall"], response_model=schemas.ContextOut)
def recall(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The context for a question: what it retrieves, what their links bring, how they connect."""
    authorized(who, args["user_id"], args["agent_id"])
    return render_json(context_out(svc.layer.recall(**recall_arguments(args))))


def recall_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """recall's (or context's) arguments with its knobs as one RecallOptions (a plan object as a RecallPlan)."""
    knobs = {name: args.pop(name) for name in RECALL_KNOBS if name in args}
    if isinstance(knobs.get("plan"), dict):
        knobs["plan"] = plan_in(knobs["plan"])
    return {**args, "options": RecallOptions(**knobs)}


@serve_call(router, "context", tags=["recall"], response_model=schemas.ContextOut)
def context(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Like recall, following links only when asked (``links`` defaults to 0)."""
    authorized(who, args["user_id"], args["agent_id"])
    return render_json(context_out(svc.layer.context(**recall_arguments(args))))


@serve_call(router, "search", tags=["recall"], response_model=list[schemas.RecordOut])
def search(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The memories that best match the query (no link expansion)."""
    authorized(who, args["user_id"], args["agent_id"])
    return render_json([record_out(r) for r in svc.layer.search(**args)])


@serve_call(router, "feedback", tags=["recall"], response_model=list[schemas.LinkOut])
def feedback(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """ "That worked": link the credited fix to its session's problems, strengthen the links used together."""
    scope = authorized(who, args["user_id"], args["agent_id"])
    args["context"] = context_from_ids(svc.layer, scope, args["context"])
    with svc.write_lock:
        made = svc.layer.feedback(**args)
    for link in made:
        svc.emit("memory.linked", {"user_id": args["user_id"], "agent_id": args["agent_id"], "link": link_out(link)})
    return [link_out(k) for k in made]


def context_from_ids(layer: MemoryLayer, scope: Scope, ids: list[str] | None) -> Context | None:
    """A recall's context rebuilt from its memory ids, read again from this scope (a client's copy is not trusted)."""
    if ids is None:
        return None
    found = [r for r in layer.store.get(scope, list(dict.fromkeys(ids))) if r is not None] if ids else []
    return Context(query="", text="", memories=[RecalledMemory(r, 0.0, {}) for r in found], links=[])


# --------------------------------------------------------------------------- memory links


@serve_call(router, "graph.links", tags=["graph"], response_model=list[schemas.LinkOut])
def links(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The links of a memory, strongest first (by ``weight_now``: the weight after fading since last seen)."""
    authorized(who, args["user_id"], args["agent_id"])
    now, half_life = time.time(), svc.layer.linker.config.half_life_days
    return [{**link_out(k), "weight_now": round(k.faded(now, half_life), 4)} for k in svc.layer.graph.links(**args)]


@serve_call(router, "graph.link", tags=["graph"], response_model=schemas.LinkOut, status_code=201)
def link(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Link by hand (never fades); 409 LinkConflict where a stronger author's link exists."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        made = svc.layer.graph.link(**args)
    svc.emit("memory.linked", {"user_id": args["user_id"], "agent_id": args["agent_id"], "link": link_out(made)})
    return link_out(made)


@serve_call(router, "graph.unlink", tags=["graph"], response_model=schemas.Unlinked)
def unlink(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Remove the link from both memories (and remember it, so linking does not redo it)."""
    user_id, agent_id = args["user_id"], args["agent_id"]
    authorized(who, user_id, agent_id)
    with svc.write_lock:
        done = svc.layer.graph.unlink(**args)
    if done:
        svc.emit(
            "memory.unlinked", {"user_id": user_id, "agent_id": agent_id, "source": args["a"], "target": args["b"]}
        )
    return {"unlinked": done}


@serve_call(router, "graph.explain", tags=["graph"], response_model=schemas.LinkScoreOut)
def explain(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The evidence between two memories, scored from scratch."""
    authorized(who, args["user_id"], args["agent_id"])
    return score_out(svc.layer.graph.explain(**args))


@serve_call(router, "graph.related", tags=["graph"], response_model=list[schemas.RelatedOut])
def related(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Spreading activation from one memory: what is connected, best first, with the chain of links."""
    authorized(who, args["user_id"], args["agent_id"])
    return [related_out(r) for r in svc.layer.graph.related(**args)]


@serve_call(router, "graph.trace", tags=["graph"], response_model=list[schemas.LinkOut])
def trace(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The shortest chain of links from one memory to another (empty when none)."""
    authorized(who, args["user_id"], args["agent_id"])
    return [link_out(k) for k in svc.layer.graph.trace(**args)]


@serve_call(router, "graph.merge", tags=["graph"], response_model=schemas.RecordOut)
def merge(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Move this duplicate's links to ``survivor`` and delete it."""
    user_id, agent_id = args["user_id"], args["agent_id"]
    authorized(who, user_id, agent_id)
    with svc.write_lock:
        kept = svc.layer.graph.merge(**args)
    _event(svc, "memory.deleted", None, user_id=user_id, agent_id=agent_id, id=args["duplicate"])
    _event(svc, "memory.updated", kept)
    return record_out(kept)


@serve_call(router, "graph.memories", tags=["graph"], response_model=schemas.GraphOut)
def graph_memories(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Nodes, edges and stats for drawing, around ``center`` or for the whole scope."""
    authorized(who, args["user_id"], args["agent_id"])
    return _plain(svc.layer.graph.memories(**args))


@serve_call(router, "graph.connect", tags=["graph"], response_model=schemas.ConnectOut)
def graph_connect(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Link memories never linked (``rebuild``: re-derive every automatic link)."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        return _plain(svc.layer.graph.connect(**args))


def _plain(result: Any) -> Any:
    """The library's result object as JSON-ready data (its ``to_dict()``; a dict passes as it is)."""
    return result.to_dict() if hasattr(result, "to_dict") else result


@serve_call(router, "graph.prune", tags=["graph"], response_model=schemas.Result)
def graph_prune(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Remove faded links and links to memories that no longer exist; ``result`` is how many."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        return {"result": svc.layer.graph.prune(**args)}


# --------------------------------------------------------------------------- the entity graph


@serve_call(router, "entities.add", tags=["graph"], response_model=schemas.TripleOut, status_code=201)
def add_triple(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Add ``(subject) -relation-> (object)`` to the user's entity graph (idempotent while valid)."""
    authorized(who, args["user_id"])
    with svc.write_lock:
        triple = svc.layer.entities.add(**args)
    return triple_out(triple)


@serve_call(router, "entities.invalidate", tags=["graph"], response_model=schemas.TripleOut | None)
def invalidate_triple(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Close a triple (kept as history); null when the user's graph has no such triple."""
    authorized(who, args["user_id"])
    with svc.write_lock:
        triple = svc.layer.entities.invalidate(**args)
    return triple_out(triple) if triple is not None else None


@serve_call(router, "entities.delete", tags=["graph"], response_model=schemas.TripleOut | None)
def delete_triple(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Delete one triple, no history kept (forgetting a fact no memory asserted); the triple, or null."""
    authorized(who, args["user_id"])
    with svc.write_lock:
        triple = svc.layer.entities.delete(**args)
    return triple_out(triple) if triple is not None else None


@serve_call(router, "entities.forget_entity", tags=["graph"], response_model=schemas.Count)
def forget_entity(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Delete every triple naming the entity (subject or object), history included: how many."""
    authorized(who, args["user_id"])
    with svc.write_lock:
        return {"deleted": svc.layer.entities.forget_entity(**args)}


@serve_call(router, "entities.relations", tags=["graph"], response_model=list[schemas.TripleOut])
def relations(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The triples about an entity valid now (or ``as_of``; ``include_invalid`` adds history)."""
    authorized(who, args["user_id"])
    return [triple_out(t) for t in svc.layer.entities.relations(**args)]


@serve_call(router, "entities.neighbors", tags=["graph"], response_model=list[str])
def neighbors(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Entities one valid relation away."""
    authorized(who, args["user_id"])
    return svc.layer.entities.neighbors(**args)


@serve_call(router, "entities.path", tags=["graph"], response_model=list[schemas.TripleOut])
def entity_path(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The shortest chain of valid triples between two entities."""
    authorized(who, args["user_id"])
    return [triple_out(t) for t in svc.layer.entities.path(**args)]


# --------------------------------------------------------------------------- users


@serve_call(router, "forget_user", tags=["users"], response_model=schemas.Count)
def forget_user(svc: Service, who: Principal, args: dict[str, Any], request: Request) -> Any:
    """Delete every memory of a scope (and, for the user's own scope, their entity graph and webhooks)."""
    user_id, agent_id = args["user_id"], args["agent_id"]
    authorized(who, user_id, agent_id)
    with svc.write_lock:
        removed = svc.layer.forget_user(**args)
    if agent_id is None:
        _forget_webhooks(request, user_id)
    svc.emit("memory.deleted", {"user_id": user_id, "agent_id": agent_id, "all": True, "count": removed})
    return {"deleted": removed}


@serve_call(router, "forget_about", tags=["users"], response_model=schemas.ForgetAboutOut)
def forget_about(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Forget everything about a subject: every memory naming it, its entity-graph triples, the summary points
    and waiting session turns naming it (``dry_run``: only list them)."""
    user_id, agent_id = args["user_id"], args["agent_id"]
    authorized(who, user_id, agent_id)
    if args.get("dry_run"):
        return svc.layer.forget_about(**args)
    with svc.write_lock:
        found = svc.layer.forget_about(**args)
    for memory in found["memories"]:
        _event(svc, "memory.deleted", None, user_id=user_id, agent_id=agent_id, id=memory["id"])
    return found


# --------------------------------------------------------------------------- export and import


def _forget_webhooks(request: Request, user_id: str | None) -> None:
    """Drop the cached registrations (of every user for None): the store's changed under them."""
    hooks = getattr(request.app.state, "webhooks", None)
    if hooks is not None:
        hooks.forget(user_id)


def _importable(who: Principal, user_id: str, agent_id: str | None) -> None:
    """An import may fill the user's scopes and Kioko's own scopes of that user (graph, webhooks, session turns)."""
    if agent_id in OWN_AGENTS:
        authorized(who, user_id)
    else:
        authorized(who, user_id, agent_id)


@router.get(
    "/export",
    tags=["users"],
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {NDJSON: {"schema": {"type": "string"}}},
            "description": "JSON lines: a header, one record per line, an end line",
        }
    },
)
def export(
    user_id: str = UserQ,
    agent_id: list[str] | None = Query(None, description="agents to include"),
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
):
    """Every memory of the user (their entity graph and the agents named included), links and history intact."""
    authorized(who, user_id)
    for agent in agent_id or []:
        authorized(who, user_id, agent)
    export_scopes(user_id, agent_id or [])  # a malformed agent id is a 422 before the stream starts
    return StreamingResponse(export_lines(svc.layer, user_id, agent_id or []), media_type=NDJSON)


@router.post(
    "/import",
    tags=["users"],
    response_model=schemas.ImportOut,
    openapi_extra={"requestBody": {"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}}},
)
async def import_(request: Request, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Restore an export (the body is its JSON lines); importing the same export twice changes nothing."""
    # the body goes to a spool (memory up to a few MB, then a temporary file) as it arrives, and the import
    # reads it from there twice (checks, then writes in batches): memory stays flat whatever the upload's size
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, mode="w+b")

    def run() -> dict[str, int]:
        spool.seek(0)
        with svc.write_lock:
            try:
                return import_lines(
                    svc.layer,
                    spool,
                    allowed=lambda user, agent: _importable(who, user, agent),
                    webhook_guard=svc.webhook_guard,
                    webhook_limit=svc.webhook_limit,
                )
            finally:
                _forget_webhooks(request, None)  # registrations may have come with the import

    try:
        async for chunk in request.stream():
            spool.write(chunk)
        result = await run_in_threadpool(run)
    except UnicodeDecodeError:
        raise InvalidRecordError("the import is not UTF-8 text") from None
    finally:
        spool.close()
    svc.emit("memory.imported", {"records": result["records"], "written": result["written"]})
    return result
