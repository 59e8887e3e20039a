"""What ``memory.maintain()`` costs for one user holding 2,000 memories.

    python benchmarks/maintenance_cost.py [--store sqlite] [--count 2000] [--runs 9] [--turns 5] [--seed 7]
        [--markdown PATH] [--json PATH]

A layer from ``kioko.intelligent(url)`` (offline, linking and the entity graph on) gets ``--count`` seeded
notes from ``benchmarks/synthetic.py`` for one user (spread over 240 days in 2024, so all of them are old
by now), each with the importance the offline router would give it, and a few turns in a session so the
scheduler has counted the user. Then:

- the **first** ``maintain(user_id=...)``, timed on its own: the one-off catch-up (linking memories never
  linked, folding eight months of episodes into monthly summaries, forgetting faded episodes ...);
- ``--runs`` more ``maintain(user_id=...)`` calls, each after ``--turns`` new turns of the conversation
  (untimed): the steady state, what a nightly job or ``background=True`` pays; median and 95th percentile;
- each task alone (``maintain(tasks=[task])``), ``--runs`` times, after the same number of new turns.

Wall-clock times on whatever machine runs it; the numbers go in ``benchmarks/results/``, never in tests.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from intelligence_turns import turn_text  # noqa: E402
from synthetic import generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_core.kinds.registry import canonical_kind  # noqa: E402
from kioko_intelligence.language import importance  # noqa: E402
from kioko_intelligence.maintenance import TASKS  # noqa: E402

USER, SESSION = "bench-user", "bench-session"


def _timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1000.0, result


def _summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median_ms": round(statistics.median(values), 1) if values else None,
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1) if values else None,
    }


def run(store: str, count: int, runs: int, turns: int, seed: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="kioko-maint-bench-"))
    url = "memory://" if store == "memory" else f"sqlite:///{folder / 'bench.db'}"
    memory = kioko.intelligent(url)
    for note in generate_notes(count, seed=seed):
        memory.add(
            note.content,
            user_id=USER,
            memory_type=note.memory_type,
            created_at=note.created_at,
            session_id=note.session_id,
            # scored as the router scores what it writes: consolidation lets only scored episodes fade
            metadata={"importance": importance(canonical_kind(note.memory_type), note.content)},
        )
    said = 0

    def talk(n: int) -> None:
        nonlocal said
        for _ in range(n):
            memory.record_turn(turn_text(said), "Noted.", user_id=USER, session_id=SESSION)
            said += 1

    talk(turns)
    before = sum(1 for _ in memory.memories(user_id=USER))
    first_ms, first = _timed(lambda: memory.maintain(user_id=USER))
    after_first = sum(1 for _ in memory.memories(user_id=USER))
    steady: list[float] = []
    for _ in range(runs):
        talk(turns)
        elapsed, _ = _timed(lambda: memory.maintain(user_id=USER))
        steady.append(elapsed)
    per_task: dict[str, dict] = {}
    for task in TASKS:
        times = []
        for _ in range(runs):
            talk(turns)
            elapsed, _ = _timed(lambda task=task: memory.maintain(user_id=USER, tasks=[task]))
            times.append(elapsed)
        per_task[task] = _summary(times)
    memory.close()
    return {
        "store": store,
        "memories": count,
        "memories_before_first_run": before,
        "memories_after_first_run": after_first,
        "first_run_ms": round(first_ms, 1),
        "first_run": json.loads(json.dumps(first[USER], default=str)),  # type: ignore[index]
        "steady": _summary(steady),
        "per_task": per_task,
        "runs": runs,
        "turns_between_runs": turns,
        "seed": seed,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def markdown(result: dict, command: str) -> str:
    first = result["first_run"]
    lines = [
        f"`{command}`",
        "",
        f"`maintain(user_id=...)` on {result['store']} for one user holding {result['memories']:,} memories "
        f"(offline; linking and the entity graph on). Between timed runs, {result['turns_between_runs']} new turns "
        "of the conversation (untimed).",
        "",
        "| run | n | median (ms) | p95 (ms) |",
        "|---|---:|---:|---:|",
        f"| first run (one-off catch-up) | 1 | {result['first_run_ms']} | |",
        f"| every task, steady state | {result['steady']['n']} | {result['steady']['median_ms']} "
        f"| {result['steady']['p95_ms']} |",
    ]
    lines += [
        f"| `{task}` alone | {s['n']} | {s['median_ms']} | {s['p95_ms']} |" for task, s in result["per_task"].items()
    ]
    lines += [
        "",
        f"The first run: tend {first.get('tend')}, consolidate {first.get('consolidate')}; "
        f"{result['memories_before_first_run']:,} memories before it, {result['memories_after_first_run']:,} after "
        "(the seeded notes are dated 2024: old episodes of low importance that were never used fade away).",
        "",
        f"Python {result['python']}, {result['machine']}.",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="sqlite", choices=["sqlite", "memory"])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    result = run(args.store, args.count, args.runs, args.turns, args.seed)
    command = "python benchmarks/maintenance_cost.py " + " ".join(sys.argv[1:])
    text = markdown(result, command.strip())
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
