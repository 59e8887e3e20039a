"""Peak memory of ``kioko serve`` while it takes a large ``POST /v1/import``, before and after imports were streamed.

    python benchmarks/import_memory.py --before /tmp/before --mb 100

An export of ``--mb`` megabytes (one user, records of about 1.5 KB of text each, no vectors) is written to a
temporary file; for each server (``before``: the checkout given by ``--before``; ``after``: this one) ``kioko
serve`` runs over a SQLite file in a temporary directory, the file is streamed to ``/v1/import`` from disk,
and the server's resident memory is read from /proc (Linux): before the import, its peak (VmHWM) over the
import, and what it keeps after. Loopback only. Results: benchmarks/results/import-memory.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
WORDS = "line plant shift encoder cable cabinet fault boiler pump valve sensor report night morning crew".split()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_export(path: Path, megabytes: int) -> int:
    rng = random.Random(7)
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"format": "kioko-export", "version": 1, "user_id": "ana", "agent_ids": []}) + "\n")
        while out.tell() < megabytes * 1_000_000:
            content = " ".join(rng.choice(WORDS) + "x" + str(rng.randrange(100)) for _ in range(180))
            record = {"id": f"m{count:08d}", "user_id": "ana", "agent_id": None, "kind": "factual", "content": content}
            record.update(metadata={}, terms=[], session_id=None, created_at=1.7e9, updated_at=1.7e9, version=1)
            out.write(json.dumps({"record": record}) + "\n")
            count += 1
        out.write(json.dumps({"end": {"records": count}}) + "\n")
    return count


def memory_of(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid`` in MB (Linux)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) // 1024
    return found


def chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as source:
        while block := source.read(1 << 20):
            yield block


def run(name: str, tree: Path, export: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        command = [sys.executable, "-m", "kioko", "serve", "--store", f"sqlite:///{folder}/k.db", "--port", str(port)]
        command += ["--log-level", "warning", "--no-linking"]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            idle = memory_of(process.pid)
            began = time.perf_counter()
            answer = httpx.post(
                f"{url}/v1/import",
                content=chunks(export),
                headers={"content-type": "application/x-ndjson"},
                timeout=3600,
            )
            seconds = time.perf_counter() - began
            after = memory_of(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=60)
    row = {
        "server": name,
        "status": answer.status_code,
        "answer": answer.json() if answer.status_code == 200 else answer.text[:200],
        "rss_before_mb": idle["VmRSS"],
        "peak_mb": after["VmHWM"],
        "rss_after_mb": after["VmRSS"],
        "seconds": round(seconds, 1),
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout of Kioko before imports were streamed")
    parser.add_argument("--mb", type=int, default=100, help="size of the export in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "export.jsonl"
        records = write_export(export, args.mb)
        size = export.stat().st_size / 1e6
        print(f"export: {records} records, {size:.0f} MB", flush=True)
        rows = [run("before", Path(args.before), export), run("after", ROOT, export)]
    print(f"\n{args.mb} MB import ({records} records), `python benchmarks/import_memory.py --mb {args.mb}`\n")
    print("| server | status | RSS before MB | peak MB | RSS after MB | seconds |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['server']} | {r['status']} | {r['rss_before_mb']} | {r['peak_mb']} | {r['rss_after_mb']} | "
            f"{r['seconds']} |"
        )


if __name__ == "__main__":
    main()
