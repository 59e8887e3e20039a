"""``qdrant://`` and ``qdrant+local://``: one Qdrant collection per store.

URLs
    ``qdrant://host:6333/collection``
        A Qdrant server. The API key comes from the URL's password (``qdrant://:KEY@host``), else its
        user (``qdrant://KEY@host``), else ``?api_key=``, else the ``QDRANT_API_KEY`` environment
        variable. ``?https=true`` for TLS, ``?timeout=SECONDS`` for the request timeout. Without a
        path the collection is ``kioko``.
    ``qdrant+local:///relative/dir`` and ``qdrant+local:////absolute/dir``
        qdrant-client's local mode, which keeps the collection in this process and persists it in a
        directory. As in SQLAlchemy's ``sqlite:///`` URLs, three slashes start a path relative to the
        working directory and four slashes an absolute one (``qdrant+local:///tmp/x`` is ``./tmp/x``).
        ``?collection=`` names the collection (default ``kioko``). The store switches the
        collection's sqlite file to WAL, which waits for the disk once per commit instead of several
        times; ``?fsync=true`` keeps sqlite's rollback journal, as qdrant-client made the file.
    ``qdrant+local://:memory:``
        Local mode without a directory: a new, empty store per open, gone when closed.

    ``?dim=`` sets the vector length when the ``dim`` argument is not given (default
    :data:`~kioko_core.store.DEFAULT_DIM`). Reopening a collection with another ``dim`` is refused.

How a record is kept
    One point per record, laid out by :mod:`kioko_backends.qdrant.payload` (shared with ``qdrant+edge``).
    Qdrant point ids must be UUIDs or integers, so a point's id is ``uuid5(ID_NAMESPACE, record.id)``
    and the record id lives in the payload. The vector is the named vector ``dense`` (cosine), so a
    record without an embedding is a point without that vector.
    Qdrant normalises cosine vectors and parses JSON floats on a best-effort basis, so the payload also
    carries what must come back bit for bit: the embedding as little-endian float32 bytes (base64),
    metadata as a JSON string, and both timestamps as a JSON string. ``created_at`` is also a float
    payload field, which filters and ``postings`` order by. ``scope`` is the JSON of
    ``[user_id, agent_id]``: one exact keyword per scope, in which ``agent_id=None`` is its own value
    and no user or agent name can collide with another.
    A memory's links (:class:`~kioko_core.store.link_store.LinkStore`) are one payload-only point per memory
    beside its record, written in the same request as the batch's records, so a new link writes the two
    memories' small adjacency points and not their records (:mod:`kioko_backends.qdrant.links`).

Server and local mode
    On a server the store creates payload indexes (``scope`` as the tenant key, ``user_id``, ``kind``,
    ``terms``, ``session_id`` keywords and ``created_at`` as a float range index, which ``order_by``
    needs); knn is Qdrant's filtered HNSW search. Local mode ignores payload indexes, so every count
    and scroll there tests each point in Python, and knn is exact brute force in numpy. One directory
    can be open in one process only (qdrant-client locks it); inside a process the store shares one
    client per directory, counted by reference, so the same URL can be opened several times.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

from kioko_backends.qdrant.failures import scrub, translate_errors
from kioko_backends.qdrant.links import (
    ENTRIES,
    VERSION_FIELDS,
    LinkedBatch,
    RecentAdjacency,
    WriteCount,
    answer_links,
    ids_to_read,
    links_point_id,
    plan_linked,
    read_points,
    write_chunks,
)
from kioko_backends.qdrant.local import (
    LOCAL_CAPABILITIES,
    LOCAL_NOTES,
    LocalMode,
    acquire_local,
    directory_of,
    release_local,
)
from kioko_backends.qdrant.payload import (
    DENSE,
    FORMAT,
    INDEXED_FIELDS,
    POSTING_FIELDS,
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
from kioko_core.store.driver import DIM, Option, StoreBase, flag, positive_int, text
from kioko_core.store.link_store import LinkChange, validate_changes
from kioko_core.store.url import StoreURL

DEFAULT_COLLECTION = "kioko"

KIT = ConditionKit(
    match=lambda key, value: _match(models, key, value),
    match_any=lambda key, values: models.FieldCondition(key=key, match=models.MatchAny(any=values)),
    time_range=lambda key, gte, lt: models.FieldCondition(key=key, range=models.Range(gte=gte, lt=lt)),
    has_ids=lambda ids: models.HasIdCondition(has_id=list(ids)),
)

WITHOUT_ENTRIES = models.PayloadSelectorExclude(exclude=[ENTRIES])
"""A record read takes every field of the records and only the version of their adjacency points."""

_SERVER_PAGE = 4096
"""Points per scroll request to a server (a few payload fields each, so pages can be large)."""

_LOCAL_PAGE = 2**31 - 1
"""Local mode scrolls in one page: each of its requests costs a pass over every point anyway."""

SERVER_CAPABILITIES = Capabilities(
    transactions=False,
    native_knn=True,
    persistent=True,
    multi_process=False,
    approximate_knn=True,
    notes=(
        "no transactions: a batch is one request, but a crash or a lost connection in the middle of it "
        "can leave part of it applied",
        "version checks hold within one process (a lock per collection); writers in several processes "
        "can race, because Qdrant has no conditional write on a payload value",
        "scan first lists the ids of the matching records (one string per record in memory), then "
        "fetches them batch by batch in id order",
    ),
)


# --------------------------------------------------------------------------- shared clients and locks


_server_locks: dict[tuple[str, int, str], threading.RLock] = {}
_registry_lock = threading.Lock()


def _server_lock(host: str, port: int, collection: str) -> threading.RLock:
    with _registry_lock:
        return _server_locks.setdefault((host, port, collection), threading.RLock())


# --------------------------------------------------------------------------- the store


class QdrantStore(LocalMode, StoreBase):
    """A Kioko store in one Qdrant collection, on a server or in qdrant-client's local mode.

    Open it with :meth:`from_url` (``kioko.connect("qdrant://localhost:6333/memories")``); the
    constructor takes an already-built client for callers that configure one themselves.
    """

    capabilities: Capabilities = SERVER_CAPABILITIES
    scheme_capabilities: ClassVar[Mapping[str, Capabilities]] = {"qdrant+local": LOCAL_CAPABILITIES}
    """What a store opened by a scheme promises when it is not ``capabilities`` (``kioko stores`` reads it)."""
    options = {
        "dim": DIM,
        "collection": Option(text),
        "api_key": Option(text),
        "timeout": Option(positive_int),
        "https": Option(flag, False),
        "fsync": Option(flag, False),
        "shard_keys": Option(positive_int),
        "replication_factor": Option(positive_int),
    }

    def __init__(
        self,
        client: Any,
        collection: str = DEFAULT_COLLECTION,
        dim: int = DEFAULT_DIM,
        *,
        local_path: str | None = None,
        lock: threading.RLock | None = None,
        release: Callable[[], None] | None = None,
        fsync: bool = False,
        api_key: str | None = None,
        address: str = "qdrant://?",
        shard_keys: int | None = None,
        replication_factor: int | None = None,
        writes: WriteCount | None = None,
    ) -> None:
        """Use ``client`` (a ``QdrantClient``) and create ``collection`` if it does not exist.

        ``local_path`` marks a local-mode client (``":memory:"`` or a directory); ``lock`` serialises
        this store's writes with other stores of the same collection; ``release`` is called on close
        instead of closing the client (a shared client); ``fsync`` keeps local mode's sqlite file on
        its default of waiting for the disk at every commit; ``api_key`` is only used to keep it out of
        error messages; ``address`` is what ``repr`` shows. If opening fails, the client is released.

        ``shard_keys=N`` makes a new collection custom-sharded (a cluster's way to keep a tenant's data
        together): N shard keys ``kioko-0`` ... ``kioko-{N-1}``, a user's points all under the key of
        their bucket (a stable hash of the user id), every read and write naming that key, so it goes
        to that key's shard alone; ``replication_factor`` copies each shard on that many nodes. An
        existing collection keeps the sharding it was made with (asking for another is refused).
        Local mode has no shards: there the keys are still computed and passed to every call, which
        local mode accepts and ignores, so the code path runs, but nothing is routed.
        """
        self._client: Any = client
        self._release = release
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False
        self._api_key = api_key
        self._address = address
        self.collection = collection
        self._local_path = local_path
        self._local = local_path is not None
        self._fsync = fsync
        # which postings strategy runs; a test may force the server's on a local store to exercise it
        self._postings_by_holders = self._local
        self._lock = lock if lock is not None else threading.RLock()
        # local mode: one process writes the directory, so a record read's adjacency points can serve the links
        # read that follows it (RecentAdjacency); a server has other writers, so it reads links afresh
        self._writes = writes if writes is not None else WriteCount() if self._local else None
        self._recent = RecentAdjacency()
        self.shard_keys = shard_keys
        self._replication_factor = replication_factor
        if self._local and local_path == ":memory:":
            self.capabilities = replace(
                LOCAL_CAPABILITIES,
                persistent=False,
                notes=LOCAL_NOTES + ("each qdrant+local://:memory: URL opened is a new, empty store",),
            )
        elif self._local:
            self.capabilities = LOCAL_CAPABILITIES
        try:
            self.dim = positive_int(dim, "dim")
            self._prepare_collection()
        except BaseException:
            self.close()
            raise

    # -- opening

    @classmethod
    def local_path(cls, url: StoreURL) -> str | None:
        """The directory a ``qdrant+local`` URL names (None for ``:memory:`` and a server); opening creates it."""
        if url.scheme != "qdrant+local":
            return None
        path = directory_of(url)
        return None if path == ":memory:" else os.path.abspath(path)

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> QdrantStore:
        """Open ``qdrant://host:port/collection`` or ``qdrant+local:///dir`` (see the module docstring).

        Options: ``dim``, ``collection``; on a server ``api_key``, ``timeout`` and ``https``; in local
        mode ``fsync``.
        """
        if url.scheme == "qdrant+local":
            return cls._open_local(url, options)
        if url.scheme == "qdrant":
            return cls._open_server(url, options)
        raise InvalidRecordError(f"QdrantStore opens qdrant:// and qdrant+local:// URLs, not {url.scheme}://")

    @classmethod
    def _open_local(cls, url: StoreURL, options: dict[str, Any]) -> QdrantStore:
        if options["shard_keys"] is not None or options["replication_factor"] is not None:
            raise InvalidRecordError(
                "shard_keys and replication_factor are for a Qdrant cluster (qdrant://); local mode has no shards"
            )
        path = directory_of(url)
        collection = options["collection"] or DEFAULT_COLLECTION
        if path == ":memory:":
            client = QdrantClient(location=":memory:")
            return cls(client, collection, options["dim"], local_path=path, address=url.render())
        handle = acquire_local(path)
        return cls(
            handle.client,
            collection,
            options["dim"],
            local_path=path,
            lock=handle.lock,
            release=lambda: release_local(path),
            fsync=options["fsync"],
            address=url.render(),
            writes=handle.writes,
        )

    @classmethod
    def _open_server(cls, url: StoreURL, options: dict[str, Any]) -> QdrantStore:
        if not url.host:
            raise InvalidRecordError("a qdrant:// URL needs a host, e.g. qdrant://localhost:6333/memories")
        collection = options["collection"] or url.path.strip("/") or DEFAULT_COLLECTION
        api_key = options["api_key"] or url.password or url.username or os.environ.get("QDRANT_API_KEY") or None
        https = options["https"]
        port = url.port or 6333
        address = f"qdrant://{url.host}:{port}/{collection}" + ("?https=true" if https else "")
        try:
            client = QdrantClient(
                host=url.host,
                port=port,
                https=https,
                api_key=api_key,
                timeout=options["timeout"],
                check_compatibility=False,
            )
        except ValueError as error:
            raise InvalidRecordError(f"bad Qdrant URL {address}: {scrub(str(error), api_key)}") from None
        return cls(
            client,
            collection,
            options["dim"],
            lock=_server_lock(url.host, port, collection),
            api_key=api_key,
            address=address,
            shard_keys=options["shard_keys"],
            replication_factor=options["replication_factor"],
        )

    def _prepare_collection(self) -> None:
        """Create the collection if needed, check its vector, and (on a server) its payload indexes."""
        with self._guard(), self._translate_errors("opening the collection"):
            if not self._client.collection_exists(self.collection):
                try:
                    sharding: dict[str, Any] = {}
                    if self.shard_keys and not self._local:
                        sharding["sharding_method"] = models.ShardingMethod.CUSTOM
                    if self._replication_factor and not self._local:
                        # a write returns once every replica applied it, so a read served by any
                        # replica sees it (the contract's read-your-writes); a node down stops writes
                        sharding["replication_factor"] = self._replication_factor
                        sharding["write_consistency_factor"] = self._replication_factor
                    self._client.create_collection(
                        self.collection,
                        vectors_config={DENSE: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
                        metadata={"kioko": {"format": FORMAT, "dim": self.dim, "shard_keys": self.shard_keys or 0}},
                        **sharding,
                    )
                except (ValueError, UnexpectedResponse) as error:
                    # another process created it between our check and our create: use theirs
                    if "already exists" not in str(error):
                        raise
            info = self._client.get_collection(self.collection)
        self._check_collection(info)
        self._check_sharding(info)
        if not self._local:
            self._ensure_indexes(set((info.payload_schema or {}).keys()))
        elif self._local_path != ":memory:" and not self._fsync:
            with self._guard():
                self._relax_local_sync()

    def _check_collection(self, info: Any) -> None:
        vectors = info.config.params.vectors
        params = vectors.get(DENSE) if isinstance(vectors, dict) else None
        if params is None:
            raise StoreError(
                f"collection {self.collection!r} exists but was not made by Kioko (it has no {DENSE!r} "
                "vector); choose another collection name"
            )
        if params.size != self.dim:
            raise InvalidRecordError(
                f"collection {self.collection!r} holds {params.size}-dimensional vectors, but this store was "
                f"opened with dim={self.dim}; open it with ?dim={params.size} (or dim={params.size}), or use "
                "another collection for the other embedder"
            )
        if params.distance != models.Distance.COSINE:
            raise StoreError(f"collection {self.collection!r} uses {params.distance} distance; Kioko needs cosine")

    def _check_sharding(self, info: Any) -> None:
        """Take the collection's bucket count (asking for another is refused); create its shard keys on a server."""
        stored = ((info.config.metadata or {}).get("kioko") or {}).get("shard_keys") or None
        if self.shard_keys is not None and stored != self.shard_keys:
            made = f"with {stored} shard keys" if stored else "without shard keys"
            raise InvalidRecordError(
                f"collection {self.collection!r} exists, made {made}; sharding is chosen when the collection "
                "is created: open it without ?shard_keys=, or use another collection"
            )
        self.shard_keys = stored
        if stored and not self._local:
            for bucket in range(stored):
                try:
                    with self._translate_errors("creating shard keys"):
                        self._client.create_shard_key(
                            self.collection, f"kioko-{bucket}", replication_factor=self._replication_factor
                        )
                except StoreError as error:
                    if "already exists" not in str(error):
                        raise

    def shard_key(self, user_id: str) -> str | None:
        """The shard key holding ``user_id``'s points (None for a collection without shard keys).

        A stable hash (blake2b of the user id, not Python's salted ``hash``), so every process and
        every release agrees on where a user lives.
        """
        if not self.shard_keys:
            return None
        digest = hashlib.blake2b(user_id.encode("utf-8"), digest_size=8).digest()
        return f"kioko-{int.from_bytes(digest, 'big') % self.shard_keys}"

    def _ensure_indexes(self, existing: set[str]) -> None:
        for field_name, (schema, is_tenant) in INDEXED_FIELDS.items():
            if field_name in existing:
                continue
            if schema == "keyword":
                field_schema: Any = models.KeywordIndexParams(
                    type=models.KeywordIndexType.KEYWORD, is_tenant=is_tenant or None
                )
            else:
                field_schema = models.PayloadSchemaType.FLOAT
            with self._translate_errors(f"creating the payload index on {field_name}"):
                self._client.create_payload_index(self.collection, field_name, field_schema=field_schema, wait=True)

    def __repr__(self) -> str:
        return f"QdrantStore({self._address!r}, dim={self.dim})"

    # -- reads

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        """The records and their adjacency points in one request (local mode keeps the adjacency points for the
        ``links`` call that follows: :class:`~kioko_backends.qdrant.links.RecentAdjacency`)."""
        with self._guard(), self._translate_errors("reading records"):
            writes = self._writes.value if self._writes is not None else -1
            points = self._client.retrieve(
                self.collection,
                ids=[point_id(i) for i in ids] + [links_point_id(i) for i in ids],
                with_payload=True if self._writes is not None else WITHOUT_ENTRIES,
                with_vectors=False,
                shard_key_selector=self.shard_key(scope.user_id),
            )
        payloads = [point.payload for point in points]
        if self._writes is not None:
            self._recent.keep(writes, scope, ids, payloads)
        return read_points(scope, payloads)

    def do_postings(self, scope: Scope, asked: list[str], limit: int) -> Postings:
        """Document frequencies and newest ids per term; see the two strategies below."""
        in_scope = self._scope_condition(scope)
        with_terms = models.Filter(
            must=[in_scope], must_not=[models.IsEmptyCondition(is_empty=models.PayloadField(key="terms"))]
        )
        shard = self.shard_key(scope.user_id)
        with self._guard(), self._translate_errors("reading postings"):
            if self._postings_by_holders:
                df, pages = self._postings_from_holders(in_scope, asked, shard)
                n = self._count(with_terms, shard)
            else:
                n, df, pages = self._postings_ordered(in_scope, with_terms, asked, limit, shard)
        ids: dict[str, list[str]] = {}
        for term in asked:
            ordered = sorted(pages[term], key=lambda p: (-json.loads(p.payload["timestamps"])[0], p.payload["id"]))
            ids[term] = [p.payload["id"] for p in ordered[:limit]]
        return Postings(n=n, df=df, ids=ids)

    def _postings_ordered(
        self, in_scope: Any, with_terms: Any, asked: list[str], limit: int, shard: str | None
    ) -> tuple[int, dict[str, int], dict[str, list[Any]]]:
        """The server's way: indexed requests in at most two concurrent waves, whatever the df.

        Wave one: the count of the scope's records with terms, and one batched order-by query per
        term for ``limit + 1`` points, newest first. A term with at most ``limit`` holders is then
        complete (its df is the number of points). Wave two, only where needed: an exact count for
        each term with more holders, and every holder sharing the ``created_at`` at the cut, so ties
        are broken by id as the protocol says and not by Qdrant's internal order.
        """
        holders = {term: models.Filter(must=[in_scope, _match(models, "terms", term)]) for term in asked}

        def newest() -> list[list[Any]]:
            if not asked:
                return []
            requests = [
                models.QueryRequest(
                    query=models.OrderByQuery(
                        order_by=models.OrderBy(key="created_at", direction=models.Direction.DESC)
                    ),
                    filter=holders[term],
                    limit=limit + 1,
                    with_payload=list(POSTING_FIELDS),
                    shard_key=shard,
                )
                for term in asked
            ]
            return [response.points for response in self._client.query_batch_points(self.collection, requests)]

        n, first = self._concurrently([lambda: self._count(with_terms, shard), newest])
        pages = dict(zip(asked, first))
        overflowing = [term for term in asked if len(pages[term]) > limit]
        cuts = {term: pages[term][limit].payload["created_at"] for term in overflowing}
        tied = [
            term for term in overflowing if limit > 0 and pages[term][limit - 1].payload["created_at"] == cuts[term]
        ]
        calls: list[Callable[[], Any]] = [partial(self._count, holders[term], shard) for term in overflowing]
        calls += [partial(self._tie_group, holders[term], cuts[term], shard) for term in tied]
        second = self._concurrently(calls)
        df = {term: len(pages[term]) for term in asked}
        df.update(zip(overflowing, second[: len(overflowing)]))
        for term, group in zip(tied, second[len(overflowing) :]):
            pages[term] = [p for p in pages[term] if p.payload["created_at"] != cuts[term]] + group
        return n, df, pages

    def _postings_from_holders(
        self, in_scope: Any, asked: list[str], shard: str | None
    ) -> tuple[dict[str, int], dict[str, list[Any]]]:
        """Local mode's way: one scroll for every holder of any asked term, counted here.

        Local mode has no payload index, so each request tests every point in Python; one pass
        over the collection is then far cheaper than the server strategy's 2 + 2 per term.
        """
        if not asked:
            return {}, {}
        any_term = models.Filter(must=[in_scope, models.FieldCondition(key="terms", match=models.MatchAny(any=asked))])
        points = self._scroll_all(any_term, list(POSTING_FIELDS) + ["terms"], shard)
        pages: dict[str, list[Any]] = {term: [] for term in asked}
        for point in points:
            for term in point.payload["terms"]:
                if term in pages:
                    pages[term].append(point)
        return {term: len(found) for term, found in pages.items()}, pages

    def do_knn(self, scope: Scope, vector: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        """Qdrant's filtered search for ``k + 1`` points; the base orders them by (score, id).

        The extra point shows whether the k-th score is tied with records beyond it; if so the search
        widens until the tie group is complete, as the tie rule of ``Store.knn`` needs.
        """
        query = vector.tolist()
        conditions = self._conditions(scope, filter)
        if conditions is None:
            return []
        want = k + 1
        while True:
            with self._guard(), self._translate_errors("searching vectors"):
                points = self._client.query_points(
                    self.collection,
                    query=query,
                    using=DENSE,
                    query_filter=models.Filter(must=conditions),
                    limit=want,
                    with_payload=["id"],
                    with_vectors=False,
                    shard_key_selector=self.shard_key(scope.user_id),
                ).points
            if len(points) < want or points[-1].score < points[k - 1].score:
                break
            want *= 2
        return [Neighbor(p.payload["id"], float(p.score)) for p in points]

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        """Every matching record in id order.

        Qdrant cannot range over string ids, so the scan first lists the ids that match when it
        starts (paging by point id, which writes cannot shift), sorts them, then fetches ``batch``
        at a time and checks scope and filter again: a record deleted meanwhile is skipped, one
        written meanwhile is yielded in its current state, one inserted after the start is not.
        """
        conditions = self._conditions(scope, filter)
        if conditions is None:
            return
        shard = self.shard_key(scope.user_id)
        ids = sorted(self._list_ids(models.Filter(must=conditions), shard))
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            with self._guard(), self._translate_errors("scanning records"):
                points = self._client.retrieve(
                    self.collection,
                    ids=[point_id(i) for i in chunk] + [links_point_id(i) for i in chunk],
                    with_payload=WITHOUT_ENTRIES,
                    with_vectors=False,
                    shard_key_selector=shard,
                )
            records = read_points(scope, [p.payload for p in points]).values()
            chosen = [r for r in records if filter is None or filter.matches(r)]
            yield from sorted(chosen, key=lambda r: r.id)

    def _list_ids(self, query_filter: Any, shard: str | None) -> list[str]:
        with self._guard(), self._translate_errors("listing records"):
            return [p.payload["id"] for p in self._scroll_all(query_filter, ["id"], shard)]

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
        """Read the touched points (one request), plan like the reference, then write in one request.

        The write is one batch-update request holding the record upserts and deletes and the adjacency points
        of the links changed (:mod:`kioko_backends.qdrant.links`), split only when it would exceed a server's
        request size. The read-plan-write runs under a lock shared by every store of this collection in this
        process, so version checks hold between its threads.
        """
        with self._lock, self._count_write():
            with self._guard(), self._translate_errors("reading versions"):
                points = self._client.retrieve(
                    self.collection, ids=ids_to_read(ops, changes), with_payload=VERSION_FIELDS, with_vectors=False
                )
            batch = plan_linked(ops, changes, [p.payload for p in points])
            # with shard keys, each point is written under its user's key, and removed from the key
            # of the user it had (a batch may delete an id and reuse it for another user)
            upserts: dict[str | None, list[Any]] = {}
            deletes: dict[str | None, list[models.ExtendedPointId]] = {}
            for key, (stored, written) in batch.records.items():
                before = batch.scopes_before.get(key)
                old_shard = self.shard_key(before.user_id) if before is not None else None
                if stored is None or written is None:
                    deletes.setdefault(old_shard, []).append(point_id(key))
                    continue
                shard = self.shard_key(stored.user_id)
                if before is not None and old_shard != shard and not self._local:  # local mode: one point per id
                    deletes.setdefault(old_shard, []).append(point_id(key))
                upserts.setdefault(shard, []).append(
                    models.PointStruct(
                        id=point_id(stored.id),
                        vector={DENSE: stored.embedding.tolist()} if stored.embedding is not None else {},
                        payload=written,
                    )
                )
            for owner, (scope, adjacency) in batch.adjacency.items():
                shard = self.shard_key(scope.user_id)
                if adjacency is None:
                    deletes.setdefault(shard, []).append(links_point_id(owner))
                else:
                    point = models.PointStruct(id=links_point_id(owner), vector={}, payload=adjacency)
                    upserts.setdefault(shard, []).append(point)
            requests: list[list[models.UpdateOperation]] = [
                [models.UpsertOperation(upsert=models.PointsList(points=chunk, shard_key=shard))]
                for shard, points_of_shard in upserts.items()
                for chunk in (
                    [points_of_shard] if self._local and points_of_shard else write_chunks(points_of_shard, self.dim)
                )
            ]
            for shard, ids_of_shard in deletes.items():
                delete = models.DeleteOperation(delete=models.PointIdsList(points=ids_of_shard, shard_key=shard))
                if requests:
                    requests[-1].append(delete)
                else:
                    requests.append([delete])
            ordering = {} if self._local else {"ordering": models.WriteOrdering.STRONG}
            for operations in requests:
                with self._guard(), self._translate_errors("writing records"):
                    self._client.batch_update_points(self.collection, operations, wait=True, **ordering)
        return batch

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each id's link entries in the order last put: its adjacency point, all read in one request."""
        scope = check_scope(scope)
        asked = list(ids)
        wanted = list(dict.fromkeys(i for i in asked if isinstance(i, str) and is_storable_text(i)))
        if not wanted:
            return [[] for _ in asked]
        if self._writes is not None:
            recent = self._recent.answer(self._writes.value, scope, asked, wanted)
            if recent is not None:
                return recent
        with self._guard(), self._translate_errors("reading links"):
            points = self._client.retrieve(
                self.collection,
                ids=[links_point_id(i) for i in wanted],
                with_payload=True,
                with_vectors=False,
                shard_key_selector=self.shard_key(scope.user_id),
            )
        return answer_links(scope, asked, [p.payload for p in points])

    # -- closing

    def close(self) -> None:
        """Release the client (a shared local directory closes when its last store does)."""
        if self._closed:
            return
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        client, self._client = self._client, None
        if self._release is not None:
            self._release()
        elif client is not None:
            try:
                client.close()
            except Exception:  # closing a client whose server is gone must not raise
                pass

    # -- helpers

    @contextmanager
    def _count_write(self) -> Iterator[None]:
        """A write moves the count at its start and its end, so a read overlapping it is never reused."""
        if self._writes is not None:
            self._writes.value += 1
        try:
            yield
        finally:
            if self._writes is not None:
                self._writes.value += 1

    def _guard(self) -> AbstractContextManager[Any]:
        """Local mode is not thread-safe, so its calls take the directory's lock; a server needs none."""
        return self._lock if self._local else nullcontext()

    @contextmanager
    def _translate_errors(self, doing: str) -> Iterator[None]:
        """Turn qdrant-client and transport errors into Kioko errors that never show the API key."""
        if self._closed or self._client is None:
            raise StoreError(f"{self!r} is closed; open the URL again")
        with translate_errors(doing, self._address, self.collection, self._api_key):
            yield

    def _concurrently(self, calls: Sequence[Callable[[], Any]]) -> list[Any]:
        """Run independent requests side by side on a server; one after another in local mode.

        The calls may return different types (a count beside pages of points), so the results are Any.
        """
        if self._local or len(calls) <= 1:
            return [call() for call in calls]
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kioko-qdrant")
        return [future.result() for future in [self._executor.submit(call) for call in calls]]

    def _count(self, query_filter: Any, shard: str | None) -> int:
        return int(
            self._client.count(self.collection, count_filter=query_filter, exact=True, shard_key_selector=shard).count
        )

    def _tie_group(self, query_filter: Any, created_at: float, shard: str | None) -> list[Any]:
        """Every point of ``query_filter`` whose ``created_at`` equals ``created_at``."""
        same_time = models.Filter(
            must=[
                query_filter,
                models.FieldCondition(key="created_at", range=models.Range(gte=created_at, lte=created_at)),
            ]
        )
        return self._scroll_all(same_time, list(POSTING_FIELDS), shard)

    def _scroll_all(self, query_filter: Any, fields: list[str], shard: str | None) -> list[Any]:
        """Every point matching ``query_filter`` with these payload fields, paged by point id.

        Pages on a point id, so writes meanwhile never shift what is left to read. Local mode reads
        everything in one page: each of its requests tests every point, whatever the page size.
        """
        page = _LOCAL_PAGE if self._local else _SERVER_PAGE
        found: list[Any] = []
        offset = None
        while True:
            points, offset = self._client.scroll(
                self.collection,
                scroll_filter=query_filter,
                limit=page,
                offset=offset,
                with_payload=fields,
                with_vectors=False,
                shard_key_selector=shard,
            )
            found.extend(points)
            if offset is None:
                return found

    def _scope_condition(self, scope: Scope) -> Any:
        return _match(models, "scope", scope_key(scope))

    def _conditions(self, scope: Scope, filter: Filter | None) -> list[Any] | None:
        """Qdrant conditions for the scope and ``filter``; None when the filter can match nothing."""
        return conditions(KIT, scope, filter)


# --------------------------------------------------------------------------- module helpers


def _match(models: Any, key: str, value: str) -> Any:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))
