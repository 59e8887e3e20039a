"""The intelligence's routes: ``manage`` (with ``dry_run``), ``record_turn``, ``learn``; the report comes back whole."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from kioko.api.auth import Principal
from kioko.http.call_routes import serve_call
from kioko.http.deps import ERROR_RESPONSES, Service, authorized, principal, service

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["intelligence"])


class ReportOut(BaseModel):
    router: str
    model_calls: int
    skipped: str | None = None
    error: str | None = None
    dry_run: bool
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    ops: list[dict[str, Any]]


class IntelligenceOut(BaseModel):
    enabled: bool = Field(
        description="the served layer was built with an intelligence (else manage() uses the "
        "offline router on demand, and learn() keeps what the user said)"
    )
    router: str | None = None
    stats: dict[str, int] | None = Field(
        None,
        description="the intelligence's counts since the server started (turns, model calls, operations, plans ...), "
        "over every user: shown to an admin key (or a server without keys) only",
    )


@serve_call(router, "manage", response_model=ReportOut)
def manage(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Decide (and unless ``dry_run``, apply) the memory operations for one turn."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        report = svc.layer.manage(**args)
    return report.to_dict()


@serve_call(router, "record_turn", response_model=ReportOut)
def record_turn(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """One exchange of the agent loop: the user's words and the agent's reply."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        report = svc.layer.record_turn(**args)
    return report.to_dict()


@serve_call(router, "learn", response_model=ReportOut)
def learn(svc: Service, who: Principal, args: dict[str, Any]) -> Any:
    """Learn from a conversation (routed when the layer has an intelligence)."""
    authorized(who, args["user_id"], args["agent_id"])
    with svc.write_lock:
        report = svc.layer.learn(**args)
    return report.to_dict()


@router.get("/intelligence", response_model=IntelligenceOut)
def intelligence(svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Whether the served layer has an intelligence, and which router it uses."""
    brain = getattr(svc.layer, "intelligence", None)
    router_name = getattr(getattr(brain, "router", None), "name", None) if brain is not None else None
    stats = brain.stats() if brain is not None and who.admin else None
    return {"enabled": brain is not None, "router": router_name, "stats": stats}
