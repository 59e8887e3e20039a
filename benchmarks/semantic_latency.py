"""The semantic embedder's cost per text, runtime by runtime, side by side in one run.

    python benchmarks/semantic_latency.py [--data ../shared/data/locomo] [--texts 200] [--busy 0]
        [--markdown FILE] [--json FILE]

Rows: the numpy forward pass (one BLAS thread for a small batch, as Kioko runs it, and the library's default
threads), ONNX Runtime in float32 (Kioko's default runtime), and ONNX Runtime int8 on one and two threads.
Columns: a question embedded alone (what a recall pays; LoCoMo questions), memories embedded through
``embed_many`` (what ``add_many`` pays; LoCoMo turns), the tokenizer's share, and how far each runtime's
vectors are from numpy float32 (cosine, minimum and mean over the turns). Timings are interleaved text by
text across the rows, so a change in the machine's load falls on every row alike; the cache of repeated
texts is bypassed (every text is new to the embedder). CPU columns are the process's CPU time (all its
threads): on a loaded machine they are closer than the wall times to what an idle machine shows. ``--busy N`` adds N processes spinning on the cores.
Without the LoCoMo files, generated sentences stand in.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko_core.embedding.semantic as semantic  # noqa: E402


def _spin() -> None:
    while True:
        pass


@contextmanager
def _spinning(count: int) -> Iterator[None]:
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for spinner in spinners:
        spinner.start()
    if spinners:
        time.sleep(1.0)
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()


def locomo_texts(folder: Path, count: int) -> tuple[list[str], list[str]]:
    """(questions, turns) from the LoCoMo files, or generated sentences when the folder is missing."""
    questions: list[str] = []
    turns: list[str] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        sample = json.loads(path.read_text())
        questions += [str(qa["question"]) for qa in sample.get("qa", []) if qa.get("question")]
        number = 1
        while isinstance(sample.get(f"session_{number}"), list):
            turns += [f"{t['speaker']}: {t['text']}" for t in sample[f"session_{number}"] if t.get("text")]
            number += 1
    if not questions or not turns:
        questions = [f"When did Caroline go to the support group number {i}?" for i in range(count)]
        turns = [
            f"Caroline: I went to the support group on day {i} and talked about the adoption agency."
            for i in range(count)
        ]
    # spread over the files, not only the first conversation
    step_q, step_t = max(1, len(questions) // count), max(1, len(turns) // count)
    return questions[::step_q][:count], turns[::step_t][:count]


class Row:
    def __init__(self, name: str, embed_one: Callable[[str], Any], embed_many: Callable[[list[str]], Any]):
        self.name = name
        self.embed_one = embed_one
        self.embed_many = embed_many
        self.query_ms: list[float] = []
        self.query_cpu_ms: list[float] = []
        self.memory_ms: float = 0.0
        self.memory_cpu_ms: float = 0.0
        self.vectors: np.ndarray | None = None


def _numpy_default_threads(texts: list[str]) -> np.ndarray:
    # a threshold of 0 tokens sends every batch down the default-threads path
    saved = semantic.SMALL_BATCH_TOKENS
    semantic.SMALL_BATCH_TOKENS = 0
    try:
        return semantic.embed_texts(semantic.shared_model(), texts)
    finally:
        semantic.SMALL_BATCH_TOKENS = saved


def build_rows() -> list[Row]:
    rows = []
    numpy_embedder = semantic.MiniLMEmbedder(runtime="numpy")
    rows.append(
        Row(
            "numpy, 1 BLAS thread (before)",
            lambda t: numpy_embedder._encode_uncached([t]),
            numpy_embedder._encode_uncached,
        )
    )
    rows.append(Row("numpy, default BLAS threads", lambda t: _numpy_default_threads([t]), _numpy_default_threads))
    for runtime, threads in (("onnx", 1), ("onnx-int8", 1), ("onnx-int8", 2)):
        embedder = semantic.MiniLMEmbedder(runtime=runtime, threads=threads).load()
        label = f"{runtime}, {threads} thread{'s' if threads > 1 else ''}" + (
            " (Kioko's default)" if (runtime, threads) == (semantic.default_runtime(), 1) else ""
        )
        rows.append(Row(label, lambda t, e=embedder: e._encode_uncached([t]), embedder._encode_uncached))
    return rows


def measure(rows: list[Row], questions: list[str], turns: list[str]) -> float:
    """Fills every row; returns the tokenizer's ms per question."""
    model = semantic.shared_model()
    for row in rows:  # warm-up: models, sessions and BLAS loaded before anything is timed
        row.embed_many(turns[:4])
    for question in questions:
        for row in rows:
            started, cpu = time.perf_counter(), time.process_time()
            row.embed_one(question)
            row.query_ms.append((time.perf_counter() - started) * 1000)
            row.query_cpu_ms.append((time.process_time() - cpu) * 1000)
    for row in rows:
        started, cpu = time.perf_counter(), time.process_time()
        row.vectors = np.asarray(row.embed_many(turns))
        row.memory_ms = (time.perf_counter() - started) * 1000 / len(turns)
        row.memory_cpu_ms = (time.process_time() - cpu) * 1000 / len(turns)
    started = time.perf_counter()
    for question in questions:
        semantic.tokenize(model, [question])
    return (time.perf_counter() - started) * 1000 / len(questions)


# --------------------------------------------------------------------------- ingest: add_many, whole


INGEST_ROWS = (
    ("offline embedder (no model)", "offline", True),
    ("semantic, embedded first, then linked (before)", "semantic", False),
    ("semantic, embedded ahead in a thread (now)", "semantic", True),
)


def _embed_all_first(embedder: Any, texts: Any) -> Any:
    """add_many's previous order: every vector computed in one call before the first write."""
    from kioko_core.embedding.embedders import embed_many

    return iter(embed_many(embedder, list(texts)))


def measure_ingest(folder: Path, names: list[str], rounds: int) -> list[dict[str, Any]]:
    """``add_many`` of whole LoCoMo conversations (linking on, ``memory://``), the rows interleaved conversation
    by conversation and round by round; the model is loaded before anything is timed, and the cache of
    repeated texts is emptied before each semantic ingest (every text is new to the embedder)."""
    import uuid

    import kioko
    import kioko_core.layer.memory_layer as layer_module

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from locomo_recall import load_conversation

    conversations = [load_conversation(folder / f"{name}.json") for name in names]
    minilm = semantic.MiniLMEmbedder().load()
    ahead = layer_module.embed_ahead
    spent: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _, _ in INGEST_ROWS}
    for _ in range(rounds):
        for conversation in conversations:
            items = [
                {
                    "content": t.document,
                    "session_id": t.session,
                    "created_at": t.created_at,
                    "memory_type": "episodic",
                    "id": uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{conversation.name}/{t.dia_id}").hex,
                }
                for t in conversation.turns
            ]
            for label, name, embeds_ahead in INGEST_ROWS:
                layer = kioko.connect("memory://", auto_link=True, embedder=minilm if name == "semantic" else name)
                minilm.clear_cache()
                layer_module.embed_ahead = ahead if embeds_ahead else _embed_all_first  # type: ignore[assignment]
                try:
                    started, cpu = time.perf_counter(), time.process_time()
                    layer.add_many(items, user_id="ingest")
                    spent[label].append((time.perf_counter() - started, time.process_time() - cpu, len(items)))
                finally:
                    layer_module.embed_ahead = ahead
                    layer.close()
    rows = []
    for label, runs in spent.items():
        wall = [1000 * w / n for w, _, n in runs]
        cpu = [1000 * c / n for _, c, n in runs]
        rows.append(
            {
                "ingest (add_many, linking on)": label,
                "wall ms/memory median": round(statistics.median(wall), 2),
                "wall ms/memory min": round(min(wall), 2),
                "CPU ms/memory median": round(statistics.median(cpu), 2),
                "CPU ms/memory min": round(min(cpu), 2),
            }
        )
    return rows


def _table(rows: list[dict[str, Any]]) -> list[str]:
    columns = list(rows[0])
    return [
        "| " + " | ".join(columns) + " |",
        "|---|" + "---:|" * (len(columns) - 1),
        *("| " + " | ".join(str(r[c]) for c in columns) + " |" for r in rows),
    ]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "locomo")
    parser.add_argument("--texts", type=int, default=200, help="questions and turns per row")
    parser.add_argument("--busy", type=int, default=0, help="spinning processes added while measuring (0: none)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--json", type=Path, dest="json_path", help="also write the figures to this file")
    parser.add_argument(
        "--ingest",
        default="",
        help="also time add_many of these LoCoMo conversations (file stems, e.g. 26,30), before/after side by side",
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the ingest rows (interleaved)")
    parser.add_argument("--ingest-only", action="store_true", help="skip the per-text table")
    args = parser.parse_args()
    if args.ingest_only:
        return ingest_main(args)

    questions, turns = locomo_texts(args.data, args.texts)
    load_at_start = os.getloadavg()
    rows = build_rows()
    with _spinning(args.busy):
        tokenizer_ms = measure(rows, questions, turns)
    load_at_end = os.getloadavg()
    reference = rows[0].vectors
    assert reference is not None
    results = []
    for row in rows:
        assert row.vectors is not None
        cosines = (row.vectors * reference).sum(axis=1)
        results.append(
            {
                "runtime": row.name,
                "question p50 ms": round(statistics.median(row.query_ms), 2),
                "question p95 ms": round(_p95(row.query_ms), 2),
                "question CPU p50 ms": round(statistics.median(row.query_cpu_ms), 2),
                "memory ms (embed_many)": round(row.memory_ms, 2),
                "memory CPU ms": round(row.memory_cpu_ms, 2),
                "cosine to numpy min": round(float(cosines.min()), 4),
                "cosine to numpy mean": round(float(cosines.mean()), 4),
            }
        )
    mean_tokens = statistics.mean(len(ids) for ids in semantic.tokenize(semantic.shared_model(), questions))
    mean_turn_tokens = statistics.mean(len(ids) for ids in semantic.tokenize(semantic.shared_model(), turns))
    header = (
        f"{len(questions)} questions (mean {mean_tokens:.1f} tokens) and {len(turns)} turns (mean {mean_turn_tokens:.1f} "
        f"tokens) from {'LoCoMo' if args.data.is_dir() else 'generated sentences'}; {os.cpu_count()} cores, "
        f"{platform.machine()}, Python {platform.python_version()}; load average at start "
        f"{load_at_start[0]:.1f} / {load_at_start[1]:.1f} / {load_at_start[2]:.1f}, at end {load_at_end[0]:.1f}"
        f"{f'; {args.busy} spinning processes added' if args.busy else ''}. The tokenizer alone: "
        f"{tokenizer_ms:.3f} ms per question."
    )
    columns = list(results[0])
    lines = [
        header,
        "",
        "| " + " | ".join(columns) + " |",
        "|---|" + "---:|" * (len(columns) - 1),
        *("| " + " | ".join(str(r[c]) for c in columns) + " |" for r in results),
    ]
    text = "\n".join(lines)
    print(text)
    command = f"python benchmarks/semantic_latency.py --texts {args.texts}" + (
        f" --busy {args.busy}" if args.busy else ""
    )
    if args.markdown:
        args.markdown.write_text(f"# Semantic embedder: cost per text by runtime\n\nCommand: `{command}`\n\n{text}\n")
    if args.json_path:
        args.json_path.write_text(json.dumps({"command": command, "header": header, "rows": results}, indent=2) + "\n")


def ingest_main(args: argparse.Namespace) -> None:
    load_at_start = os.getloadavg()
    rows = measure_ingest(args.data, [n for n in args.ingest.split(",") if n], args.rounds)
    load_at_end = os.getloadavg()
    header = (
        f"add_many of LoCoMo conversations {args.ingest} ({args.rounds} rounds, rows interleaved), memory://, "
        f"auto_link on; {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}; load "
        f"average at start {load_at_start[0]:.1f} / {load_at_start[1]:.1f} / {load_at_start[2]:.1f}, at end "
        f"{load_at_end[0]:.1f}. CPU is the process's (every thread's) time."
    )
    text = "\n".join([header, "", *_table(rows)])
    print(text)
    command = f"python benchmarks/semantic_latency.py --ingest-only --ingest {args.ingest} --rounds {args.rounds}"
    if args.markdown:
        args.markdown.write_text(f"# Semantic embedder: ingest cost per memory\n\nCommand: `{command}`\n\n{text}\n")
    if args.json_path:
        args.json_path.write_text(json.dumps({"command": command, "header": header, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
