"""What write-time linking costs per write, on every store: MemoryLayer.add with auto_link on and off.

    python benchmarks/linking_write_times.py [--stores memory,sqlite,postgresql,qdrant+local,qdrant+edge]
        [--count 2000] [--seed 7] [--markdown PATH] [--layouts apart,record] [--fill 0]
        [--tree NAME=DIR ...]

For each store, the same seeded notes (``benchmarks/synthetic.py``: 20 topics; events written in
sessions with problems and fixes minutes apart, goals, decisions, procedures, lessons, facts) are
written one ``add`` at a time into two fresh users of one store: one layer links every write
(``auto_link=True``), the other does not. The two writes of each note alternate, so both users grow
together and share whatever the machine was doing at the time. Both users' entity graphs hold the
generator's triples, as an agent's would (entity matching runs on every write, linking or not).

Printed: a markdown table with the median and 95th percentile of the wall-clock time of one add per
store and mode, the ratio of the medians, the median CPU time of this process per add (on a machine
other processes load, wall-clock times grow with the wait for a core; the CPU time much less, so the two
modes can be compared there; a server's own work is not in it) and its ratio, and the links per memory
(mean and max, counting every link a memory holds) of the linked user once all notes are written.

``--fill N``: before the timed adds, every user gets N earlier notes of the same generator written in
batches with linking off (records built as ``memory_graph_bench.py`` builds its fill: the layer's analysis,
entities and offline embedding), so the timed adds measure writes into a store of N memories per user; the
filled memories hold no links (as most of that benchmark's 1,000,000 did: connect() reaches the oldest only).

``--tree NAME=DIR`` (repeatable) compares source trees (e.g. ``before=`` a ``git worktree`` of an older
commit, ``after=.``): each tree's own copy of this script runs the whole benchmark with ``PYTHONPATH=DIR``, all
trees at the same time (one process each), and their rows are printed in one table with the tree's name and
the load average at the start and the end. Each tree's linked and plain writes still alternate inside its own
process, so every ratio is measured under one load, and the trees share the machine's.

PostgreSQL: ``KIOKO_TEST_POSTGRES_URL`` if set, else the test suite's ``tests/services.py`` helper
(an embedded PostgreSQL 18 with pgvector in a temporary directory), stopped at the end. SQLite and
Qdrant local and edge use a temporary directory, removed at the end; PostgreSQL gets tables of its own, dropped.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from synthetic import Note, entity_relations, generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.layer.records import LayerStore  # noqa: E402
from kioko_core.linking import links  # noqa: E402
from kioko_core.store import Record, Scope, Store, Upsert  # noqa: E402

STORES = ("memory", "sqlite", "postgresql", "qdrant+local", "qdrant+edge")


@dataclass
class Result:
    """One store's measurements."""

    store: str
    count: int
    linked_ms: list[float]
    unlinked_ms: list[float]
    linked_cpu_ms: list[float]
    unlinked_cpu_ms: list[float]
    degrees: list[int]
    links: int

    @staticmethod
    def percentile(values: list[float], q: float) -> float:
        """The q-th percentile by linear interpolation between the closest ranks."""
        ordered = sorted(values)
        if not ordered:
            return float("nan")
        position = (len(ordered) - 1) * q
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    def row(self) -> str:
        on_median, off_median = statistics.median(self.linked_ms), statistics.median(self.unlinked_ms)
        on_cpu, off_cpu = statistics.median(self.linked_cpu_ms), statistics.median(self.unlinked_cpu_ms)
        mean_degree = sum(self.degrees) / len(self.degrees) if self.degrees else 0.0
        return (
            f"| {self.store} | {self.count:,} | {on_median:.2f} | {self.percentile(self.linked_ms, 0.95):.2f} | "
            f"{off_median:.2f} | {self.percentile(self.unlinked_ms, 0.95):.2f} | {on_median / off_median:.1f}x | "
            f"{on_cpu:.2f} | {off_cpu:.2f} | {on_cpu / off_cpu:.1f}x | {mean_degree:.2f} | {max(self.degrees, default=0)} | {self.links:,} |"
        )


HEADER = (
    "| store | writes | linked median (ms) | linked p95 (ms) | unlinked median (ms) | unlinked p95 (ms) "
    "| median ratio | linked CPU median (ms) | unlinked CPU median (ms) | CPU ratio "
    "| links per memory, mean | links per memory, max | links |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


# --------------------------------------------------------------------------- the stores


@contextmanager
def postgres_url() -> Iterator[str]:
    """``KIOKO_TEST_POSTGRES_URL``, else the test suite's embedded server for the duration of the run."""
    if os.environ.get("KIOKO_TEST_POSTGRES_URL"):
        yield os.environ["KIOKO_TEST_POSTGRES_URL"]
        return
    import services  # tests/services.py: the same server the test matrix uses

    service = services.start_postgres()
    try:
        if not service.available:
            raise RuntimeError(f"PostgreSQL could not start: {service.how}")
        yield service.url  # type: ignore[misc]
    finally:
        service.stop()


def _drop_postgres_tables(url: str, prefix: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as connection:
        names = [
            row[0]
            for row in connection.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE %s", (prefix + "\\_%",))
        ]
        for name in names:
            connection.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(name)))


@contextmanager
def open_store(name: str, stack: ExitStack, workdir: Path) -> Iterator[Store]:
    """A fresh, empty store of kind ``name``; everything it created is removed afterwards."""
    if name == "memory":
        url = "memory://"
    elif name == "sqlite":
        url = f"sqlite:///{workdir / f'linking-{uuid.uuid4().hex[:8]}.db'}"
    elif name in ("qdrant+local", "qdrant+edge"):
        url = f"{name}:///{workdir / f'qdrant-{uuid.uuid4().hex[:8]}'}"
    elif name == "postgresql":
        base = stack.enter_context(postgres_url())
        prefix = f"bench_{uuid.uuid4().hex[:8]}"
        url = base + ("&" if "?" in base else "?") + f"table={prefix}"
        stack.callback(_drop_postgres_tables, base, prefix)
    else:
        raise SystemExit(f"unknown store {name!r}; choose from {', '.join(STORES)}")
    store = kioko.open_store(url)
    try:
        yield store
    finally:
        store.close()


# --------------------------------------------------------------------------- the measurement


def timed(write: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU milliseconds of one call."""
    started, cpu = time.perf_counter(), time.process_time()
    write()
    return (time.perf_counter() - started) * 1000.0, (time.process_time() - cpu) * 1000.0


def fill_users(store: Store, records: list[Record], users: list[str]) -> None:
    """The same filled notes in each user (ids of their own: ids are unique across a store), batch by batch in
    turn, so every user's share of the indexes grows alike."""
    from memory_graph_bench import FILL_BATCH

    started = time.perf_counter()
    for start in range(0, len(records), FILL_BATCH):
        for tag, user in enumerate(users):
            batch = records[start : start + FILL_BATCH]
            store.update_many(
                [
                    Upsert(record=r.model_copy(update={"id": f"{r.id}-{tag}", "user_id": user}), expected_version=0)
                    for r in batch
                ]
            )
        done = min(start + FILL_BATCH, len(records))
        if done % (20 * FILL_BATCH) == 0 or done == len(records):
            print(
                f"  filled {done:,} of {len(records):,} per user ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )


def measure(
    name: str,
    notes: list[Note],
    workdir: Path,
    layouts: tuple[str, ...] = ("apart",),
    filled: list[Record] | None = None,
) -> list[Result]:
    """Write every note once through a plain layer and once per layout through a linking one, alternating.

    ``layouts``: where the linking layers keep links: ``apart`` (entry by entry, on a store with
    :class:`~kioko_core.store.link_store.LinkStore`; inside the records on any other) and ``record`` (inside the
    records whatever the store can: the layout before the capability), each in a user of its own.
    """
    with ExitStack() as stack:
        store = stack.enter_context(open_store(name, stack, workdir))
        run = uuid.uuid4().hex[:8]
        unlinked_user = f"bench-unlinked-{run}"
        plain = MemoryLayer(store, auto_link=False)
        linking = {
            layout: (
                MemoryLayer(LayerStore(store, links_apart=layout == "apart"), auto_link=True),
                f"bench-{layout}-{run}",
            )
            for layout in layouts
        }
        for subject, relation, obj in entity_relations():
            for layer, user in [*linking.values(), (plain, unlinked_user)]:
                layer.graph.add(subject, relation, obj, user_id=user)
        if filled:
            fill_users(store, filled, [user for _, user in linking.values()] + [unlinked_user])
        times: dict[str, tuple[list[float], list[float]]] = {key: ([], []) for key in [*layouts, "plain"]}
        for number, note in enumerate(notes):
            pairs = [(layer, user, times[layout]) for layout, (layer, user) in linking.items()]
            pairs.append((plain, unlinked_user, times["plain"]))
            if number % 2:
                pairs.reverse()  # no mode always goes first
            for layer, user, (walls, cpus) in pairs:
                wall, cpu = timed(
                    lambda layer=layer, user=user: layer.add(
                        note.content,
                        user_id=user,
                        memory_type=note.memory_type,
                        session_id=note.session_id,
                        created_at=note.created_at,
                    )
                )
                walls.append(wall)
                cpus.append(cpu)
        reader = LayerStore(store)  # reads either layout
        unlinked_links = sum(len(links.link_entries(record)) for record in reader.scan(Scope(unlinked_user)))
        if unlinked_links:
            raise AssertionError(f"the unlinked user holds {unlinked_links} link entries")
        results = []
        for layout, (_, user) in linking.items():
            degrees = [len(links.link_entries(record)) for record in reader.scan(Scope(user))]
            label = name if layouts == ("apart",) else f"{name} (links {layout})"
            walls, cpus = times[layout]
            results.append(
                Result(label, len(notes), walls, times["plain"][0], cpus, times["plain"][1], degrees, sum(degrees) // 2)
            )
        return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default=",".join(STORES), help="comma-separated, from: " + ", ".join(STORES))
    parser.add_argument("--count", type=int, default=2000, help="notes written per mode and store")
    parser.add_argument("--seed", type=int, default=7, help="the synthetic notes' seed")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument(
        "--fill", type=int, default=0, help="memories written per user, linking off, before the timed adds"
    )
    parser.add_argument(
        "--layouts",
        default="apart",
        help="where linked writes keep links, comma-separated: apart (entry by entry where the store can), "
        "record (inside the records, the layout before); both run side by side in one pass",
    )
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="run the benchmark in each source tree DIR at the same time and print one table (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.tree:
        trees = dict(item.split("=", 1) for item in args.tree if "=" in item)
        if len(trees) != len(args.tree):
            parser.error("--tree takes NAME=DIR")
        return compare_trees(args, {name: Path(tree).resolve() for name, tree in trees.items()})
    layouts = tuple(dict.fromkeys(x.strip() for x in args.layouts.split(",") if x.strip()))
    if not layouts or set(layouts) - {"apart", "record"}:
        parser.error("--layouts takes apart and/or record")
    names = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = [n for n in names if n not in STORES]
    if unknown:
        parser.error(f"unknown store(s) {unknown}; choose from {', '.join(STORES)}")
    if args.fill < 0:
        parser.error("--fill takes a count >= 0")
    everything = generate_notes(args.fill + args.count, seed=args.seed)
    notes = everything[args.fill :]
    filled: list[Record] | None = None
    if args.fill:
        from memory_graph_bench import build_records

        print(f"building {args.fill:,} filled memories ...", file=sys.stderr, flush=True)
        filled = build_records(everything[: args.fill], args.seed, progress=False)
    workdir = Path(tempfile.mkdtemp(prefix="kioko-linking-bench-"))
    results: list[Result] = []
    try:
        for name in names:
            print(f"{name}: writing {len(notes):,} notes twice ...", file=sys.stderr, flush=True)
            started = time.perf_counter()
            results.extend(measure(name, notes, workdir, layouts, filled))
            print(f"{name}: done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    table = "\n".join([HEADER] + [r.row() for r in results])
    context = (
        (f"{args.fill:,} memories per user first (linking off), then " if args.fill else "")
        + f"{args.count:,} synthetic notes (seed {args.seed}), one add per note and mode; offline embedder; Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    print(table)
    print(f"\n{context}")
    if args.markdown:
        args.markdown.write_text(table + f"\n\n{context}\n")
    return 0


def compare_trees(args: argparse.Namespace, trees: dict[str, Path]) -> int:
    """The benchmark run by each tree's own script, all at once; their table rows printed as one table."""
    options = ["--stores", args.stores, "--count", str(args.count), "--seed", str(args.seed), "--layouts", args.layouts]
    if args.fill:
        options += ["--fill", str(args.fill)]
    load_before = os.getloadavg()
    running = {}
    for name, tree in trees.items():
        script = tree / "benchmarks" / "linking_write_times.py"
        if not script.is_file():
            raise SystemExit(f"--tree {name}: {script} does not exist")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        running[name] = subprocess.Popen(
            [sys.executable, str(script), *options], cwd=tree, env=env, stdout=subprocess.PIPE, text=True
        )
    rows: list[str] = []
    for name, process in running.items():
        out, _ = process.communicate()
        if process.returncode:
            raise SystemExit(f"--tree {name}: the benchmark exited with {process.returncode}")
        # the tree's table without its header: every row starts with its store's name
        rows += [
            f"| {name} {line}"
            for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| store |")
        ]
    load_after = os.getloadavg()
    header = HEADER.splitlines()
    table = "\n".join(["| tree " + header[0], "|---" + header[1], *rows])
    context = (
        f"{args.count:,} synthetic notes (seed {args.seed}) per tree, the trees run at the same time; trees: "
        + ", ".join(f"{name}={tree}" for name, tree in trees.items())
        + f"; load average at the start {' / '.join(f'{x:.1f}' for x in load_before)}, at the end "
        + " / ".join(f"{x:.1f}" for x in load_after)
        + f"; Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    print(table)
    print(f"\n{context}")
    if args.markdown:
        args.markdown.write_text(table + f"\n\n{context}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
