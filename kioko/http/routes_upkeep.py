"""The intelligence's read and upkeep routes: the recall plan, pins and the stable prefix, session ends, maintain.

Each is the MemoryLayer call of the same name (``memory.plan``, ``pin``, ``unpin``, ``pinned``, ``kv``,
``end_session``, ``maintain``); they work on any served layer, with or without an intelligence.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

import kioko.http.schemas as schemas
from kioko.api.auth import Principal
from kioko.api.wire import jsonable, plan_out, prefix_out, record_out
from kioko.http.call_routes import serve_call
from kioko.http.deps import ERROR_RESPONSES, Service, authorized
from kioko_core.store import InvalidRecordError, Record

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["intelligence"])

UserQ = Query(min_length=1, max_length=200, description=schemas.USER_ID_HELP)
AgentQ = Query(None, min_length=1, max_length=200)


class PrefixOut(BaseModel):
    text: str = Field(description="profile, instructions and pins: byte-identical until one of them changes")
    digest: str = Field(description="sha256 of the text")
    memory_ids: list[str]


@serve_call(router, "plan", response_model=schemas.PlanOut)
def plan(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The plan recall would follow for the query: intents, why, a cap per section, links."""
    authorized(who, args["user_id"], args["agent_id"])
    return plan_out(svc.layer.plan(**args))


@serve_call(router, "pin", response_model=schemas.RecordOut)
def pin(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Pin a memory: every context shows it under "Keep in mind"; it joins the stable prefix."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        record = svc.layer.pin(**args)
    _updated(svc, record)
    return record_out(record)


@serve_call(router, "unpin", response_model=schemas.RecordOut)
def unpin(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Unpin a memory (one that was not pinned comes back as it is)."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        record = svc.layer.unpin(**args)
    _updated(svc, record)
    return record_out(record)


@serve_call(router, "pinned", response_model=list[schemas.RecordOut])
def pinned(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The scope's pinned memories, oldest pin first."""
    authorized(who, args["user_id"], args["agent_id"])
    return [record_out(r) for r in svc.layer.pinned(**args)]


@serve_call(router, "kv", response_model=PrefixOut)
def kv(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """The stable prefix for a provider's prompt cache (compare ``digest`` to know when it changed)."""
    authorized(who, args["user_id"], args["agent_id"])
    return prefix_out(svc.layer.kv(**args))


@serve_call(router, "end_session", response_model=schemas.RecordOut | None)
def end_session(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Wrap a session up now: its task and lasting scratchpad slots become its episode; null when it had none."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        episode = svc.layer.end_session(**args)
    if episode is None:
        return None
    svc.emit(
        "memory.added" if episode.version <= 1 else "memory.updated",
        {"user_id": episode.user_id, "agent_id": episode.agent_id, "memory": record_out(episode)},
    )
    return record_out(episode)


@serve_call(router, "maintain", response_model=dict[str, dict[str, Any]])
def maintain(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Run maintenance now for one user, or (admin key) for every user with turns counted.

    The answer is the library's: ``{user (or "user/agent"): {task: result}}``.
    """
    if args["user_id"] is None:
        if args["agent_id"] is not None:
            raise InvalidRecordError("maintain: an agent_id needs the user_id it belongs to")
        who.require_admin()
        with svc.write_lock:
            results = svc.layer.maintain(tasks=args["tasks"])
    else:
        authorized(who, args["user_id"], args["agent_id"])
        with svc.write_lock:
            results = svc.layer.maintain(**args)
    return {str(scope): {str(task): jsonable(done) for task, done in tasks.items()} for scope, tasks in results.items()}


def _updated(svc: Service, record: Record) -> None:
    svc.emit("memory.updated", {"user_id": record.user_id, "agent_id": record.agent_id, "memory": record_out(record)})
