"""The intelligence's routes: ``manage`` (with ``dry_run``), ``record_turn``, ``learn``; the report comes back whole."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

import kioko.service.schemas as S

from .auth import Principal
from .deps import ERROR_RESPONSES, Service, authorized, principal, service

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["intelligence"])


class Message(S.Strict):
    role: str = Field(min_length=1, max_length=50)
    content: str


class ManageIn(S.TextBody):
    LEGACY_TEXT = "text"
    content: str | list[Message] = Field(description="the user's words, or the turn's messages")
    text: str | list[Message] | None = S.legacy_text_field("text")
    user_id: str = S.UserId
    agent_id: str | None = S.AgentId
    session_id: str | None = None
    dry_run: bool = False


class TurnIn(S.TextBody):
    LEGACY_TEXT = "user"
    content: str = Field(description="what the user said")
    user: str | None = S.legacy_text_field("user")
    reply: str | None = Field(None, description="what the agent answered")
    user_id: str = S.UserId
    agent_id: str | None = S.AgentId
    session_id: str | None = None
    dry_run: bool = False


class LearnIn(S.Strict):
    messages: str | list[Message]
    user_id: str = S.UserId
    agent_id: str | None = S.AgentId
    session_id: str | None = None
    dry_run: bool = False


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


def _messages(value: str | list[Message]) -> Any:
    return value if isinstance(value, str) else [m.model_dump() for m in value]


@router.post("/manage", response_model=ReportOut)
def manage(body: ManageIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Decide (and unless ``dry_run``, apply) the memory operations for one turn."""
    authorized(who, body.user_id, body.agent_id)
    with svc.write_lock:
        report = svc.layer.manage(
            _messages(body.content),
            user_id=body.user_id,
            agent_id=body.agent_id,
            session_id=body.session_id,
            dry_run=body.dry_run,
        )
    return report.to_dict()


@router.post("/turns", response_model=ReportOut)
def record_turn(body: TurnIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """One exchange of the agent loop: the user's words and the agent's reply."""
    authorized(who, body.user_id, body.agent_id)
    with svc.write_lock:
        report = svc.layer.record_turn(
            body.content,
            body.reply,
            user_id=body.user_id,
            agent_id=body.agent_id,
            session_id=body.session_id,
            dry_run=body.dry_run,
        )
    return report.to_dict()


@router.post("/learn", response_model=ReportOut)
def learn(body: LearnIn, svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Learn from a conversation (routed when the layer has an intelligence)."""
    authorized(who, body.user_id, body.agent_id)
    with svc.write_lock:
        report = svc.layer.learn(
            _messages(body.messages),
            user_id=body.user_id,
            agent_id=body.agent_id,
            session_id=body.session_id,
            dry_run=body.dry_run,
        )
    return report.to_dict()


@router.get("/intelligence", response_model=IntelligenceOut)
def intelligence(svc: Service = Depends(service), who: Principal = Depends(principal)):
    """Whether the served layer has an intelligence, and which router it uses."""
    brain = getattr(svc.layer, "intelligence", None)
    router_name = getattr(getattr(brain, "router", None), "name", None) if brain is not None else None
    stats = brain.stats() if brain is not None and who.admin else None
    return {"enabled": brain is not None, "router": router_name, "stats": stats}
