"""The layer's turning points, where a package above the core may act: the core never imports that package.

:class:`~kioko_core.layer.memory_layer.MemoryLayer` calls its ``hooks`` (a :class:`LayerHooks`) when it plans a recall,
when it shows a context's changes, after a recall, after a delete, when a user is forgotten, when a view of it is made and when it closes.
Here every hook does nothing, so the core works alone. The intelligence package subclasses the layer
(:class:`kioko_intelligence.surface.IntelligentMemory`, what ``kioko.connect()``, ``kioko.MemoryLayer`` and
``kioko.intelligent()`` build): its class carries its own hooks and declares the calls of
:data:`INTELLIGENCE_CALLS` as methods. The arrow points from the intelligence to the core, never back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from kioko_core.errors import InvalidRecordError

if TYPE_CHECKING:
    from kioko_core.recall.hybrid import Context, RecalledMemory
    from kioko_core.recall.options import RecallOptions
    from kioko_core.store import Record, Scope


class FollowedPlan(Protocol):
    """What recall reads of a plan: the caps it follows (a :class:`~kioko_intelligence.planner.RecallPlan`)."""

    links: int
    limit: int | None
    section_limits: dict[str, int]
    fill_recent: list[str]


class LayerHooks:
    """The no-op hooks: a layer with these recalls as asked, deletes only the record and its links, holds nothing."""

    def plan_recall(
        self,
        layer: Any,
        query: str,
        scope: Scope,
        session_id: str | None,
        options: RecallOptions,
    ) -> FollowedPlan | None:
        """The plan recall follows (``options.plan``, with the call's other options winning over its caps), or
        None to recall with the call's options.

        ``query`` is the recall's :class:`~kioko_core.reading.query_and_draft.Query`: a ``str`` that also holds what recall
        read from it (the names the user's graph knows), so a planner need not read it again."""
        return None

    def shown_changes(self, layer: Any, query: str, memories: Sequence[RecalledMemory]) -> dict[str, str]:
        """Which of a context's ``memories`` to show in place of which older one the question found too, with
        "(was: ...)" ({newer id: older id}; see :mod:`~kioko_core.recall.shown_changes`): a display policy for
        this question, never a write. Here none: every memory is shown as recall found it."""
        return {}

    def turn_mates(self, layer: Any, scope: Scope, records: Sequence[Record]) -> dict[str, list[Record]]:
        """{record id: the other memories said in the same turn} for ``records`` of a context (see
        :mod:`~kioko_core.recall.turn_mates`). Here none: the core numbers no turns."""
        return {}

    def after_recall(self, layer: Any, context: Context, scope: Scope, session_id: str | None) -> None:
        """What recall gave the agent (``context``), once it is built."""

    def on_delete(self, layer: Any, scope: Scope, deleted: Record, *, derived: bool) -> None:
        """``deleted`` is gone from ``scope`` (with its links and its own triples): erase what else was made of it.
        ``derived`` False for housekeeping deletes, which keep what was derived from the memory's content."""

    def forget_subject(
        self, layer: Any, scope: Scope, names: Callable[[str], bool], summaries: list[Record], *, dry_run: bool
    ) -> list[str]:
        """``forget_about``: remove (``dry_run``: only describe) what else of ``scope`` names the subject
        (``names(text)``) besides its memories, e.g. the turns waiting in session logs; ``summaries`` are the
        session summaries that name it, to rewrite without it. Returns a line for each thing removed.
        The core alone keeps no such thing: its summaries (there are none without a summariser) are deleted."""
        if not dry_run:
            for summary in summaries:
                layer.delete(summary.id, user_id=scope.user_id, agent_id=scope.agent_id)
        return [f"session summary {s.id}" for s in summaries]

    def on_forget(self, layer: Any, scope: Scope) -> None:
        """Every memory of ``scope`` is gone (``forget_user``): drop what else belongs to it."""

    def on_view(self, view: Any) -> None:
        """``view`` was made from a layer (:meth:`~kioko_core.layer.memory_layer.MemoryLayer.scoped`, ``with_linking``)."""

    def on_close(self, layer: Any) -> None:
        """The layer is closing its store: write what is still held in this process."""


INTELLIGENCE_CALLS = (
    "on",
    "off",
    "manage",
    "record_turn",
    "learn",
    "plan",
    "pin",
    "unpin",
    "pinned",
    "kv",
    "end_session",
    "reflect",
    "maintain",
)
"""The intelligence's calls, the one list of their names: methods of
:class:`~kioko_intelligence.surface.IntelligentMemory`, declared with their signatures by ``kioko.Memory``
(``IntelligenceCalls``) and sent by both remote clients (tests/core/test_layer_hooks.py checks each has them all).
The core's layer answers each with :class:`~kioko_core.errors.IntelligenceNeeded`."""


class Exchange(Protocol):
    """Kioko's export format, which lives above the core (:mod:`kioko.api.exchange`): what
    :meth:`~kioko_core.layer.memory_layer.MemoryLayer.export_lines` and ``import_lines`` call."""

    def export_lines(self, layer: Any, user_id: str, agent_ids: Iterable[str]) -> Iterator[str]: ...

    def import_lines(self, layer: Any, lines: Iterable[str | bytes], *, allowed: Any = None) -> dict[str, int]: ...


_exchange: list[Exchange] = []


def register_exchange(exchange: Exchange) -> None:
    """The export format every layer's ``export_lines`` / ``import_lines`` use from now on (``kioko`` registers it)."""
    _exchange[:] = [exchange]


def exchange() -> Exchange:
    """The registered export format; without one (kioko never imported) a clear error."""
    if not _exchange:
        raise InvalidRecordError(
            "export and import need Kioko's export format, which is not loaded: import kioko first"
        )
    return _exchange[0]


__all__ = ["INTELLIGENCE_CALLS", "Exchange", "FollowedPlan", "LayerHooks", "exchange", "register_exchange"]
