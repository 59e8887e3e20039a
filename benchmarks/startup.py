"""Start-up as a user feels it: whole processes timed from spawn to exit (or, for ``kioko serve``, to the first
answer of ``/healthz``), several runs each, next to plain interpreters doing nothing.

    python benchmarks/startup.py [--runs 10] [--count 2000] [--tree before=/path/to/old/checkout ...]
        [--embedder offline|semantic] [--only 'kioko recall,...']

Rows: ``python -c pass`` and ``python -c "import sqlite3"`` (what any Python program pays), ``import kioko``,
``kioko --version``, ``kioko recall`` on a SQLite file holding ``--count`` memories of one user
(``benchmarks/synthetic.py``, linked at write time, offline embedder), and ``kioko serve`` until ``/healthz`` answers on
127.0.0.1. Each run is a fresh process (``python -m kioko ...``, which is what the ``kioko`` script runs),
measured in wall clock; the rows are interleaved run by run, so load on the machine falls on all of them
alike. Reported: min / median / max over the runs, the median as a multiple of ``python -c pass``, and the
issue's goal for the row.

``--tree NAME=DIR`` (repeatable) measures the kioko rows once per source tree (PYTHONPATH=DIR), e.g. a
checkout of the commit before a change beside the current one, in the same interleaved runs: a before/after
in one run. Default: this checkout only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

GOALS = {"import kioko": 0.25, "kioko --version": 0.3, "kioko recall": 0.5, "kioko serve (to /healthz)": 1.5}
USER = "startup-bench"
QUESTION = "what broke in the payments deploy and who fixed it?"


@dataclass
class Row:
    name: str
    tree: str | None  # None: a baseline, run without any kioko tree on the path
    argv: list[str]
    serve: bool = False
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    """CPU seconds (user + system) of the process: what a busy machine inflates far less than wall time."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def environment(tree: str | None) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE off: an installed package runs from compiled .pyc files (the untimed warm-up run
    # writes them); without them every run would compile every module and time the compiler
    drop = ("PYTHONPATH", "KIOKO_URL", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if tree is not None:
        env["PYTHONPATH"] = tree
    env["NO_COLOR"] = "1"
    return env


def time_process(row: Row, env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall seconds from spawn to exit, and the child's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(row.argv, env=env, capture_output=True, timeout=120, cwd=cwd)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{row.name} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_so_far(pid: int) -> float:
    """CPU seconds a running process has used (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_serve(row: Row, env: dict[str, str], store: str, cwd: str) -> tuple[float, float]:
    """Spawn to the first 200 from /healthz, and the server's CPU seconds until then; then the server is
    stopped (SIGTERM) and waited for, untimed."""
    port = free_port()
    argv = [*row.argv, "--store", store, "--port", str(port), "--host", "127.0.0.1", "--log-level", "warning"]
    started = time.perf_counter()
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"{row.name} exited ({server.returncode}): {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - started, cpu_so_far(server.pid)
            except OSError:
                time.sleep(0.005)
            if time.perf_counter() - started > 60:
                raise SystemExit(f"{row.name}: /healthz did not answer within 60 s")
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def fill(path: Path, count: int, embedder: str = "offline") -> str:
    from synthetic import generate_notes

    import kioko

    url = f"sqlite:///{path}"
    notes = generate_notes(count, seed=28)
    # the offline embedder by default, as every earlier run of this benchmark (connect() now defaults to the
    # semantic one where its extra is installed); the file's 256-number vectors keep it when `kioko recall`
    # opens the file. With "semantic" the file holds 384-number vectors, and `kioko recall` (no embedder named)
    # embeds the question with the semantic model: the first embedding of its process.
    with kioko.connect(url, auto_link=True, embedder=embedder) as layer:
        layer.add_many(
            [{"content": n.content, "memory_type": n.memory_type, "session_id": n.session_id} for n in notes],
            user_id=USER,
        )
    return url


def build_rows(trees: dict[str, str], url: str) -> list[Row]:
    python = sys.executable
    rows = [
        Row("python -c pass", None, [python, "-c", "pass"]),
        Row('python -c "import sqlite3"', None, [python, "-c", "import sqlite3"]),
    ]
    for name in trees:
        rows += [
            Row("import kioko", name, [python, "-c", "import kioko"]),
            Row("kioko --version", name, [python, "-m", "kioko", "--version"]),
            Row("kioko recall", name, [python, "-m", "kioko", "recall", QUESTION, "--store", url, "--user", USER]),
            Row("kioko serve (to /healthz)", name, [python, "-m", "kioko", "serve"], serve=True),
        ]
    return rows


def table(rows: list[Row], multi_tree: bool) -> str:
    """One line per row; ratios to ``python -c pass`` by median and by best run (the best run is what an idle
    machine gives; on a loaded one the median carries the load)."""
    base, base_min = statistics.median(rows[0].times), min(rows[0].times)
    head = (
        "| process | "
        + ("tree | " if multi_tree else "")
        + "min s | median s | max s | x pass (median) | x pass (min) | "
        "CPU s (median) | goal: median / min |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for row in rows:
        median, best = statistics.median(row.times), min(row.times)
        goal = GOALS.get(row.name)
        verdict = "" if goal is None else f"< {goal} s: {_met(median < goal)} / {_met(best < goal)}"
        tree = f"{row.tree or '-'} | " if multi_tree else ""
        lines.append(
            f"| {row.name} | {tree}{best:.3f} | {median:.3f} | {max(row.times):.3f} | "
            f"{median / base:.1f} | {best / base_min:.1f} | {statistics.median(row.cpu):.3f} | {verdict} |"
        )
    return "\n".join(lines)


def _met(yes: bool) -> str:
    return "met" if yes else "missed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs of every row first (page cache)")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--out", type=Path, help="write the table (.md) and the raw times (.json) here")
    parser.add_argument(
        "--embedder",
        choices=("offline", "semantic"),
        default="offline",
        help="what the file is filled with (semantic: kioko recall embeds its question with the model; the "
        "model's prepared copy goes to a KIOKO_CACHE_DIR inside the scratch folder, made by the warm-up run)",
    )
    parser.add_argument("--only", default="", help="comma-separated row names to keep (e.g. 'kioko recall')")
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.tree) or {"this": str(ROOT)}
    trees = {name: str(Path(tree).resolve()) for name, tree in trees.items()}

    with tempfile.TemporaryDirectory(prefix="kioko-startup-") as folder:
        started = time.perf_counter()
        if args.embedder == "semantic":
            os.environ["KIOKO_CACHE_DIR"] = str(Path(folder) / "cache")  # inherited by every timed process
            os.environ.pop("KIOKO_EMBEDDER", None)
        url = fill(Path(folder) / "bench.db", args.count, args.embedder)
        print(f"filled {args.count} memories in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        rows = build_rows(trees, url)
        if args.only:
            kept = {name.strip() for name in args.only.split(",")}
            rows = rows[:1] + [row for row in rows[1:] if row.name in kept]
        for run in range(args.warmup + args.runs):
            for row in rows:
                env = environment(trees.get(row.tree or ""))
                # run from the scratch folder: python -c / -m put the working directory first on sys.path,
                # where a checkout would win over the tree named in PYTHONPATH
                elapsed, cpu = time_serve(row, env, url, folder) if row.serve else time_process(row, env, folder)
                if run >= args.warmup:
                    row.times.append(elapsed)
                    row.cpu.append(cpu)
            print(f"run {run + 1}/{args.warmup + args.runs}", file=sys.stderr)

    header = (
        f"{args.runs} runs per row (after {args.warmup} untimed), {args.count} memories "
        f"({args.embedder} embedder), "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average at the end "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; trees: "
        + ", ".join(f"{name}={tree}" for name, tree in trees.items())
    )
    text = header + "\n\n" + table(rows, len(trees) > 1)
    print(text)
    if args.out:
        args.out.with_suffix(".md").write_text(text + "\n")
        raw = [{"name": r.name, "tree": r.tree, "argv": r.argv[1:], "times": r.times, "cpu": r.cpu} for r in rows]
        args.out.with_suffix(".json").write_text(json.dumps({"header": header, "rows": raw}, indent=2) + "\n")


if __name__ == "__main__":
    main()
