"""A model reviews the newest automatic links (graph memory, section 7): keep, retype or drop, in one call.

When the graph is tended and the intelligence has a model, the 12 most recent links the algorithm made
(``by = auto``) are shown to the model as numbered pairs with the proposed sentence and its evidence.
It answers with JSON: per pair ``keep``, the ``type`` and which side is the ``source``. A kept link
becomes ``by = llm`` with weight at least 0.7 (it then fades like any reviewed link); a dropped one is
removed from both memories and remembered as unlinked, so the algorithm does not make it again.

The model can only name the pairs it was shown (``p1`` ... ``p12``): ids, other users' memories or the
shared knowledge base are out of its reach. Unknown pairs, unknown or structural types and malformed
answers are ignored; a model that raises or answers nonsense leaves every link as it was.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kioko_core.kinds.registry import LINKABLE_KINDS
from kioko_core.linking import links
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import Filter, Record, Scope
from kioko_core.store.retry import retry_conflicts
from kioko_intelligence.llm import as_ask, json_values

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")

REVIEWED = 12
"""Links shown to the model per review (one call)."""
KEPT_WEIGHT = 0.7
"""A link the model keeps weighs at least this much."""
LABEL_CHARS = 200
WHY_CHARS = 200
MODEL_TYPES = frozenset(links.LINK_TYPES - {"part_of", "supersedes", "derived_from"})
"""Types a model may give a link: the structural ones follow from a memory's own fields, never from a review."""

DEFAULT_REVIEW_PROMPT = """\
You review links between the memories of one user's assistant. Each pair shows two memories, A and B, and
the link an algorithm proposed between them. Keep a link that is true and useful, give it a better type or
direction when that reads truer, and drop a link that connects unrelated things.
Types: {types}.

{pairs}

Answer with JSON only: {{"links": [{{"pair": "p1", "keep": true, "type": "serves", "source": "A", "why": "..."}}]}}
"""


@dataclass
class _Pair:
    name: str
    a: Record
    b: Record
    type: str
    why: str


def recent_automatic(memory: MemoryLayer, scope: Scope, count: int = REVIEWED) -> list[_Pair]:
    """The ``count`` newest automatic links among the scope's own memories (each once, from its source)."""
    records = {r.id: r for r in memory.store.scan(scope, Filter(kinds=frozenset(LINKABLE_KINDS)))}
    found: list[tuple[float, str, str, dict[str, Any]]] = []
    for record in records.values():
        for entry in links.link_entries(record):
            if entry.get("by", "auto") != "auto" or entry.get("shared") or entry["id"] not in records:
                continue
            if entry.get("dir") == "out":
                found.append((float(entry.get("at", 0.0)), record.id, entry["id"], entry))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    pairs = []
    for number, (_, source, target, entry) in enumerate(found[:count], 1):
        pairs.append(
            _Pair(
                name=f"p{number}",
                a=records[source],
                b=records[target],
                type=str(entry.get("type", "related_to")),
                why=str(entry.get("why", "")),
            )
        )
    return pairs


def review_prompt(pairs: list[_Pair], template: str = DEFAULT_REVIEW_PROMPT) -> str:
    """The prompt showing ``pairs`` in the spec's shape (``p1: A = [decision] '...'`` ...)."""
    lines = []
    for pair in pairs:
        why = f" ({pair.why})" if pair.why else ""
        lines.append(
            f"{pair.name}: A = [{links.noun(pair.a.kind)}] {_quote(pair.a.content)}\n"
            f"    B = [{links.noun(pair.b.kind)}] {_quote(pair.b.content)}\n"
            f"    proposed: A {pair.type} B{why}"
        )
    return template.format(types=", ".join(sorted(MODEL_TYPES)), pairs="\n".join(lines))


def parse_review(text: Any) -> list[dict[str, Any]]:
    """The list under ``"links"`` in the model's answer; ValueError when there is none."""
    if not isinstance(text, str):
        raise ValueError("the model's answer is not text")
    for value in json_values(text, "{"):
        if isinstance(value, dict) and isinstance(value.get("links"), list):
            return [v for v in value["links"] if isinstance(v, dict)]
    raise ValueError("no links JSON found in the model's answer")


def review_links(
    memory: MemoryLayer, llm: Any, scope: Scope, *, now: float | None = None, count: int = REVIEWED
) -> dict[str, Any]:
    """Show the newest automatic links to ``llm`` in one call and apply its verdicts.

    Returns ``{"reviewed": n, "kept": k, "retyped": r, "dropped": d}`` (and ``"review_error"`` when the model
    failed or answered nothing usable). Never raises: maintenance goes on whatever the model does.
    """
    done: dict[str, Any] = {"reviewed": 0, "kept": 0, "retyped": 0, "dropped": 0}
    try:
        pairs = recent_automatic(memory, scope, count)
        if not pairs:
            return done
        verdicts = parse_review(as_ask(llm)(review_prompt(pairs)))
    except Exception as error:  # a failing or confused model never breaks maintenance
        log.warning("link review: %s: %s; links left as they are", type(error).__name__, error)
        done["review_error"] = f"{type(error).__name__}: {error}"[:300]
        return done
    by_name = {p.name: p for p in pairs}
    seen: set[str] = set()
    stamp = time.time() if now is None else now
    for verdict in verdicts:
        name = verdict.get("pair")
        pair = by_name.get(name) if isinstance(name, str) else None
        if pair is None or pair.name in seen:
            continue  # a pair it was not shown (an id, another user's memory ...) or a second verdict
        try:
            outcome = _apply(memory, scope, pair, verdict, stamp)
        except Exception as error:  # one bad write leaves the other verdicts standing
            log.warning("link review of %s: %s: %s", pair.name, type(error).__name__, error)
            continue
        if outcome is None:
            continue
        seen.add(pair.name)
        done["reviewed"] += 1
        done[outcome] += 1
    return done


def _apply(memory: MemoryLayer, scope: Scope, pair: _Pair, verdict: dict[str, Any], now: float) -> str | None:
    """Keep, retype or drop one link; None when the verdict is invalid or the link changed meanwhile."""
    keep = verdict.get("keep")
    if not isinstance(keep, bool):
        return None
    link_type = verdict.get("type", pair.type)
    side = verdict.get("source", "A")
    if keep and (link_type not in MODEL_TYPES or side not in ("A", "B")):
        return None
    why = verdict.get("why")
    why = why.strip()[:WHY_CHARS] if isinstance(why, str) and why.strip() else pair.why
    try:
        memory.secrets.enforce("", None, why)  # the why is stored on both memories
    except Exception:
        why = pair.why

    def attempt() -> str | None:
        a, b = memory.store.get(scope, [pair.a.id, pair.b.id])
        if a is None or b is None:
            return None
        entry = links.entry_for(a, b.id)
        if entry is None or entry.get("by", "auto") != "auto":
            return None  # gone or taken over by a stronger author since the prompt was built
        if not keep:
            memory.bookkeeping.rewrite_links(
                [
                    (a, links.remember_unlinked(links.drop_link(a, b.id), b.id)),
                    (b, links.remember_unlinked(links.drop_link(b, a.id), a.id)),
                ]
            )
            return "dropped"
        source, target = (a, b) if side == "A" else (b, a)
        link = links.MemoryLink(
            source=source.id,
            target=target.id,
            type=link_type,
            weight=max(KEPT_WEIGHT, float(entry.get("w", 0.0))),
            why=why,
            by="llm",
            at=float(entry.get("at", now)),
            seen=now,
        )
        memory.bookkeeping.rewrite_links([(a, links.put_link(a, link)), (b, links.put_link(b, link))])
        same = link_type == pair.type and (entry.get("dir") == "out") == (side == "A")
        return "kept" if same else "retyped"

    result: str | None = retry_conflicts(f"review of link {pair.a.id} - {pair.b.id}", attempt)
    return result


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= LABEL_CHARS else flat[: LABEL_CHARS - 3] + "...")


__all__ = ["DEFAULT_REVIEW_PROMPT", "KEPT_WEIGHT", "MODEL_TYPES", "REVIEWED", "parse_review", "review_links"]
