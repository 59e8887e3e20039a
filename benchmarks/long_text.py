"""What one long memory costs to add, and whether that cost is linear in its length (issue 15, "Long texts").

    python benchmarks/long_text.py [--sizes 20000,100000,1000000] [--repeats 3] [--stores memory,sqlite]
                                   [--out benchmarks/results/long-text.md]

Adds texts of each size (prose notes mixed with log lines, ticket and error codes, addresses and numbers:
one seeded generator for every size, a different seed for every repeat so no cache helps) on memory:// and
on a SQLite file, each into a fresh user so no add links to another. Reports the median CPU time of the
whole add and of its stages, measured inside the real add:

- secrets: ``DropSecrets.check`` (every text a write stores is scanned for credentials);
- analysis: ``kioko_core.reading.analysis.analyze`` and its text scan (entities, terms, word stems);
- embedding: the embedder's own work, analysis excluded (the offline embedder hashes the analysed words);
- rest: everything else (limits, duplicate check, linking, index and store writes).

Stages nest (the embedder calls analysis), so each is timed exclusive of the stages it calls. The last
columns divide each stage's time per KB by the smallest size's, so 1.0 means linear in the text's length.
``content_bytes`` is raised above the largest size for the run (the default limit is 256 KiB).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import generate_notes  # noqa: E402

import kioko  # noqa: E402
import kioko_core.embedding.embedders as embedding_module  # noqa: E402
import kioko_core.privacy.secrets as secrets_module  # noqa: E402
import kioko_core.reading.analysis as text_module  # noqa: E402

STAGES = ("secrets", "analysis", "embedding", "rest")

# --------------------------------------------------------------------------- the text

_LEVELS = ("INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG")
_SERVICES = ("ingest", "recall-api", "linker", "scheduler", "plc-gateway", "billing")
_MESSAGES = (
    "request served path=/v1/memories status={status} latency_ms={ms}",
    "retrying upstream call attempt={n} of 5 after {ms} ms",
    "worker {n} picked job {hexid} from queue default",
    "connection pool size={n} in_use={m} waiting=0",
    "cache miss for key user:{n}:profile, loaded in {ms} ms",
    "drive fault E-{code} on line {n}, operator notified",
    "ticket INC-{ticket} updated by ops, state=investigating",
    "the password reset flow took {ms} ms for tenant t{n}",
    "token refresh scheduled in {n} minutes for session s-{m}",
    "client 10.20.{n}.{m} connected to port {port}",
)
_PROSE = (
    "We walked through the incident review on {day} and agreed that the {thing} needs a second look before "
    "the next release. {person} will write up what happened, including the {pct}% error rate seen at peak.",
    "The migration plan has {n} steps; step {m} is the risky one because it rewrites the {thing} in place. "
    "A dry run on the staging copy took {ms} ms per batch, which is within budget.",
    "Notes from the call with {person}: they want weekly summaries, prefer email to chat, and asked whether "
    "the API key rotation policy covers the {thing}. It does, every 90 days.",
    "Reading list for the quarter: chapters {n} to {m} of the operations handbook, and the postmortem about "
    "the {thing} outage, which cost about {pct} minutes of downtime.",
)
_THINGS = ("conveyor controller", "billing export", "search index", "label printer", "backup job", "VPN gateway")
_PEOPLE = ("Kumar", "Mel", "Caroline", "Jon", "Priya", "Anke")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _blocks(seed: int) -> Iterator[str]:
    """Paragraphs for ever: a few synthetic notes, a burst of log lines, a paragraph of prose, in turn."""
    rng = random.Random(seed)
    notes = [note.content for note in generate_notes(400, seed=seed)]
    clock = 1_767_225_600 + rng.randint(0, 86_400)
    while True:
        yield " ".join(rng.sample(notes, rng.randint(3, 8)))
        lines = []
        for _ in range(rng.randint(4, 12)):
            clock += rng.randint(1, 90)
            message = rng.choice(_MESSAGES).format(
                status=rng.choice((200, 200, 201, 404, 500, 503)),
                ms=rng.randint(1, 4000),
                n=rng.randint(1, 64),
                m=rng.randint(1, 250),
                hexid=f"{rng.getrandbits(48):012x}",
                code=rng.randint(100, 999),
                ticket=rng.randint(1000, 9999),
                port=rng.choice((443, 4840, 5432, 6333, 8080)),
            )
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock))
            lines.append(f"{stamp} {rng.choice(_LEVELS)} {rng.choice(_SERVICES)}: {message}")
        yield "\n".join(lines)
        yield rng.choice(_PROSE).format(
            day=rng.choice(_DAYS),
            thing=rng.choice(_THINGS),
            person=rng.choice(_PEOPLE),
            pct=rng.randint(2, 40),
            n=rng.randint(2, 12),
            m=rng.randint(1, 12),
            ms=rng.randint(5, 900),
        )


def long_text(size: int, seed: int = 0) -> str:
    """A text of ``size`` UTF-8 bytes (ASCII) less the end of its last word, the same for the same ``(size, seed)``."""
    pieces: list[str] = []
    length = 0
    for block in _blocks(seed):
        pieces.append(block)
        length += len(block) + 2
        if length >= size:
            break
    text = "\n\n".join(pieces)[:size]
    return text[: text.rstrip().rfind(" ")] + "." if not text[-1].isspace() else text


_DENSE = "On shift {i} Kumar saw fault E-{i} on Cell {c}B near INC-{i}; Ravi Shankar fixed it. "


def dense_text(size: int, seed: int = 0) -> str:
    """The worst case for analysis and linking: a sentence of names and new identifiers again and again (the
    text of ``benchmarks/drills.py``'s 1 MB add), cut to ``size`` bytes."""
    pieces: list[str] = []
    length = 0
    number = seed * 1_000_000
    while length < size:
        pieces.append(_DENSE.format(i=number, c=number % 90))
        length += len(pieces[-1])
        number += 1
    return "".join(pieces)[:size]


TEXTS = {"mixed": long_text, "dense": dense_text}


# --------------------------------------------------------------------------- timing the stages


class StageClock:
    """CPU time per stage, each exclusive of the stages it calls (the embedder calls analysis)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self._stack: list[list[float]] = []  # [start, time spent in nested stages]

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self._stack.append([time.process_time(), 0.0])
        try:
            yield
        finally:
            start, nested = self._stack.pop()
            took = time.process_time() - start
            self.spent[name] += took - nested
            if self._stack:
                self._stack[-1][1] += took

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return function(*args, **kwargs)

        return timed


def instrument(clock: StageClock) -> Callable[[], None]:
    """Time the stages where they run, by wrapping the functions every caller reaches them through.

    Returns the function that puts the originals back (a test runs the benchmark inside its own process)."""
    check = secrets_module.DropSecrets.check
    # the hashing: embed() and a write that read its text already (embed_analysis) both reach it
    embed = embedding_module.OfflineEmbedder.embed_analysis
    analyze = text_module.analyze
    secrets_module.DropSecrets.check = clock.wrap("secrets", check)  # type: ignore[method-assign]
    embedding_module.OfflineEmbedder.embed_analysis = clock.wrap("embedding", embed)  # type: ignore[method-assign]
    timed_analyze = clock.wrap("analysis", analyze)
    wrapped = [
        module
        for module in list(sys.modules.values())
        if getattr(module, "__name__", "").startswith("kioko") and getattr(module, "analyze", None) is analyze
    ]
    for module in wrapped:
        module.analyze = timed_analyze  # type: ignore[attr-defined]

    def restore() -> None:
        secrets_module.DropSecrets.check = check  # type: ignore[method-assign]
        embedding_module.OfflineEmbedder.embed_analysis = embed  # type: ignore[method-assign]
        for module in wrapped:
            module.analyze = analyze  # type: ignore[attr-defined]

    return restore


# --------------------------------------------------------------------------- the run


def measure(
    url: str, sizes: list[int], repeats: int, clock: StageClock, make: Callable[[int, int], str] = long_text
) -> dict[int, dict[str, float]]:
    """Median CPU ms of the add and of each stage, per size."""
    layer = kioko.connect(url, auto_link=False, limits={"content_bytes": max(sizes) + 1024})  # measured unlinked
    results: dict[int, dict[str, float]] = {}
    try:
        layer.add(make(min(sizes), 999), user_id="warm-up")  # first-call costs are not the text's
        for size in sizes:
            runs: dict[str, list[float]] = defaultdict(list)
            for repeat in range(repeats):
                text = make(size, repeat)
                clock.spent.clear()
                started = time.process_time()
                layer.add(text, user_id=f"u{size}-{repeat}")
                total = (time.process_time() - started) * 1000
                staged = {name: clock.spent[name] * 1000 for name in STAGES[:-1]}
                runs["total"].append(total)
                for name, value in staged.items():
                    runs[name].append(value)
                runs["rest"].append(total - sum(staged.values()))
            results[size] = {name: statistics.median(values) for name, values in runs.items()}
    finally:
        layer.close()
    return results


def table(name: str, results: dict[int, dict[str, float]]) -> list[str]:
    sizes = sorted(results)
    smallest = sizes[0]
    head = ["size", "add CPU ms", *[f"{stage} ms" for stage in STAGES], "add ms/KB"]
    head += [f"{stage} per-KB ratio" for stage in ("add", *STAGES)]
    lines = [f"### {name}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in sizes:
        row = results[size]
        kb = size / 1000
        cells = [f"{size / 1000:,.0f} KB", f"{row['total']:.1f}", *[f"{row[stage]:.1f}" for stage in STAGES]]
        cells.append(f"{row['total'] / kb:.3f}")
        for stage in ("total", *STAGES):
            base = results[smallest][stage] / (smallest / 1000)
            cells.append(f"{(row[stage] / kb) / base:.2f}" if base > 0 else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="20000,100000,1000000", help="text sizes in bytes, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="adds per size and store (the median is shown)")
    parser.add_argument("--stores", default="memory,sqlite", help="memory and/or sqlite")
    parser.add_argument(
        "--text", choices=sorted(TEXTS), default="mixed", help="mixed: prose and logs; dense: names and identifiers"
    )
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    clock = StageClock()
    instrument(clock)
    sections: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for store in args.stores.split(","):
            url = "memory://" if store == "memory" else f"sqlite:///{folder}/long.db"
            name = url if store == "memory" else "sqlite:// (a file)"
            sections += table(name, measure(url, sizes, args.repeats, clock, TEXTS[args.text]))
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    command = "python benchmarks/long_text.py " + " ".join(sys.argv[1:])
    report = [
        f"## Long texts ({args.text}): CPU of one add by size and stage",
        "",
        f"`{command.strip()}` at {commit.stdout.strip() or '?'}, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {_load()}. Median of {args.repeats} adds "
        "per size (a different text each), each into a fresh user, after one warm-up add; CPU time (process_time), not wall time.",
        "A per-KB ratio of 1.00 means the stage costs the same per KB as at the smallest size (linear).",
        "",
        *sections,
    ]
    print("\n".join(report))
    if args.out:
        args.out.write_text("\n".join(report))


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


if __name__ == "__main__":
    main()
