"""``kioko reembed``: a linked SQLite store of one user moved from the offline to the semantic embedder.

    python benchmarks/reembed.py [--count 10000] [--batch 200] [--out benchmarks/results/reembed.md]

Builds a store of ``--count`` memories (``benchmarks/synthetic.py`` notes, linked at write time, offline
embedder), then, in one run and side by side:

- ``embed only``: the semantic embedder alone over the same texts, in the same batches: the floor any
  re-embedding pays;
- ``kioko.reembed``: the whole move (read every record, embed, write a new file, swap it in), and its ratio to
  the floor;

and checks what the issue asks of the result: every record's links, metadata and history the same as
before (compared record by record), every vector 384 numbers, and recall answering after (hits for a few
questions). Wall and CPU seconds; the machine's load is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import generate_notes, generate_questions  # noqa: E402

import kioko  # noqa: E402
from kioko_core.embedding.embedders import embed_many, load_embedder  # noqa: E402
from kioko_core.layer.records import LayerStore  # noqa: E402
from kioko_core.layer.reembed import listed_scopes  # noqa: E402

USER = "reembed-bench"


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def snapshot(url: str) -> dict[str, dict]:
    store = LayerStore(kioko.open_store(url))
    try:
        return {
            r.id: r.model_dump(exclude={"embedding", "version"})
            for scope in listed_scopes(store) or []
            if scope.user_id != "@kioko"
            for r in store.scan(scope)
        }
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="kioko-reembed-")
    url = f"sqlite:///{os.path.join(folder, 'store.db')}"
    notes = generate_notes(args.count)
    started = time.perf_counter()
    with kioko.connect(url, embedder="offline", auto_link=True) as memory:
        memory.add_many(
            [{"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at} for n in notes],
            user_id=USER,
        )
    fill = time.perf_counter() - started
    before = snapshot(url)
    links = sum(len((r["system"] or {}).get("links", [])) for r in before.values())

    semantic = load_embedder("semantic")
    texts = [n.content for n in notes]
    embed_many(semantic, texts[:32])  # the model loaded before either row is timed
    wall, spent = time.perf_counter(), cpu()
    for start in range(0, len(texts), args.batch):
        embed_many(semantic, texts[start : start + args.batch])
    floor = (time.perf_counter() - wall, cpu() - spent)

    semantic.clear_cache()  # type: ignore[attr-defined]  # the move embeds every text, not the floor's vectors
    wall, spent = time.perf_counter(), cpu()
    report = kioko.reembed(url, semantic, batch=args.batch)
    move = (time.perf_counter() - wall, cpu() - spent)

    after = snapshot(url)
    unchanged = after == before
    with kioko.connect(url) as memory:
        dims = {r.embedding.shape[0] for r in memory.store.scan(kioko.Scope(USER)) if r.embedding is not None}
        answered = sum(bool(memory.search(q, user_id=USER, limit=5)) for q in generate_questions(10))
        marked = f"{memory.store_mark.embedder} ({memory.store_mark.dim})"
    load = os.getloadavg()
    lines = [
        f"# kioko reembed: {args.count:,} linked memories, SQLite, offline -> semantic",
        "",
        f"`python benchmarks/reembed.py --count {args.count} --batch {args.batch}` "
        f"(load {load[0]:.1f} / {load[1]:.1f}, {os.cpu_count()} cores; store filled in {fill:.0f} s)",
        "",
        "| row | wall s | CPU s | wall / embed only |",
        "| --- | ---: | ---: | ---: |",
        f"| embed only (the floor) | {floor[0]:.1f} | {floor[1]:.1f} | 1.00 |",
        f"| kioko.reembed | {move[0]:.1f} | {move[1]:.1f} | {move[0] / floor[0]:.2f} |",
        "",
        f"- re-embedded: {report.reembedded:,} records in {report.scopes} scopes; copied without a vector: "
        f"{report.copied}",
        f"- every record's links, metadata and history unchanged: **{unchanged}** ({len(before):,} records, "
        f"{links:,} link entries compared)",
        f"- vector lengths after: {sorted(dims)}; the mark: {marked}",
        f"- recall after: {answered}/10 questions answered with hits",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0 if unchanged and dims == {384} else 1


if __name__ == "__main__":
    raise SystemExit(main())
