"""Efficiency, measured: the three figures of the spec's "Efficiency, measured".

    python benchmarks/efficiency.py [--store memory|sqlite] [--embedder offline|semantic|standin|all] [--runs 15]

1. Tokens per recall, every kind vs planned. Builds one user's realistic memory (a profile, rules, goals,
   4 decisions, 4 procedures, lessons, 40 facts, 30 episodes, 20 knowledge items), then recalls the
   spec's 8 queries twice: ``plan=False`` (every kind at the default caps) and ``plan="auto"`` (the
   intent-based plan), no token budget, and counts the tokens of each context's text, for each embedder
   asked for:

   - ``offline``: the default lexical hashing embedder;
   - ``semantic``: the bundled MiniLM model;
   - ``standin``: the spec's recipe, "a stand-in for a semantic embedding model: unrelated texts keep a
     baseline similarity, so every memory competes for a place in the context". It is the offline
     embedder's vector scaled by sqrt(1 - B) with one constant extra component sqrt(B) (B = 0.35), so two
     texts sharing no word have cosine B - above recall's min_vector_only (0.3) - and every memory is a
     vector candidate. Texts sharing words are closer, as with a real model.

   Tokens are estimated as word pieces (a run of letters or digits, or one punctuation mark; a word over
   6 characters counts one more per further 6), since no tokenizer with bundled encodings is installed;
   the figures compare the two columns, not providers. Each table also counts how often each column's
   context held the question's answer (``ANSWERS``): a plan that saves tokens by dropping it saves nothing.
2. Gate: the model calls an LLM-mode intelligence makes over a 14-turn conversation (a scripted model
   that counts its calls and proposes nothing); greetings, thanks, questions and requests never reach it.
3. Stable prefix: after five differently worded questions about the PLC subnet (and five small-talk
   turns, so the pin task - every 10 turns - runs), the scheduler has pinned that fact; ``memory.kv`` is
   printed, and compared byte for byte after one more turn.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko  # noqa: E402
from kioko_core.embedding.embedders import OfflineEmbedder  # noqa: E402
from kioko_intelligence import Intelligence  # noqa: E402

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
SPEC = {
    "How do I reset the safety relay?": (459, 366),
    "Why did we choose pgvector?": (467, 363),
    "What are my goals?": (348, 235),
    "What do you know about me?": (238, 238),
    "thanks!": (402, 123),
    "When did line 3 stop for a jam?": (297, 304),
    "Which device does station 12 use?": (395, 395),
    "What is the port of OPC UA endpoint 3?": (354, 317),
}
"""The spec's table (every kind, planned), for the side-by-side columns."""
ANSWERS = {
    "How do I reset the safety relay?": "How to reset the safety relay",
    "Why did we choose pgvector?": "use pgvector for the maintenance notes",
    "What are my goals?": "Stabilise line 3",
    "What do you know about me?": "name is Kumar",
    "When did line 3 stop for a jam?": "Line 3 stopped for a jam",
    "Which device does station 12 use?": "Station 12 uses",
    "What is the port of OPC UA endpoint 3?": "OPC UA endpoint 3 listens",
}
"""What a context must show to answer the question (small talk needs nothing): a saving that drops the
answer is no saving, so the table counts how often each column kept it."""
BASELINE = 0.35
"""The stand-in embedder's cosine between two texts that share no word."""
CONVERSATION = [
    "Hi there!",
    "I'm a maintenance engineer at the Pune plant.",
    "Thanks!",
    "Can you summarize the last alarm log?",
    "What is the port of OPC UA endpoint 3?",
    "We decided to use pgvector for the maintenance notes because we already run Postgres.",
    "ok",
    "How do I reset the safety relay?",
    "My goal is to stabilise line 3 by November 30.",
    "Great, thanks a lot",
    "Could you list my open goals?",
    "Good morning",
    "Line 3 stopped for a jam yesterday and restarted after 20 minutes.",
    "Why did we choose pgvector?",
]
"""14 turns: 4 say something worth remembering, 10 are greetings, thanks, questions or requests."""
SUBNET = "The plant's PLC network uses the 10.20.0.0/16 subnet"
SUBNET_QUESTIONS = [
    "What subnet does the PLC network use?",
    "Which IP range is the PLC network on?",
    "Remind me of the PLC network addresses",
    "Is the plant's PLC subnet a /16?",
    "PLC network subnet again?",
]


class StandInEmbedder:
    """The spec's stand-in for a semantic model: unrelated texts keep cosine ``baseline`` (see the docstring)."""

    lexical = False

    def __init__(self, baseline: float = BASELINE, dim: int = 256) -> None:
        self.base = OfflineEmbedder(dim)
        self.dim = dim + 1
        self.scale, self.shared = float(np.sqrt(1.0 - baseline)), float(np.sqrt(baseline))

    def embed(self, text: str) -> np.ndarray:
        vector = np.empty(self.dim, dtype=np.float32)
        vector[:-1] = self.base.embed(text) * self.scale
        vector[-1] = self.shared
        return vector

    def __repr__(self) -> str:
        return f"StandInEmbedder(baseline={self.shared**2:.2f})"


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


def _url(store: str) -> str:
    return "memory://" if store == "memory" else "sqlite:///" + str(Path(tempfile.mkdtemp()) / "e.db")


def _embedder(name: str):
    return StandInEmbedder() if name == "standin" else name


def tokens_table(store: str, embedder: str, runs: int) -> tuple[int, int]:
    """Print the every-kind vs planned table for one embedder, beside the spec's; (every, planned) totals.

    Memory ids are random, so memories that tie (with the stand-in, every unrelated one) are ordered
    differently from build to build: the table shows the median of ``runs`` builds per query, and the
    range of the saving over the builds.
    """
    every: dict[str, list[int]] = {q: [] for q in QUERIES}
    planned: dict[str, list[int]] = {q: [] for q in QUERIES}
    intents: dict[str, str] = {}
    savings: list[float] = []
    kept = {"every": 0, "planned": 0}
    shown = ""
    for _ in range(runs):
        memory = kioko.connect(_url(store), embedder=_embedder(embedder), intelligence=True)
        shown = repr(memory.embedder)
        build(memory)
        run_all = run_planned = 0
        for query in QUERIES:
            plain_text = memory.recall(query, user_id=USER, plan=False).text
            ctx = memory.recall(query, user_id=USER, plan="auto")
            plain = tokens(plain_text)
            every[query].append(plain)
            planned[query].append(tokens(ctx.text))
            if query in ANSWERS:
                kept["every"] += ANSWERS[query] in plain_text
                kept["planned"] += ANSWERS[query] in ctx.text
            intents[query] = ", ".join(ctx.plan.intents) or "general"
            run_all, run_planned = run_all + plain, run_planned + planned[query][-1]
        savings.append(1 - run_planned / run_all)
        memory.close()
    print(f"\nembedder `{embedder}` ({shown}), store `{store}`, median of {runs} builds\n")
    print("| query | every kind | planned | intents | spec: every kind | spec: planned |")
    print("|---|---:|---:|---|---:|---:|")
    total_all = total_planned = 0
    for query in QUERIES:
        a, p = int(statistics.median(every[query])), int(statistics.median(planned[query]))
        total_all, total_planned = total_all + a, total_planned + p
        print(f"| {query} | {a} | {p} | {intents[query]} | {SPEC[query][0]} | {SPEC[query][1]} |")
    saved = 1 - total_planned / total_all if total_all else 0.0
    print(
        f"| total | {total_all} | {total_planned} | {saved:.0%} fewer tokens (builds: {min(savings):.0%} to "
        f"{max(savings):.0%}) | 2960 | 2341 (21% fewer) |"
    )
    asked = len(ANSWERS) * runs
    print(f"\nanswer in the context: every kind {kept['every']} of {asked}, planned {kept['planned']} of {asked}")
    return total_all, total_planned


def gate_calls(store: str) -> tuple[int, int]:
    """Model calls the router makes over the 14-turn conversation in LLM mode; (calls, turns).

    The scheduler's own calls (the rolling session summary the tenth turn asks the model for) are
    counted apart: the gate decides only the router's.
    """
    calls: list[str] = []

    def model(prompt: str) -> str:
        calls.append(prompt)
        return '{"operations": []}'

    with kioko.connect(_url(store), intelligence=Intelligence(llm=model)) as memory:
        for turn in CONVERSATION:
            memory.record_turn(turn, "Noted.", user_id=USER, session_id="s1")
        stats = memory.intelligence.stats()
    routed = stats["model_calls"]
    print(
        f"\ngate: {routed} model calls for {len(CONVERSATION)} turns "
        f"({stats['gated']} skipped as small talk, questions or requests); "
        f"maintenance asked the model {len(calls) - routed} more time(s) (session summary)"
    )
    return routed, len(CONVERSATION)


def stable_prefix(store: str) -> bool:
    """Five questions about one fact, then the stable prefix and whether the next turn leaves it byte-identical."""
    with kioko.connect(_url(store), intelligence=True) as memory:
        u = {"user_id": USER, "session_id": "s1"}
        memory.profile.set("name", "Kumar", user_id=USER)
        memory.facts.add(SUBNET, user_id=USER)
        memory.facts.add("Station 12 uses a Siemens drive.", user_id=USER)
        memory.facts.add("The night shift starts at 22:00.", user_id=USER)
        for question in SUBNET_QUESTIONS:
            memory.recall(question, **u)
            memory.record_turn(question, "It is 10.20.0.0/16.", **u)
        for small_talk in ("thanks!", "ok", "great", "good morning", "thanks again"):
            memory.record_turn(small_talk, **u)
        prefix = memory.kv(user_id=USER)
        memory.recall("Which drive does station 12 use?", **u)
        memory.record_turn("Which drive does station 12 use?", "A Siemens drive.", **u)
        same = memory.kv(user_id=USER).text.encode() == prefix.text.encode()
        kinds = [
            name for name, title in (("profile", "About the user:"), ("pinned", "Keep in mind")) if title in prefix.text
        ]
        print(f"\nstable prefix: {tokens(prefix.text)} tokens ({', '.join(kinds)}); byte-identical next turn: {same}")
        print("```\n" + prefix.text + "\n```")
        return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="memory", choices=["memory", "sqlite"])
    parser.add_argument("--embedder", default="all", choices=["offline", "semantic", "standin", "all"])
    parser.add_argument("--runs", type=int, default=15, help="builds per embedder (the median is shown)")
    args = parser.parse_args()
    print(
        f"`python benchmarks/efficiency.py --store {args.store} --embedder {args.embedder} --runs {args.runs}`, "
        "word-piece estimate"
    )
    names = ["offline", "semantic", "standin"] if args.embedder == "all" else [args.embedder]
    totals = {name: tokens_table(args.store, name, args.runs) for name in names}
    print("\n| embedder | every kind | planned | saved |\n|---|---:|---:|---:|")
    for name, (every, planned) in totals.items():
        print(f"| {name} | {every} | {planned} | {1 - planned / every:.0%} |")
    print("| spec (stand-in) | 2960 | 2341 | 21% |")
    gate_calls(args.store)
    stable_prefix(args.store)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
