"""Evidence recall on LoCoMo: does Kioko find the turns a question is about, next to plain BM25?

    python benchmarks/locomo_recall.py [--data ../shared/data/locomo] [--store sqlite|memory|postgresql]
        [--systems kioko,kioko-links,kioko-nolink,bm25,mem0] [--embedder offline|semantic|offline,semantic]
        [--quick] [--json PATH] [--markdown PATH] [--plot PATH]

LoCoMo (Maharana et al., ACL 2024) holds long multi-session conversations whose questions name the
turns that answer them (their "evidence"). Each conversation becomes one user's memory, one memory per
turn ("Speaker: text", plus the caption of a shared photo), with the session as ``session_id`` and the
session's date as ``created_at``. Every question of categories 1-4 (multi-hop, temporal, open-domain,
single-hop) is asked, and evidence recall@k is the share of its evidence turns among the first k
memories returned, averaged per category and overall.

Systems, all in one run on the same data:

- ``kioko``: linking on, ``recall(links=0, limit=10)``: retrieval alone;
- ``kioko-links``: linking on, ``recall(links=3, limit=10)``: the same budget of 10 memories, up to 3
  of them brought by links;
- ``kioko-nolink``: linking off (``kioko.connect``), ``links=0``;
- ``bm25``: bm25s over the same "Speaker: text" documents (Snowball stemming, English stopwords);
- ``mem0``: Mem0 OSS (``pip install 'kioko[peer]'``) with the same embedder as the Kioko rows, offline: its
  default vector store (Qdrant local mode), ``add(infer=False)`` one turn at a time (no LLM is called; a
  guard counts calls), ``search(top_k=10)``; telemetry off, every network connection refused. Its BM25 and
  entity boosts need fastembed's and spaCy's downloaded models, which this offline run does not have, so
  its search is its dense search with its own scoring (``mem0_system``).

``--store postgresql``: tables of their own per conversation and system in ``KIOKO_TEST_POSTGRES_URL``, else
in the test suite's embedded server (``tests/services.py``), started for the run and stopped at its end
(tables made in a server given by the variable stay there).

Figures are deterministic (no random ids take part in ranking) except the times: ingest ms per memory
(``add_many``; an embedder's model is loaded before the first ingest is timed) and recall p50/p95 per
question. ``--quick`` (one conversation, 50 questions) is the CI
smoke run. Use the development split only for tuning: it is the only one in this repository.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from kioko_core.linking import links  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)
BUDGET = 10
SPLITS = {"A": ("26", "42"), "B": ("30", "41", "43")}
"""The development half split by conversation, fixed before any tuning, balanced per category (multi-hop
69 / 73 questions, temporal 77 / 79): tune on A, confirm on B; a change is kept only if it helps on A and
does not hurt on B in any category."""
_EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")


# --------------------------------------------------------------------------- the data


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: str
    created_at: float

    @property
    def document(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]
    evidence_fixed: int = 0
    evidence_dropped: int = 0


def _session_time(text: str) -> datetime:
    """LoCoMo's session stamps look like "1:56 pm on 8 May, 2023"."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_conversation(path: Path) -> Conversation:
    raw = json.loads(path.read_text())
    turns: list[Turn] = []
    number = 1
    while f"session_{number}" in raw:
        start = _session_time(raw[f"session_{number}_date_time"])
        for position, turn in enumerate(raw[f"session_{number}"]):
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            # turns a minute apart keep the session's order in created_at
            stamp = (start + timedelta(minutes=position)).timestamp()
            turns.append(Turn(turn["dia_id"], turn["speaker"], text, f"session_{number}", stamp))
        number += 1
    known = {t.dia_id for t in turns}
    conversation = Conversation(path.stem, turns, [])
    for qa in raw["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        evidence: set[str] = set()
        for given in qa.get("evidence", []):
            found = [f"D{s}:{t}" for s, t in _EVIDENCE_ID.findall(given)]
            if found != [given]:
                conversation.evidence_fixed += 1
            for dia_id in found:
                if dia_id in known:
                    evidence.add(dia_id)
                else:
                    conversation.evidence_dropped += 1
        if evidence:
            conversation.questions.append(Question(qa["question"], qa["category"], frozenset(evidence)))
        else:
            conversation.evidence_dropped += 1
    return conversation


# --------------------------------------------------------------------------- the systems


Retriever = Callable[[str], list[str]]


@dataclass
class Ingested:
    retrieve: Retriever
    ingest_seconds: float
    close: Callable[[], None] = lambda: None
    links_per_memory: float | None = None
    last_text: Callable[[], str] | None = None
    """The context text of the last question (Kioko): whether an event's date reaches it."""
    ingest_cpu_seconds: float | None = None
    """The process's CPU time for the ingest (on a loaded machine, closer to the idle wall time)."""


_POSTGRES: list[str] = []
"""--store postgresql: the server's URL, set by main for the run."""


def _store_url(store: str, folder: str, name: str) -> str:
    if store == "memory":
        return "memory://"
    if store == "postgresql":
        base = _POSTGRES[0]
        table = "locomo_" + re.sub(r"[^a-z0-9]+", "_", name.lower()) + "_" + os.path.basename(folder)[-8:].lower()
        table = re.sub(r"[^a-z0-9_]", "_", table)[:40]
        return base + ("&" if "?" in base else "?") + f"table={table}"
    return f"sqlite:///{os.path.join(folder, name + '.db')}"


@contextmanager
def _postgres_for_run(store: str) -> Iterator[None]:
    """``KIOKO_TEST_POSTGRES_URL``, else the test suite's embedded server for the run (--store postgresql)."""
    if store != "postgresql":
        yield
        return
    if os.environ.get("KIOKO_TEST_POSTGRES_URL"):
        _POSTGRES[:] = [os.environ["KIOKO_TEST_POSTGRES_URL"]]
        yield
        return
    sys.path.insert(0, str(ROOT / "tests"))
    import services  # tests/services.py: the server the test matrix uses

    service = services.start_postgres()
    try:
        if not service.available:
            raise SystemExit(f"PostgreSQL could not start: {service.how}")
        _POSTGRES[:] = [service.url]  # type: ignore[list-item]
        yield
    finally:
        service.stop()


def kioko_system(
    *, auto_link: bool, recall_links: int, store: str, embedder: Any = None
) -> Callable[[Conversation, str], Ingested]:
    def ingest(conversation: Conversation, folder: str) -> Ingested:
        options: dict[str, Any] = {"embedder": embedder} if embedder is not None else {}
        url = _store_url(store, folder, f"{conversation.name}-{'linked' if auto_link else 'plain'}-{recall_links}")
        layer = kioko.connect(url, auto_link=auto_link, **options)
        user = f"locomo-{conversation.name}"
        # the semantic embedder keeps recent texts' vectors: every system embeds its turns and questions afresh
        getattr(embedder, "clear_cache", lambda: None)()
        started, cpu = time.perf_counter(), time.process_time()
        # ids derived from the turn, so that two runs link and rank exactly alike
        records = layer.add_many(
            [
                {
                    "content": t.document,
                    "session_id": t.session,
                    "created_at": t.created_at,
                    "memory_type": "episodic",
                    "id": uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{conversation.name}/{t.dia_id}").hex,
                }
                for t in conversation.turns
            ],
            user_id=user,
        )
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
        dia_of = {r.id: t.dia_id for r, t in zip(records, conversation.turns)}
        links_total = sum(len(links.link_entries(r)) for r in layer.memories(user_id=user)) if auto_link else None

        shown = [""]

        def retrieve(question: str) -> list[str]:
            context = layer.recall(question, user_id=user, links=recall_links, limit=BUDGET)
            shown[0] = context.text
            return [dia_of[m.record.id] for m in context.memories if m.record.id in dia_of]

        per_memory = links_total / len(records) if links_total is not None and records else None
        return Ingested(retrieve, seconds, layer.close, per_memory, lambda: shown[0], cpu_seconds)

    return ingest


def mem0_system(embedder: Any) -> Callable[[Conversation, str], Ingested]:
    """Mem0 OSS (``kioko[peer]``) with the same embedder as Kioko's rows, set up as in ``mem0_peer.py``: its
    default vector store (Qdrant local mode) in the scratch folder, ``add(infer=False)`` (each turn stored as
    it is: no LLM, none is called), ``search(top_k=10)`` with Mem0's own ranking, telemetry off and every
    network connection refused. One ``add`` per turn, its LoCoMo id in the metadata."""
    from contextlib import ExitStack

    from benchmarks.mem0_peer import NetworkAttempt, no_network, open_mem0
    from kioko_core.embedding.embedders import OfflineEmbedder

    model = OfflineEmbedder() if embedder in (None, "offline") else embedder

    def ingest(conversation: Conversation, folder: str) -> Ingested:
        stack = ExitStack()
        attempts = stack.enter_context(no_network())
        peer = stack.enter_context(open_mem0(Path(folder) / f"mem0-{conversation.name}", embedder=model))
        user = f"locomo-{conversation.name}"
        getattr(model, "clear_cache", lambda: None)()
        started, cpu = time.perf_counter(), time.process_time()
        for t in conversation.turns:
            message = [{"role": "user", "content": t.document}]
            peer.memory.add(message, user_id=user, metadata={"dia_id": t.dia_id}, infer=False)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu

        def retrieve(question: str) -> list[str]:
            found = peer.memory.search(question, filters={"user_id": user}, top_k=BUDGET)["results"]
            return [str((hit.get("metadata") or {}).get("dia_id")) for hit in found]

        def close() -> None:
            calls, tried = list(peer.guard.calls), list(attempts)
            stack.close()
            if calls or tried:
                raise NetworkAttempt(f"Mem0 called its LLM {len(calls)} times / tried the network: {tried}")

        return Ingested(retrieve, seconds, close, ingest_cpu_seconds=cpu_seconds)

    return ingest


def bm25_system(conversation: Conversation, folder: str) -> Ingested:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    corpus = [t.document for t in conversation.turns]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    seconds = time.perf_counter() - started

    def retrieve(question: str) -> list[str]:
        tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
        found, _ = retriever.retrieve(tokens, k=min(BUDGET, len(corpus)), show_progress=False)
        return [conversation.turns[int(i)].dia_id for i in found[0]]

    return Ingested(retrieve, seconds)


# --------------------------------------------------------------------------- measuring


@dataclass
class Row:
    system: str
    hits: dict[int, dict[str, list[float]]] = field(default_factory=dict)  # k -> category -> per-question recall
    recall_ms: list[float] = field(default_factory=list)
    recall_cpu_ms: list[float] = field(default_factory=list)
    ingest_ms_per_memory: list[float] = field(default_factory=list)
    ingest_cpu_ms_per_memory: list[float] = field(default_factory=list)
    links_per_memory: list[float] = field(default_factory=list)
    dated: list[float] = field(default_factory=list)
    """Temporal questions whose evidence was recalled: the share of those evidence turns shown with their date."""

    def add(self, question: Question, returned: Sequence[str]) -> None:
        for k in KS:
            found = len(question.evidence & set(returned[:k])) / len(question.evidence)
            self.hits.setdefault(k, {}).setdefault(CATEGORIES[question.category], []).append(found)

    def recall_at(self, k: int, category: str | None = None) -> float:
        groups = self.hits.get(k, {})
        values = groups.get(category, []) if category else [v for vs in groups.values() for v in vs]
        return sum(values) / len(values) if values else 0.0

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system}
        for k in KS:
            out[f"R@{k}"] = round(self.recall_at(k), 4)
            for category in CATEGORIES.values():
                out[f"R@{k} {category}"] = round(self.recall_at(k, category), 4)
        if self.recall_ms:
            ordered = sorted(self.recall_ms)
            out["recall p50 ms"] = round(statistics.median(ordered), 3)
            out["recall p95 ms"] = round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3)
        if self.recall_cpu_ms:
            out["recall cpu p50 ms"] = round(statistics.median(self.recall_cpu_ms), 3)
        if self.ingest_ms_per_memory:
            out["ingest ms/memory"] = round(statistics.mean(self.ingest_ms_per_memory), 3)
        if self.ingest_cpu_ms_per_memory:
            out["ingest CPU ms/memory"] = round(statistics.mean(self.ingest_cpu_ms_per_memory), 3)
        if self.links_per_memory:
            out["links/memory"] = round(statistics.mean(self.links_per_memory), 2)
        if self.dated:
            out["temporal evidence dated"] = round(statistics.mean(self.dated), 3)
        return out


def systems_by_name(
    names: Sequence[str], store: str, embedder: Any
) -> dict[str, Callable[[Conversation, str], Ingested]]:
    table: dict[str, Callable[[Conversation, str], Ingested]] = {
        "kioko": kioko_system(auto_link=True, recall_links=0, store=store, embedder=embedder),
        "kioko-links": kioko_system(auto_link=True, recall_links=3, store=store, embedder=embedder),
        "kioko-nolink": kioko_system(auto_link=False, recall_links=0, store=store, embedder=embedder),
        "bm25": bm25_system,
    }
    if "mem0" in names:  # imported only when asked for: its package is the peer extra
        table["mem0"] = mem0_system(embedder)
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SystemExit(f"unknown systems {unknown}; choose from {sorted(table)}")
    return {n: table[n] for n in names}


def run(
    conversations: list[Conversation],
    systems: dict[str, Callable[[Conversation, str], Ingested]],
    label: str = "",
    parts: dict[str, list[Conversation]] | None = None,
) -> list[Row]:
    """One row per system and part (``parts``: part -> its conversations; default one part, all of them).

    Each conversation is ingested and asked once per system; its figures go to every part it belongs to,
    so the parts' rows come from the same run as the whole's.
    """
    from tqdm import tqdm

    parts = parts or {"all": conversations}
    rows = {
        (name, part): Row(name + label + (f" [{part}]" if part != "all" else "")) for part in parts for name in systems
    }
    total = sum(len(c.questions) for c in conversations) * len(systems)
    with (
        tempfile.TemporaryDirectory(prefix="kioko-locomo-") as folder,
        tqdm(total=total, desc="questions", unit="q", disable=not sys.stderr.isatty()) as bar,
    ):
        for conversation in conversations:
            turns = {t.dia_id: t for t in conversation.turns}
            member_of = [part for part, members in parts.items() if conversation in members]
            for name, build in systems.items():
                ingested = build(conversation, folder)
                its = [rows[(name, part)] for part in member_of]
                for row in its:
                    row.ingest_ms_per_memory.append(1000 * ingested.ingest_seconds / max(1, len(conversation.turns)))
                    if ingested.ingest_cpu_seconds is not None:
                        cpu_ms = 1000 * ingested.ingest_cpu_seconds / max(1, len(conversation.turns))
                        row.ingest_cpu_ms_per_memory.append(cpu_ms)
                    if ingested.links_per_memory is not None:
                        row.links_per_memory.append(ingested.links_per_memory)
                for question in conversation.questions:
                    # wall time, and this process's CPU time: the second holds on a busy machine
                    started, cpu = time.perf_counter(), time.process_time()
                    returned = ingested.retrieve(question.text)
                    wall, spent = 1000 * (time.perf_counter() - started), 1000 * (time.process_time() - cpu)
                    dated: float | None = None
                    if ingested.last_text is not None and CATEGORIES[question.category] == "temporal":
                        found = [turns[d] for d in question.evidence if d in returned]
                        if found:
                            text = ingested.last_text()
                            dated = sum(_date_of(t) in text for t in found) / len(found)
                    for row in its:
                        row.recall_ms.append(wall)
                        row.recall_cpu_ms.append(spent)
                        row.add(question, returned)
                        if dated is not None:
                            row.dated.append(dated)
                    bar.update(1)
                ingested.close()
    return list(rows.values())


def _date_of(turn: Turn) -> str:
    """How the context dates an event: "(8 May 2023)"."""
    day = datetime.fromtimestamp(turn.created_at, UTC)
    return f"({day.day} {day.strftime('%B')} {day.year})"


def markdown(results: list[dict[str, Any]], header: dict[str, Any]) -> str:
    lines = [
        f"# LoCoMo evidence recall ({header['questions']} questions, {header['turns']} turns)",
        "",
        f"Command: `{header['command']}`  ",
        f"Commit: {header['commit']}, {header['machine']}, store {header['store']}, embedder {header['embedder']}  ",
        f"Evidence ids fixed: {header['evidence_fixed']}, dropped: {header['evidence_dropped']}  ",
        f"Load average when it started: {header['load']}  ",
        "Parts: " + "; ".join(f"{p} = conversations {', '.join(c)}" for p, c in header.get("parts", {}).items()),
        *([f"Mem0 OSS: {header['mem0']}  "] if header.get("mem0") else []),
        "",
        "| system | R@5 | R@10 | "
        + " | ".join(f"R@10 {c}" for c in CATEGORIES.values())
        + " | ingest ms/memory | ingest CPU ms/memory | recall p50 ms | recall p95 ms | recall CPU p50 ms |",
        "|---|---:|---:|" + "---:|" * len(CATEGORIES) + "---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['system']} | {r['R@5']:.3f} | {r['R@10']:.3f} | "
            + " | ".join(f"{r[f'R@10 {c}']:.3f}" for c in CATEGORIES.values())
            + f" | {r.get('ingest ms/memory', '')} | {r.get('ingest CPU ms/memory', '')}"
            + f" | {r.get('recall p50 ms', '')} | {r.get('recall p95 ms', '')}"
            + f" | {r.get('recall cpu p50 ms', '')} |"
        )
    lines += [
        "",
        "| system | "
        + " | ".join(f"R@5 {c}" for c in CATEGORIES.values())
        + " | links/memory | temporal evidence dated |",
        "|---|" + "---:|" * len(CATEGORIES) + "---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['system']} | "
            + " | ".join(f"{r[f'R@5 {c}']:.3f}" for c in CATEGORIES.values())
            + f" | {r.get('links/memory', '')} | {r.get('temporal evidence dated', '')} |"
        )
    return "\n".join(lines) + "\n"


def plot(results: list[dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [r for r in results if "[" not in r["system"]] or results  # the whole, not its parts
    groups = ["overall", *CATEGORIES.values()]
    width = 0.8 / max(1, len(results))
    figure, axes = plt.subplots(figsize=(10, 5))
    for position, result in enumerate(results):
        values = [result["R@10"]] + [result[f"R@10 {c}"] for c in CATEGORIES.values()]
        xs = [g + position * width for g in range(len(groups))]
        axes.bar(xs, values, width, label=result["system"])
    axes.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], groups)
    axes.set_ylabel("evidence recall@10")
    axes.set_ylim(0, 1)
    axes.set_title("LoCoMo (development split): evidence recall@10 per category")
    axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=4, frameon=False)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def _commit() -> str:
    import subprocess

    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def split_parts(conversations: list[Conversation], split: str) -> dict[str, list[Conversation]]:
    """The conversations of each part asked for (``all``, ``A``, ``B`` or ``A,B``), in the order given."""
    parts: dict[str, list[Conversation]] = {}
    for part in (p.strip() for p in split.split(",") if p.strip()):
        if part == "all":
            parts[part] = list(conversations)
        elif part in SPLITS:
            parts[part] = [c for c in conversations if c.name in SPLITS[part]]
        else:
            raise SystemExit(f"unknown split {part!r}; choose all, A, B or A,B")
    # a sample that is not the development half (the CI sample, other names) has no A/B: all of it
    if all(not members for members in parts.values()):
        return {"all": list(conversations)}
    return {part: members for part, members in parts.items() if members}


def make_embedder(name: str) -> Any:
    """``offline`` (named: connect's default is semantic where installed), ``semantic`` (its default
    runtime) or ``semantic:RUNTIME`` (numpy, onnx, onnx-int8)."""
    if name == "offline":
        return "offline"
    if name.startswith("semantic:"):
        from kioko_core.embedding.semantic import MiniLMEmbedder

        return MiniLMEmbedder(runtime=name.split(":", 1)[1])
    from kioko_core.embedding.embedders import load_embedder

    return load_embedder(name)


def loaded(embedder: Any) -> Any:
    """The embedder with its model loaded: a process pays that once, before its first embedding
    (``benchmarks/startup.py --embedder semantic`` measures it); the first conversation's ingest must not."""
    load = getattr(embedder, "load", None)
    return load() if callable(load) else embedder


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder of LoCoMo conversation files")
    parser.add_argument("--store", choices=("sqlite", "memory", "postgresql"), default="sqlite")
    parser.add_argument("--systems", default="kioko,kioko-links,kioko-nolink,bm25")
    parser.add_argument(
        "--embedder",
        default="offline",
        help="offline (default), semantic, semantic:RUNTIME (numpy, onnx, onnx-int8), or several comma-separated",
    )
    parser.add_argument("--quick", action="store_true", help="one conversation, its first 50 questions")
    parser.add_argument("--conversations", default="", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument(
        "--split",
        default="all",
        help="all (every conversation), A (tuning part), B (confirming part), or A,B: one row per system and part",
    )
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--markdown", dest="markdown_path")
    parser.add_argument("--plot", dest="plot_path")
    args = parser.parse_args(argv)

    files = sorted(Path(args.data).glob("*.json"))
    if args.conversations:
        wanted = set(args.conversations.split(","))
        files = [f for f in files if f.stem in wanted]
    if args.quick:
        files = files[:1]
    if not files:
        raise SystemExit(f"no LoCoMo conversations in {args.data}")
    conversations = [load_conversation(f) for f in files]
    if args.quick:
        conversations[0].questions = conversations[0].questions[:50]
    parts = split_parts(conversations, args.split)
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    results: list[dict[str, Any]] = []
    names = [s for s in args.systems.split(",") if s]
    for position, embedder_name in enumerate(e for e in args.embedder.split(",") if e):
        # a baseline that embeds nothing runs once, with the first embedder; Mem0 runs with each, as Kioko
        wanted = [n for n in names if position == 0 or n.startswith("kioko") or n == "mem0"]
        systems = systems_by_name(wanted, args.store, loaded(make_embedder(embedder_name)))
        label = "" if embedder_name == "offline" else f" ({embedder_name})"
        asked = [c for c in conversations if any(c in members for members in parts.values())]
        with _postgres_for_run(args.store):
            results += [row.summary() for row in run(asked, systems, label, parts)]
    header = {
        "command": "python benchmarks/locomo_recall.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": _commit(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "store": args.store,
        "embedder": args.embedder,
        "load": load,
        "split": args.split,
        "parts": {part: [c.name for c in members] for part, members in parts.items()},
        "questions": sum(len(c.questions) for c in conversations if any(c in m for m in parts.values())),
        "turns": sum(len(c.turns) for c in conversations if any(c in m for m in parts.values())),
        "evidence_fixed": sum(c.evidence_fixed for c in conversations),
        "evidence_dropped": sum(c.evidence_dropped for c in conversations),
    }
    if "mem0" in names:
        from benchmarks.mem0_peer import mem0_version

        header["mem0"] = f"mem0ai {mem0_version()}, Qdrant local mode, add(infer=False), search(top_k={BUDGET})"
    text = markdown(results, header)
    print(text)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"header": header, "results": results}, indent=2) + "\n")
    if args.markdown_path:
        Path(args.markdown_path).write_text(text)
    if args.plot_path:
        plot(results, args.plot_path)
    return results


if __name__ == "__main__":
    main()
