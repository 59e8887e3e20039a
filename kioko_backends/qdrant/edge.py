"""``qdrant+edge://``: a Kioko store in a Qdrant Edge shard, Qdrant's own engine inside this process.

``qdrant-edge-py`` runs the storage engine of the Qdrant server (segments, write-ahead log, payload
indexes, HNSW) in the process, with no server. Unlike ``qdrant+local://`` (qdrant-client's local mode,
which tests every point in Python), filters go through payload indexes and knn through Rust code,
so this store behaves, and costs, like one shard of a Qdrant server.

URLs
    ``qdrant+edge:///relative/dir`` and ``qdrant+edge:////absolute/dir``, as ``qdrant+local``: three
    slashes start a path relative to the working directory, four an absolute one. The directory holds
    ``kioko.json`` (the layout version and ``dim``) and ``shard/`` (Qdrant's files).

    ``?dim=`` sets the vector length when the ``dim`` argument is not given (default
    :data:`~kioko_core.store.DEFAULT_DIM`); reopening with another ``dim`` is refused.
    ``?optimize_every=N`` (default 50,000) runs Qdrant's optimizers (merging segments, building the
    HNSW index of segments past Qdrant's indexing threshold) after every N points written through
    this process; 0 leaves it to :meth:`QdrantEdgeStore.optimize`. Edge runs no optimizer by itself,
    and an optimization blocks the process while it runs (the library holds the interpreter lock), so
    it happens on a write, between requests, never in a background thread.
    ``?indexing_threshold=KB`` is Qdrant's optimizer setting of that name: the size of vectors (in KB)
    past which an optimized segment gets an HNSW index; smaller segments are searched exactly.

How a record is kept
    As in :mod:`kioko_backends.qdrant.store` (the same payload, point ids and filters, from
    :mod:`kioko_backends.qdrant.payload`): one point per record, the named vector ``dense`` (cosine),
    the record's exact values in the payload, and the same payload indexes as on a server (``scope``
    as the tenant key).
    Links (:class:`~kioko_core.store.link_store.LinkStore`) too: one payload-only adjacency point per memory
    with links, in the batch's upsert (:mod:`kioko_backends.qdrant.links`).

Limits
    One process per directory: the shard's write-ahead log is locked by the process that opened it.
    Inside a process the store shares one shard per directory, counted by reference, so the same URL
    can be opened several times. A batch is two engine updates (upserts, then deletes), not a
    transaction.

Write counts
    Because one process alone writes the directory, the store counts the committed batches per scope in
    the process (:class:`~kioko_core.store.ScopeGenerations`, shared by every store of the directory), with
    no point stored for it: the core's index cache then sees a write made beside it at its next lookup
    rather than after its ttl, and never expires its entries (an import's links do not depend on the clock).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import qdrant_edge as edge

from kioko_backends.qdrant.edge_holders import Holder, Holders
from kioko_backends.qdrant.links import (
    ENTRIES,
    VERSION_FIELDS,
    LinkedBatch,
    RecentAdjacency,
    answer_links,
    ids_to_read,
    links_point_id,
    plan_linked,
    read_points,
)
from kioko_backends.qdrant.payload import (
    DENSE,
    FORMAT,
    INDEXED_FIELDS,
    ConditionKit,
    conditions,
    point_id,
    scope_key,
)
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    Filter,
    InvalidRecordError,
    KiokoError,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    StoreError,
    check_scope,
    is_storable_text,
    validate_ops,
)
from kioko_core.store.driver import DIM, Option, StoreBase, positive_int
from kioko_core.store.link_store import LinkChange, validate_changes
from kioko_core.store.url import StoreURL

META_FILE = "kioko.json"
SHARD_DIR = "shard"

DEFAULT_OPTIMIZE_EVERY = 50_000

WITHOUT_ENTRIES = edge.PayloadSelector.Exclude([ENTRIES])
"""A record read takes every field of the records and only the version of their adjacency points."""

_PAGE = 4096
"""Points per scroll request (a few payload fields each, so pages can be large)."""

KIT = ConditionKit(
    match=lambda key, value: edge.FieldCondition(key=key, match=edge.MatchValue(value)),
    match_any=lambda key, values: edge.FieldCondition(key=key, match=edge.MatchAny(values)),
    time_range=lambda key, gte, lt: edge.FieldCondition(key=key, range=edge.RangeFloat(gte=gte, lt=lt)),
    has_ids=lambda ids: edge.HasIdCondition(set(ids)),
)

CAPABILITIES = Capabilities(
    transactions=False,
    native_knn=True,
    persistent=True,
    multi_process=False,
    approximate_knn=True,
    notes=(
        "Qdrant's engine in this process: payload indexes and, once optimized, HNSW; a scope or filter "
        "too small for the index is searched exactly",
        "no transactions: a batch is two engine updates (upserts, then deletes); a crash between them "
        "can leave part of it applied",
        "one process per directory (the shard's write-ahead log is locked); opening the same directory "
        "again in this process shares one shard",
    ),
)


def _touched(batch: LinkedBatch) -> set[str]:
    """The scope keys a planned batch changes: those of the records it leaves written or takes away (a record
    inserted and deleted again by the batch touches nothing) and of the owners whose links it changes."""
    keys = {scope_key(stored.scope) for stored, _ in batch.records.values() if stored is not None}
    keys.update(scope_key(batch.scopes_before[key]) for key in batch.records if key in batch.scopes_before)
    keys.update(scope_key(scope) for scope, _ in batch.adjacency.values())
    return keys


def non_negative_int(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise InvalidRecordError(f"{name} must be a whole number >= 0, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidRecordError(f"{name} must be a whole number >= 0, got {value!r}") from None
    if number < 0 or (isinstance(value, float) and value != number):
        raise InvalidRecordError(f"{name} must be a whole number >= 0, got {value!r}")
    return number


# --------------------------------------------------------------------------- one shard per directory


@dataclass
class _Handle:
    """One open shard, shared by every store of this process that opens its directory."""

    shard: Any
    lock: threading.RLock
    users: int
    written: int = 0
    """Points written since the last optimization (through this process)."""
    writes: int = 0
    """Writes begun and ended through this process, the only one that can write the shard (RecentAdjacency)."""
    generations: dict[str, int] = field(default_factory=dict)
    """Per scope key, the committed batches that touched it through this process, the only one that can write
    the shard (ScopeGenerations); counted from 0 at each open of the directory, like the caches that read it."""
    counted: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per scope key, (generation, records holding a term) as last counted: ``postings``' n, which Qdrant counts by
    testing every point of the scope, is counted again only after a write touched the scope."""
    holders: Holders = field(default_factory=Holders)
    """Record id and time of each point this process wrote or read (:mod:`kioko_backends.qdrant.edge_holders`)."""
    forgotten_generation: int = 0
    """Above every count a purged scope had: what a scope without a count reads, so a cache of a forgotten scope
    never matches the scope written anew."""


_handles: dict[str, _Handle] = {}
_registry_lock = threading.Lock()


def _edge_path(url: StoreURL) -> str:
    if url.host:
        raise InvalidRecordError(
            f"{url.render()!r} names a host; an edge shard lives in a directory: qdrant+edge:///relative/dir "
            "or qdrant+edge:////absolute/dir"
        )
    path = url.path[1:] if url.path.startswith("/") else url.path
    if not path or path == ":memory:":
        raise InvalidRecordError(
            "a qdrant+edge URL needs a directory: qdrant+edge:///relative/dir or qdrant+edge:////absolute/dir"
        )
    return path


def _check_meta(path: str, dim: int) -> None:
    """Check (or, for a new store, write) the directory's ``kioko.json``: Kioko's layout and ``dim``."""
    meta_path = os.path.join(path, META_FILE)
    try:
        with open(meta_path, encoding="utf-8") as file:
            meta = json.load(file)
    except FileNotFoundError:
        meta = None
    except (OSError, ValueError) as error:
        raise StoreError(f"cannot read {meta_path}: {error}") from None
    if meta is None:
        if os.path.isdir(path) and os.listdir(path):
            raise StoreError(
                f"{path!r} is not empty and holds no {META_FILE}, so it is not a Kioko edge store; "
                "choose an empty or new directory"
            )
        try:
            os.makedirs(path, exist_ok=True)
            # written before the shard exists, so a crash in between leaves a store that opens as empty
            temporary = f"{meta_path}.{os.getpid()}.tmp"
            with open(temporary, "w", encoding="utf-8") as file:
                json.dump({"kioko": {"format": FORMAT, "dim": dim}}, file)
            os.replace(temporary, meta_path)
        except OSError as error:
            raise StoreError(f"cannot create the Qdrant edge store in {path!r}: {error}") from None
        return
    kioko = meta.get("kioko") if isinstance(meta, dict) else None
    if not isinstance(kioko, dict) or kioko.get("format") != FORMAT or not isinstance(kioko.get("dim"), int):
        raise StoreError(f"{meta_path} was not written by this version of Kioko: {meta!r}")
    if kioko["dim"] != dim:
        raise InvalidRecordError(
            f"the edge store in {path!r} holds {kioko['dim']}-dimensional vectors, but it was opened with "
            f"dim={dim}; open it with ?dim={kioko['dim']} (or dim={kioko['dim']}), or use another directory"
        )


def _open_shard(path: str, dim: int, indexing_threshold: int | None) -> Any:
    shard_path = os.path.join(path, SHARD_DIR)
    config = edge.EdgeConfig(
        vectors={DENSE: edge.EdgeVectorParams(size=dim, distance=edge.Distance.Cosine)},
        optimizers=edge.EdgeOptimizersConfig(indexing_threshold=indexing_threshold)
        if indexing_threshold is not None
        else None,
    )
    try:
        if os.path.isdir(shard_path) and os.listdir(shard_path):
            shard = edge.EdgeShard.load(shard_path, config)
        else:
            shard = edge.EdgeShard.create(shard_path, config)
    except Exception as error:  # the library raises plain Exception
        if "WouldBlock" in str(error):
            raise StoreError(
                f"the Qdrant edge store {path!r} is open in another process; an edge shard allows one "
                "process per directory, use a Qdrant server to share a store"
            ) from None
        raise StoreError(f"could not open the Qdrant edge store {path!r}: {error}") from None
    try:
        existing = set(shard.info().payload_schema)
        for field_name, (schema, is_tenant) in INDEXED_FIELDS.items():
            if field_name in existing:
                continue
            params: Any = (
                edge.KeywordIndexParams(is_tenant=is_tenant or None)
                if schema == "keyword"
                else edge.PayloadSchemaType.Float
            )
            shard.update(edge.UpdateOperation.create_field_index(field_name, params))
    except Exception as error:
        shard.close()
        raise StoreError(f"could not create the payload indexes of {path!r}: {error}") from None
    return shard


def _acquire(path: str, dim: int, indexing_threshold: int | None) -> _Handle:
    key = os.path.realpath(path)
    with _registry_lock:
        _check_meta(path, dim)
        handle = _handles.get(key)
        if handle is None:
            handle = _Handle(shard=_open_shard(path, dim, indexing_threshold), lock=threading.RLock(), users=0)
            _handles[key] = handle
        handle.users += 1
        return handle


def _release(path: str) -> None:
    key = os.path.realpath(path)
    with _registry_lock:
        handle = _handles.get(key)
        if handle is None:
            return
        handle.users -= 1
        if handle.users <= 0:
            del _handles[key]
            with handle.lock:
                try:
                    handle.shard.flush()
                finally:
                    handle.shard.close()


# --------------------------------------------------------------------------- the store


class QdrantEdgeStore(StoreBase):
    """A Kioko store in a Qdrant Edge shard (``kioko.connect("qdrant+edge:///memories")``)."""

    capabilities = CAPABILITIES
    options = {
        "dim": DIM,
        "optimize_every": Option(non_negative_int, DEFAULT_OPTIMIZE_EVERY),
        "indexing_threshold": Option(positive_int),
    }

    def __init__(
        self,
        path: str,
        dim: int = DEFAULT_DIM,
        *,
        optimize_every: int = DEFAULT_OPTIMIZE_EVERY,
        indexing_threshold: int | None = None,
    ) -> None:
        """Open (or create) the edge store in directory ``path``.

        ``indexing_threshold`` (KB of vectors) is Qdrant's: a segment gets an HNSW index when an
        optimization finds it larger; None keeps the shard's (Qdrant's default when new).
        """
        self.dim = positive_int(dim, "dim")
        self.path = path
        self.optimize_every = non_negative_int(optimize_every, "optimize_every")
        self._closed = False
        self._handle: _Handle | None = _acquire(path, self.dim, indexing_threshold)
        self._recent = RecentAdjacency()

    @classmethod
    def local_path(cls, url: StoreURL) -> str | None:
        """The directory ``url`` names; opening creates it when it is missing."""
        return os.path.abspath(_edge_path(url))

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> QdrantEdgeStore:
        """Open ``qdrant+edge:///dir`` (see the module docstring).

        Options: ``dim``, ``optimize_every``, ``indexing_threshold``.
        """
        if url.scheme != "qdrant+edge":
            raise InvalidRecordError(f"QdrantEdgeStore opens qdrant+edge:// URLs, not {url.scheme}://")
        return cls(
            _edge_path(url),
            options["dim"],
            optimize_every=options["optimize_every"],
            indexing_threshold=options["indexing_threshold"],
        )

    def __repr__(self) -> str:
        return f"QdrantEdgeStore({self.path!r}, dim={self.dim})"

    @property
    def _shard(self) -> Any:
        if self._closed or self._handle is None:
            raise StoreError(f"{self!r} is closed; open the URL again")
        return self._handle.shard

    # -- reads

    def generation(self, scope: Scope) -> int:
        """The number of committed batches that touched ``scope``: :class:`~kioko_core.store.ScopeGenerations`.

        Exact without a stored counter: one process alone can write the directory (its shard is locked), and every
        store of this process that opens it shares the count. So the core's index cache sees a write made beside it
        (another layer, or records written straight to the store) at its next lookup, not after its ttl."""
        return self.generations([scope])[0]

    def generations(self, scopes: Sequence[Scope]) -> list[int]:
        """Each scope's :meth:`generation` (:class:`~kioko_core.store.ManyGenerations`)."""
        keys = [scope_key(check_scope(scope)) for scope in scopes]
        handle = self._handle
        if handle is None or self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again")
        with handle.lock:  # a write in progress is counted when it ends: read after it
            return [handle.generations.get(key, handle.forgotten_generation) for key in keys]

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        """The records and their adjacency points in one request; the adjacency points are kept for the
        ``links`` call that follows (:class:`~kioko_backends.qdrant.links.RecentAdjacency`)."""
        handle = self._handle
        writes = handle.writes if handle is not None else -1
        with self._translate_errors("reading records"):
            points = self._shard.retrieve(
                [point_id(i) for i in ids] + [links_point_id(i) for i in ids], with_payload=True, with_vector=False
            )
        payloads = [p.payload for p in points]
        self._recent.keep(writes, scope, ids, payloads)
        return read_points(scope, payloads)

    def do_postings(self, scope: Scope, asked: list[str], limit: int) -> Postings:
        """Indexed requests: a count, one ordered query per term in one batch, then counts and ties where needed.

        A term's query asks for its ``limit + 1`` newest holders, by point id alone: their record ids and times come
        from the directory's :class:`~kioko_backends.qdrant.edge_holders.Holders` (a payload read only for points this
        process has not written or read). A term with at most ``limit`` is complete (its df is the number found). A
        term with more gets an exact count, and when the ``limit``-th and the next share a ``created_at``, every
        holder at that time is read, so ties are broken by id as the protocol says, not by the engine's order.
        """
        in_scope = KIT.match("scope", scope_key(scope))
        with_terms = edge.Filter(must=[in_scope], must_not=[edge.IsEmptyCondition("terms")])
        holders = {term: edge.Filter(must=[in_scope, KIT.match("terms", term)]) for term in asked}
        pages: dict[str, list[Holder]] = {}
        with self._translate_errors("reading postings"):
            shard, known = self._shard, self._holders
            n = self._count_with_terms(scope, with_terms)
            if asked:
                requests = [
                    edge.QueryRequest(
                        limit=limit + 1,
                        query=edge.OrderBy("created_at", edge.Direction.Desc),
                        filter=holders[term],
                        with_payload=False,
                    )
                    for term in asked
                ]
                answered = shard.query_batch(edge.QueryBatchRequest(requests))
                found = known.resolve(shard, [p.id for page in answered for p in page])
                # a point deleted between the query and the read of its payload is left out, as if read after
                pages = {term: [found[p.id] for p in page if p.id in found] for term, page in zip(asked, answered)}
            df = {term: len(pages[term]) for term in asked}
            for term in asked:
                page = pages[term]
                if len(page) <= limit:
                    continue
                df[term] = self._count(holders[term])
                cut = page[limit][0]
                if limit > 0 and page[limit - 1][0] == cut:
                    tied = self._scroll_all(
                        edge.Filter(must=[holders[term], KIT.time_range("created_at", cut, None)]), False
                    )
                    at_cut = known.resolve(shard, [p.id for p in tied])
                    pages[term] = [h for h in page if h[0] > cut] + [h for h in at_cut.values() if h[0] == cut]
        ids = {term: [i for _, i in sorted(pages[term], key=lambda h: (-h[0], h[1]))[:limit]] for term in asked}
        return Postings(n=n, df=df, ids=ids)

    def do_knn(self, scope: Scope, vector: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        """The engine's filtered search for ``k + 1`` points, widened until a tie at the k-th is complete."""
        found = conditions(KIT, scope, filter)
        if found is None:
            return []
        query = edge.Query.Nearest(vector.tolist(), using=DENSE)
        want = k + 1
        while True:
            with self._translate_errors("searching vectors"):
                points = self._shard.query(
                    edge.QueryRequest(limit=want, query=query, filter=edge.Filter(must=found), with_payload=["id"])
                )
            if len(points) < want or points[-1].score < points[k - 1].score:
                break
            want *= 2
        return [Neighbor(p.payload["id"], float(p.score)) for p in points]

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        """Every matching record in id order: the ids matching at the start, sorted, then fetched batch by batch.

        Each fetched record is checked against scope and filter again: one deleted meanwhile is
        skipped, one changed meanwhile is yielded as it is now, one inserted after the start is not.
        """
        found = conditions(KIT, scope, filter)
        if found is None:
            return
        with self._translate_errors("listing records"):
            ids = sorted(p.payload["id"] for p in self._scroll_all(edge.Filter(must=found), ["id"]))
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            with self._translate_errors("scanning records"):
                points = self._shard.retrieve(
                    [point_id(i) for i in chunk] + [links_point_id(i) for i in chunk],
                    with_payload=WITHOUT_ENTRIES,
                    with_vector=False,
                )
            records = read_points(scope, [p.payload for p in points]).values()
            chosen = [r for r in records if filter is None or filter.matches(r)]
            yield from sorted(chosen, key=lambda r: r.id)

    # -- writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        return self._write(ops, []).answers

    def update_with_links(
        self, ops: Sequence[Op], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        """``ops`` and then ``changes`` in the one write ``update_many`` makes (:mod:`kioko_backends.qdrant.links`)."""
        checked, edits = validate_ops(ops, self.dim), validate_changes(changes)
        if not checked and not edits:
            return [], []
        batch = self._write(checked, edits)
        return batch.answers, batch.versions

    def _write(self, ops: list[Op], changes: list[LinkChange]) -> LinkedBatch:
        """Read the touched points, plan like the reference, then one upsert and one delete.

        The upsert holds the records and the adjacency points of the links changed, the delete the records
        deleted and their adjacency points (:mod:`kioko_backends.qdrant.links`). The read-plan-write runs
        under the directory's lock, shared by every store of this process that opened it (the only process
        that can), so version checks hold.
        """
        handle = self._handle
        if handle is None or self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again")
        with handle.lock, self._translate_errors("writing records"), self._count_write(handle):
            shard = self._shard
            points = shard.retrieve(ids_to_read(ops, changes), with_payload=VERSION_FIELDS, with_vector=False)
            batch = plan_linked(ops, changes, [p.payload for p in points])
            upserts = [
                edge.Point(
                    point_id(stored.id),
                    {DENSE: stored.embedding.tolist()} if stored.embedding is not None else {},
                    written,
                )
                for stored, written in batch.records.values()
                if stored is not None and written is not None
            ]
            upserts += [
                edge.Point(links_point_id(owner), {}, adjacency)
                for owner, (_, adjacency) in batch.adjacency.items()
                if adjacency is not None
            ]
            deletes: list[Any] = [point_id(key) for key, (stored, _) in batch.records.items() if stored is None]
            deletes += [links_point_id(owner) for owner, (_, adjacency) in batch.adjacency.items() if adjacency is None]
            touched = _touched(batch) if upserts or deletes else set()
            try:
                if upserts:
                    shard.update(edge.UpdateOperation.upsert_points(upserts))
                if deletes:
                    shard.update(edge.UpdateOperation.delete_points(deletes))
            except BaseException:
                handle.holders.clear()  # what the engine applied is not known: read the holders again
                raise
            else:
                handle.holders.wrote(
                    (key, stored) for key, (stored, written) in batch.records.items() if stored is None or written
                )
            finally:
                # counted even when the engine failed half way: what it applied must show (a count too many only
                # makes a cache read the scope again)
                for key in touched:
                    handle.generations[key] = handle.generations.get(key, handle.forgotten_generation) + 1
            handle.written += len(upserts)
            if self.optimize_every and handle.written >= self.optimize_every:
                shard.optimize()
                handle.written = 0
        return batch

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each id's link entries in the order last put: its adjacency point, all read in one request."""
        scope = check_scope(scope)
        asked = list(ids)
        wanted = list(dict.fromkeys(i for i in asked if isinstance(i, str) and is_storable_text(i)))
        if not wanted:
            return [[] for _ in asked]
        handle = self._handle
        recent = self._recent.answer(handle.writes, scope, asked, wanted) if handle is not None else None
        if recent is not None:
            return recent
        with self._translate_errors("reading links"):
            points = self._shard.retrieve([links_point_id(i) for i in wanted], with_payload=True, with_vector=False)
        return answer_links(scope, asked, [p.payload for p in points])

    def optimize(self) -> bool:
        """Run Qdrant's optimizers now (merge segments, build HNSW); True if any segment changed.

        Blocks this process until done: call it after a bulk load, not on a request's path.
        """
        handle = self._handle
        if handle is None or self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again")
        with handle.lock, self._translate_errors("optimizing"):
            changed = bool(handle.shard.optimize())
            handle.written = 0
        return changed

    def purge(self, scopes: Any = ()) -> bool:
        """Drop the write counts of the emptied ``scopes`` (a forgotten user's): their names must not outlive the
        records in this process. The shard's files are left to Qdrant's optimizer: False."""
        handle = self._handle
        if handle is None or self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again")
        with handle.lock, self._translate_errors("forgetting write counts"):
            for scope in map(check_scope, scopes):
                key = scope_key(scope)
                if key not in handle.generations or self._count(edge.Filter(must=[KIT.match("scope", key)])):
                    continue
                gone = handle.generations.pop(key)
                handle.counted.pop(key, None)
                handle.forgotten_generation = max(handle.forgotten_generation, gone + 1)
        return False

    # -- closing

    def close(self) -> None:
        """Release the shard (it is flushed and closed when the last store of its directory closes)."""
        if self._closed:
            return
        self._closed = True
        if self._handle is not None:
            self._handle = None
            _release(self.path)

    # -- helpers

    @contextmanager
    def _count_write(self, handle: _Handle) -> Iterator[None]:
        """A write moves the count at its start and its end, so a read overlapping it is never reused."""
        handle.writes += 1
        try:
            yield
        finally:
            handle.writes += 1

    @contextmanager
    def _translate_errors(self, doing: str) -> Iterator[None]:
        """Engine errors (the library raises plain ``Exception``) as :class:`StoreError` naming the store."""
        try:
            yield
        except KiokoError:
            raise
        except Exception as error:
            raise StoreError(f"Qdrant edge failed while {doing} in {self.path!r}: {error}") from None

    @property
    def _holders(self) -> Holders:
        if self._closed or self._handle is None:
            raise StoreError(f"{self!r} is closed; open the URL again")
        return self._handle.holders

    def _count_with_terms(self, scope: Scope, with_terms: Any) -> int:
        """The scope's records that hold a term, counted once per generation of the scope (a count tests every point
        of the scope: 26 ms at 10,000 memories under load, in every postings call).

        The generation is read under the directory's lock (no write half done) before the count and again after it:
        a count that a write may have overtaken is answered but not kept."""
        handle = self._handle
        if handle is None or self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again")
        key = scope_key(scope)
        with handle.lock:
            generation = handle.generations.get(key, handle.forgotten_generation)
            kept = handle.counted.get(key)
        if kept is not None and kept[0] == generation:
            return kept[1]
        n = self._count(with_terms)
        with handle.lock:
            if handle.generations.get(key, handle.forgotten_generation) == generation:
                handle.counted[key] = (generation, n)
        return n

    def _count(self, query_filter: Any) -> int:
        return int(self._shard.count(edge.CountRequest(exact=True, filter=query_filter)))

    def _scroll_all(self, query_filter: Any, fields: list[str] | bool) -> list[Any]:
        """Every point matching ``query_filter`` with these payload fields (False: none), paged by point id."""
        found: list[Any] = []
        offset = None
        while True:
            points, offset = self._shard.scroll(
                edge.ScrollRequest(offset=offset, limit=_PAGE, filter=query_filter, with_payload=fields)
            )
            found.extend(points)
            if offset is None:
                return found
