"""Which scopes a caller may name, and how a scoped view resolves the scope of a call.

Scope names that begin with ``@`` are Kioko's own: ``(user, "@graph")`` holds a user's entity graph and
``"@shared"`` is the shared knowledge base. A caller may use ``user_id="@shared"`` (to write or read the
shared knowledge base) and no other such name, as user or as agent: ``agent_id="@graph"`` would write
into the user's entity-graph scope.

``memory.scoped(user_id=..., agent_id=...)`` is a :class:`~kioko_core.layer.memory_layer.MemoryLayer` bound to one
scope: every call, the managers' and the graph's included, takes its scope from the view, and naming
another user or agent there is refused.
"""

from __future__ import annotations

from kioko_core.errors import InvalidRecordError
from kioko_core.linking.links import SHARED_USER
from kioko_core.store import Scope, check_scope

RESERVED_PREFIX = "@"
"""Scope names beginning with this are Kioko's own (``"@graph"``, ``"@shared"``)."""
WEBHOOKS_AGENT = "@webhooks"
"""Where the service keeps a user's webhook registrations."""
SESSIONS_AGENT = "@sessions"
"""``(user, "@sessions")`` holds the turns of a user's sessions not yet folded into their rolling summaries."""
USER_OWNED_AGENTS = ("@graph", WEBHOOKS_AGENT, SESSIONS_AGENT)
"""Kioko's own scopes that belong to one user (``(user, "@graph")`` ...): forgetting the user removes them too,
whichever surface forgets them (the library, the CLI or the service)."""


def user_scope(user_id: str, agent_id: str | None = None) -> Scope:
    """The scope a caller names, checked: non-empty strings, no reserved name but ``user_id="@shared"``."""
    scope = check_scope((user_id, agent_id))
    if scope.user_id.startswith(RESERVED_PREFIX) and scope.user_id != SHARED_USER:
        raise InvalidRecordError(
            f"user_id {scope.user_id!r} is reserved: names beginning with {RESERVED_PREFIX!r} are Kioko's own "
            f"(only {SHARED_USER!r}, the shared knowledge base, may be used)"
        )
    if scope.agent_id is not None and scope.agent_id.startswith(RESERVED_PREFIX):
        raise InvalidRecordError(
            f"agent_id {scope.agent_id!r} is reserved: names beginning with {RESERVED_PREFIX!r} are Kioko's own"
        )
    return scope


def resolve(bound: Scope | None, user_id: str | None, agent_id: str | None) -> Scope:
    """The scope of one call: the view's ``bound`` scope (the call may repeat it), else the one named."""
    if bound is None:
        if user_id is None:
            raise InvalidRecordError("user_id is required (or call through memory.scoped(user_id=...))")
        return user_scope(user_id, agent_id)
    if user_id is not None and user_id != bound.user_id:
        raise InvalidRecordError(f"this view is bound to user {bound.user_id!r}; it cannot act for {user_id!r}")
    if agent_id is not None and agent_id != bound.agent_id:
        raise InvalidRecordError(f"this view is bound to agent {bound.agent_id!r}; it cannot act for {agent_id!r}")
    return bound


__all__ = ["RESERVED_PREFIX", "SESSIONS_AGENT", "USER_OWNED_AGENTS", "WEBHOOKS_AGENT", "resolve", "user_scope"]
