"""The layer's door for the writes that are not a caller's memory: Kioko's own records, and link edits.

The intelligence keeps records of its own (session logs, maintenance counters, heat) and rewrites the
links of memories (a model's review of automatic links). It reads the store directly, but it writes
through :class:`Bookkeeping` (``memory.bookkeeping``), which checks what the layer's ``add`` and
``update`` would otherwise have checked:

- :meth:`Bookkeeping.update_many` writes only in Kioko's reserved scopes (a user or agent named
  ``@...``, the shared knowledge base excepted), never a kind that is linked or a record with index
  terms (the layer's term statistics would not know of them), and never a secret;
- :meth:`Bookkeeping.rewrite_links` changes the links of memories and nothing else of them (content,
  kind, scope, terms, embedding and the caller's metadata stay as stored), at the versions read.

Reads (``get``, ``scan``) pass through, so a function written against a store's ``get`` / ``scan`` /
``update_many`` takes this object in its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kioko_core.errors import InvalidRecordError
from kioko_core.layer.scoped import RESERVED_PREFIX
from kioko_core.linking import links
from kioko_core.store import Delete, Filter, Record, Scope, Store, Upsert

if TYPE_CHECKING:
    from kioko_core.privacy.secrets import DropSecrets


def reserved(scope: Scope) -> bool:
    """Whether ``scope`` is one of Kioko's own (a reserved user or agent name; the shared knowledge base is not)."""
    user, agent = scope.user_id, scope.agent_id or ""
    return (user.startswith(RESERVED_PREFIX) and user != links.SHARED_USER) or agent.startswith(RESERVED_PREFIX)


class Bookkeeping:
    """Kioko's own records and link edits, checked before the store writes them (see the module)."""

    def __init__(self, store: Store, secrets: DropSecrets) -> None:
        self._store = store
        self._secrets = secrets

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        return self._store.get(scope, ids)

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        return self._store.scan(scope, filter, batch)

    def update_many(self, ops: Sequence[Upsert | Delete]) -> list[Record | None]:
        """Write Kioko's own records (one batch, versions as the ops give them); InvalidRecordError for an op
        outside a reserved scope, a linked kind or a record with index terms; SecretDropped for a secret."""
        for op in ops:
            scope = op.record.scope if isinstance(op, Upsert) else op.scope
            if not reserved(scope):
                raise InvalidRecordError(
                    f"Kioko's own records live in its reserved scopes, not in {tuple(scope)!r}: "
                    "a memory is written with add() or update()"
                )
            if isinstance(op, Upsert):
                if op.record.kind in links.LINKABLE_KINDS or op.record.terms:
                    raise InvalidRecordError(
                        f"a bookkeeping record is neither a linked kind nor indexed (kind {op.record.kind!r})"
                    )
                self._secrets.enforce(op.record.content, op.record.metadata)
        return self._store.update_many(list(ops))

    def rewrite_links(self, changes: Iterable[tuple[Record, Record]]) -> list[Record | None]:
        """Write each ``(as read, with its links changed)`` pair in one batch, checked at the version read.

        Only the links may differ (the bookkeeping key ``metadata["_kioko"]``); InvalidRecordError otherwise.
        """
        ops: list[Upsert | Delete] = []
        for current, changed in changes:
            if not _only_links_differ(current, changed):
                raise InvalidRecordError(f"a link edit of memory {current.id!r} changes more than its links")
            ops.append(Upsert(record=changed, expected_version=current.version))
        return self._store.update_many(ops)


def _only_links_differ(current: Record, changed: Record) -> bool:
    same_vector = current.embedding is changed.embedding or (
        current.embedding is not None
        and changed.embedding is not None
        and np.array_equal(current.embedding, changed.embedding)
    )
    return (
        same_vector
        and (current.id, current.user_id, current.agent_id, current.kind, current.content, current.session_id)
        == (changed.id, changed.user_id, changed.agent_id, changed.kind, changed.content, changed.session_id)
        and current.terms == changed.terms
        and current.created_at == changed.created_at
        and links.user_metadata(current.metadata) == links.user_metadata(changed.metadata)
    )


__all__ = ["Bookkeeping", "reserved"]
