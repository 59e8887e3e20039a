"""Reflection (Generative Agents): when enough has happened, recent episodes become higher-level memories.

Due when the importance of the memories added since the last reflection adds up to ``reflect_after``
(2.5) and at least :data:`MIN_NEW_EPISODES` new episodes arrived (:func:`count`, in the counter record).

Offline, :func:`themes` writes one "recurring theme" insight per subject (a named entity or identifier:
"line 3", "E-217", "OPC UA") or word that comes up in at least :data:`MIN_EPISODES` of the
:data:`RECENT_EPISODES` most recent episodes. The insight is keyed by its theme, so a later reflection
updates it in place and two processes reflecting at once write one. A word counts for an episode only
when it appears outside that episode's subjects: "line" inside "line 3" gives way to "line 3".

With a model, :func:`model_insights` shows the recent episodes as ``e1 ...`` and stores the insights it
returns as facts, preferences, knowledge or lessons with ``metadata.reflection = True`` and the ids of
their evidence. Evidence must be one of the refs shown (so only this scope's episodes); an insight
without valid evidence, a malformed answer or a failing model is ignored, and the offline themes stand in.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.errors import ConflictError
from kioko_core.kinds import Episodes, Facts, Insights, Knowledge, Preferences, Strategies, deterministic_id
from kioko_core.kinds.registry import OP_KINDS
from kioko_core.linking.linker import KIND_TERM
from kioko_core.privacy.held_texts import keeps_text
from kioko_core.privacy.secrets import MARKER, redact
from kioko_core.reading.analysis import FRAMING_WORDS, LIGHT_VERBS, STOP_WORDS, analyze, label, stem
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.language import GENERIC_WORDS

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

RECENT_EPISODES = 30
MIN_EPISODES = 3
"""A subject or word is a theme when this many recent episodes mention it."""
MIN_NEW_EPISODES = 3
"""Reflection waits for at least this many new episodes, whatever their importance."""
MAX_THEMES = 5
"""At most this many themes per reflection, the most frequent first (subjects win ties)."""
MODEL_EPISODES = 20
MAX_INSIGHT_CHARS = 500
INSIGHT_KINDS = {manager.noun: manager.kind for manager in (Facts, Preferences, Knowledge, Strategies)}
"""What a model may file an insight as ("fact", "lesson" ...) -> the stored kind (each from its registry row)."""
_UNTHEMED = STOP_WORDS | FRAMING_WORDS | LIGHT_VERBS | GENERIC_WORDS
_KEY_WORD = re.compile(r"[a-z]+")

REFLECT_PROMPT = """\
Below are recent events from a user's conversations with an assistant, each with a ref (e1, e2 ...).
What higher-level insights do they support: recurring problems, habits, preferences, lessons learned,
lasting facts? Give at most 5, each resting on at least two events.

Events:
{episodes}

Answer with JSON only:
{{"insights": [{{"kind": "fact" | "preference" | "knowledge" | "lesson", "text": "...", "evidence": ["e1", "e3"]}}]}}"""


def count(state: dict[str, Any], report: Any, reflect_after: float) -> bool:
    """Add the turn's new memories to the counters; True (and the counters reset) when reflection is due."""
    added = [op for op in getattr(report, "applied", []) or [] if op.action == "add"]
    state["new_importance"] = round(state["new_importance"] + sum(float(op.importance or 0.0) for op in added), 3)
    state["new_episodes"] += sum(1 for op in added if OP_KINDS.get(op.kind) == Episodes.kind)
    if reflect_after and state["new_importance"] >= reflect_after and state["new_episodes"] >= MIN_NEW_EPISODES:
        state["new_importance"], state["new_episodes"] = 0.0, 0
        return True
    return False


def recent_episodes(memory: MemoryLayer, scope: Scope, limit: int = RECENT_EPISODES) -> list[Record]:
    """The scope's ``limit`` newest episodes, oldest first (session wrap-ups left out: they repeat the session).

    Read through a window of creation times - from the oldest of the last answer for this scope, then a
    day, then 16x wider - until one holds ``limit`` episodes, and only then the whole scope: every episode
    outside a window is older than every one in it, so the answer is the one a scan of the whole user
    gives, while a reflection after a turn reads the newest episodes, not the user's history.
    """
    if not limit:
        return []
    key = (id(memory.store), scope)
    now = time.time()
    hint = _CUTOFFS.get(key)
    if hint is None:
        hint = _newest_indexed(memory, scope, limit)
    windows = ([hint] if hint is not None else []) + [now - days * 86400.0 for days in WINDOW_DAYS]
    for since in windows:
        found = _episodes(memory, scope, since)
        if len(found) >= limit:
            break
    else:
        found = _episodes(memory, scope, None)
    found.sort(key=lambda r: (r.created_at, r.id))
    found = found[-limit:]
    if len(found) == limit:
        _CUTOFFS.pop(key, None)
        _CUTOFFS[key] = found[0].created_at
        while len(_CUTOFFS) > MAX_CUTOFFS:
            del _CUTOFFS[next(iter(_CUTOFFS))]
    return found


def _newest_indexed(memory: MemoryLayer, scope: Scope, limit: int) -> float | None:
    """Where the ``limit`` newest episodes begin by the store's kind index (the ids under ``k:episodic``, newest
    first): a first window to try, read in one go instead of widening back through the user's history. Only
    a hint: the window read finds every episode after it, indexed or not, and is the answer once it holds
    ``limit`` (else the windows widen as without it)."""
    term = KIND_TERM + Episodes.kind
    wanted = 2 * limit  # session wrap-ups are episodes too, and left out
    ids = memory.store.postings(scope, [term], wanted).ids.get(term, [])
    found = [
        r
        for r in (memory.store.get(scope, ids) if ids else [])
        if r is not None and r.kind == Episodes.kind and not r.metadata.get("session_episode")
    ]
    if len(found) < limit:
        return None
    return sorted(r.created_at for r in found)[-limit]


WINDOW_DAYS = (1.0, 16.0, 256.0, 4096.0)
"""The creation-time windows :func:`recent_episodes` reads, narrowest first (then the whole scope)."""
MAX_CUTOFFS = 1024
_CUTOFFS: dict[tuple[int, Scope], float] = {}
"""Per (store, scope), the creation time of the oldest episode :func:`recent_episodes` last answered: the
first window it tries (only a hint: an answer is exact whatever window holds ``limit`` episodes)."""


def episodes_hint(memory: MemoryLayer, scope: Scope) -> float | None:
    """The creation time :func:`recent_episodes` will try first for ``scope`` in this process (None: none)."""
    return _CUTOFFS.get((id(memory.store), scope))


def seed_episodes_hint(memory: MemoryLayer, scope: Scope, since: float | None) -> None:
    """Give a process that has not read the scope's episodes yet where another left off (a hint only: any
    value gives the same answer, a good one reads less)."""
    key = (id(memory.store), scope)
    if since is not None and math.isfinite(since) and key not in _CUTOFFS:
        _CUTOFFS[key] = since


def _episodes(memory: MemoryLayer, scope: Scope, since: float | None) -> list[Record]:
    wanted = Filter(kinds=frozenset({Episodes.kind}), created_after=since)
    return [r for r in memory.store.scan(scope, wanted) if not r.metadata.get("session_episode")]


def themes(memory: MemoryLayer, scope: Scope, episodes: list[Record] | None = None) -> list[Record]:
    """Write (or update in place) the recurring-theme insight of every theme of the recent episodes."""
    return theme_step(memory, scope, episodes)[0]


def theme_step(
    memory: MemoryLayer, scope: Scope, episodes: list[Record] | None = None, limit: int | None = None
) -> tuple[list[Record], int]:
    """:func:`themes` writing at most ``limit`` insights (one already up to date costs a read, not a write):
    the insights looked at, and how many themes were left for the next call. Called until none is left,
    the themes are those one call without a limit writes (theirs are keyed, so a repeat is a no-op)."""
    episodes = recent_episodes(memory, scope) if episodes is None else episodes
    seen: dict[str, list[str]] = defaultdict(list)
    surface: dict[str, str] = {}
    subjects: set[str] = set()
    for episode in episodes:
        for name, shown, subject in _candidates(episode.content):
            subjects.update([name] if subject else [])
            if episode.id not in seen[name]:
                seen[name].append(episode.id)
                surface.setdefault(name, shown)
    chosen = sorted(
        (name for name, ids in seen.items() if len(ids) >= MIN_EPISODES),
        key=lambda name: (-len(seen[name]), name not in subjects, name),
    )[:MAX_THEMES]
    looked: list[Record] = []
    wrote = 0
    for index, name in enumerate(chosen):
        if limit is not None and wrote >= limit:
            return looked, len(chosen) - index
        record, changed = _write_theme(memory, scope, surface[name], name, seen[name])
        looked.append(record)
        wrote += changed
    return looked, 0


@keeps_text
@lru_cache(maxsize=1024)
def _candidates(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(key, as shown, is a subject) of every theme an episode of ``text`` counts for (kept for the 1,024 texts
    last asked: a reflection after a turn reads the same 30 newest episodes as the one before, but one)."""
    # an episode stored before turns were redacted may hold a secret: never a theme, nor a theme's key
    analysis = analyze(MARKER.sub(" ", redact(text)))
    inside = {stem(w) for key in analysis.entities for w in _KEY_WORD.findall(key)}
    found = []
    for term in analysis.terms:
        name = term[2:]
        if not term.startswith("e:") and (
            not term.startswith("t:") or name in inside or name in _UNTHEMED or len(name) < 3
        ):
            continue
        found.append((name, analysis.surface.get(term, name), term.startswith("e:")))
    return tuple(found)


def theme_id(scope: Scope, key: str) -> str:
    """The id of the scope's insight about theme ``key`` (one per theme, updated in place)."""
    return deterministic_id(Insights.kind, scope, "theme", key)


def theme_ids(scope: Scope, text: str) -> list[str]:
    """The ids of every theme insight an episode of ``text`` may be evidence of (forgetting it finds them)."""
    return list(dict.fromkeys(theme_id(scope, name) for name, _, _ in _candidates(text)))


def theme_content(shown: str, count: int, latest: Record | None) -> str:
    """A theme insight's text: the theme, how many recent episodes named it, the latest of them quoted."""
    example = f'; latest: "{label(latest.content)}"' if latest is not None else ""
    return redact(f"Recurring theme: {shown} came up in {count} recent episodes{example}.")


def _write_theme(memory: MemoryLayer, scope: Scope, shown: str, key: str, ids: list[str]) -> tuple[Record, bool]:
    """The theme's insight, and whether this call wrote it (False: it already said this)."""
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    memory_id = theme_id(scope, key)
    evidence = ids[-10:]
    content = theme_content(shown, len(ids), memory.store.get(scope, [ids[-1]])[0])
    metadata = {
        "reflection": True,
        "theme": key,
        "shown": shown,
        "evidence": evidence,
        "episodes": len(ids),
        "by": "offline",
    }
    existing = memory.store.get(scope, [memory_id])[0]
    if existing is None:
        try:
            return memory.add(content, memory_type=Insights.kind, id=memory_id, metadata=metadata, **who), True
        except ConflictError:  # another process wrote this theme just now: update theirs
            existing = memory.get(memory_id, **who)
    if existing.content == content and existing.metadata.get("evidence") == evidence:
        return existing, False
    return memory.update(memory_id, content=content, metadata=metadata, **who), True


def model_insights(
    memory: MemoryLayer, scope: Scope, ask: Callable[[str], str], episodes: list[Record] | None = None
) -> list[Record]:
    """Ask the model for insights about the recent episodes and store the valid ones; raises when the call or
    its answer fails (the caller falls back to :func:`themes`)."""
    episodes = (recent_episodes(memory, scope) if episodes is None else episodes)[-MODEL_EPISODES:]
    if len(episodes) < MIN_EPISODES:
        return []
    refs = {f"e{i}": r for i, r in enumerate(episodes, 1)}
    lines = "\n".join(f"{ref}: {' '.join(r.content.split())[:400]}" for ref, r in refs.items())
    proposed = parse_insights(ask(REFLECT_PROMPT.format(episodes=lines)))
    stored: list[Record] = []
    for item in proposed:
        valid = _valid(item, refs)
        if valid is None:
            continue
        kind, text, evidence = valid
        stored.append(_write_insight(memory, scope, kind, text, evidence))
    return stored


def parse_insights(text: Any) -> list[Any]:
    """The list under ``"insights"`` in the model's answer (a code fence or prose around it is fine)."""
    if not isinstance(text, str):
        raise ValueError("no insights JSON found in the model output")
    cleaned = re.sub(r"```(?:json)?", "", text)
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", cleaned)]:
        try:
            value, _ = decoder.raw_decode(cleaned, start)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("insights"), list):
            insights: list[Any] = value["insights"]
            return insights
    raise ValueError("no insights JSON found in the model output")


def _valid(item: Any, refs: dict[str, Record]) -> tuple[str, str, list[str]] | None:
    """(kind, text, evidence ids) of a well-formed insight whose evidence is among ``refs``; None otherwise."""
    if not isinstance(item, dict):
        return None
    kind = INSIGHT_KINDS.get(str(item.get("kind", "")).strip().lower())
    text = " ".join(item.get("text", "").split()) if isinstance(item.get("text"), str) else ""
    cited = item.get("evidence")
    if kind is None or not 3 <= len(text) <= MAX_INSIGHT_CHARS or not isinstance(cited, list):
        return None
    # only refs the model was shown count: an id it made up, or another user's, reaches nothing
    evidence = list(dict.fromkeys(refs[c].id for c in cited if isinstance(c, str) and c.strip() in refs))
    return (kind, text, evidence) if evidence else None


def _write_insight(memory: MemoryLayer, scope: Scope, kind: str, text: str, evidence: list[str]) -> Record:
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    text = redact(text)  # a model quoting an episode stored before turns were redacted
    # keyed by its words: the same insight found again (or by another process at once) is one memory
    memory_id = deterministic_id(kind, scope, "reflection", " ".join(text.lower().split()).rstrip("."))
    existing = memory.store.get(scope, [memory_id])[0]
    if existing is None:
        try:
            return memory.add(
                text,
                memory_type=kind,
                id=memory_id,
                metadata={"reflection": True, "evidence": evidence, "by": "llm"},
                **who,
            )
        except ConflictError:
            existing = memory.get(memory_id, **who)
    merged = list(dict.fromkeys([*existing.metadata.get("evidence", []), *evidence]))
    if merged == existing.metadata.get("evidence"):
        return existing
    return memory.update(memory_id, metadata={"evidence": merged}, **who)


def reflect(
    memory: MemoryLayer, scope: Scope, ask: Callable[[str], str] | None = None, *, limit: int | None = None
) -> dict[str, Any]:
    """Reflect on the scope's recent episodes: with ``ask`` the model's insights, else (or when it fails) themes.

    ``limit``: offline, write at most that many themes; ``"more"`` in the answer then says some were left
    for the next call (a model's insights come from one call and are all written)."""
    episodes = recent_episodes(memory, scope)
    result: dict[str, Any] = {"insights": [], "themes": [], "error": None}
    if ask is not None:
        try:
            result["insights"] = [r.id for r in model_insights(memory, scope, ask, episodes)]
            return result
        except Exception as error:  # a failing model never breaks maintenance: the offline themes stand in
            result["error"] = f"{type(error).__name__}: {error}"
    looked, left = theme_step(memory, scope, episodes, limit)
    result["themes"] = [r.id for r in looked]
    if limit is not None:
        result["more"] = left > 0
    return result


__all__ = [
    "MIN_EPISODES",
    "REFLECT_PROMPT",
    "count",
    "model_insights",
    "parse_insights",
    "recent_episodes",
    "reflect",
    "theme_content",
    "theme_id",
    "theme_ids",
    "theme_step",
    "themes",
]
