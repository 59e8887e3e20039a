"""Moving a store to another embedder: every vector made again from its record's text, nothing else changed.

A record keeps its id, content, metadata, links (its bookkeeping), kind, times and session; only ``embedding``
is replaced, by the new embedder's vector of ``content``. Records without a vector (Kioko's own, the entity
graph's triples) are left as they are (or copied as they are, into a new store).

Two ways, by the vector length:

- **same length**: in place, scope by scope, batch by batch; each batch is written at the versions read, so a
  record a writer changed meanwhile is read again and re-embedded in the next try;
- **another length**: no driver changes a store's vector length (an SQLite file, a pgvector column and a Qdrant
  collection all fix it), so the records are copied, re-embedded, into a new store of the new length
  (``dest``), every scope the source lists (:func:`listed_scopes`).

Resumable: the store's mark (:mod:`kioko_core.store.format_mark`) carries ``reembed = {"embedder", "dim", "done"}``
while a run is under way (in the destination store when copying); a run started again skips the scopes done
and re-embeds the rest (re-embedding a record twice gives the same vector). The mark names the new embedder
once every scope is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kioko_core.embedding.embedders import Embedder, embed_many
from kioko_core.errors import ConflictError, InvalidRecordError
from kioko_core.layer.records import LayerStore
from kioko_core.layer.scoped import USER_OWNED_AGENTS
from kioko_core.store import Record, Scope, Upsert, record_copy
from kioko_core.store.format_mark import (
    FORMAT_VERSION,
    MARK_SCOPE,
    UNMIGRATED,
    StoreMark,
    embedder_name,
    read_mark,
    write_mark,
)

BATCH = 200
"""Records re-embedded and written per batch: one ``embed_many`` call and one ``update_many``."""

Progress = Callable[[int], None]
"""Called with the number of records just done (a progress bar's ``advance``)."""


@dataclass
class ReembedReport:
    embedder: str
    dim: int
    scopes: int = 0
    reembedded: int = 0
    copied: int = 0
    """Records without a vector, copied as they were (a run into a new store)."""
    skipped_scopes: list[str] = field(default_factory=list)
    """Scopes a previous, interrupted run had finished."""


def listed_scopes(store: Any) -> list[Scope] | None:
    """Every scope the driver holds, when it can list them (an optional ``scopes()`` method); else None."""
    driver = getattr(store, "driver", store)
    lister = getattr(driver, "scopes", None)
    if not callable(lister):
        return None
    return sorted((Scope(*s) for s in lister()), key=lambda s: (s.user_id, s.agent_id or ""))


def scopes_to_reembed(store: Any, users: Sequence[str] | None, *, moving: bool) -> list[Scope]:
    """The scopes a run walks: every scope the driver lists (only ``users``' when named); for a driver that
    cannot list them, the named users' own scopes (their memories, entity graph, webhooks, sessions), in place."""
    listed = listed_scopes(store)
    if listed is not None:
        return listed if not users else [s for s in listed if s.user_id in users]
    if moving or not users:
        raise InvalidRecordError(
            f"{type(getattr(store, 'driver', store)).__name__} cannot list the scopes it holds: name the users "
            "(kioko reembed --user NAME ...; their own scopes are re-embedded in place). A store of another vector "
            "length needs a driver that lists its scopes, or kioko export / import per user with the new embedder"
        )
    return [Scope(user, agent) for user in users for agent in (None, *USER_OWNED_AGENTS)]


def scope_key(scope: Scope) -> str:
    return scope.user_id + "\x1f" + (scope.agent_id or "")


def _batches(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    page: list[Record] = []
    for record in records:
        page.append(record)
        if len(page) >= size:
            yield page
            page = []
    if page:
        yield page


def _new_vectors(embedder: Embedder, records: Sequence[Record]) -> list[Record]:
    """The records with a vector, their vectors made again from their text (the others as they were)."""
    embedded = [r for r in records if r.embedding is not None]
    vectors = iter(embed_many(embedder, [r.content for r in embedded]))
    return [record_copy(r, {"embedding": next(vectors)}) if r.embedding is not None else r for r in records]


def _start(store: LayerStore, embedder: Embedder, *, fresh_dest: bool) -> tuple[StoreMark, int, set[str]]:
    """The mark with this run's cursor (written), its version, and the scopes a previous run finished."""
    name, dim = embedder_name(embedder), int(embedder.dim)
    mark, version = read_mark(store)
    if mark is None:
        # an unmarked store being re-embedded in place may hold format 1's layout: the next layer opening it moves it
        fresh = FORMAT_VERSION if fresh_dest else UNMIGRATED
        mark = StoreMark(fresh, name if fresh_dest else "", dim if fresh_dest else store.dim)
    cursor = mark.reembed or {}
    if cursor.get("embedder") == name and cursor.get("dim") == dim:
        done = {str(s) for s in cursor.get("done", [])}
    else:
        done = set()
        cursor = {"embedder": name, "dim": dim, "done": []}
    marked = StoreMark(mark.format, mark.embedder, mark.dim, mark.kioko, mark.driver_layout, cursor)
    write_mark(store, marked, version)
    return marked, read_mark(store)[1], done


def _scope_done(store: LayerStore, mark: StoreMark, version: int, key: str) -> tuple[StoreMark, int]:
    cursor = dict(mark.reembed or {})
    cursor["done"] = [*cursor.get("done", []), key]
    marked = StoreMark(mark.format, mark.embedder, mark.dim, mark.kioko, mark.driver_layout, cursor)
    write_mark(store, marked, version)
    return marked, version + 1


def _finish(store: LayerStore, mark: StoreMark, version: int, embedder: Embedder) -> None:
    done = StoreMark(mark.format, embedder_name(embedder), int(embedder.dim), mark.kioko, mark.driver_layout)
    write_mark(store, done, version)


def reembed_in_place(
    store: LayerStore,
    embedder: Embedder,
    scopes: Sequence[Scope],
    *,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> ReembedReport:
    """Re-embed every record of ``scopes`` in ``store`` with ``embedder`` (of the store's vector length)."""
    if int(embedder.dim) != store.dim:
        raise InvalidRecordError(
            f"the embedder makes {embedder.dim}-number vectors and the store holds {store.dim}: a store's vector "
            "length cannot change in place; re-embed into a new store (kioko reembed --to URL)"
        )
    report = ReembedReport(embedder_name(embedder), int(embedder.dim))
    mark, version, done = _start(store, embedder, fresh_dest=False)
    for scope in scopes:
        key = scope_key(scope)
        if key in done:
            report.skipped_scopes.append(key)
            continue
        for page in _batches(store.scan(scope), batch):
            report.reembedded += _write_in_place(store, embedder, scope, page)
            if progress is not None:
                progress(len(page))
        report.scopes += 1
        mark, version = _scope_done(store, mark, version, key)
    _finish(store, mark, version, embedder)
    return report


def _write_in_place(store: LayerStore, embedder: Embedder, scope: Scope, page: list[Record]) -> int:
    """One batch at the versions read; a conflict (a writer changed one meanwhile) reads the batch again."""
    for _attempt in range(5):
        fresh = _new_vectors(embedder, page)
        ops = [Upsert(record=r, expected_version=r.version) for r in fresh if r.embedding is not None]
        try:
            store.update_many(ops)
            return len(ops)
        except ConflictError:
            found = store.get(scope, [r.id for r in page])
            page = [r for r in found if r is not None]
    raise ConflictError(f"records of {scope} kept changing while they were re-embedded; run reembed again")


def reembed_into(
    source: LayerStore,
    dest: LayerStore,
    embedder: Embedder,
    scopes: Sequence[Scope],
    *,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> ReembedReport:
    """Copy every record of ``scopes`` from ``source`` into ``dest`` (a store of the embedder's length),
    re-embedded; the cursor is kept in ``dest``'s mark."""
    report = ReembedReport(embedder_name(embedder), int(embedder.dim))
    mark, version, done = _start(dest, embedder, fresh_dest=True)
    for scope in scopes:
        key = scope_key(scope)
        if scope == MARK_SCOPE:
            continue  # the destination's own mark is written by this run
        if key in done:
            report.skipped_scopes.append(key)
            continue
        for page in _batches(source.scan(scope), batch):
            fresh = _new_vectors(embedder, page)
            # new records of the new store: versions start again at 1 (links, history and metadata are kept)
            dest.update_many([Upsert(record=_unread(r)) for r in fresh])
            report.reembedded += sum(1 for r in fresh if r.embedding is not None)
            report.copied += sum(1 for r in fresh if r.embedding is None)
            if progress is not None:
                progress(len(page))
        report.scopes += 1
        mark, version = _scope_done(dest, mark, version, key)
    _finish(dest, mark, version, embedder)
    return report


def _unread(record: Record) -> Record:
    """The record as a new write: no version and nothing of what the source store read it as."""
    copied = record_copy(record, {"version": 0})
    copied._read = None
    return copied


__all__ = [
    "BATCH",
    "ReembedReport",
    "listed_scopes",
    "reembed_in_place",
    "reembed_into",
    "scope_key",
    "scopes_to_reembed",
]
