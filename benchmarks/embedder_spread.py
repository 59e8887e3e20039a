"""How far the semantic embedder's vectors move with the CPU and with ONNX Runtime's settings.

    python benchmarks/embedder_spread.py [--data ../shared/data/locomo] [--texts 60] [--questions 30]
        [--save DIR] [--against DIR ...] [--markdown FILE] [--json FILE]

A fixed, varied set of texts (LoCoMo turns and questions of the development half, plus short, long,
numeric, accented and non-Latin ones) is embedded under each configuration, one text per run on one
thread as Kioko runs it:

- ``numpy``: the float32 forward pass in numpy, the reference;
- ``onnx float32``: the ONNX graph in float32, with ONNX Runtime's graph optimisations (fused kernels)
  and with them off (``ORT_DISABLE_ALL``: another kernel path for the same graph);
- ``onnx int8, 7-bit weights``: the dense layers as ``DynamicQuantizeMatMul``, weights kept to -63..63
  (ONNX Runtime's ``reduce_range``), and ``8-bit weights`` (-127..127).

Columns: cosine to the reference (min / mean), how many questions' 10 nearest turns differ from the
reference's (the part recall can see), and CPU ms per text (the process's CPU time; interleaved text by
text across the rows, so the load falls on every row alike).

Across CPUs: ``--save DIR`` keeps every configuration's vectors with the CPU's flags; ``--against DIR``
(several allowed) compares this run's vectors with a saved run's, configuration by configuration: the
largest difference of one number, the smallest cosine, how many vectors are bit-identical, and how many
questions' top 10 differ. On one machine, ``qemu-x86_64 -cpu EPYC-Rome`` (Debian's ``qemu-user``) runs the
same interpreter with AVX2 and no AVX-512 or VNNI, so ONNX Runtime picks its AVX2 kernels, and
``-cpu qemu64`` its SSE2 ones: ``qemu-x86_64 -cpu EPYC-Rome .venv/bin/python benchmarks/embedder_spread.py
--save /tmp/avx2`` then ``python benchmarks/embedder_spread.py --against /tmp/avx2``.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko_core.embedding.semantic as semantic  # noqa: E402
from kioko_core.embedding.semantic_onnx import build_graph  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo"
CRAFTED = [
    "ok",
    "Line 3 keeps faulting with error E-217.",
    "My daughter's recital is on 14 March 2023 at 18:30, row F seat 12.",
    "Café crème, naïve façade, jalapeño: the menu at Zoë's in São Paulo.",
    "東京で新しい仕事を始めました。",
    "Мы переехали в Новосибирск прошлой осенью.",
    "3.14159 2.71828 1.41421 1.73205 0.57721",
    "!!! ??? ... ---",
    "the quick brown fox jumps over the lazy dog " * 12,
    "I keep thinking about whether I should adopt a second dog, since Max seems lonely "
    "when I'm at work, but my landlord only allows one pet per apartment.",
]
TOP = 10


def texts_from(data: Path, turns: int, questions: int) -> tuple[list[str], list[str]]:
    """(memories, questions): the first turns and questions of the LoCoMo files, in file order."""
    found_turns: list[str] = []
    found_questions: list[str] = []
    for path in sorted(data.glob("*.json")):
        sample = json.loads(path.read_text())
        sessions = [k for k in sample if re.fullmatch(r"session_\d+", k)]
        for key in sorted(sessions, key=lambda k: int(k.split("_")[1])):
            found_turns += [f"{t['speaker']}: {t['text']}" for t in sample[key] if t.get("text")]
        found_questions += [str(q["question"]) for q in sample.get("qa", []) if q.get("question")]
    if not found_turns:
        raise SystemExit(f"no LoCoMo files in {data}")
    step_t = max(1, len(found_turns) // turns)
    step_q = max(1, len(found_questions) // questions)
    return found_turns[::step_t][:turns], found_questions[::step_q][:questions]


Encoder = Callable[[str], np.ndarray]


def onnx_encoder(quantize: bool, weight_bits: int, optimise: bool) -> Encoder:
    """One text per run, one thread: Kioko's way (kioko_core.embedding.semantic_onnx.OnnxEncoder), settings apart."""
    import onnxruntime

    model = semantic.shared_model()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    if not optimise:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    blob = build_graph(model, quantize=quantize, weight_bits=weight_bits)
    session = onnxruntime.InferenceSession(blob, options, providers=["CPUExecutionProvider"])

    def encode(text: str) -> np.ndarray:
        ids = np.asarray(semantic.tokenize(model, [text]), dtype=np.int64)
        feeds = {"embedded": semantic.embed_tokens(model, ids), "attention_mask": np.ones_like(ids)}
        out: np.ndarray = session.run(["embedding"], feeds)[0][0]
        return out

    return encode


def numpy_encoder() -> Encoder:
    model = semantic.shared_model()
    return lambda text: semantic.embed_texts(model, [text])[0]


CONFIGS: dict[str, Callable[[], Encoder]] = {
    "numpy float32 (reference)": numpy_encoder,
    "onnx float32, optimised graph": lambda: onnx_encoder(False, 8, True),
    "onnx float32, optimisations off": lambda: onnx_encoder(False, 8, False),
    "onnx int8, 7-bit weights": lambda: onnx_encoder(True, 7, True),
    "onnx int8, 7-bit weights, optimisations off": lambda: onnx_encoder(True, 7, False),
    "onnx int8, 8-bit weights": lambda: onnx_encoder(True, 8, True),
}
REFERENCE = "numpy float32 (reference)"


def top_ids(questions: np.ndarray, memories: np.ndarray) -> np.ndarray:
    """Each question's TOP nearest memories by cosine (ties by index), as index arrays."""
    scores = questions @ memories.T
    return np.argsort(-scores, axis=1, kind="stable")[:, :TOP]


def differing_tops(a: np.ndarray, b: np.ndarray) -> int:
    """Questions whose set of TOP nearest memories differs between two runs."""
    return sum(set(x) != set(y) for x, y in zip(a, b))


def cpu_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return []
    flags = re.search(r"^flags\s*:(.*)$", text, re.M)
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "fma", "sse4_2")
    return [f for f in wanted if flags and f in flags.group(1).split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--texts", type=int, default=60, help="LoCoMo turns (the memories)")
    parser.add_argument("--questions", type=int, default=30, help="LoCoMo questions")
    parser.add_argument("--save", help="keep this run's vectors in DIR")
    parser.add_argument("--against", action="append", default=[], help="a saved run's DIR to compare with")
    parser.add_argument("--markdown")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()

    turns, questions = texts_from(Path(args.data), args.texts, args.questions)
    memories = CRAFTED + turns
    texts = memories + questions
    encoders = {name: build() for name, build in CONFIGS.items()}
    vectors = {name: np.zeros((len(texts), 384), np.float32) for name in encoders}
    cpu: dict[str, list[float]] = {name: [] for name in encoders}
    for encode in encoders.values():
        encode("warm-up")
    for i, text in enumerate(texts):  # interleaved: the machine's load falls on every row alike
        for name, encode in encoders.items():
            started = time.process_time()
            vectors[name][i] = encode(text)
            cpu[name].append((time.process_time() - started) * 1000)
    m = len(memories)
    tops = {name: top_ids(v[m:], v[:m]) for name, v in vectors.items()}
    reference = vectors[REFERENCE]
    rows: list[dict[str, Any]] = []
    for name, v in vectors.items():
        cosines = np.sum(v * reference, axis=1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(reference, axis=1))
        rows.append(
            {
                "configuration": name,
                "cosine_min": round(float(cosines.min()), 5),
                "cosine_mean": round(float(cosines.mean()), 5),
                "max_abs_diff": float(np.abs(v - reference).max()),
                "top10_differ": differing_tops(tops[name], tops[REFERENCE]),
                "cpu_ms_p50": round(statistics.median(cpu[name]), 2),
            }
        )
    host = {"machine": platform.machine(), "flags": cpu_flags(), "python": platform.python_version()}
    try:
        import onnxruntime

        host["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    across: list[dict[str, Any]] = []
    for other in args.against:
        saved = np.load(Path(other) / "vectors.npz")
        other_host = json.loads((Path(other) / "host.json").read_text())
        for name, v in vectors.items():
            key = re.sub(r"\W+", "_", name)
            if key not in saved.files:
                continue
            w = saved[key]
            if w.shape != v.shape:
                raise SystemExit(f"{other}: another text set ({w.shape} against {v.shape}); run with the same options")
            cosines = np.sum(v * w, axis=1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(w, axis=1))
            across.append(
                {
                    "against": other,
                    "other_flags": other_host.get("flags"),
                    "configuration": name,
                    "identical_vectors": int(sum(np.array_equal(a, b) for a, b in zip(v, w))),
                    "max_abs_diff": float(np.abs(v - w).max()),
                    "cosine_min": float(cosines.min()),
                    "top10_differ": differing_tops(tops[name], top_ids(w[m:], w[:m])),
                }
            )
    if args.save:
        folder = Path(args.save)
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "vectors.npz", **{re.sub(r"\W+", "_", n): v for n, v in vectors.items()})
        (folder / "host.json").write_text(json.dumps(host))
    result = {"host": host, "texts": len(texts), "memories": m, "questions": len(questions), "rows": rows}
    result["across"] = across
    lines = [
        f"{len(memories)} memories ({len(CRAFTED)} crafted + {len(turns)} LoCoMo turns) and {len(questions)} "
        f"LoCoMo questions; host {host}",
        "",
        "| configuration | cosine to reference min | mean | max abs diff | questions whose top 10 differ | CPU ms p50 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['configuration']} | {r['cosine_min']} | {r['cosine_mean']} | {r['max_abs_diff']:.2e} "
            f"| {r['top10_differ']} / {len(questions)} | {r['cpu_ms_p50']} |"
        )
    if across:
        lines += [
            "",
            "| configuration | against (its CPU flags) | identical vectors | max abs diff | cosine min | top 10 differ |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for a in across:
            lines.append(
                f"| {a['configuration']} | {a['against']} ({' '.join(a['other_flags'] or [])}) "
                f"| {a['identical_vectors']} / {len(texts)} | {a['max_abs_diff']:.2e} | {a['cosine_min']:.6f} "
                f"| {a['top10_differ']} / {len(questions)} |"
            )
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
