"""``GET /v1/whoami``: what the request's API key may do, so a client (the console) can offer its users."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from .app import ERROR_RESPONSES, principal
from .auth import Principal

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["users"])


class WhoAmI(BaseModel):
    name: str = Field(description="the key's label (never the key)")
    admin: bool = Field(description="the key may act for every user")
    users: list[str] | None = Field(description="the users the key may act for, sorted; null for an admin key")
    agents: list[str] | None = Field(None, description="the only agents it may act for; null: any")


@router.get("/whoami", response_model=WhoAmI)
async def whoami(who: Principal = Depends(principal)):
    """The key's name and the users (and agents) it may act for; a server without keys answers as an admin."""
    return {
        "name": who.name,
        "admin": who.admin,
        "users": None if who.admin else sorted(who.users),
        "agents": None if who.agents is None else sorted(who.agents),
    }
