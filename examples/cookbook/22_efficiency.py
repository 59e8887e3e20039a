"""Efficiency, measured: tokens per recall (every kind vs the intent-based plan), the model calls the
gate avoids, and what rides in the cacheable prefix. The spec's "Efficiency, measured".

    python examples/cookbook/22_efficiency.py [--store sqlite] [--embedder standin|offline] [--runs 1]

A short front for benchmarks/efficiency.py, which builds the spec's realistic memory (a profile, rules,
goals, 4 decisions, 4 procedures, lessons, 40 facts, 30 episodes, 20 knowledge items) and measures; the
figures it prints are the benchmark's, so run that with more --runs for numbers to quote.
"""

import argparse
import importlib.util
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "efficiency.py"
spec = importlib.util.spec_from_file_location("kioko_efficiency", BENCHMARK)
assert spec is not None and spec.loader is not None
efficiency = importlib.util.module_from_spec(spec)
spec.loader.exec_module(efficiency)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--store", default="memory", choices=["memory", "sqlite"])
parser.add_argument("--embedder", default="standin", choices=["offline", "standin"])
parser.add_argument("--runs", type=int, default=1)
args = parser.parse_args()

every, planned = efficiency.tokens_table(args.store, args.embedder, args.runs)
print(f"\nplanned recall: {planned} tokens for the 8 questions, every kind: {every} ({1 - planned / every:.0%} fewer)")
efficiency.gate_calls(args.store)
byte_identical = efficiency.stable_prefix(args.store)
assert planned < every and byte_identical
