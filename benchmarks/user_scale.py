"""One user whose memory grows for a year: does recall stay as good, and as fast, at 100,000 memories?

    python benchmarks/user_scale.py --store memory|sqlite|postgresql|qdrant-edge
        [--sizes 1000,10000,100000] [--conversation 26] [--embedder offline] [--auto-link]
        [--data ../shared/data/locomo] [--json PATH] [--markdown PATH]

Through the public API, as a new user would: one LoCoMo conversation of the development half (the one
whose questions are asked) is stored for one user, one memory per turn as ``locomo_recall.py`` stores it;
then ordinary conversational filler is added with ``add_many`` until the user holds each size in turn, and
at each size every question of the conversation (categories 1-4) is asked. The filler is made from the
development half's *other* conversations: each filler memory joins the first half of one of their turns
to the second half of another, with their speakers renamed to the asked conversation's two speakers (in the
"Speaker:" prefix and in the text), so the names a question carries do not single out its conversation.
Each filler session (40 memories) is made of a stretch of 40 consecutive turns of one of them, each half of a
turn used once, so it is about something, as a user's real sessions are (``--filler mixed``: every memory from
any turn, the filler of the first results).
Filler is dated after the conversation, ten minutes apart, as a year of later talk would be.

Reported per size, in one run per store: evidence recall@5 / @10 of Kioko (``recall(links=0, limit=10)``)
and of plain BM25 (bm25s over the same texts, the whole user's memory, stemming and English stop words);
recall p50 / p95 (each question asked once untimed, then timed: the index cache and the knn graph warm, as
for a user who keeps talking) and the first ask's p50 / p95; the knn's recall@10 against an exact search
over every vector the user holds (the store's ANN index, chosen by the store past a size); the resident
memory of this process (VmRSS: for PostgreSQL the server's is not in it); and the fill's wall time per
memory. A store with an ``optimize()`` (Qdrant edge) has it called after each size's fill, as after an import,
and its time reported apart. Filling is with linking off unless ``--auto-link`` (then links are made as ``add_many`` makes them
on this tree, and recall asks for ``links=3``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from benchmarks.locomo_recall import (  # noqa: E402
    BUDGET,
    CATEGORIES,
    DEFAULT_DATA,
    Conversation,
    Question,
    _commit,
    load_conversation,
)
from kioko_core.reading.query_and_draft import Query  # noqa: E402
from kioko_core.store import Scope, Upsert  # noqa: E402

STORES = ("memory", "sqlite", "postgresql", "qdrant-edge")
FILLER_GAP = 600.0
"""Seconds between two filler memories (ten minutes): 100,000 of them span about two years."""
FILLER_SESSION = 40
"""Filler memories per session."""
KNN_K = 10
EXACT_CHUNK = 8_192


# --------------------------------------------------------------------------- the data


def _renamer(names: dict[str, str]) -> Any:
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b")
    return lambda text: pattern.sub(lambda m: names[m.group(1)], text)


def _speakers(conversation: Conversation) -> list[str]:
    return list(dict.fromkeys(t.speaker for t in conversation.turns))[:2]


def filler(
    asked: Conversation, others: Sequence[Conversation], renamed: bool, seed: int = 34, sessions: bool = True
) -> Iterator[tuple[str, str]]:
    """Endless (speaker, text) filler from ``others``' turns: the first half of one turn joined to the second
    half of another of the same conversation, spoken by that conversation's own speakers, or (``renamed``) by
    ``asked``'s two, with their names in the text renamed too.

    ``sessions``: each run of :data:`FILLER_SESSION` memories (one filler session) is made of a stretch of that many
    consecutive turns of one conversation, each turn's first half once and each turn's second half once (joined
    in a shuffled order): a filler session is about something, as a user's real sessions are, and holds no
    sentence twice. Without it each memory comes from any turn of a conversation drawn at random, and a filler
    session is a mix of topics that no real session is (a ranking signal that reads sessions then profits from
    the filler's making alone); drawing a session's memories from a single LoCoMo session with replacement
    instead repeats each half about twice in it, which no real session does either (such a signal then loses
    by it)."""
    pools: list[list[tuple[str, list[str]]]] = []  # per conversation, in order: (speaker, the turn's words)
    for other in others:
        own = _speakers(other)
        targets = _speakers(asked) if renamed else own
        names = {name: targets[i] for i, name in enumerate(own)}
        for name, target in list(names.items()):  # a first name alone, as the turns address each other
            names.setdefault(name.split()[0], target.split()[0])
        rename = _renamer(names)
        pool = [(names.get(t.speaker, t.speaker), rename(t.text).split()) for t in other.turns]
        pools.append([(speaker, words) for speaker, words in pool if len(words) >= 2])
    rng = random.Random(seed)
    while True:
        pool = rng.choice(pools)
        if sessions:
            start = rng.randrange(max(1, len(pool) - FILLER_SESSION + 1))
            stretch = pool[start : start + FILLER_SESSION]
            tails = [words for _, words in stretch]
            rng.shuffle(tails)
            for (speaker, head), tail in zip(stretch, tails):
                yield speaker, " ".join(head[: max(1, len(head) // 2)] + tail[len(tail) // 2 :])
        else:
            (speaker, head), (_, tail) = rng.choice(pool), rng.choice(pool)
            yield speaker, " ".join(head[: max(1, len(head) // 2)] + tail[len(tail) // 2 :])


# --------------------------------------------------------------------------- the stores


def conversation_items(asked: Any) -> list[dict[str, Any]]:
    """The asked conversation's turns as add_many items, each with an id made from its dialogue id."""
    return [
        {
            "content": t.document,
            "session_id": t.session,
            "created_at": t.created_at,
            "memory_type": "episodic",
            "id": uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{asked.name}/{t.dia_id}").hex,
        }
        for t in asked.turns
    ]


def filler_items(
    source: Iterator[tuple[str, str]], name: str, last: Any, first: int, count: int
) -> list[dict[str, Any]]:
    """The next ``count`` filler turns of ``source`` as add_many items, numbered from ``first`` (their ids, sessions
    and times follow from the number: after the asked conversation's ``last`` turn, FILLER_GAP apart)."""
    items = []
    for number in range(first, first + count):
        speaker, text = next(source)
        items.append(
            {
                "content": f"{speaker}: {text}",
                "session_id": f"filler_{number // FILLER_SESSION}",
                "created_at": last + FILLER_GAP * (number + 1),
                "memory_type": "episodic",
                "id": uuid.uuid5(uuid.NAMESPACE_URL, f"user-scale/{name}/{number}").hex,
            }
        )
    return items


@contextmanager
def store_url(store: str, folder: str) -> Iterator[str]:
    if store == "memory":
        yield "memory://"
    elif store == "sqlite":
        yield f"sqlite:///{os.path.join(folder, 'user-scale.db')}"
    elif store == "qdrant-edge":
        yield f"qdrant+edge:///{os.path.join(folder, 'user-scale-edge')}"
    elif store == "postgresql":
        url = os.environ.get("KIOKO_TEST_POSTGRES_URL")
        service = None
        if not url:
            sys.path.insert(0, str(ROOT / "tests"))
            import services  # tests/services.py: the embedded server the test matrix uses

            service = services.start_postgres()
            if not service.available:
                raise SystemExit(f"PostgreSQL could not start: {service.how}")
            url = service.url
        table = "user_scale_" + uuid.uuid4().hex[:8]
        try:
            yield url + ("&" if "?" in url else "?") + f"table={table}"
        finally:
            if service is not None:
                service.stop()
    else:
        raise SystemExit(f"unknown store {store!r}; one of {', '.join(STORES)}")


class ServerCpu:
    """CPU time the PostgreSQL server's client backends spent, read from /proc (the embedded server runs on this
    machine): the backends serving the layer's pool, found through ``pg_stat_activity`` on a connection of its
    own, which is left out. Background work (autovacuum after a fill, the checkpointer) is not counted. On a
    server on another machine, or any other store, :meth:`seconds` is None."""

    def __init__(self, url: str | None) -> None:
        self._conn: Any = None
        if url is None:
            return
        try:
            import psycopg

            # libpq refuses Kioko's own query parameter, the table store_url added
            self._conn = psycopg.connect(re.sub(r"[?&]table=[^&]*$", "", url), autocommit=True)
        except Exception:  # no server CPU column rather than no run
            self._conn = None

    def seconds(self) -> float | None:
        if self._conn is None:
            return None
        pids = [
            row[0]
            for row in self._conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        ]
        ticks = 0
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # not on this machine, or ended
                return None
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


# --------------------------------------------------------------------------- measuring


@dataclass
class Held:
    """What the user holds, as this benchmark wrote it: ids to LoCoMo turns, and every text (for BM25)."""

    dia_of: dict[str, str]
    texts: list[str]
    ids: list[str]


def evidence_recall(question: Question, returned: Sequence[str], k: int) -> float:
    return len(question.evidence & set(returned[:k])) / len(question.evidence)


def bm25_recall(held: Held, questions: Sequence[Question]) -> dict[str, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(held.texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )
    index_s = time.perf_counter() - started
    at5, at10 = [], []
    for question in questions:
        tokens = bm25s.tokenize([question.text], stopwords="en", stemmer=stemmer, show_progress=False)
        found, _ = retriever.retrieve(tokens, k=BUDGET, show_progress=False)
        returned = [held.dia_of.get(held.ids[int(i)], "") for i in found[0]]
        at5.append(evidence_recall(question, returned, 5))
        at10.append(evidence_recall(question, returned, 10))
    return {"r5": statistics.mean(at5), "r10": statistics.mean(at10), "index_s": index_s}


def knn_recall(layer: Any, scope: Scope, held: Held, questions: Sequence[Question]) -> float:
    """The store's knn@10 against an exact search over every vector the user holds (re-embedded here, in
    chunks, so the check holds no copy of the matrix): the share of exact neighbours found, a returned
    memory whose true score ties the exact 10th counting as found."""
    embedder = layer.embedder
    queries = np.stack(
        [np.asarray(Query.of(q.text, scope.user_id, layer.entities).vector(embedder)) for q in questions]
    )
    queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
    best = np.full((len(questions), KNN_K), -np.inf)
    for start in range(0, len(held.texts), EXACT_CHUNK):
        chunk = np.stack(
            [np.asarray(embedder.embed(t), dtype=np.float32) for t in held.texts[start : start + EXACT_CHUNK]]
        )
        chunk /= np.maximum(np.linalg.norm(chunk, axis=1, keepdims=True), 1e-12)
        scores = queries @ chunk.T
        best = -np.sort(-np.concatenate([best, scores], axis=1), axis=1)[:, :KNN_K]
    found = []
    for row in range(len(questions)):
        hits = layer.store.knn(scope, queries[row], KNN_K)
        tenth = best[row, KNN_K - 1]
        wanted = int(np.sum(best[row] > -np.inf))
        good = sum(1 for hit in hits if hit.score >= tenth - 1e-5)
        found.append(min(good, wanted) / wanted if wanted else 1.0)
    return statistics.mean(found)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def measure(
    layer: Any, scope: Scope, held: Held, questions: Sequence[Question], links: int, server: ServerCpu
) -> dict[str, Any]:
    first_ms, warm_ms, cpu_ms, at5, at10 = [], [], [], [], []
    answers = hashlib.sha256()  # the warm answers, in order: a speed-only change leaves it as it was
    sent = getattr(layer.store, "round_trips", None)  # PostgreSQL's count of requests waited for, by kind
    warm_trips = 0
    server_s: float | None = None
    for timed in (first_ms, warm_ms):
        trips_before = sent.total() if sent is not None else 0
        server_before = server.seconds() if timed is warm_ms else None
        for question in questions:
            started, cpu = time.perf_counter(), time.process_time()
            context = layer.recall(question.text, user_id=scope.user_id, links=links, limit=BUDGET)
            timed.append((time.perf_counter() - started) * 1000)
            if timed is warm_ms:
                cpu_ms.append((time.process_time() - cpu) * 1000)
            if timed is warm_ms:
                returned = [held.dia_of.get(m.record.id, "") for m in context.memories]
                answers.update(("\x1f".join(m.record.id for m in context.memories) + "\x1e").encode())
                at5.append(evidence_recall(question, returned, 5))
                at10.append(evidence_recall(question, returned, 10))
        if timed is warm_ms and sent is not None:
            warm_trips = sent.total() - trips_before
        server_after = server.seconds() if server_before is not None else None
        if server_before is not None and server_after is not None:
            server_s = server_after - server_before
    return {
        "r5": statistics.mean(at5),
        "r10": statistics.mean(at10),
        "per_category_r10": {
            CATEGORIES[c]: statistics.mean(v for q, v in zip(questions, at10) if q.category == c)
            for c in sorted({q.category for q in questions})
        },
        "recall_p50_ms": statistics.median(warm_ms),
        "recall_cpu_p50_ms": statistics.median(cpu_ms),
        "recall_cpu_p95_ms": percentile(cpu_ms, 0.95),
        "server_cpu_ms_per_recall": server_s * 1000 / len(questions) if server_s is not None else None,
        "answers_digest": answers.hexdigest()[:16],
        "load_while_asked": round(os.getloadavg()[0], 1),
        "recall_p95_ms": percentile(warm_ms, 0.95),
        "first_p50_ms": statistics.median(first_ms),
        "first_p95_ms": percentile(first_ms, 0.95),
        "round_trips_per_recall": warm_trips / len(questions) if sent is not None else None,
    }


def write(layer: Any, items: list[dict[str, Any]], user: str, args: argparse.Namespace) -> list[Any]:
    """``add_many`` (``--fill add_many``), or (``--fill store``) the records a scratch memory:// layer with the
    same embedder makes of the items, written to the store in batches of 500 (the layer's index cache then
    catches up by the store's changes, as after another process's writes; on a store that does not count its
    writes, Qdrant, the cache is told)."""
    if args.fill == "add_many":
        return list(layer.add_many(items, user_id=user))
    scratch = kioko.connect("memory://", auto_link=False, embedder=layer.embedder)
    records = [r.model_copy(update={"version": 0}) for r in scratch.add_many(items, user_id=user)]
    scratch.close()
    for start in range(0, len(records), 500):
        layer.store.update_many([Upsert(record=r, expected_version=0) for r in records[start : start + 500]])
    # as after another process's writes: a store that counts its writes per scope (SQLite, PostgreSQL) shows the
    # layer's index cache they happened at its next lookup; on any other (Qdrant) the cache would go on
    # answering from what it held until its ttl (10 minutes) ran out, so it is told here
    layer.index.invalidate(Scope(user))
    return records


def run(args: argparse.Namespace) -> dict[str, Any]:
    data = Path(args.data)
    conversations = {p.stem: load_conversation(p) for p in sorted(data.glob("*.json"))}
    asked = conversations[args.conversation]
    others = [c for name, c in conversations.items() if name != args.conversation]
    questions = asked.questions
    sizes = sorted(int(s) for s in args.sizes.split(","))
    user = "user-scale"
    scope = Scope(user)
    links = 3 if args.auto_link else 0
    header = {
        "command": "python benchmarks/user_scale.py " + " ".join(sys.argv[1:]),
        "commit": _commit(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_at_start": [round(v, 1) for v in os.getloadavg()],
        "store": args.store,
        "embedder": args.embedder,
        "auto_link": args.auto_link,
        "names": args.names,
        "fill": args.fill,
        "filler": args.filler,
        "conversation": args.conversation,
        "questions": len(questions),
        "turns": len(asked.turns),
    }
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="user-scale-") as folder, store_url(args.store, folder) as url:
        layer = kioko.connect(url, auto_link=args.auto_link, embedder=args.embedder)
        server = ServerCpu(url if args.store == "postgresql" else None)
        started = time.perf_counter()
        records = layer.add_many(conversation_items(asked), user_id=user)
        conversation_s = time.perf_counter() - started
        held = Held({r.id: t.dia_id for r, t in zip(records, asked.turns)}, [], [])
        held.texts = [t.document for t in asked.turns]
        held.ids = [r.id for r in records]
        source = filler(asked, others, args.names == "asked", sessions=args.filler == "sessions")
        last = max(t.created_at for t in asked.turns)
        written = 0
        for size in sizes:
            wanted = size - len(held.texts)
            batch = filler_items(source, asked.name, last, written, max(0, wanted))
            written += len(batch)
            started = time.perf_counter()
            for start in range(0, len(batch), 5_000):
                stored = write(layer, batch[start : start + 5_000], user, args)
                held.ids.extend(r.id for r in stored)
                held.texts.extend(r.content for r in stored)
                if args.progress:
                    print(f"  {args.store}: {len(held.texts):,} memories", file=sys.stderr, flush=True)
            fill_s = time.perf_counter() - started
            # what a user does after a bulk import into Qdrant edge (docs/scaling-cluster.md): its optimizer runs
            # only on the write crossing ``optimize_every``, so without this about half of 100,000 vectors would be
            # in unindexed segments and each knn a scan of them
            optimize = getattr(layer.store, "optimize", None)
            started = time.perf_counter()
            optimized = optimize() if callable(optimize) and batch else None
            optimize_s = time.perf_counter() - started if optimized is not None else None
            n = layer.index.lookup(scope, [], 0)[0]
            started = time.perf_counter()
            layer.store.knn(scope, np.asarray(layer.embedder.embed("warm the index")), KNN_K)
            first_knn_s = time.perf_counter() - started
            row: dict[str, Any] = {"size": size, "held": n}
            row.update(measure(layer, scope, held, questions, links, server))
            row["rss_mb"] = rss_mb()
            row["fill_ms_per_memory"] = fill_s * 1000 / len(batch) if batch else None
            row["optimize_s"] = optimize_s
            row["first_knn_s"] = first_knn_s
            bm25 = bm25_recall(held, questions)
            row["bm25_r5"], row["bm25_r10"] = bm25["r5"], bm25["r10"]
            row["knn_recall_vs_exact"] = knn_recall(layer, scope, held, questions)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
        header["conversation_fill_ms_per_memory"] = conversation_s * 1000 / len(asked.turns)
        server.close()
        layer.close()
    return {"header": header, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    h, rows = result["header"], result["rows"]
    base = rows[0]
    lines = [
        f"# One user grown to {rows[-1]['size']:,} memories ({h['store']})",
        "",
        f"Command: `{h['command']}`  ",
        f"Commit: {h['commit']}, {h['machine']}, load at start {h['load_at_start']}  ",
        f"Questions: conversation {h['conversation']} of the development half ({h['turns']} turns, "
        f"{h['questions']} questions); filler from the other four, spoken by "
        f"{'their own speakers' if h['names'] == 'own' else 'its two speakers (renamed)'}"
        f"{', each filler session from 40 consecutive turns of one' if h.get('filler') == 'sessions' else ''}; "
        f"embedder {h['embedder']}; "
        f"linking {'on' if h['auto_link'] else 'off'} (recall links={3 if h['auto_link'] else 0}, limit=10); filler "
        + ("through add_many" if h.get("fill", "add_many") == "add_many" else "written to the store in batches of 500"),
        "",
        "| memories | Kioko R@10 | x at first size | BM25 R@10 | Kioko R@5 | BM25 R@5 | recall p50 / p95 ms | "
        "recall CPU p50 / p95 ms | server CPU ms / recall | load | first ask p50 / p95 ms | knn@10 vs exact | RSS MB | "
        "fill ms/memory | first knn s | round trips / recall | answers digest |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        fill = f"{r['fill_ms_per_memory']:.2f}" if r["fill_ms_per_memory"] is not None else ""
        trips = r.get("round_trips_per_recall")
        shown_trips = f"{trips:.2f}" if trips is not None else ""
        server = r.get("server_cpu_ms_per_recall")
        shown_server = f"{server:.2f}" if server is not None else ""
        lines.append(
            f"| {r['held']:,} | {r['r10']:.3f} | {r['r10'] / base['r10']:.3f} | {r['bm25_r10']:.3f} | {r['r5']:.3f} | "
            f"{r['bm25_r5']:.3f} | {r['recall_p50_ms']:.2f} / {r['recall_p95_ms']:.2f} | "
            f"{r.get('recall_cpu_p50_ms', float('nan')):.2f} / {r.get('recall_cpu_p95_ms', float('nan')):.2f} | "
            f"{shown_server} | {r.get('load_while_asked', '')} | "
            f"{r['first_p50_ms']:.2f} / {r['first_p95_ms']:.2f} | {r['knn_recall_vs_exact']:.3f} | "
            f"{r['rss_mb']:.0f} | {fill} | {r['first_knn_s']:.2f} | {shown_trips} | {r.get('answers_digest', '')} |"
        )
    last = rows[-1]
    optimized = [r for r in rows if r.get("optimize_s") is not None]
    if optimized:
        lines += [
            "",
            "The store's `optimize()` was called after each size's fill (not in the fill column): "
            + " / ".join(f"{r['optimize_s']:.1f} s at {r['held']:,}" for r in optimized)
            + ".",
        ]
    lines += [
        "",
        f"Recall p50 at {last['held']:,} is {last['recall_p50_ms'] / base['recall_p50_ms']:.2f}x the figure at "
        f"{base['held']:,} (CPU time of this process: "
        f"{last.get('recall_cpu_p50_ms', float('nan')) / base.get('recall_cpu_p50_ms', float('nan')):.2f}x); "
        f"R@10 {last['r10'] / base['r10']:.3f}x. Load: the 1-minute load average when each size's questions were "
        "asked (2 cores). Recall CPU: this process's; for PostgreSQL the server's is apart, server CPU ms / recall "
        "(its client backends' CPU over the warm pass, a mean: blank where the server is not on this machine); round "
        "trips / recall: the requests a warm recall sent to the server and waited for (the driver's count; blank for "
        "in-process stores). Answers digest: the warm answers' ids in order, so a speed-only change shows it "
        "answered the same.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=STORES, default="memory")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--conversation", default="26", help="the development conversation whose questions are asked")
    parser.add_argument("--embedder", default="offline")
    parser.add_argument(
        "--names",
        choices=("own", "asked"),
        default="asked",
        help="filler spoken by its conversations' own speakers, or by the asked conversation's (renamed)",
    )
    parser.add_argument("--auto-link", action="store_true", help="link while filling (slow at 100,000)")
    parser.add_argument(
        "--fill",
        choices=("add_many", "store"),
        default="add_many",
        help="filler through add_many, or as records written to the store in batches (linking off)",
    )
    parser.add_argument(
        "--filler",
        choices=("sessions", "mixed"),
        default="sessions",
        help="each filler session from a stretch of consecutive turns of another conversation, or every memory from any turn",
    )
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--markdown", dest="markdown_path")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    result = run(args)
    text = markdown(result)
    print(text)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown_path:
        Path(args.markdown_path).write_text(text)
    return result


if __name__ == "__main__":
    main()
