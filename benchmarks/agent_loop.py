"""The agent's loop, measured as an agent runs it: N worker processes on one store, each alternating
"record a turn" and "recall", on one user holding ``--count`` memories.

    python benchmarks/agent_loop.py [--stores sqlite,postgresql,memory,qdrant-edge] [--count 2000]
        [--turns 60] [--workers 1,2,4] [--large] [--sqlite-template PATH] [--markdown PATH] [--json PATH]

One user holds ``--count`` synthetic notes (``benchmarks/synthetic.py``, linked as they are written;
``--large`` makes it 100,000). Two kinds of turn, through the public API only:

- **plain**: ``add`` a note (linked at write time), then ``recall`` a question (``links=3``);
- **managed**: ``kioko.intelligent()`` with its defaults: ``recall`` the turn's text, then ``record_turn``
  (the offline router decides and writes; the maintenance due after the turn runs inside it). One more
  row runs the same with ``Intelligence(background=True)`` (the due tasks on a worker thread), and
  ``--modes ...,managed-quiet`` one with no maintenance at all (``Intelligence(scheduler=False)``: what
  the turn itself costs, so the managed rows show what housekeeping adds).

Each worker is a process of its own (connections, caches), as several workers of one agent are; the
workers start together (a barrier) and run ``--turns`` turns each, in a session of their own. Reported
per store, kind of turn and worker count: the write (``add`` or ``record_turn``) and the recall, p50 and
p95 over every worker's turns (wall clock, ms), the maximum; the whole turn (recall + write: what the agent
waits for, the issue's "p95 <= 2x p50" is of it), and the share of cross-worker links: of the
links between memories written during the run, the share whose two ends two different workers wrote
(0 with one worker; with several, how much each worker's writes see the others'; each worker has a session
of its own, and the linker favours a memory's own session). memory:// and Qdrant
edge live in one process: one worker. Every worker first runs 5 untimed turns for another user (warm-up).

PostgreSQL: ``KIOKO_TEST_POSTGRES_URL`` if set, else the test suite's embedded server (tests/services.py).
Wall-clock times on whatever machine runs it; the figures go in ``benchmarks/results/``, never in tests.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from intelligence_turns import turn_text  # noqa: E402
from synthetic import generate_notes, generate_questions  # noqa: E402

import kioko  # noqa: E402
from kioko_core.linking import links  # noqa: E402
from kioko_core.store import Scope  # noqa: E402

SINGLE_PROCESS = ("memory", "qdrant-edge")
MODES = ("plain", "managed", "managed-background")
QUIET = "managed-quiet"
"""Also possible: managed turns with no maintenance at all (``Intelligence(scheduler=False)``): what the turn
itself costs, beside which the managed rows show what housekeeping adds."""


def _open(url: str, mode: str) -> Any:
    if mode == "plain":
        return kioko.connect(url, auto_link=True)
    if mode == "managed":
        return kioko.intelligent(url)
    from kioko_intelligence import Intelligence

    if mode == QUIET:
        return kioko.intelligent(url, intelligence=Intelligence(scheduler=False))

    return kioko.intelligent(url, intelligence=Intelligence(background=True))


def _turn(layer: Any, mode: str, user: str, worker: int, index: int, note: Any, question: str) -> tuple:
    """One turn: (write ms, recall ms, ids the write stored, CPU ms of the turn's thread)."""
    session = f"w{worker}"
    cpu = time.thread_time()  # the thread the agent waits on (a background row's maintenance thread left out)
    if mode == "plain":
        started = time.perf_counter()
        record = layer.add(note.content, memory_type=note.memory_type, session_id=session, user_id=user)
        wrote = time.perf_counter()
        layer.recall(question, user_id=user, links=3)
        spent = (time.thread_time() - cpu) * 1000
        return (wrote - started) * 1000, (time.perf_counter() - wrote) * 1000, [record.id], spent
    text = turn_text(index + 1000 * worker)
    started = time.perf_counter()
    layer.recall(text, user_id=user, session_id=session)
    recalled = time.perf_counter()
    report = layer.record_turn(text, "Noted.", user_id=user, session_id=session)
    ids = [op.memory_id for op in report.applied if op.memory_id]
    spent = (time.thread_time() - cpu) * 1000
    return (time.perf_counter() - recalled) * 1000, (recalled - started) * 1000, ids, spent


def worker_loop(url: str, mode: str, user: str, worker: int, turns: int, ready: Any, out: Any) -> None:
    notes = generate_notes(turns + 5, seed=100 + worker)
    questions = generate_questions(30, seed=100 + worker)
    with _open(url, mode) as layer:
        for index in range(5):  # warm-up, another user: first-use costs paid before the timed turns
            _turn(layer, mode, f"{user}-warm-{worker}", worker, index, notes[index], questions[index])
        ready.wait(600)
        rows = [
            _turn(layer, mode, user, worker, index, notes[index + 5], questions[index % len(questions)])
            for index in range(turns)
        ]
        if mode not in ("plain", QUIET):
            layer.intelligence.scheduler.drain(120)
    out.put((worker, rows))


def _fill(url: str, user: str, count: int) -> None:
    notes = generate_notes(count, seed=11)
    started = time.perf_counter()
    with kioko.connect(url, auto_link=True) as layer:
        for start in range(0, count, 1000):
            layer.add_many(
                [
                    {"content": n.content, "memory_type": n.memory_type, "session_id": n.session_id}
                    | {"created_at": n.created_at}
                    for n in notes[start : start + 1000]
                ],
                user_id=user,
            )
    print(f"  {count:,} memories written in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def _cross_share(url: str, user: str, written: dict[int, list[str]]) -> tuple[float | None, int]:
    """Of the links between memories the run wrote, the share joining two different workers' memories; and
    how many links there were."""
    by = {memory_id: worker for worker, ids in written.items() for memory_id in ids}
    with kioko.connect(url) as layer:
        records = layer.store.get(Scope(user, None), sorted(by))
    pairs = {
        frozenset((r.id, e["id"])): by[r.id] != by[e["id"]]
        for r in records
        if r is not None
        for e in links.link_entries(r)
        if e["id"] in by and e["id"] != r.id
    }
    return (sum(pairs.values()) / len(pairs) if pairs else None), len(pairs)


def run_memory_row(filled: Filled, mode: str, turns: int) -> dict[str, Any]:
    """memory:// keeps its records in the process that opened it: the fill and the worker share one layer."""
    notes = generate_notes(filled.count, seed=11)
    questions = generate_questions(30, seed=100)
    with _open("memory://", mode) as layer:
        layer.add_many(
            [
                {
                    "content": n.content,
                    "memory_type": n.memory_type,
                    "session_id": n.session_id,
                    "created_at": n.created_at,
                }
                for n in notes
            ],
            user_id=filled.user,
        )
        work = generate_notes(turns + 5, seed=100)
        for index in range(5):
            _turn(layer, mode, "warm-up", 0, index, work[index], questions[index])
        rows = [_turn(layer, mode, filled.user, 0, i, work[i + 5], questions[i % len(questions)]) for i in range(turns)]
        if mode not in ("plain", QUIET):
            layer.intelligence.scheduler.drain(120)
        written = [memory_id for row in rows for memory_id in row[2]]
        records = layer.store.get(Scope(filled.user, None), written)
        among = {
            frozenset((r.id, e["id"])) for r in records if r for e in links.link_entries(r) if e["id"] in set(written)
        }
    return _row("memory", mode, 1, filled.count, rows, 0.0 if among else None, len(among))


def _row(store: str, mode: str, workers: int, count: int, rows: list[tuple], share: float | None, among: int) -> dict:
    writes = [row[0] for row in rows]
    recalls = [row[1] for row in rows]
    turns = [row[0] + row[1] for row in rows]  # what the agent waits for: the recall and the write of a turn
    return {
        "store": store,
        "mode": mode,
        "workers": workers,
        "memories": count,
        "turns": len(writes),
        "write_p50": statistics.median(writes),
        "write_p95": _p(writes, 95),
        "write_max": max(writes),
        "recall_p50": statistics.median(recalls),
        "recall_p95": _p(recalls, 95),
        "turn_p50": statistics.median(turns),
        "turn_p95": _p(turns, 95),
        "turn_max": max(turns),
        "cross_worker_links": share,
        "links_among_run": among,
        "turn_cpu_p50": statistics.median(row[3] for row in rows),
        "turn_cpu_p95": _p([row[3] for row in rows], 95),
        # two kinds of turn: one that stores a memory (a linked write) and one that stores none; the p50 of a
        # mix falls among the cheaper kind and its p95 among the dearer, so each kind's own spread is shown too
        **_population("storing", [row for row in rows if row[2]]),
        **_population("other", [row for row in rows if not row[2]]),
    }


def _population(name: str, rows: list[tuple]) -> dict[str, Any]:
    """Turns of one kind: how many, and their turn p50 / p95 by wall clock and by CPU (ms; None when none)."""
    walls, cpus = [row[0] + row[1] for row in rows], [row[3] for row in rows]
    return {
        f"{name}_turns": len(rows),
        f"{name}_p50": statistics.median(walls) if rows else None,
        f"{name}_p95": _p(walls, 95) if rows else None,
        f"{name}_cpu_p50": statistics.median(cpus) if rows else None,
        f"{name}_cpu_p95": _p(cpus, 95) if rows else None,
    }


def _ratio(high: float | None, low: float | None) -> str:
    return "-" if high is None or not low else f"{high / low:.1f}x"


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def run_phase(url: str, user: str, store: str, mode: str, workers: int, turns: int, count: int) -> dict[str, Any]:
    if store in SINGLE_PROCESS:
        import queue
        import threading

        out: Any = queue.Queue()
        ready: Any = threading.Barrier(1)
        worker_loop(url, mode, user, 0, turns, ready, out)
        results = [out.get()]
    else:
        context = multiprocessing.get_context("spawn")
        ready, out = context.Barrier(workers), context.Queue()
        processes = [
            context.Process(target=worker_loop, args=(url, mode, user, w, turns, ready, out)) for w in range(workers)
        ]
        for process in processes:
            process.start()
        results = [out.get(timeout=1800) for _ in processes]
        for process in processes:
            process.join(60)
    written = {worker: [i for row in rows for i in row[2]] for worker, rows in results}
    share, among = _cross_share(url, user, written)
    return _row(store, mode, workers, count, [row for _, rows in results for row in rows], share, among)


class Filled:
    """One store kind filled once (``user`` holds ``count`` memories), copied afresh for every row: a file
    (SQLite), a folder (Qdrant edge), a database made from it as a template (PostgreSQL); memory:// is
    filled again (it lives in one process)."""

    def __init__(self, name: str, folder: Path, count: int, held: list[Any], kept: str | None = None) -> None:
        self.name, self.folder, self.count, self.user, self.copies = name, folder, count, "loop-user", 0
        self.server = ""
        if name == "sqlite":
            self.template = f"sqlite:///{folder / 'template.db'}"
            if kept and Path(kept).exists():  # filled by an earlier run with the same --count
                shutil.copyfile(kept, folder / "template.db")
                return
        elif name == "qdrant-edge":
            self.template = f"qdrant+edge:///{folder / 'template'}"
        elif name == "postgresql":
            import services

            url = os.environ.get("KIOKO_TEST_POSTGRES_URL")
            if not url:
                service = services.start_postgres()
                if not service.available:
                    raise SystemExit(f"no PostgreSQL: {service.how}")
                held.append(service)
                url = service.url
            self.server = url
            self.template = services.postgres_database(_Dropped(url, held), "kioko_loop_template")
        elif name == "memory":
            self.template = "memory://"
            return
        else:
            raise SystemExit(f"unknown store {name!r}: sqlite, postgresql, memory or qdrant-edge")
        _fill(self.template, self.user, count)
        if name == "sqlite" and kept:  # _fill closed the store: the file holds everything
            shutil.copyfile(folder / "template.db", kept)

    def copy(self) -> str:
        """A URL of a store holding what the template holds, for one row."""
        self.copies += 1
        if self.name == "memory":
            return "memory://"  # filled by the row itself, in its one process
        if self.name == "sqlite":
            target = self.folder / f"row{self.copies}.db"
            shutil.copyfile(self.folder / "template.db", target)
            return f"sqlite:///{target}"
        if self.name == "qdrant-edge":
            target = self.folder / f"row{self.copies}"
            shutil.copytree(self.folder / "template", target)
            return f"qdrant+edge:///{target}"
        import psycopg
        from psycopg import sql

        template = urlsplit(self.template).path.lstrip("/")
        name = f"kioko_loop_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self.server, autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
            )
        return urlunsplit(urlsplit(self.server)._replace(path=f"/{name}"))


class _Dropped:
    """What ``services.postgres_database`` needs of a service: its URL, and where to note the database's drop
    (run when the benchmark ends, with the server's own stops)."""

    def __init__(self, url: str, held: list[Any]) -> None:
        self.url = url
        self.stops: list[Any] = []
        held.append(self)

    def stop(self) -> None:
        for stop in reversed(self.stops):
            stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,postgresql,memory,qdrant-edge")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--large", action="store_true", help="100,000 memories of the user instead of --count")
    parser.add_argument("--turns", type=int, default=40, help="timed turns per worker")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--sqlite-template",
        help="a SQLite file holding the filled user: used if it exists, else filled and kept there "
        "(filling 20,000 memories takes many minutes; the same file serves several runs of one --count)",
    )
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    count = 100_000 if args.large else args.count
    counts = [int(n) for n in args.workers.split(",")]
    modes = [m.strip() for m in args.modes.split(",")]
    rows: list[dict[str, Any]] = []
    held: list[Any] = []
    started, loaded = time.perf_counter(), os.getloadavg()[0]
    try:
        for store in args.stores.split(","):
            folder = Path(tempfile.mkdtemp(prefix="kioko-loop-"))
            try:
                print(f"{store}: filling", file=sys.stderr)
                filled = Filled(store, folder, count, held, args.sqlite_template)
                for mode in modes:
                    for workers in [1] if store in SINGLE_PROCESS or "background" in mode else counts:
                        # a fresh copy per row: each row's user starts with the same --count memories
                        print(f"{store}, {mode}, {workers} worker(s)", file=sys.stderr)
                        url = filled.copy()
                        if store == "memory":
                            rows.append(run_memory_row(filled, mode, args.turns))
                        else:
                            rows.append(run_phase(url, filled.user, store, mode, workers, args.turns, count))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        for service in reversed(held):
            service.stop()
    lines = [
        "| store | turn | workers | memories | write p50 (ms) | write p95 | p95/p50 | write max | "
        "recall p50 (ms) | recall p95 | turn p50 (ms) | turn p95 | turn p95/p50 | turn max | "
        "cross-worker links (of the links among the run's memories) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = "-" if r["cross_worker_links"] is None else f"{r['cross_worker_links']:.0%}"
        share += f" of {r['links_among_run']}"
        lines.append(
            f"| {r['store']} | {r['mode']} | {r['workers']} | {r['memories']:,} | {r['write_p50']:.1f} | "
            f"{r['write_p95']:.1f} | {r['write_p95'] / r['write_p50']:.1f}x | {r['write_max']:.0f} | "
            f"{r['recall_p50']:.1f} | {r['recall_p95']:.1f} | {r['turn_p50']:.1f} | {r['turn_p95']:.1f} | "
            f"{r['turn_p95'] / r['turn_p50']:.1f}x | {r['turn_max']:.0f} | {share} |"
        )
    lines += [
        "",
        "The same turns by kind (wall clock and CPU time of the turn's thread, ms): turns that stored a memory, "
        "turns that stored none.",
        "",
        "| store | turn | workers | turn CPU p50 | CPU p95 | CPU p95/p50 | storing turns | p50 | p95 | p95/p50 |"
        " CPU p50 | CPU p95 | CPU p95/p50 | other turns | p50 | p95 | p95/p50 | CPU p50 | CPU p95 | CPU p95/p50 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [f"{r['turn_cpu_p50']:.1f}", f"{r['turn_cpu_p95']:.1f}", _ratio(r["turn_cpu_p95"], r["turn_cpu_p50"])]
        for kind in ("storing", "other"):
            cells.append(str(r[f"{kind}_turns"]))
            for unit in ("", "cpu_"):
                low, high = r[f"{kind}_{unit}p50"], r[f"{kind}_{unit}p95"]
                cells += ["-" if low is None else f"{low:.1f}", "-" if high is None else f"{high:.1f}"]
                cells.append(_ratio(high, low))
        lines.append(f"| {r['store']} | {r['mode']} | {r['workers']} | " + " | ".join(cells) + " |")
    footer = (
        f"\n{args.turns} timed turns per worker; embedder {os.environ.get('KIOKO_EMBEDDER') or 'default'}; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, load average "
        f"{loaded:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; "
        f"{time.perf_counter() - started:.0f} s in all."
    )
    text = "\n".join(lines) + "\n" + footer
    print(text)
    if args.markdown:
        command = "python benchmarks/agent_loop.py " + " ".join(sys.argv[1:])
        Path(args.markdown).write_text(f"`{command}`\n\n{text}\n")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
