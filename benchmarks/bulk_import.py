"""A linked import: ``add_many`` of one user's conversation history on SQLite, batched (now) beside one by one (before).

    python benchmarks/bulk_import.py [--sizes 10000,100000] [--before-max 10000] [--modes single,batched]
        [--chunk N] [--markdown PATH] [--json PATH]

The memories are conversational turns: the LoCoMo development half (``/work/shared/data/locomo``, 2,760 turns,
each stored as ``"Speaker: text"``, its session and time), then filler made from them until the user holds N: each
filler turn joins a sentence of one turn to a sentence of another (seeded), in sessions of 20 turns, an hour
after the one before. Ids are fixed (``t000001`` ...), so ties break alike and two runs can be compared.

For each size, on a fresh SQLite file, with linking on and the offline embedder:

- **batched**: one ``add_many`` call (kioko_core/layer/bulk.py: a batch of memories planned as ``add`` plans them, stored
  in one transaction), or with ``--chunk N`` one call per N memories in one process, as an import read in parts
  would make them (the same links: each call's memories link to every earlier one); each call's CPU time is printed
  as it ends;
- **one by one**: ``add`` per memory, which is what ``add_many`` did before (up to ``--before-max`` memories: at
  6-15 ms a memory, 100,000 take 10 to 25 minutes).

Reported: wall and CPU time (this process) per memory, the load average around each run (the machine is shared),
the process's peak resident memory so far (``ru_maxrss``: a later row of one run includes the earlier rows' peak),
the link entries made, and a SHA-256 of every memory's links (entries in order, without the wall-clock ``at`` /
``seen``), terms and bookkeeping: the same digest in both columns means the batched import made exactly the links
adding one by one makes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko  # noqa: E402
from kioko_core.linking import links  # noqa: E402
from kioko_core.store import Scope  # noqa: E402

LOCOMO = Path("/work/shared/data/locomo")
USER = "importer"
SESSION_TURNS = 20


def _when(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp()


def locomo_turns() -> list[dict[str, Any]]:
    """Every turn of the development half, in order: content, session and time (a minute apart in a session)."""
    turns: list[dict[str, Any]] = []
    for path in sorted(LOCOMO.glob("*.json")):
        conversation = json.loads(path.read_text())
        sessions = sorted((int(m.group(1)), key) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
        for number, key in sessions:
            start = _when(conversation[f"{key}_date_time"])
            for position, turn in enumerate(conversation[key]):
                text = turn["text"] + (
                    f" [shares a photo of {turn['blip_caption']}]" if turn.get("blip_caption") else ""
                )
                turns.append(
                    {
                        "content": f"{turn['speaker']}: {text}",
                        "session_id": f"{path.stem}-{number}",
                        "created_at": start + 60 * position,
                    }
                )
    return turns


def conversation(count: int, seed: int = 34) -> list[dict[str, Any]]:
    """``count`` turns: LoCoMo's, then filler joined from their sentences (see the module)."""
    real = locomo_turns()
    rng = random.Random(seed)
    sentences = [s for t in real for s in re.split(r"(?<=[.!?])\s+", t["content"].split(": ", 1)[1]) if len(s) > 12]
    speakers = sorted({t["content"].split(": ", 1)[0] for t in real})
    items = real[:count]
    moment = max(t["created_at"] for t in real) + 86_400
    for number in range(count - len(items)):
        if number % SESSION_TURNS == 0:
            moment += 3_600
        text = f"{rng.choice(sentences)} {rng.choice(sentences)}"
        items.append(
            {
                "content": f"{rng.choice(speakers)}: {text}",
                "session_id": f"filler-{number // SESSION_TURNS}",
                "created_at": moment + 60 * (number % SESSION_TURNS),
            }
        )
    return [{**item, "id": f"t{number:06d}", "memory_type": "episodic"} for number, item in enumerate(items)]


def digest(layer: Any) -> tuple[int, str]:
    """(link entries, SHA-256 of every memory's links in order, terms and bookkeeping; times and versions left out)."""
    hashed = hashlib.sha256()
    entries = 0
    for record in sorted(layer.store.scan(Scope(USER)), key=lambda r: r.id):
        system = dict(record.system or {})
        kept = [{k: v for k, v in e.items() if k not in ("at", "seen")} for e in links.link_entries(record)]
        system.pop("links", None)
        system.pop("linked_at", None)
        entries += len(kept)
        row = {"id": record.id, "links": kept, "system": system, "terms": record.terms}
        hashed.update(json.dumps(row, sort_keys=True, default=str).encode())
    return entries, hashed.hexdigest()


def run(items: list[dict[str, Any]], batched: bool, folder: Path, chunk: int = 0) -> dict[str, Any]:
    path = folder / f"import-{len(items)}-{'batched' if batched else 'single'}.db"
    load_before = os.getloadavg()[0]
    with kioko.connect(f"sqlite:///{path}", auto_link=True, embedder="offline") as layer:
        wall, cpu = time.perf_counter(), time.process_time()
        if batched:
            step = chunk if chunk > 0 else len(items)
            for start in range(0, len(items), step):
                part, began = items[start : start + step], time.process_time()
                layer.add_many(part, user_id=USER)
                if step < len(items):
                    spent = time.process_time() - began
                    line = {"from": start, "cpu_ms_per_memory": round(1000 * spent / len(part), 3)}
                    print(json.dumps({**line, "load": round(os.getloadavg()[0], 1)}), flush=True)
        else:
            for item in items:
                layer.add(user_id=USER, **item)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        load_after = os.getloadavg()[0]
        entries, sha = digest(layer)
    path.unlink()
    return {
        "memories": len(items),
        "mode": ("batched" + (f", add_many per {chunk:,}" if 0 < chunk < len(items) else ""))
        if batched
        else "one by one",
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "wall_ms_per_memory": round(1000 * wall / len(items), 2),
        "cpu_ms_per_memory": round(1000 * cpu / len(items), 2),
        "load": [round(load_before, 1), round(load_after, 1)],
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "link_entries": entries,
        "digest": sha,
    }


def markdown(rows: list[dict[str, Any]], command: str) -> str:
    lines = [
        "# Linked import on SQLite: `add_many` batched vs one by one",
        "",
        f"`{command}` ({platform.python_version()}, {os.cpu_count()} CPUs shared by other sessions; offline embedder;"
        " LoCoMo development-half turns, then filler made from them; one user).",
        "",
        "| memories | mode | wall s | wall ms / memory | CPU s | CPU ms / memory | load before / after | peak MB"
        " | link entries | links digest |",
        "|---:|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['memories']:,} | {row['mode']} | {row['wall_s']} | {row['wall_ms_per_memory']} | {row['cpu_s']} |"
            f" {row['cpu_ms_per_memory']} | {row['load'][0]} / {row['load'][1]} | {row.get('peak_mb', '')} |"
            f" {row['link_entries']:,} |"
            f" `{row['digest'][:16]}` |"
        )
    same = {}
    for row in rows:
        same.setdefault(row["memories"], set()).add(row["digest"])
    lines += ["", "Links identical batched vs one by one: " + ", ".join(
        f"{size:,}: {'yes' if len(digests) == 1 else 'NO'}" + ("" if sum(r['memories'] == size for r in rows) > 1
                                                            else " (batched only)")
        for size, digests in same.items()
    ) + "."]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--before-max", type=int, default=10_000, help="largest size also run one by one")
    parser.add_argument(
        "--modes", default="single,batched", help="single (add one by one), batched (one add_many), or both"
    )
    parser.add_argument(
        "--chunk", type=int, default=0, help="batched: one add_many per this many memories (0: one call)"
    )
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="kioko-bulk-import-"))
    rows: list[dict[str, Any]] = []
    try:
        for size in sizes:
            items = conversation(size)
            for batched in (False, True):
                if ("batched" if batched else "single") not in args.modes.split(","):
                    continue
                if not batched and size > args.before_max:
                    continue
                rows.append(run(items, batched, folder, args.chunk))
                print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    command = "python benchmarks/bulk_import.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.markdown:
        args.markdown.write_text(markdown(rows, command.strip()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
