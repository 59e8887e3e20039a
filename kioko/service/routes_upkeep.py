"""The intelligence's read and upkeep routes: the recall plan, pins and the stable prefix, session ends, maintain.

Each is the MemoryLayer call of the same name (``memory.plan``, ``pin``, ``unpin``, ``pinned``, ``kv``,
``end_session``, ``maintain``); they work on any served layer, with or without an intelligence.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

import kioko.service.schemas as S
from kioko_core.store import InvalidRecordError, Record

from .auth import Principal
from .deps import ERROR_RESPONSES, Service, authorized, principal, service
from .wire import jsonable, plan_out, prefix_out, record_out

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["intelligence"])

UserQ = Query(min_length=1, max_length=200, description=S.USER_ID_HELP)
AgentQ = Query(None, min_length=1, max_length=200)


class PlanQuery(S.Strict):
    query: str
    user_id: str = S.UserId
    agent_id: str | None = S.AgentId
    session_id: str | None = None


class MaintainIn(S.Strict):
    user_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="one user; omitted: every user (an admin key only); a key bound to one user may leave it out "
        "(the server fills in that user)",
    )
    agent_id: str | None = S.AgentId
    tasks: list[str] | None = Field(
        None, max_length=50, description="the scheduler's task names; omitted: all of them (422 for an unknown one)"
    )


class PrefixOut(BaseModel):
    text: str = Field(description="profile, instructions and pins: byte-identical until one of them changes")
    digest: str = Field(description="sha256 of the text")
    memory_ids: list[str]


@router.post("/plan", response_model=S.PlanOut)
def plan(body: PlanQuery, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """The plan recall would follow for the query: intents, why, a cap per section, links."""
    authorized(who, body.user_id, body.agent_id)
    return plan_out(
        svc.layer.plan(body.query, user_id=body.user_id, agent_id=body.agent_id, session_id=body.session_id)
    )


@router.post("/memories/{memory_id}/pin", response_model=S.RecordOut)
def pin(memory_id: str, body: S.ScopeIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Pin a memory: every context shows it under "Keep in mind"; it joins the stable prefix."""
    authorized(who, body.user_id, body.agent_id)
    with svc.write_lock:
        record = svc.layer.pin(memory_id, user_id=body.user_id, agent_id=body.agent_id)
    _updated(svc, record)
    return record_out(record)


@router.delete("/memories/{memory_id}/pin", response_model=S.RecordOut)
def unpin(
    memory_id: str,
    user_id: str = UserQ,
    agent_id: str | None = AgentQ,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
):
    """Unpin a memory (one that was not pinned comes back as it is)."""
    authorized(who, user_id, agent_id)
    with svc.write_lock:
        record = svc.layer.unpin(memory_id, user_id=user_id, agent_id=agent_id)
    _updated(svc, record)
    return record_out(record)


@router.get("/pins", response_model=list[S.RecordOut])
def pinned(
    user_id: str = UserQ,
    agent_id: str | None = AgentQ,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
):
    """The scope's pinned memories, oldest pin first."""
    authorized(who, user_id, agent_id)
    return [record_out(r) for r in svc.layer.pinned(user_id=user_id, agent_id=agent_id)]


@router.get("/kv", response_model=PrefixOut)
def kv(
    user_id: str = UserQ,
    agent_id: str | None = AgentQ,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
):
    """The stable prefix for a provider's prompt cache (compare ``digest`` to know when it changed)."""
    authorized(who, user_id, agent_id)
    return prefix_out(svc.layer.kv(user_id=user_id, agent_id=agent_id))


@router.post("/sessions/{session_id}/end", response_model=S.RecordOut | None)
def end_session(session_id: str, body: S.ScopeIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Wrap a session up now: its task and lasting scratchpad slots become its episode; null when it had none."""
    authorized(who, body.user_id, body.agent_id)
    with svc.write_lock:
        episode = svc.layer.end_session(session_id, user_id=body.user_id, agent_id=body.agent_id)
    if episode is None:
        return None
    svc.emit(
        "memory.added" if episode.version <= 1 else "memory.updated",
        {"user_id": episode.user_id, "agent_id": episode.agent_id, "memory": record_out(episode)},
    )
    return record_out(episode)


@router.post("/maintain", response_model=dict[str, dict[str, Any]])
def maintain(body: MaintainIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Run maintenance now for one user, or (admin key) for every user with turns counted.

    The answer is the library's: ``{user (or "user/agent"): {task: result}}``.
    """
    if body.user_id is None:
        if body.agent_id is not None:
            raise InvalidRecordError("maintain: an agent_id needs the user_id it belongs to")
        who.require_admin()
        with svc.write_lock:
            results = svc.layer.maintain(tasks=body.tasks)
    else:
        authorized(who, body.user_id, body.agent_id)
        with svc.write_lock:
            results = svc.layer.maintain(user_id=body.user_id, agent_id=body.agent_id, tasks=body.tasks)
    return {str(scope): {str(task): jsonable(done) for task, done in tasks.items()} for scope, tasks in results.items()}


def _updated(svc: Service, record: Record) -> None:
    svc.emit("memory.updated", {"user_id": record.user_id, "agent_id": record.agent_id, "memory": record_out(record)})
