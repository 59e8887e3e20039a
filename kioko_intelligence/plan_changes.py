"""One item of a plan or list changes; the rest of it stays.

A plan, a schedule or a list is one memory of several items ("Exam prep: week one algebra, week two
geometry, week three past papers"; "Holiday plan: 1. Three nights in Rome. 2. Florence. 3. Venice."). A
later turn that changes one item must rewrite that item in place, not replace the whole memory (the other
items are still true) nor leave it as it was. Two shapes are read, both without a model:

- **keyed**: "Week two is statistics now": a clause *key is value* with a change cue, where a memory holds
  the same key followed by another value ("week two geometry") -> "week two statistics";
- **dropped and replaced**: "We cut Venice from the holiday, we'll finish in Bologna": the turn names an
  item it removes (the old values :func:`.slots.old_values` reads) and exactly one new name in the same
  sentence that the memory does not hold -> "Venice" becomes "Bologna";
- **dropped**: "Skip the demo video, no time" names, by its words, exactly one step of a numbered plan of
  three or more and nothing in its place -> that step leaves the plan and the others are renumbered.

A person a memory names who leaves, with another taking the place, is rewritten the same way
(:mod:`.successors`). The rewrite rides on an ``add`` of the same turn (``fields["rewrites"]``), applied after it; the memory's
version history keeps the old text.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from kioko_core.store import Record
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.successors import succeeded

_KEYED = re.compile(
    r"^(?:(?:actually|so|and|but|ok|okay|update|change of plan)\W+)*(?:the\s+|my\s+|our\s+)?"
    r"(?P<key>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:is|are|will be)\s+(?:now\s+)?(?P<value>[^,;]+?)"
    r"(?:\s+(?:now|instead|these days|from now on|from here on))?\W*$",
    re.IGNORECASE,
)
_CHANGED = re.compile(r"\b(?:now|instead|these days|from now on|from here on|changed?|moved|switched)\b", re.IGNORECASE)
_NOT_KEYS = frozenset(
    "it that this there he she they we i which what who everything nothing something user one mine".split()
)
_ITEMS = re.compile(r",\s*|;\s*|\s+then\s+|\s+and\s+|\s*\d+[.)]\s+")
_DROPS = re.compile(
    r"\b(?:cut|drop|dropped|dropping|skip|skipped|skipping|removed?|removing|scrapp?(?:ed|ing)?|took out|taking out|"
    r"leave out|leaving out|left out)\s+(?:the\s+)?(?P<old>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
)
"""An item dropped by name ("We cut Venice from the holiday", "skipping Porto")."""
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*")


def _items(content: str) -> list[str]:
    return [p for p in _ITEMS.split(content) if p and p.strip(" .:")]


def _clauses(turn_text: str) -> list[str]:
    return [c for c in re.split(r"(?<=[.!?])\s+|,\s*|;\s*", turn_text) if c and c.strip()]


def keyed(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, old item value, new value) for each "key is value" clause of the turn with a change cue."""
    found = []
    for clause in _clauses(turn_text):
        match = _KEYED.match(clause.strip())
        if match is None or not _CHANGED.search(clause):
            continue
        key, value = match.group("key").strip(), match.group("value").strip(" .")
        if key.lower().split()[0] in _NOT_KEYS or not terms(key) or not value:
            continue
        pattern = re.compile(
            rf"\b{re.escape(key)}\b\s*(?:is|are|:|-|\u2013)?\s*(?P<old>[^,;.]+?)(?=\s*(?:[,;.]|\s(?:and|then)\s|$))",
            re.IGNORECASE,
        )
        for record in holding(terms(key)):
            if len(_items(record.content)) < 2:
                continue  # one value only: the slot rules supersede it whole
            old = pattern.search(record.content)
            if old is None:
                continue
            before = old.group("old").strip()
            if before and before.lower() != value.lower() and value.lower() not in record.content.lower():
                found.append((record, before, value))
    return found


def dropped(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, dropped item, its replacement) when the turn removes an item of a list and names one new name."""
    found = []
    for old in dict.fromkeys(m.group("old") for m in _DROPS.finditer(turn_text)):
        sentence = next((s for s in re.split(r"(?<=[.!?])\s+", turn_text) if old in s), "")
        names = [n for n in _NAME.findall(sentence) if n != old and old not in n]
        for record in holding(terms(old)):
            items = _items(record.content)
            if len(items) < 3 or not any(re.search(rf"\b{re.escape(old)}\b", i) for i in items):
                continue  # a plan of several items, the dropped one among them
            fresh = [n for n in dict.fromkeys(names) if n.lower() not in record.content.lower()]
            if len(fresh) == 1:
                found.append((record, old, fresh[0]))
    return found or skipped(holding, terms, turn_text)


_SKIPS = re.compile(
    r"\b(?i:skip|skipping|drop|dropping|cut|cutting|scrap|scrapping|remove|removing|leave out|leaving out)\s+"
    r"(?i:the\s+)?(?P<old>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,4}?)(?=\s*(?:[,;.!]|$)|\s+(?:from|for|this|since|as)\b)"
)
"""A step dropped by its words ("Skip the demo video, no time"), with nothing named in its place."""
_NUMBERED = re.compile(r"(?P<n>\d+)\)\s+(?P<step>[^;]+?)(?=;\s*\d+\)|$)")
"""The steps of a plan as the router stores it: "Plan for launch: 1) Write the docs; 2) Record the demo video"."""


def rewritten(record: Record, old: str, new: str) -> tuple[str, dict[str, Any]]:
    """The memory's text with the item ``old`` replaced by ``new``, and the metadata that changes with it: its title
    when the title names the item, and a plan's ``steps``, read back from the new text (the changed step included)."""
    swap = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)", re.IGNORECASE)
    title = record.metadata.get("title")
    changed: dict[str, Any] = {"title": swap.sub(new, title)} if isinstance(title, str) and swap.search(title) else {}
    content = swap.sub(new, record.content)
    if isinstance(record.metadata.get("steps"), list) and (steps := steps_in(content)):
        changed["steps"] = steps
    return content, changed


def steps_in(content: str) -> list[str]:
    """The steps of a plan's text as the router stores it ("Plan: 1) Write the docs; 2) Post it" -> two steps)."""
    return [m.group("step").strip().rstrip(".") for m in _NUMBERED.finditer(content)]


_INSTEAD = re.compile(r"\b(?:instead|replace|replaced|swap|swapped)\b", re.IGNORECASE)


def skipped(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, its numbered steps, the steps without the one dropped, renumbered) when the turn drops one step
    of a plan of three or more by its own words and names nothing in its place ("instead" ... is a replacement).
    """
    if _INSTEAD.search(turn_text):
        return []
    found = []
    for old in dict.fromkeys(m.group("old") for m in _SKIPS.finditer(turn_text)):
        words = terms(old)
        if not words:
            continue
        for record in holding(words):
            steps = list(_NUMBERED.finditer(record.content))
            if len(steps) < 3:
                continue
            named = [s for s in steps if set(words) <= set(terms(s.group("step")))]
            if len(named) != 1:
                continue  # the words name no step, or more than one: nothing is dropped
            kept = [s.group("step") for s in steps if s is not named[0]]
            span = record.content[steps[0].start() : steps[-1].end()]
            found.append((record, span, "; ".join(f"{i}) {step}" for i, step in enumerate(kept, 1))))
    return found


def rewrites(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """Every in-place rewrite the turn makes: a keyed item, a dropped or replaced item, a holder who left and the
    one who took the place (:mod:`.successors`: "Annika's gone home, Luis has taken her bed")."""
    return keyed(holding, terms, turn_text) + dropped(holding, terms, turn_text) + succeeded(holding, terms, turn_text)


def attach(ops: list[MemoryOp], rewrites: list[tuple[Record, str, str]]) -> set[str]:
    """Put the rewrites on the turn's first planned ``add``; the ids of the memories they rewrite."""
    carrier = next((op for op in ops if op.status == "planned" and op.action == "add"), None)
    if carrier is None or not rewrites:
        return set()
    have = carrier.fields.setdefault("rewrites", [])
    done: set[str] = set()
    for record, old, new in rewrites:
        if [record.id, old, new] not in have:
            have.append([record.id, old, new])
            done.add(record.id)
    carrier.fields.setdefault("old_values", sorted({old for _, old, _ in rewrites}))
    return done
