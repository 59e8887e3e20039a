"""Recall's ranking variants side by side on one user_scale fill: which RecallConfig keeps R@10 as the user grows?

    python benchmarks/recall_variants.py [--sizes 1000,10000,100000] [--conversation 26]
        [--variant NAME='{"distinct_read": 200}' ...] [--data ../shared/data/locomo] [--json PATH] [--markdown PATH]

One SQLite file is filled once, as ``benchmarks/user_scale.py --store sqlite --fill store`` fills it (the same
conversation, the same renamed filler in sessions, the same ids and dates), and a copy of it is kept at each size.
Every variant then asks every question of the conversation on its own copy of each size, as ``user_scale.py``
asks them (once untimed, then timed: the warm pass), through a layer made with that variant's ``recall_config``.
The row named ``default`` is today's ranking: it gives ``user_scale.py``'s R@10 and answers digest at each size,
so each other row is read against it from the same run and the same fill. Filling 100,000 once (a few minutes)
instead of once per variant is what makes trying several rankings affordable on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from benchmarks import user_scale as scale  # noqa: E402
from benchmarks.locomo_recall import DEFAULT_DATA, _commit, load_conversation  # noqa: E402
from kioko_core.store import Scope  # noqa: E402

USER = "user-scale"


def fill(folder: Path, args: argparse.Namespace) -> tuple[scale.Held, list[Any], list[int]]:
    """The user_scale fill on SQLite, a copy of the file kept at each size: (what is held, the questions, sizes)."""
    data = Path(args.data)
    conversations = {p.stem: load_conversation(p) for p in sorted(data.glob("*.json"))}
    asked = conversations[args.conversation]
    others = [c for name, c in conversations.items() if name != args.conversation]
    sizes = sorted(int(s) for s in args.sizes.split(","))
    work = folder / "fill.db"
    layer = kioko.connect(f"sqlite:///{work}", auto_link=False, embedder="offline")
    records = layer.add_many(scale.conversation_items(asked), user_id=USER)
    held = scale.Held({r.id: t.dia_id for r, t in zip(records, asked.turns)}, [], [])
    source = scale.filler(asked, others, renamed=True, sessions=True)
    last = max(t.created_at for t in asked.turns)
    written, count = 0, len(asked.turns)
    writing = argparse.Namespace(fill="store")
    for size in sizes:
        batch = scale.filler_items(source, asked.name, last, written, max(0, size - count))
        written += len(batch)
        for start in range(0, len(batch), 5_000):
            scale.write(layer, batch[start : start + 5_000], USER, writing)
        count = max(count, size)
        layer.close()  # the file is whole on disk before it is copied
        shutil.copy(work, folder / f"size-{size}.db")
        layer = kioko.connect(f"sqlite:///{work}", auto_link=False, embedder="offline")
    layer.close()
    return held, asked.questions, sizes


def ask(folder: Path, size: int, config: dict[str, Any], held: scale.Held, questions: Sequence[Any]) -> dict[str, Any]:
    """Every question asked on a fresh copy of the size's file through a layer with ``config``."""
    copy = folder / "asked" / f"size-{size}.db"
    shutil.rmtree(copy.parent, ignore_errors=True)
    copy.parent.mkdir()
    shutil.copy(folder / f"size-{size}.db", copy)
    layer = kioko.connect(f"sqlite:///{copy}", auto_link=False, embedder="offline", recall_config=config or None)
    try:
        return scale.measure(layer, Scope(USER), held, questions, 0, scale.ServerCpu(None))
    finally:
        layer.close()


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, given, config = text.partition("=")
    try:
        value = json.loads(config) if given else None
    except json.JSONDecodeError:
        value = None
    if not name or not isinstance(value, dict):
        raise SystemExit(f"--variant NAME='{{json of RecallConfig fields}}', got {text!r}")
    return name, value


def run(args: argparse.Namespace) -> dict[str, Any]:
    variants = dict([("default", {}), *(parse_variant(v) for v in args.variant)])
    header = {
        "command": "python benchmarks/recall_variants.py " + " ".join(sys.argv[1:]),
        "commit": _commit(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_at_start": [round(v, 1) for v in os.getloadavg()],
        "conversation": args.conversation,
        "variants": variants,
    }
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="recall-variants-") as name:
        folder = Path(name)
        held, questions, sizes = fill(folder, args)
        for size in sizes:
            for variant, config in variants.items():
                measured = ask(folder, size, config, held, questions)
                row = {"size": size, "variant": variant, **measured}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    return {"header": header, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    h, rows = result["header"], result["rows"]
    first = min(r["size"] for r in rows)
    base = {r["variant"]: r["r10"] for r in rows if r["size"] == first}
    lines = [
        f"# Recall variants on one user_scale fill (conversation {h['conversation']}, SQLite)",
        "",
        f"Command: `{h['command']}`  ",
        f"Commit: {h['commit']}, {h['machine']}, load at start {h['load_at_start']}  ",
        "Variants (RecallConfig fields changed): "
        + "; ".join(f"{name} {json.dumps(config)}" for name, config in h["variants"].items()),
        "",
        f"| memories | variant | R@10 | x at {first:,} | R@5 | recall CPU p50 / p95 ms | load | answers digest |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | {r['variant']} | {r['r10']:.3f} | {r['r10'] / base[r['variant']]:.3f} | "
            f"{r['r5']:.3f} | {r['recall_cpu_p50_ms']:.2f} / {r['recall_cpu_p95_ms']:.2f} | "
            f"{r['load_while_asked']} | {r['answers_digest']} |"
        )
    lines += [
        "",
        "The default row is what `benchmarks/user_scale.py --store sqlite --fill store` measures on the same tree "
        "(the same fill, the same warm pass); CPU is this process's, per recall, on a machine shared with others "
        "(load: the 1-minute load average as each row was asked, 2 cores).",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--conversation", default="26", help="the development conversation whose questions are asked")
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME='{json of RecallConfig fields}' (repeatable)"
    )
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--markdown", dest="markdown_path")
    args = parser.parse_args(argv)
    result = run(args)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    if args.markdown_path:
        Path(args.markdown_path).write_text(text)
    print(text)
    return result


if __name__ == "__main__":
    main()
