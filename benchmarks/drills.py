"""The reliability drills of issue 14 at full size, with their figures printed (not a test: nothing asserts).

    python benchmarks/drills.py                      # SQLite and PostgreSQL (embedded), default sizes
    python benchmarks/drills.py --stores sqlite --processes 4 --writes 150 --kills 8
    python benchmarks/drills.py --parts size          # only the time of text analysis and of a 1 MB add

Prints, per store: processes x linked writes with lost / asymmetric / dangling links and the share of
links that join two processes' memories; concurrent updates of one memory and of its counters (lost);
kill -9 runs mid-write and whether the store reopened consistent. Then the bad-input table on every
store, the secrets table (caught / look-alikes passed) and the time of text analysis and of a 1 MB add.
The workers and tables are the ones ``tests/drills`` runs at CI size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "drills")]

import drill_tables as tables  # noqa: E402
import drill_workers as drills  # noqa: E402

import kioko  # noqa: E402
from kioko_backends.memory import MemoryStore  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.privacy.secrets import DropSecrets  # noqa: E402
from kioko_core.reading.analysis import analyze  # noqa: E402
from kioko_core.store import Scope  # noqa: E402


def _user(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def linked_writes(url: str, processes: int, writes: int) -> None:
    user = _user("writes")
    started = time.perf_counter()
    written = drills.run_workers(drills.linked_writes, [(url, user, f"w{n}", writes) for n in range(processes)])
    seconds = time.perf_counter() - started
    records = drills.scope_records(url, user)
    expected = {i for ids in written for i in ids}
    check = drills.check_graph(records)
    writer_of = {memory_id: str(n) for n, ids in enumerate(written) for memory_id in ids}
    across, total = drills.cross_process_links(records, writer_of)
    print(
        f"  linked writes   {processes} processes x {writes}: stored {len(expected & {r.id for r in records})}"
        f"/{len(expected)}, lost {len(expected - {r.id for r in records})}, links {check.links}, "
        f"asymmetric {len(check.asymmetric)}, dangling {len(check.dangling)}, "
        f"cross-process {across}/{total} ({100 * across / max(total, 1):.0f} %), {seconds:.1f} s"
    )


def concurrent_updates(url: str, processes: int, updates: int) -> None:
    user = _user("updates")
    with kioko.connect(url, auto_link=True) as layer:
        target = layer.add("Line 3 conveyor keeps jamming near the encoder.", user_id=user)
        procedure = layer.procedures.add("Reset the drive", ["Press stop", "Reset the drive"], user_id=user)
        goal = layer.goals.add("Ship the line 3 fix", user_id=user)
    workers = [f"p{n}" for n in range(processes)]
    drills.run_workers(drills.update_metadata, [(url, user, target.id, w, updates) for w in workers])
    drills.run_workers(drills.count_outcomes, [(url, user, procedure.id, goal.id, w, updates, 0, "") for w in workers])
    with kioko.connect(url) as layer:
        stored = layer.get(target.id, user_id=user).metadata
        counted = layer.get(procedure.id, user_id=user).metadata
    lost = sum(1 for w in workers for i in range(updates) if stored.get(f"{w}-{i}") != i)
    outcomes = int(counted.get("successes", 0)) + int(counted.get("failures", 0))
    print(
        f"  updates         {processes} processes x {updates} updates of one memory: lost {lost}; "
        f"x {updates} outcomes: counted {outcomes}/{processes * updates}, lost {processes * updates - outcomes}"
    )


def kills(url: str, runs: int) -> None:
    user = _user("kills")
    for run in range(runs):
        drills.kill_mid_write(url, user, f"k{run}", after=0.3 + 0.2 * (run % 4))
    with kioko.connect(url, auto_link=True) as layer:
        records = list(layer.store.scan(Scope(user, None)))
        check = drills.check_graph(records)
        layer.add("Line 3 fault E-1 after the kills.", user_id=user, memory_type="episodic")
    print(
        f"  kill -9         {runs} runs mid-write: reopened with {len(records)} memories, "
        f"asymmetric {len(check.asymmetric)}, dangling {len(check.dangling)}, "
        f"{'consistent' if check.consistent else 'INCONSISTENT'}"
    )


def bad_inputs(urls: dict[str, str]) -> None:
    reference = MemoryLayer(MemoryStore(), auto_link=True)
    user = _user("bad")
    expected_existing = reference.add(tables.GOOD, user_id=user).id
    expected = {
        name: tables.outcome(reference, user, expected_existing, call) for name, call in tables.BAD_INPUTS.items()
    }
    for name, url in urls.items():
        with kioko.connect(url, auto_link=True) as layer:
            existing = layer.add(tables.GOOD, user_id=user).id
            same = untyped = changed = 0
            for case, call in tables.BAD_INPUTS.items():
                before = tables.stored_state(layer, user)
                got = tables.outcome(layer, user, existing, call)
                same += got == expected[case]
                untyped += got.startswith("untyped")
                changed += got != "accepted" and tables.stored_state(layer, user) != before
        refused = sum(1 for v in expected.values() if v != "accepted")
        print(
            f"  bad inputs      {name}: {len(tables.BAD_INPUTS)} tried, {refused} refused on memory://, "
            f"same outcome {same}/{len(tables.BAD_INPUTS)}, untyped errors {untyped}, changed after refusal {changed}"
        )


def secrets() -> None:
    detector = DropSecrets()
    caught = sum(1 for text in tables.SECRETS.values() if detector.check(text))
    passed = sum(1 for text in tables.LOOK_ALIKES if not detector.check(text))
    print(f"secrets: caught {caught}/{len(tables.SECRETS)}, look-alikes passed {passed}/{len(tables.LOOK_ALIKES)}")


def analysis_times() -> None:
    for n in (1000, 2000, 4000, 16000):
        text = " ".join(f"Unit U-{i} checked." for i in range(n))
        started = time.perf_counter()
        analyze(text)
        print(f"analysis of n={n:>5} identifiers ({len(text) / 1000:.0f} KB): {time.perf_counter() - started:.2f} s")
    sentence = "On shift {i} Kumar saw fault E-{i} on Cell {c}B near INC-{i}; Ravi Shankar fixed it. "
    megabyte = "".join(sentence.format(i=i, c=i % 90) for i in range(12_000))
    for url in ("memory://", f"sqlite:///{tempfile.mkdtemp()}/mb.db"):
        with kioko.connect(url, auto_link=True, limits={"content_bytes": 2_000_000, "query_bytes": 200_000}) as layer:
            for i in range(20):
                layer.add(sentence.format(i=i, c=i), user_id="mb")
            started = time.perf_counter()
            layer.add(megabyte, user_id="mb")
            added = time.perf_counter() - started
            started = time.perf_counter()
            layer.recall(megabyte[:100_000], user_id="mb")
            print(
                f"{url.split(':')[0]}: add of {len(megabyte.encode()) / 1e6:.2f} MB {added:.2f} s, "
                f"recall of a 100 KB query {time.perf_counter() - started:.2f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,postgresql")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--writes", type=int, default=150)
    parser.add_argument("--updates", type=int, default=40)
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument(
        "--parts",
        default="drills,bad,secrets,size",
        help="which parts to run: drills (processes, updates, kill -9 per store), bad (inputs), secrets, size",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    print("command:", " ".join(["python", "benchmarks/drills.py", *sys.argv[1:]]))

    import services

    workdir = Path(tempfile.mkdtemp(prefix="kioko-drills-"))
    urls: dict[str, str] = {}
    stops = []
    for name in args.stores.split(",") if parts & {"drills", "bad"} else []:
        if name == "sqlite":
            urls[name] = f"sqlite:///{workdir / 'drills.db'}"
        elif name == "postgresql":
            service = services.start_postgres()
            stops.append(service.stop)
            if service.url is None:
                print(f"postgresql not run: {service.how}")
                continue
            urls[name] = service.url
    try:
        for name, url in urls.items() if "drills" in parts else []:
            print(f"{name}:")
            linked_writes(url, args.processes, args.writes)
            concurrent_updates(url, 2, args.updates)
            kills(url, args.kills)
        if "bad" in parts:
            bad_inputs({"memory": "memory://", **urls, "qdrant-local": f"qdrant+local:///{workdir / 'qdrant'}"})
        if "secrets" in parts:
            secrets()
        if "size" in parts:
            analysis_times()
    finally:
        for stop in stops:
            stop()


if __name__ == "__main__":
    main()
