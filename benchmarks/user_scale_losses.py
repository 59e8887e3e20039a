"""Where a question's evidence is lost as one user's memory grows (``benchmarks/user_scale.py``'s user).

    python benchmarks/user_scale_losses.py [--sizes 1000,10000,30000] [--conversation 26]
        [--variant NAME='{"candidates": 40}' ...] [--data ../shared/data/locomo] [--json PATH]

Fills memory:// as ``user_scale.py --store memory --fill store`` does (the same conversation, renamed filler in
sessions, ids and dates) and, at each size, follows every evidence turn of every question through recall's
stages (``recall(links=0, limit=10)``, offline embedder):

- ``no-word``: the evidence holds no term of the question that nominates (lexical score 0): only a vector or
  a link could find it;
- ``lexical``: it scores, but is neither among the best ``SESSION_POOL`` (100) lexical matches nor lent to
  them by its session (the session mates): no later signal reads it;
- ``pool``: it is among the 100 the session, period and speaker signals read, but not among the ``candidates``
  they are cut to (after the repeats give way);
- ``top10``: it is a candidate but not among the ten returned (fusion, recency, the repeats' collapse);
- ``found``: returned.

Beside them, per evidence: its rank in the exact lexical ranking over every memory (``1 + the memories that score
more``, and how many tie with it), in bm25s's ranking of the same texts, and in the vector search (exact cosine
over every vector, and the store's knn, whose ANN index is used past ``exact_below``): whether the dense
candidates would hold it although the offline embedder's weight is 0. ``--variant`` asks every question again
with a RecallConfig change, on the same fill (R@10 only; ``{"_no_recency": true}``: no recency bonus and
ties by id instead of newer first, since the filler is dated after the conversation). The summary's last line
gives R@10 bounds (:func:`bounds`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from benchmarks import user_scale as scale  # noqa: E402
from benchmarks.locomo_recall import BUDGET, CATEGORIES, DEFAULT_DATA, load_conversation  # noqa: E402
from kioko_core.linking.linker import KIND_TERM  # noqa: E402
from kioko_core.reading.query_and_draft import Query  # noqa: E402
from kioko_core.recall import hybrid  # noqa: E402
from kioko_core.recall.options import RecallConfig  # noqa: E402
from kioko_core.store import Scope  # noqa: E402

USER = "user-scale"
STAGES = ("no-word", "lexical", "pool", "top10", "found")
DENSE_K = 100


RECENCY_WEIGHT, ORDER_KEY = hybrid.RECENCY_WEIGHT, hybrid._order_key


def _by_id(scores: dict[str, float], records: Any) -> Any:
    return lambda memory_id: (-scores[memory_id], memory_id)


class Captured:
    """What the last recall's stages held: the 100 the session signals read, the candidates after the cut."""

    def __init__(self) -> None:
        self.near: set[str] = set()
        self.candidates: set[str] = set()
        original_coherent = self._coherent = hybrid.session_coherent
        original_retrieve = self._retrieve = hybrid.retrieve

        def coherent(near: dict[str, float], records: Any, weight: float) -> dict[str, float]:
            self.near = set(near)
            return original_coherent(near, records, weight)

        def retrieve(*args: Any, **kwargs: Any) -> Any:
            self.near = set()
            got = original_retrieve(*args, **kwargs)
            self.candidates = set(got.scores)
            return got

        hybrid.session_coherent = coherent  # type: ignore[assignment]
        hybrid.retrieve = retrieve  # type: ignore[assignment]

    def restore(self) -> None:
        hybrid.session_coherent, hybrid.retrieve = self._coherent, self._retrieve  # type: ignore[assignment]


def bm25_ranks(texts: list[str], questions: list[Any]) -> list[np.ndarray]:
    """Per question, the rank (1 = best) bm25s gives every held text."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    ranks = []
    for question in questions:
        tokens = bm25s.tokenize([question.text], stopwords="en", stemmer=stemmer, show_progress=False)
        found, _ = retriever.retrieve(tokens, k=len(texts), show_progress=False)
        rank = np.empty(len(texts), dtype=np.int64)
        rank[found[0]] = np.arange(1, len(texts) + 1)
        ranks.append(rank)
    return ranks


def diagnose(layer: Any, held: scale.Held, questions: list[Any], capture: Captured, size: int) -> dict[str, Any]:
    scope = Scope(USER)
    config = RecallConfig.build(getattr(layer, "recall_config", None), limit=BUDGET)
    index_of = {memory_id: i for i, memory_id in enumerate(held.ids)}
    id_of = {dia: memory_id for memory_id, dia in held.dia_of.items()}
    bm25 = bm25_ranks(held.texts, questions)
    embedder = layer.embedder
    matrix = np.stack([np.asarray(embedder.embed(t), dtype=np.float32) for t in held.texts])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    rows: list[dict[str, Any]] = []
    for number, question in enumerate(questions):
        read = Query.of(question.text, USER, layer.entities)
        voted: dict[str, float] = {}
        everything, _, _ = hybrid.lexical_scores(
            layer, scope, read, config, len(held.ids) + 10, [KIND_TERM + "goal"], voted
        )
        scores = sorted(everything.values(), reverse=True)
        context = layer.recall(question.text, user_id=USER, links=0, limit=BUDGET)
        returned = [m.record.id for m in context.memories]
        vector = np.asarray(read.vector(embedder), dtype=np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)
        cosines = matrix @ vector
        knn = [hit.id for hit in layer.store.knn(scope, vector, DENSE_K)]
        for dia in sorted(question.evidence):
            memory_id = id_of.get(dia)
            if memory_id is None:
                continue
            score = everything.get(memory_id, 0.0)
            if memory_id in returned[:BUDGET]:
                stage = "found"
            elif memory_id in capture.candidates:
                stage = "top10"
            elif memory_id in capture.near:
                stage = "pool"
            elif score > 0:
                stage = "lexical"
            else:
                stage = "no-word"
            at = index_of[memory_id]
            cosine = float(cosines[at])
            rows.append(
                {
                    "question": number,
                    "category": CATEGORIES[question.category],
                    "evidence": dia,
                    "stage": stage,
                    "lexical_score": round(score, 4),
                    "lexical_rank": (1 + sum(1 for s in scores if s > score)) if score > 0 else None,
                    "lexical_ties": (sum(1 for s in scores if s == score) - 1) if score > 0 else None,
                    "returned_rank": returned.index(memory_id) + 1 if memory_id in returned else None,
                    "bm25_rank": int(bm25[number][at]),
                    "dense_rank": int(1 + np.sum(cosines > cosine)),
                    "knn_rank": knn.index(memory_id) + 1 if memory_id in knn else None,
                    "words": sorted(
                        t for t in voted if t in set(layer.index.records(scope, [memory_id])[memory_id].terms)
                    ),
                }
            )
    return {"size": size, "rows": rows}


def bounds(rows: list[dict[str, Any]]) -> dict[str, float]:
    """R@10 as returned, and what it would be if each evidence were placed by a rule that knew it: first among
    the memories it ties with in the exact lexical ranking, those found now kept (``ties first``: the most a
    tie-break of the words' scores can give),
    anywhere it reaches the 100 the later signals read (``pool``), whenever it scores at all (``scores``); and
    bm25s's and the exact vector search's own R@10 over the same texts."""
    per: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        per[row["question"]].append(row)

    def r10(test: Any) -> float:
        return statistics.mean(sum(1 for r in found if test(r)) / len(found) for found in per.values())

    return {
        "returned": r10(lambda r: r["stage"] == "found"),
        "ties first": r10(lambda r: r["stage"] == "found" or (r["lexical_rank"] or 10**9) <= 10),
        "pool": r10(lambda r: r["stage"] in ("found", "top10", "pool")),
        "scores": r10(lambda r: r["stage"] != "no-word"),
        "bm25": r10(lambda r: r["bm25_rank"] <= 10),
        "dense exact": r10(lambda r: r["dense_rank"] <= 10),
    }


def summary(result: dict[str, Any]) -> str:
    rows = result["rows"]
    stages = Counter(r["stage"] for r in rows)
    lost = [r for r in rows if r["stage"] != "found"]

    def share(test: Any) -> int:
        return sum(1 for r in rows if test(r))

    lines = [
        f"size {result['size']:,}: {len(rows)} evidence turns: " + ", ".join(f"{s} {stages.get(s, 0)}" for s in STAGES),
        f"  bm25 top10 {share(lambda r: r['bm25_rank'] <= 10)}, lexical rank <=10 {share(lambda r: (r['lexical_rank'] or 10**9) <= 10)}, "
        f"<=100 {share(lambda r: (r['lexical_rank'] or 10**9) <= 100)}, dense exact <=10 {share(lambda r: r['dense_rank'] <= 10)}, "
        f"<=100 {share(lambda r: r['dense_rank'] <= 100)}, knn@100 holds {share(lambda r: r['knn_rank'] is not None)}",
        f"  lost with lexical ties >= 10: {sum(1 for r in lost if (r['lexical_ties'] or 0) >= 10)}; "
        f"lost, one word: {sum(1 for r in lost if len(r['words']) == 1)}",
        "  R@10 " + ", ".join(f"{name} {value:.3f}" for name, value in bounds(rows).items()),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--conversation", default="26")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--no-diagnose", action="store_true")
    args = parser.parse_args(argv)
    variants = {"default": {}}
    for given in args.variant:
        name, _, text = given.partition("=")
        variants[name] = json.loads(text)
    data = Path(args.data)
    conversations = {p.stem: load_conversation(p) for p in sorted(data.glob("*.json"))}
    asked = conversations[args.conversation]
    others = [c for name, c in conversations.items() if name != args.conversation]
    layer = kioko.connect("memory://", auto_link=False, embedder="offline")
    capture = Captured()
    try:
        return _run(args, variants, layer, capture, asked, others)
    finally:
        capture.restore()
        hybrid.RECENCY_WEIGHT, hybrid._order_key = RECENCY_WEIGHT, ORDER_KEY
        layer.close()


def _run(
    args: argparse.Namespace,
    variants: dict[str, dict[str, Any]],
    layer: Any,
    capture: Captured,
    asked: Any,
    others: list[Any],
) -> list[dict[str, Any]]:
    questions = asked.questions
    records = layer.add_many(scale.conversation_items(asked), user_id=USER)
    held = scale.Held({r.id: t.dia_id for r, t in zip(records, asked.turns)}, [], [])
    held.texts = [t.document for t in asked.turns]
    held.ids = [r.id for r in records]
    source = scale.filler(asked, others, renamed=True, sessions=True)
    last = max(t.created_at for t in asked.turns)
    written = 0
    writing = argparse.Namespace(fill="store")
    results = []
    for size in sorted(int(s) for s in args.sizes.split(",")):
        batch = scale.filler_items(source, asked.name, last, written, max(0, size - len(held.texts)))
        written += len(batch)
        for start in range(0, len(batch), 5_000):
            stored = scale.write(layer, batch[start : start + 5_000], USER, writing)
            held.ids.extend(r.id for r in stored)
            held.texts.extend(r.content for r in stored)
        entry: dict[str, Any] = {"size": size}
        for question in questions:  # asked once untimed: the lists of every question's terms made whole in the cache
            layer.recall(question.text, user_id=USER, links=0, limit=BUDGET)
        for name, config in variants.items():
            config = dict(config)
            timeless = bool(config.pop("_no_recency", False))
            layer.recall_config = RecallConfig.build(config or None)
            if timeless:  # no recency bonus, ties by id: what the filler's being newer costs
                hybrid.RECENCY_WEIGHT = 0.0
                hybrid._order_key = _by_id  # type: ignore[assignment]
            started = time.process_time()
            at10 = []
            for question in questions:
                context = layer.recall(question.text, user_id=USER, links=0, limit=BUDGET)
                returned = [held.dia_of.get(m.record.id, "") for m in context.memories]
                at10.append(scale.evidence_recall(question, returned, 10))
            cpu = (time.process_time() - started) * 1000 / len(questions)
            hybrid.RECENCY_WEIGHT, hybrid._order_key = RECENCY_WEIGHT, ORDER_KEY
            entry[name] = {"r10": statistics.mean(at10), "cpu_ms": cpu}
            print(f"size {size:,} {name}: R@10 {statistics.mean(at10):.3f}, CPU {cpu:.2f} ms a recall", flush=True)
        layer.recall_config = RecallConfig.build(None)
        if not args.no_diagnose:
            found = diagnose(layer, held, questions, capture, size)
            entry["diagnosis"] = found
            print(summary(found), flush=True)
        results.append(entry)
        if args.json_path:
            Path(args.json_path).write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
