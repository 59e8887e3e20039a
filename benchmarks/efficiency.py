"""Tokens per recall, every kind vs planned: the first table of the spec's "Efficiency, measured".

    python benchmarks/efficiency.py [--store memory] [--embedder offline]

Builds one user's realistic memory (a profile, rules, goals, 4 decisions, 4 procedures, lessons, 40
facts, 30 episodes, 20 knowledge items), then recalls the spec's 8 queries twice: ``plan=False``
(every kind at the default caps) and ``plan="auto"`` (the intent-based plan), no token budget, and
counts the tokens of each context's text. Tokens are estimated as word pieces (a run of letters or
digits, or one punctuation mark; a word over 6 characters counts one more per further 6), since no
tokenizer with bundled encodings is installed; the figures compare the two columns, not providers.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko  # noqa: E402

USER = "kumar"
QUERIES = [
    "How do I reset the safety relay?",
    "Why did we choose pgvector?",
    "What are my goals?",
    "What do you know about me?",
    "thanks!",
    "When did line 3 stop for a jam?",
    "Which device does station 12 use?",
    "What is the port of OPC UA endpoint 3?",
]
_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def tokens(text: str) -> int:
    """A word-piece estimate: each word, number or mark, plus one per further 6 letters of a long word."""
    return sum(1 + max(0, (len(piece) - 1) // 6) for piece in _PIECE.findall(text))


def build(memory: kioko.MemoryLayer) -> None:
    u = {"user_id": USER}
    memory.profile.set("name", "Kumar", **u)
    memory.profile.set("location", "Pune", **u)
    memory.profile.set("role", "maintenance engineer", **u)
    memory.instructions.add("Answer in short sentences.", **u)
    memory.instructions.add("Always name the station a step applies to.", **u)
    memory.goals.add("Stabilise line 3 by November 30", **u)
    memory.goals.add("Pass the Azure AI Engineer exam by March 31", **u)
    for text in (
        "Decision: use pgvector for the maintenance notes because we already run Postgres.",
        "Decision: keep alarm logs for 90 days because audits ask for a quarter.",
        "Decision: order spare encoder cables from Rockwell because they ship in two days.",
        "Decision: run the line 3 firmware update on Sundays because the line is idle.",
    ):
        memory.decisions.add(text, **u)
    memory.procedures.add(
        "How to reset the safety relay",
        ["Switch off the breaker", "Press reset for 5 seconds", "Switch it back on"],
        **u,
    )
    memory.procedures.add(
        "How to clear a jam on line 3",
        ["Stop the conveyor", "Open guard B", "Remove the jammed part", "Close guard B and restart"],
        **u,
    )
    memory.procedures.add(
        "How to swap an encoder cable",
        ["Lock out the drive", "Unplug the old cable", "Plug in the new one", "Run the encoder test"],
        **u,
    )
    memory.procedures.add("How to export alarm logs", ["Open the HMI", "Choose Alarms > Export", "Pick CSV"], **u)
    memory.strategies.add("Lesson: check the relay wiring before replacing the safety relay.", **u)
    memory.strategies.add("Lesson: a drive fault after a jam is usually the encoder cable, not the drive.", **u)
    memory.skills.add("Skill: summarise alarm logs with the alarm-summary prompt template.", **u)
    for i in range(40):
        memory.facts.add(
            f"Station {i + 1} uses a {['Siemens', 'ABB', 'Rockwell', 'Schneider'][i % 4]} drive "
            f"with firmware {i % 5 + 1}.{i % 3}.",
            **u,
        )
    for i in range(30):
        memory.episodes.add(
            f"Line {i % 4 + 1} stopped for {['a jam', 'a drive fault', 'a sensor error'][i % 3]} "
            f"on day {i + 1} and restarted after {10 + i} minutes.",
            **u,
        )
    for i in range(20):
        memory.knowledge.add(f"OPC UA endpoint {i + 1} listens on port {4840 + i} on the plant network.", **u)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="memory", choices=["memory", "sqlite"])
    parser.add_argument("--embedder", default="offline")
    args = parser.parse_args()
    url = "memory://" if args.store == "memory" else "sqlite:///" + str(Path(__import__("tempfile").mkdtemp()) / "e.db")
    memory = kioko.connect(url, embedder=args.embedder)
    build(memory)
    print(f"`python benchmarks/efficiency.py --store {args.store} --embedder {args.embedder}`, word-piece estimate\n")
    print("| query | every kind | planned | intents |\n|---|---:|---:|---|")
    total_all = total_planned = 0
    for query in QUERIES:
        every = tokens(memory.recall(query, user_id=USER, plan=False).text)
        ctx = memory.recall(query, user_id=USER, plan="auto")
        planned = tokens(ctx.text)
        total_all, total_planned = total_all + every, total_planned + planned
        print(f"| {query} | {every} | {planned} | {', '.join(ctx.plan.intents) or 'general'} |")
    saved = 1 - total_planned / total_all if total_all else 0.0
    print(f"| total | {total_all} | {total_planned} | {saved:.0%} fewer tokens |")
    memory.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
