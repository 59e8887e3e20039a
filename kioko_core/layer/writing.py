"""The layer's write path: a new memory checked, read once and written; a change and a delete of one.

:class:`WritePath` is a part of :class:`~kioko_core.layer.memory_layer.MemoryLayer` (its base class), kept in a
module of its own: everything between a caller's ``add`` / ``update`` / ``delete`` and the store. A new memory is
checked (content, kind, metadata, size, secrets), looked up as a copy of one stored already, read once into a
:class:`~kioko_core.reading.query_and_draft.Draft` (its analysis, vector, index terms and entities) and written
with its links in one batch (:meth:`MemoryLinker.write <kioko_core.linking.linker.MemoryLinker.write>`), or alone
for a kind that is not linked.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from pydantic import ValidationError

from kioko_core.embedding.embedders import Embedder
from kioko_core.errors import IdTaken, IdUnavailable, InvalidRecordError, MemoryNotFound
from kioko_core.graph.entities import EntityGraph
from kioko_core.kinds.registry import canonical_kind
from kioko_core.layer.records import LayerStore
from kioko_core.layer.values import timestamp
from kioko_core.linking.index import IndexCache
from kioko_core.linking.linker import MemoryLinker, content_term, index_terms, pin_terms, structural_targets
from kioko_core.linking.links import (
    BOOKKEEPING,
    LINKABLE_KINDS,
    drop_link,
    entries_in,
    link_entries,
    user_metadata,
    with_bookkeeping,
)
from kioko_core.privacy.limits import Limits
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.reading.analysis import Analysis
from kioko_core.reading.query_and_draft import Draft, embed_read, read_content
from kioko_core.store import Delete, Record, Scope, Upsert, metadata_problem
from kioko_core.store.retry import retry_conflicts
from kioko_core.telemetry import count, stage, staged

if TYPE_CHECKING:
    from kioko_core.layer.hooks import LayerHooks


class WritePath:
    """The writes of a :class:`~kioko_core.layer.memory_layer.MemoryLayer` (see the module)."""

    # what the write path uses of the layer (set by MemoryLayer.__init__)
    store: LayerStore
    limits: Limits
    secrets: DropSecrets
    embedder: Embedder
    entities: EntityGraph
    index: IndexCache
    linker: MemoryLinker
    auto_link: bool
    hooks: LayerHooks
    _screened: bool
    _deferred: threading.local

    _scope: Callable[[str | None, str | None], Scope]
    get: Callable[..., Record]

    def _id_stored(self, scope: Scope, memory_id: str) -> bool:
        """Whether ``scope`` holds a memory ``memory_id`` (an add under a given id refuses a taken one at once).
        A batch of ``add_many`` asks its held writes alone (:mod:`kioko_core.layer.bulk`)."""
        return self.store.get(scope, [memory_id])[0] is not None

    def _add(
        self,
        content: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        memory_type: str,
        metadata: dict[str, Any] | None,
        created_at: float | datetime | None,
        id: str | None,
        embedding: Any,
        replace: bool,
    ) -> Record:
        """``add``; with ``replace`` (profile slots and working-memory keys, never linked) an existing id is
        overwritten in one write."""
        kind = self._check_new(content, memory_type, metadata)
        self.limits.check_content(content)
        if not self._screened:  # secrets never become memories (add_many screens its whole batch first)
            self.secrets.enforce(content, metadata, user_id, agent_id, session_id, id)
        scope = self._scope(user_id, agent_id)
        existing = self._existing_copy(scope, content, kind, session_id) if id is None else None
        if existing is not None and (created_at is None or timestamp(created_at) == existing.created_at):
            merged = self._merge_duplicate(existing, metadata)
            if merged is not None:
                return merged
        now = time.time()
        when = timestamp(created_at)
        fields = {
            "id": id or uuid.uuid4().hex,
            "user_id": scope.user_id,
            "agent_id": scope.agent_id,
            "kind": kind,
            "content": content,
            "metadata": dict(metadata or {}),
            "session_id": session_id,
            "created_at": when if when is not None else now,
            "updated_at": now,
        }
        try:
            # read once: the embedder (when it reads an analysis), the index and the linker take this reading;
            # a linked kind carries its bookkeeping from the start (stored under the key even empty: the caller's
            # own "links" is then never taken for the links of a memory stored before the key)
            with stage("add.analyse"):
                draft = Draft.read(
                    fields,
                    names=self.entities,
                    embedder=self.embedder,
                    linked=kind in LINKABLE_KINDS,
                    embedding=embedding,
                )
        except (ValidationError, TypeError, ValueError) as error:
            if isinstance(error, InvalidRecordError):
                raise
            # a wrong type for id or session_id is the caller's mistake: the layer's typed error
            raise InvalidRecordError(f"cannot store this memory: {_described(error)}") from None
        if id is not None and not replace and self._id_stored(scope, id):
            raise IdTaken(f"a memory {id!r} already exists; change it with update(), or add without an id")
        try:
            return self._write(draft, previous=None, replace=replace)
        except IdTaken:
            if id is None:
                raise
            # raised at once, never retried: ids are unique across the store and this one stays taken. The
            # message does not say where: another user's memory is not confirmed to exist
            raise IdUnavailable(
                f"the id {id!r} cannot be used here; ids are unique across the store, so add without an id or "
                "choose another"
            ) from None

    def _existing_copy(self, scope: Scope, content: str, memory_type: str, session_id: str | None) -> Record | None:
        """The memory this one would copy: same scope, kind, session and text (whitespace aside), if any.

        Only memories that are indexed (the linkable kinds) are looked up: one postings call, no scan.
        A replaced decision is history, not a copy: deciding the same again stores a new decision.
        """
        if memory_type not in LINKABLE_KINDS:
            return None
        key = " ".join(content.split())
        term = content_term(content)
        ids = self.index.lookup(scope, [term], 8)[2].get(term, [])
        for found in self.store.get(scope, ids) if ids else []:
            if (
                found is not None
                and found.kind == memory_type
                and found.session_id == session_id
                and " ".join(found.content.split()) == key
                and not found.metadata.get("superseded_by")
            ):
                return found
        return None

    def _merge_duplicate(self, existing: Record, metadata: dict[str, Any] | None) -> Record | None:
        """The duplicate ``existing`` with ``metadata`` merged in (unchanged when it brings nothing new);
        None when it was deleted meanwhile, so the add stores the memory anew."""
        if not metadata or all(k in existing.metadata and existing.metadata[k] == v for k, v in metadata.items()):
            return existing
        try:
            return self._update(existing.id, existing.scope, lambda current: (None, metadata))
        except MemoryNotFound:
            return None

    @staticmethod
    def _check_new(content: Any, memory_type: Any, metadata: Any, where: str = "") -> str:
        """The stored kind ``memory_type`` names, once content and metadata are checked."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidRecordError(f"{where}content must be a non-empty string")
        try:
            kind = canonical_kind(memory_type)
        except InvalidRecordError as error:
            raise InvalidRecordError(f"{where}{error}") from None
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidRecordError(f"{where}metadata must be a dict")
        # checked here, not only by the store: a duplicate add is never written, yet must refuse what a first add does
        problem = metadata_problem(metadata) if metadata else None
        if problem:
            raise InvalidRecordError(f"{where}{problem}; nothing was written")
        if metadata and BOOKKEEPING in metadata:
            raise InvalidRecordError(
                f"{where}metadata[{BOOKKEEPING!r}] is the layer's own (links, entities): a new memory cannot bring it"
            )
        return kind

    @staged("add.analyse")
    def _read(self, content: str, kind: str, user_id: str, *, embedded: bool) -> Analysis | None:
        """The one analysis a write of ``content`` needs (:func:`~kioko_core.reading.query_and_draft.read_content`)."""
        return read_content(
            self.linker, self.embedder, content, user_id, linked=kind in LINKABLE_KINDS, embedded=embedded
        )

    @staged("add.write")
    def _write(self, draft: Draft, previous: Record | None, replace: bool = False) -> Record:
        """Store the draft's record: a linked kind indexed under its analysis' terms (read now if the draft has
        none) and, with ``auto_link``, linked."""
        record = draft.record
        # a new memory is written with expected_version 0, so an id already taken (by a concurrent add, or in
        # another scope) is a ConflictError from the store itself, never a silent replace
        expected = None if replace else (previous.version if previous is not None else 0)
        if record.kind not in LINKABLE_KINDS:
            stored = self.store.update_many(
                [Upsert(record=record.model_copy(update={"terms": []}), expected_version=expected)]
            )[0]
            return _counted(stored, previous)  # type: ignore[arg-type]
        analysis = draft.analysis or self.linker.analyze(record.content, record.user_id)
        if not draft.indexed:  # an update's draft: its record is indexed under its new reading here
            terms = index_terms(analysis.terms, record)
            record = with_bookkeeping(record, entities=list(analysis.entities)).model_copy(update={"terms": terms})
        if not self.auto_link:
            stored = self.store.update_many(
                [Upsert(record=record, expected_version=(previous.version if previous is not None else 0))]
            )[0]
            self.index.record_write(record.scope, record.id, previous.terms if previous else [], record.terms)
            return _counted(stored, previous)  # type: ignore[arg-type]
        with stage("add.link"):  # the linker plans the links and writes the record with them
            linked: Record = self.linker.write(record, analysis, previous)[0]
        return _counted(linked, previous)

    def _update(
        self, memory_id: str, scope: Scope, change: Callable[[Record], tuple[str | None, dict[str, Any] | None]]
    ) -> Record:
        """Read the memory, apply ``change(current) -> (content, metadata)``, write; again from a fresh read on a conflict."""
        # content -> its analysis and embedding, so a retry neither re-checks, re-reads nor re-embeds
        checked: dict[str, tuple[Analysis | None, Any]] = {}

        def attempt() -> Record:
            current = self.get(memory_id, user_id=scope.user_id, agent_id=scope.agent_id)
            content, metadata = change(current)
            self._check_change(current, content, metadata, checked)
            return self._apply_change(current, content, metadata, checked)

        return retry_conflicts(f"update of memory {memory_id!r}", attempt)

    def _check_change(
        self, current: Record, content: Any, metadata: Any, checked: dict[str, tuple[Analysis | None, Any]]
    ) -> None:
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidRecordError("metadata must be a dict")
        self.secrets.enforce("", metadata)
        if content is not None and content not in checked:
            if not isinstance(content, str) or not content.strip():
                raise InvalidRecordError("content must be a non-empty string")
            self.limits.check_content(content)
            self.secrets.enforce(content)
            analysis = self._read(content, current.kind, current.user_id, embedded=False)
            checked[content] = (analysis, embed_read(self.embedder, content, analysis))

    def _apply_change(
        self,
        current: Record,
        content: str | None,
        metadata: dict[str, Any] | None,
        checked: dict[str, tuple[Analysis | None, Any]],
    ) -> Record:
        if current.kind in LINKABLE_KINDS:
            # stamps the bookkeeping key (a memory stored before it existed moves its links under it), so
            # that a "links" key the caller adds is never read as legacy links
            current = with_bookkeeping(current)
        changes: dict[str, Any] = {"updated_at": time.time()}
        if metadata is not None:
            merged = {**current.metadata, **user_metadata(metadata)}
            changes["metadata"] = merged
        if content is not None:
            changes["content"] = content
            changes["embedding"] = checked[content][1]
        changed = current.model_copy(update=changes)
        if content is None and structural_targets(changed) == structural_targets(current):
            # a metadata-only change keeps the memory's links and term statistics as they are (a pin aside)
            changed = changed.model_copy(update={"terms": pin_terms(changed)})
            stored = self.store.update_many([Upsert(record=changed, expected_version=current.version)])[0]
            if changed.terms != current.terms:  # this record alone was written: the others cached stay true
                self.index.record_write(current.scope, current.id, current.terms, changed.terms, others_changed=False)
            return stored  # type: ignore[return-value]
        return self._write(Draft(changed, checked[content][0] if content is not None else None), previous=current)

    def _delete(self, scope: Scope, memory_id: str) -> Record | None:
        """Delete the memory and its neighbours' links to it; the record as it was, or None if there was none."""

        def attempt() -> Record | None:
            current = self.store.get(scope, [memory_id])[0]
            if current is None:
                return None
            neighbours = [e["id"] for e in link_entries(current)]
            ops: list[Any] = [Delete(id=memory_id, scope=scope, expected_version=current.version)]
            for other in self.store.get(scope, neighbours) if neighbours else []:
                if other is not None:
                    ops.append(Upsert(record=drop_link(other, memory_id), expected_version=other.version))
            self.store.update_many(ops)
            self.index.record_write(scope, memory_id, current.terms, [])
            return current

        return retry_conflicts(f"delete of memory {memory_id!r}", attempt)


def _described(error: Exception) -> str:
    """A validation error in one line: ``"session_id: Input should be a valid string"``."""
    if isinstance(error, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
    return str(error)


def _counted(stored: Record, previous: Record | None) -> Record:
    """``stored`` as written; a new memory counts as written, with the links it was given at once."""
    if previous is None:
        count("memories_written_total", kind=stored.kind)
        made = len(entries_in(stored.system)) if stored.system is not None else 0
        if made:
            count("memories_linked_total", made)
    return stored


__all__ = ["WritePath"]
