"""One key floods the service with concurrent large writes; how long does another user's GET take meanwhile?

    python benchmarks/tenant_flood.py                            # limits off vs on, side by side
    python benchmarks/tenant_flood.py --limits off,2 --gets 200 --clients 8 --size 210000

For each setting of ``--key-concurrency`` (``off`` = a limit no flood reaches), ``kioko serve`` runs over
memory:// in a subprocess on a loopback port (``before``: the server of an older checkout, ``--before``) with
two keys: ``flood`` (user ana) and ``reader`` (user ben).
The reader reads one of ben's memories by id ``--gets`` times in a row with nobody else on the server (idle),
then again while a separate process runs ``--clients`` threads, each posting ``--size``-byte memories for
ana in a loop (flood); the flood stops when the reader is done (or after ``--max-seconds``), and the reader
reads ``--gets`` times idle again (idle is both runs together). Reported per setting: the reader's GET p50 / p95
idle and under the flood, the p95 ratio (the goal: within 2x), the flood's
writes done and its 429s. Loopback only; bounded in requests and time. Results: benchmarks/results/tenant-flood.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kioko.api.auth import add_key  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORDS = "line plant shift encoder cable cabinet fault boiler pump valve sensor report night morning crew".split()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(keys_file: Path, limit: str, tree: Path) -> tuple[subprocess.Popen, str]:
    """``kioko serve`` of the checkout ``tree``; ``limit`` "before" runs a tree that has no per-key limits."""
    port = free_port()
    command = [sys.executable, "-m", "kioko", "serve", "--store", "memory://", "--port", str(port)]
    command += ["--api-keys", str(keys_file), "--log-level", "warning"]
    if limit != "before":
        command += ["--key-concurrency", "10000" if limit == "off" else limit]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"kioko serve exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("kioko serve did not start")


def text_of(size: int, seed: int) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS) + str(rng.randrange(1000))
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def flood(
    url: str, key: str, clients: int, size: int, stop: Any, started: Any, counts: Any, max_seconds: float
) -> None:
    """The flooding process: ``clients`` threads posting large memories until ``stop`` is set."""
    ends = time.monotonic() + max_seconds
    lock = threading.Lock()

    def client(n: int) -> None:
        with httpx.Client(base_url=url, headers={"authorization": f"Bearer {key}"}, timeout=300) as http:
            sent = 0
            while not stop.is_set() and time.monotonic() < ends:
                body = {"content": text_of(size, n * 100_000 + sent)}
                if sent == 0:
                    with lock:
                        started.value += 1
                status = http.post("/v1/memories", json=body).status_code
                sent += 1
                with lock:
                    if status == 201:
                        counts[0] += 1
                    elif status == 429:
                        counts[1] += 1
                    else:
                        counts[2] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def reads(http: httpx.Client, ids: list[str], count: int) -> list[float]:
    took = []
    for n in range(count):
        began = time.perf_counter()
        answer = http.get(f"/v1/memories/{ids[n % len(ids)]}")
        took.append((time.perf_counter() - began) * 1000)
        answer.raise_for_status()
    return took


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def run(limit: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        keys_file = Path(folder) / "keys.json"
        flood_key = add_key(keys_file, name="flood", users=["ana"])
        reader_key = add_key(keys_file, name="reader", users=["ben"])
        process, url = start(keys_file, limit, Path(args.before) if limit == "before" else ROOT)
        try:
            with httpx.Client(base_url=url, headers={"authorization": f"Bearer {reader_key}"}, timeout=300) as http:
                ids = [
                    http.post("/v1/memories", json={"content": f"Ben's note {n} on pump {n}."}).json()["id"]
                    for n in range(20)
                ]
                reads(http, ids, 20)  # warm up
                idle = reads(http, ids, args.gets)
                context = multiprocessing.get_context("spawn")
                stop, started, counts = context.Event(), context.Value("i", 0), context.Array("i", 3)
                flooding = context.Process(
                    target=flood,
                    args=(url, flood_key, args.clients, args.size, stop, started, counts, args.max_seconds),
                )
                flooding.start()
                deadline = time.monotonic() + 60
                while started.value < args.clients and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(args.settle)  # let the first writes reach the server before the reader starts
                before_reads, began = counts[0], time.perf_counter()
                busy = reads(http, ids, args.gets)
                during, seconds = counts[0] - before_reads, time.perf_counter() - began
                stop.set()
                flooding.join(timeout=args.max_seconds + 60)
                written, refused, failed = list(counts)
                idle += reads(http, ids, args.gets)  # idle again: on a shared machine idle itself moves
        finally:
            process.terminate()
            process.wait(timeout=30)
    row = {
        "key_concurrency": limit,
        "idle_p50_ms": round(statistics.median(idle), 2),
        "idle_p95_ms": round(p95(idle), 2),
        "flood_p50_ms": round(statistics.median(busy), 2),
        "flood_p95_ms": round(p95(busy), 2),
        "p95_ratio": round(p95(busy) / p95(idle), 2),
        "flood_writes": written,
        "flood_writes_per_s_during_reads": round(during / seconds, 2),
        "flood_429": refused,
        "flood_other_errors": failed,
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--limits",
        default="off,2",
        help="key concurrency settings to compare: a number, 'off' (none) or 'before' (the --before checkout's server)",
    )
    parser.add_argument("--before", default=None, help="a checkout of Kioko before the limits, for the 'before' row")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--size", type=int, default=210_000, help="bytes of each flooding write")
    parser.add_argument("--gets", type=int, default=200)
    parser.add_argument("--settle", type=float, default=1.0, help="seconds between the flood's start and the reads")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="the flood's longest run")
    parser.add_argument("--out", default=str(RESULTS / "tenant-flood.json"))
    args = parser.parse_args()
    if "before" in args.limits.split(",") and not args.before:
        parser.error("--limits before needs --before DIR (e.g. git worktree add /tmp/before <commit>)")
    rows = [run(limit, args) for limit in args.limits.split(",")]
    meta = {
        "command": "python benchmarks/tenant_flood.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        "clients": args.clients,
        "size": args.size,
        "gets": args.gets,
    }
    Path(args.out).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    print("| key concurrency | idle p50 / p95 ms | flood p50 / p95 ms | p95 ratio | flood writes/s | 429s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['key_concurrency']} | {r['idle_p50_ms']} / {r['idle_p95_ms']} | {r['flood_p50_ms']} / "
            f"{r['flood_p95_ms']} | {r['p95_ratio']}x | {r['flood_writes_per_s_during_reads']} | {r['flood_429']} |"
        )


if __name__ == "__main__":
    main()
