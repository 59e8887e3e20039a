"""False supersedes in the agent loop: memories a turn marks replaced (or in conflict) that it does not replace.

    python benchmarks/false_supersedes.py [--count 2000] [--turns 100] [--markdown PATH] [--json PATH]

The agent loop's managed row (``benchmarks/agent_loop.py``), counted instead of timed: one user on
``memory://`` holds ``--count`` synthetic notes (``benchmarks/synthetic.py``, seed 11, world statements of a
plant: jams, fault codes, ports, lessons), then ``--turns`` turns of ``benchmarks/intelligence_turns.py``'s mix
go through ``recall`` + ``record_turn`` (the offline router, its defaults), as worker 0 of the loop runs them.

None of the turns changes a synthetic note, so **every note marked** ``superseded_by`` or ``conflicted_by`` is a
false mark. A turn's memory marked by a later turn is a true mark only when both turns come from the same
template and name the same labelled thing (the same slot with another value: "I have two kids" -> "I have three
kids"; "use Grafana for the line 3 dashboards" is no newer value of "... for the line 2 dashboards"); a mark across two
templates ("OPC UA servers ... listen on port 201" against a lesson about a drive) is false too. Printed: the
marks of each sort, and every false one with the text that made it, so a change can be judged by them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from intelligence_turns import TURNS, turn_text  # noqa: E402
from synthetic import generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_core.store import Filter, Scope  # noqa: E402

USER, SESSION = "loop-user", "w0"
MARKS = ("superseded_by", "conflicted_by")


def _slot_of(index: int) -> tuple[int, int | None]:
    """The slot a turn states: its template, and the labelled thing it names when the template has one ("line
    {k}": line 3's dashboards are another slot than line 4's; "I have {c} kids" is one slot whatever the count)."""
    cycle, position = divmod(index, len(TURNS))
    return position, (cycle % 9 + 1) if "{k}" in TURNS[position] else None


def run(count: int, turns: int) -> dict[str, Any]:
    notes = generate_notes(count, seed=11)
    with kioko.intelligent("memory://") as layer:
        filled = layer.add_many(
            [
                {"content": n.content, "memory_type": n.memory_type, "session_id": n.session_id}
                | {"created_at": n.created_at}
                for n in notes
            ],
            user_id=USER,
        )
        fill_ids = {r.id for r in filled}
        template: dict[str, tuple[int, int | None]] = {}  # a turn's memory -> the slot its template fills
        for index in range(turns):
            text = turn_text(index)
            layer.recall(text, user_id=USER, session_id=SESSION)
            report = layer.record_turn(text, "Noted.", user_id=USER, session_id=SESSION)
            for op in report.applied:
                if op.memory_id:
                    template.setdefault(op.memory_id, _slot_of(index))
        layer.intelligence.scheduler.drain(120)
        records = {r.id: r for r in layer.store.scan(Scope(USER, None), Filter())}
    false_marks: list[dict[str, Any]] = []
    true_marks: list[dict[str, Any]] = []
    for record in records.values():
        for mark in MARKS:
            by = record.metadata.get(mark)
            if not isinstance(by, str):
                continue
            marker = records.get(by)
            same = record.id in template and template[record.id] == template.get(by)
            entry = {
                "mark": mark,
                "marked": record.content[:100],
                "marked_is": "note" if record.id in fill_ids else "turn",
                "by": marker.content[:100] if marker else by,
            }
            (true_marks if same else false_marks).append(entry)

    return {
        "count": count,
        "turns": turns,
        "memories": len(records),
        "false_marks": len(false_marks),
        "false_on_notes": sum(1 for m in false_marks if m["marked_is"] == "note"),
        "true_marks": len(true_marks),
        "false": false_marks,
        "true": true_marks,
    }


def report(result: dict[str, Any], command: str, seconds: float) -> str:
    lines = [
        "# False supersedes in the agent loop",
        "",
        f"`{command}`, {seconds:.0f} s. Method: `benchmarks/false_supersedes.py`.",
        "",
        "| memories | turns | false marks | of them on synthetic notes | true marks (same slot, newer value) |",
        "|---:|---:|---:|---:|---:|",
        f"| {result['count']:,} | {result['turns']} | {result['false_marks']} | {result['false_on_notes']} "
        f"| {result['true_marks']} |",
        "",
    ]
    if result["false"]:
        lines += ["False marks:", ""]
        lines += [f"- {m['mark']}: {m['marked']!r} by {m['by']!r}" for m in result["false"]] + [""]
    if result["true"]:
        lines += ["True marks:", ""]
        lines += [f"- {m['mark']}: {m['marked']!r} by {m['by']!r}" for m in result["true"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--json", type=Path, dest="json_path")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run(args.count, args.turns)
    seconds = time.perf_counter() - started
    command = "python benchmarks/false_supersedes.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(result, command.strip(), seconds)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text)
    if args.json_path:
        args.json_path.parent.mkdir(parents=True, exist_ok=True)
        args.json_path.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
