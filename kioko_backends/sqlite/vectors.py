"""sqlite://'s knn cache: each scope's vectors (and HNSW graph) in the process, kept true to the file.

The table is the truth. An entry is valid for one *generation* of its scope (``kioko_scopes.generation``,
advanced by every committed write to the scope in the same transaction, whichever process wrote), and
knn only uses an entry whose generation is that of the snapshot it reads. This process's own writes patch
their entries in place; another process's writes are found by comparing generations, and then the
scope's rows are read again and compared with the entry: changed rows are patched, so a scope's HNSW
graph survives other processes' writes without a rebuild.

Graphs are saved beside the database file (``kioko.db.ann/``), each with the generation and the row
order it was built for, when the store is closed. On first use a saved graph is taken only if its
generation is the scope's current one and it holds exactly the table's ids; otherwise (a crash, a write
by a process that did not save, a deleted file) the graph is rebuilt from the table when next needed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from kioko_backends._ann import AnnSettings, HnswGraph
from kioko_backends._vectors import AllMatching, KeepMatching, VectorMatrix
from kioko_core.store import Neighbor, Scope

VECTOR_DTYPE = np.dtype("<f4")

VectorChange = tuple[str, Scope | None, Scope | None, bytes | None]
"""One id a batch changed: the scope it left (or None), the scope it is in now (or None), its vector bytes."""

RowLoader = Callable[[], Sequence[tuple[str, bytes]]]
"""Reads the scope's (id, vector bytes) rows, in the snapshot knn is searching."""

ChangeLoader = Callable[[int], Sequence[tuple[str, bytes | None]] | None]
"""Reads, in the snapshot knn is searching, the (id, vector bytes or None) rows of every record of the scope
written after a generation (the store's change log); None when the log cannot say (then every row is read)."""


class ScopeVectors(VectorMatrix):
    """One scope's vectors, valid for one generation of the scope."""

    def __init__(
        self, dim: int, generation: int, rows: Sequence[tuple[str, bytes]], ann: AnnSettings | None = None
    ) -> None:
        vectors = np.frombuffer(b"".join(row[1] for row in rows), dtype=VECTOR_DTYPE).reshape(len(rows), dim)
        super().__init__(dim, [row[0] for row in rows], vectors, ann)
        self.generation = generation
        self.saved_generation: int | None = None
        """The generation of the graph file on disk, when it was loaded from or saved to one."""

    def catch_up(self, generation: int, rows: Sequence[tuple[str, bytes]]) -> None:
        """Make this entry the scope's ``rows`` at ``generation``, patching only the rows that differ."""
        fresh = ScopeVectors(
            self.matrix.shape[1], generation, rows
        )  # normalised the same way: equal rows are equal bits
        gone = [record_id for record_id in self.ids if record_id not in fresh.slots]
        for record_id in gone:
            self.remove(record_id)
        known = [self.slots.get(record_id, -1) for record_id in fresh.ids]
        count = len(fresh.ids)
        mine = self.matrix[np.maximum(np.asarray(known, dtype=np.int64), 0)] if count else fresh.matrix[:0]
        # a tolerance, not equality: a row normalised alone and one normalised in a batch may differ in the last bit
        differs = np.any(np.abs(mine - fresh.matrix[:count]) > 1e-6, axis=1) | (np.asarray(known) < 0)
        for j in np.flatnonzero(differs).tolist():
            self.put(fresh.ids[j], np.frombuffer(rows[j][1], dtype=VECTOR_DTYPE))
        self.generation = generation

    def patch(self, generation: int, rows: Sequence[tuple[str, bytes | None]]) -> None:
        """Make this entry the scope at ``generation`` from the rows written since its own generation alone:
        a record that has no vector now leaves, the others take their row where it differs."""
        for record_id, vector in rows:
            if vector is None:
                self.remove(record_id)
        present = [(record_id, vector) for record_id, vector in rows if vector is not None]
        fresh = ScopeVectors(self.matrix.shape[1], generation, present)  # normalised as catch_up's rows are
        for j, record_id in enumerate(fresh.ids):
            slot = self.slots.get(record_id)
            if slot is None or np.any(np.abs(self.matrix[slot] - fresh.matrix[j]) > 1e-6):
                self.put(record_id, np.frombuffer(present[j][1], dtype=VECTOR_DTYPE))
        self.generation = generation


class GraphFiles:
    """Where and how a scope's graph is saved beside the database: ``<db>.ann/<scope hash>.json`` + graph."""

    def __init__(self, database_path: str, dim: int) -> None:
        self.directory = Path(database_path + ".ann")
        self.dim = dim

    def _meta_path(self, scope: Scope) -> Path:
        key = hashlib.sha256(json.dumps([scope.user_id, scope.agent_id]).encode()).hexdigest()[:32]
        return self.directory / f"{key}.json"

    def load(self, scope: Scope, generation: int, rows: Sequence[tuple[str, bytes]]) -> ScopeVectors | None:
        """The scope's saved graph with its rows in the saved order, if it is exactly this generation."""
        meta_path = self._meta_path(scope)
        try:
            meta = json.loads(meta_path.read_text())
            if meta["generation"] != generation or meta["dim"] != self.dim or len(meta["ids"]) != len(rows):
                return None
            by_id = dict(rows)
            entry = ScopeVectors(self.dim, generation, [(record_id, by_id[record_id]) for record_id in meta["ids"]])
            count = len(entry.ids)
            entry.graph = HnswGraph.load(str(self.directory / meta["graph"]), entry.matrix[:count], meta["nodes"])
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            return None  # missing, unreadable, another generation's or another scope set's: rebuild
        entry.saved_generation = generation
        return entry

    def drop_saved(self, scope: Scope) -> None:
        """Delete the scope's saved graph if it has one (it holds the vectors of records just deleted)."""
        if self._meta_path(scope).exists():
            self.drop(scope)

    def drop(self, scope: Scope) -> None:
        """Delete the scope's saved graph and its metadata (the ids and vectors of a forgotten scope)."""
        meta_path = self._meta_path(scope)
        for path in [meta_path, *self.directory.glob(f"{meta_path.stem}.*")]:
            with contextlib.suppress(OSError):
                path.unlink()

    def save(self, scope: Scope, entry: ScopeVectors, ann: AnnSettings) -> None:
        """Write the entry's graph, then the metadata pointing to it (atomically), then drop older graphs."""
        if entry.graph is None or entry.saved_generation == entry.generation:
            return
        if entry.graph.removed:
            # a removed node's vector stays in a usearch index and in its file: a deleted memory's must not
            entry.graph = entry.graph.rebuilt(entry.matrix[: len(entry.ids)])
        self.directory.mkdir(exist_ok=True)
        meta_path = self._meta_path(scope)
        graph_name = f"{meta_path.stem}.{uuid.uuid4().hex[:12]}.usearch"
        entry.graph.save(str(self.directory / graph_name))
        meta = {
            "generation": entry.generation,
            "dim": self.dim,
            "graph": graph_name,
            "ids": entry.ids,
            "nodes": entry.graph.nodes_by_slot(len(entry.ids)),
        }
        temporary = meta_path.with_suffix(f".{uuid.uuid4().hex[:12]}.tmp")
        temporary.write_text(json.dumps(meta))
        os.replace(temporary, meta_path)
        entry.saved_generation = entry.generation
        for older in self.directory.glob(f"{meta_path.stem}.*.usearch"):
            if older.name != graph_name:
                with contextlib.suppress(OSError):
                    older.unlink()


class VectorCache:
    """Per-scope vector matrices (and graphs), least recently used dropped beyond ``budget`` bytes."""

    def __init__(self, dim: int, budget: int, ann: AnnSettings | None, files: GraphFiles | None) -> None:
        self.dim = dim
        self.budget = budget
        self.ann = ann
        self.files = files if ann is not None else None
        self.lock = threading.Lock()
        self.entries: OrderedDict[Scope, ScopeVectors] = OrderedDict()

    def holds(self, scope: Scope) -> bool:
        return scope in self.entries

    def search(
        self,
        scope: Scope,
        generation: int,
        query: np.ndarray,
        k: int,
        load: RowLoader,
        keep: KeepMatching | None = None,
        matching: AllMatching | None = None,
        changed: ChangeLoader | None = None,
    ) -> list[Neighbor]:
        """The top k of the scope at ``generation`` (the generation of the snapshot ``load`` reads); after
        another process's writes, the rows ``changed`` names patch the entry (else every row is compared)."""
        with self.lock:
            entry = self.entries.get(scope)
            if entry is not None and entry.generation == generation:
                self.entries.move_to_end(scope)
            elif (
                entry is not None
                and entry.generation < generation
                and changed is not None
                and (rows := changed(entry.generation)) is not None
            ):
                entry.patch(generation, rows)  # another process wrote: read what it wrote, not the scope
                self.entries.move_to_end(scope)
            elif entry is not None and entry.generation < generation and entry.graph is not None:
                entry.catch_up(generation, load())  # another process wrote: patch, keep the graph
                self.entries.move_to_end(scope)
            elif entry is None or entry.generation < generation:
                rows = load()
                entry = self.files.load(scope, generation, rows) if self.files is not None else None
                if entry is None:
                    entry = ScopeVectors(self.dim, generation, rows, self.ann)
                entry.ann = self.ann
                self._install(scope, entry)
            else:  # this snapshot is older than the cache: answer from its own rows, exactly, and keep nothing
                entry = ScopeVectors(self.dim, generation, load())
            return entry.search(query, k, keep, matching)

    def advance(self, generations: dict[Scope, int], changes: list[VectorChange]) -> None:
        """After a commit: patch each cached scope whose generation was ``generations[scope]``."""
        if not generations:
            return
        with self.lock:
            for scope, before in generations.items():
                entry = self.entries.get(scope)
                if entry is None or entry.generation == before + 1:
                    continue  # gone, or another thread already loaded the new state
                if entry.generation != before:
                    continue  # another process wrote in between: the next knn catches up
                for record_id, left, now_in, vector in changes:
                    if now_in == scope and vector is not None:
                        entry.put(record_id, np.frombuffer(vector, dtype=VECTOR_DTYPE))
                    elif left == scope or now_in == scope:
                        entry.remove(record_id)
                entry.generation = before + 1
            self._trim()

    def removed(self, scopes: set[Scope]) -> None:
        """Records left ``scopes`` (deleted or moved): their saved graphs, which hold their vectors, go now.
        A cached graph is saved again on close, built afresh (see :meth:`GraphFiles.save`)."""
        if self.files is None:
            return
        with self.lock:
            for scope in scopes:
                self.files.drop_saved(scope)
                entry = self.entries.get(scope)
                if entry is not None:
                    entry.saved_generation = None

    def save_graphs(self, current: Callable[[Scope], int] | None = None) -> None:
        """Save every graph that changed since it was loaded or last saved (on close); with ``current`` (the
        scope's generation now) only those of the scope's current state: a stale one would hold records
        another process deleted since, and could never be loaded anyway."""
        if self.files is None or self.ann is None:
            return
        with self.lock:
            for scope, entry in self.entries.items():
                try:
                    if current is not None and entry.graph is not None and current(scope) != entry.generation:
                        continue
                    self.files.save(scope, entry, self.ann)
                except (OSError, RuntimeError):
                    pass  # a graph that cannot be saved is rebuilt next time; the table is the truth

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()

    def forget(self, scope: Scope) -> None:
        """Drop the scope's vectors, in memory and in its saved graph (``forget_user``)."""
        with self.lock:
            self.entries.pop(scope, None)
            if self.files is not None:
                self.files.drop(scope)

    def _install(self, scope: Scope, entry: ScopeVectors) -> None:
        self.entries[scope] = entry
        self.entries.move_to_end(scope)
        self._trim()

    def _trim(self) -> None:
        total = sum(entry.nbytes for entry in self.entries.values())
        while self.entries and total > self.budget:
            scope, dropped = self.entries.popitem(last=False)
            total -= dropped.nbytes
            if self.files is not None and self.ann is not None:
                with contextlib.suppress(OSError, RuntimeError):
                    self.files.save(scope, dropped, self.ann)  # a graph costs more to rebuild than to save
