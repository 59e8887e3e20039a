"""What is known: ``memory.episodes``, ``facts``, ``preferences``, ``knowledge`` and the derived
``insights`` and ``summaries`` (with the memories they were drawn from)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from kioko_core.errors import MemoryNotFound
from kioko_core.kinds.base import KindManager, _ids, _text, _TextManager
from kioko_core.store import Record

# --------------------------------------------------------------------------- facts, events, knowledge


class Episodes(_TextManager):
    """``memory.episodes``: what happened (``created_at`` dates it; ``session_id`` ties it to a conversation)."""


class Facts(_TextManager):
    """``memory.facts``: what is true about the user or their world; an update keeps the old value in history."""

    def verify(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Mark the fact as confirmed now (``metadata.verified_at``)."""
        return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata={"verified_at": time.time()})


class Preferences(_TextManager):
    """``memory.preferences``: what the user likes or prefers."""


class Knowledge(_TextManager):
    """``memory.knowledge``: general knowledge in the user's own scope (memory_type ``semantic``)."""

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        source: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a piece of knowledge; ``source`` (a document, a URL) is kept in metadata."""
        fields = {"source": _text(source, "source") if source is not None else None}
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )


class _DerivedManager(KindManager):
    """Memories made from other memories; the ids they rest on become ``derived_from`` links."""

    evidence_field = "evidence"

    def _add_derived(
        self,
        text: str,
        ids: Any,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        metadata: dict[str, Any] | None,
        created_at: Any,
    ) -> Record:
        evidence = _ids(ids, self.evidence_field)
        if evidence:
            scope = self._layer._scope(user_id, agent_id)
            missing = [i for i, r in zip(evidence, self._layer.store.get(scope, evidence)) if r is None]
            if missing:
                raise MemoryNotFound(missing[0], user_id)
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields={self.evidence_field: evidence},
        )


class Insights(_DerivedManager):
    """``memory.insights``: a higher-level conclusion (reflection), linked ``derived_from`` its evidence."""

    evidence_field = "evidence"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        evidence: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add an insight resting on the memories ``evidence`` names (all must exist in the scope)."""
        return self._add_derived(
            text,
            evidence,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )


class Summaries(_DerivedManager):
    """``memory.summaries``: a summary of episodes (consolidation), linked ``derived_from`` each of them."""

    evidence_field = "episodes"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        episodes: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a summary of the memories ``episodes`` names (all must exist in the scope)."""
        return self._add_derived(
            text,
            episodes,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )
