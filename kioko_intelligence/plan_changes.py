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
from kioko_intelligence.called_off import called_off
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.slot_reading import CHANGE_WORDS, read_slot, text_terms
from kioko_intelligence.successors import succeeded

_KEYED = re.compile(
    r"^(?:(?:actually|so|and|but|ok|okay|update|change of plan)\W+)*(?:the\s+|my\s+|our\s+)?"
    r"(?P<key>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:is|are|will be)\s+(?:now\s+)?(?P<value>[^,;]+?)"
    r"(?:\s+(?:now|instead|these days|from now on|from here on))?\W*$",
    re.IGNORECASE,
)
_CHANGED = re.compile(r"\b(?:now|instead|these days|from now on|from here on|changed?|moved|switched)\b", re.IGNORECASE)
_CONSEQUENCE = re.compile(r"^(?:so|which means|that means|meaning)\s+(?!that\b|it\b|we\b|i\b)", re.IGNORECASE)
"""A clause said as the consequence of the reason before it ("River's far too high, so Saturday is the climbing
wall"): a key given another value for a reason is a change, though no change word is said."""
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
        if match is None or not (_CHANGED.search(clause) or _CONSEQUENCE.match(clause.strip())):
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
    r"\b(?i:skip|skipping|drop|dropping|cut|cutting|scrap|scrapping|remove|removing|leave out|leaving out|bin|binning|"
    r"ditch|ditching|axe|axing|cancel|cancelling|canceling|shelve|shelving|scrub|scrubbing)\s+"
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
    said = [m.group("old") for m in _SKIPS.finditer(turn_text)]
    off = called_off(turn_text)  # "Billing page slips to next sprint", "Hainan cancel": the step is over
    for old in dict.fromkeys(said + off):
        words = terms(old)
        if not words:
            continue
        for record in holding(words):
            steps = list(_NUMBERED.finditer(record.content))
            if len(steps) < (2 if old in off else 3):
                continue
            named = [s for s in steps if set(words) <= set(terms(s.group("step")))]
            if len(named) != 1:
                continue  # the words name no step, or more than one: nothing is dropped
            kept = [s.group("step") for s in steps if s is not named[0]]
            span = record.content[steps[0].start() : steps[-1].end()]
            found.append((record, span, "; ".join(f"{i}) {step}" for i, step in enumerate(kept, 1))))
    return found


_ADD_STEP = re.compile(
    r"\b(?:add(?:ing|ed)?|put(?:ting)?|insert(?:ing|ed)?|slot(?:ting|ted)?|squeez(?:e|ing|ed)|stick(?:ing)?)\s+(?:in\s+)?(?:one\s+more|another|an?\s+extra|a\s+new|a|an)\s+step\s+"
    r"(?:in\s+)?(?P<where>before|after)\s+(?P<anchor>[^:;,.]+?)\s*[:,\u2013\u2014-]\s*(?P<new>[^.;!?]+)"
    r"|\b(?:forgot|missed|left out)\s+(?:a|one)\s+step\s*[:,\u2013\u2014-]\s*(?P<where2>before|after)\s+"
    r"(?P<anchor2>[^,;:]+?)\s*,\s*(?P<new2>[^.;!?]+)",
    re.IGNORECASE,
)
"""A step added before or after one the turn names ("Put one more step in before tagging: a migration dry-run on
staging", "Forgot a step: after the tiles come out, we need to re-plaster")."""
_NEED = re.compile(r"^(?:(?:we|you|i)\s+)?(?:also\s+)?(?:need|have|must|should)\s+(?:to\s+)?", re.IGNORECASE)


def added_step(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(plan, the text its steps are in, that text with the new step before or after the one named) for a step
    added to a plan or list of three or more by naming its neighbour; the neighbour's words must name one step."""
    found = []
    for match in _ADD_STEP.finditer(turn_text):
        where = (match.group("where") or match.group("where2")).lower()
        anchor = match.group("anchor") or match.group("anchor2")
        new = _NEED.sub("", (match.group("new") or match.group("new2")).strip()).strip()
        words = terms(anchor)
        for record in holding(words) if words and new else []:
            numbered = [m.group("step") for m in _NUMBERED.finditer(record.content)]
            steps = numbered if len(numbered) >= 3 else plan_steps(record)
            named = [s for s in steps if set(words) <= set(terms(s))] or [s for s in [_step_named(steps, anchor)] if s]
            if len(named) != 1 or new.lower() in record.content.lower():
                continue  # the words name no step, or more than one; or the step is there already
            step = named[0]
            added = new[:1].upper() + new[1:] if step[:1].isupper() else new
            if len(numbered) >= 3:
                at = numbered.index(step) + (where == "after")
                items = numbered[:at] + [added] + numbered[at:]
                spans = list(_NUMBERED.finditer(record.content))
                span = record.content[spans[0].start() : spans[-1].end()]
                found.append((record, span, "; ".join(f"{i}) {s}" for i, s in enumerate(items, 1))))
            else:
                found.append((record, step, f"{added}, {step}" if where == "before" else f"{step}, {added}"))
    return found


def rewrites(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """Every in-place rewrite the turn makes: a keyed item, a dropped or replaced item, a holder who left and the
    one who took the place (:mod:`.successors`: "Annika's gone home, Luis has taken her bed")."""
    return (
        keyed(holding, terms, turn_text)
        + dropped(holding, terms, turn_text)
        + succeeded(holding, terms, turn_text)
        + stepped_after(holding, terms, turn_text)
        + added_step(holding, terms, turn_text)
    )


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


_AFTER = re.compile(
    r"^\W*(?:(?:and|so|but|then)\s+)?after\s+(?P<item>[^,;]+?)\s+(?:it's|it is|we're|we are|I'm|I am|we)\b", re.I
)
"""A change said of the step after another ("After Birmingham it's down to Cardiff"): the next step is the one."""
_SWAP = re.compile(
    r"\b(?:swap|swapping|swapped|replace|replacing|replaced|switch|switching|switched|change|changing|changed)\s+"
    r"(?:the\s+|our\s+|my\s+)?(?P<old>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:for|with|to)\s+(?:the\s+|a\s+|an\s+|some\s+)?"
    r"(?P<new>[\w'-]+(?:\s+[\w'-]+){0,2}?)(?=\s+(?:on|at|in|this|next|for|because|as|since)\b|\s*[,.;!]|\s*$)",
    re.IGNORECASE,
)
"""The item and what takes its place: "Swap the duck for venison on Saturday"."""
_HOW_TO = re.compile(r"^\W*(?:how to|to)\b", re.IGNORECASE)
"""A how-to ("How to cut a release: ..."): its steps change together, said anew (:mod:`.slot_howtos`)."""
_FIRST_CLAUSE = re.compile(r"^[^,;]+?(?=\s*[,;]|\s+(?:so|because|since|as)\s|$)")


def plan_steps(record: Record) -> list[str]:
    """The items of a plan or list memory of three or more (a numbered plan's steps, a heading's items), or []."""
    steps = steps_in(record.content)
    if len(steps) >= 3:
        return steps
    heading, colon, rest = record.content.partition(":")
    if not colon or len(heading.split()) > 8:
        return []
    items = [i.strip(" .") for i in _items(rest)]
    return items if len(items) >= 3 else []


def one_step(record: Record, change: str) -> tuple[str, str] | None:
    """(the step, its new text) when ``change``, a statement the slot rules found replacing the plan ``record``
    whole, changes exactly one of its steps and says the new value: a date, number or name of the step swapped
    ("Potatoes are going in in March this year" -> "Plant potatoes in March"), or a thing swapped for another
    ("Swap the duck for venison" -> "then venison breast"). None when it names no one step, or no new value."""
    steps = plan_steps(record)
    if not steps or len(_items(change)) >= 3 or ":" in change or _HOW_TO.match(record.content):
        return None  # a plan or a how-to said anew ("Releases work differently now: ...") replaces the old one whole
    first = _FIRST_CLAUSE.match(change.strip())
    clause = first.group(0) if first else change
    after = _AFTER.match(clause)
    if after is not None:  # "After Birmingham it's down to Cardiff": the new value is said after the step named
        step, clause = _step_after(steps, after.group("item")), clause[after.end() :]
    else:
        step = _step_named(steps, clause) or _step_named(steps, change)
    if step is None:
        return None
    new = _typed_swap(step, clause, change, record.content) or _named_swap(step, change)
    return (step, new) if new and new.lower() != step.lower() else None


def _words(text: str) -> set[str]:
    """The stemmed words of ``text`` that say what it is about (not its dates and numbers, not its change words:
    "cancelled", "now")."""
    values = read_slot(text).values
    timed = {t for kind in ("date", "number") for value in values.get(kind, ()) for t in text_terms(value)}
    return {
        t
        for t in text_terms(text.lower())
        if t.startswith("t:") and t[2:] not in CHANGE_WORDS and len(t) > 4 and t not in timed
    }


def _step_named(steps: list[str], clause: str) -> str | None:
    said = _words(clause)
    scores = [len(said & _words(step)) for step in steps]
    best = max(scores)
    return steps[scores.index(best)] if best and scores.count(best) == 1 else None


def _step_after(steps: list[str], item: str) -> str | None:
    named = _step_named(steps, item)
    at = steps.index(named) if named is not None else -1
    return steps[at + 1] if 0 <= at < len(steps) - 1 else None


def _typed_swap(step: str, clause: str, change: str, plan: str) -> str | None:
    """``step`` with its one value of a type replaced by the change's one new value of that type. A name is one the
    plan or the change writes as a name where a capital marks one (not a sentence's first word)."""
    names = read_slot(plan).values.get("name", set())
    held = {kind: found for kind, found in read_slot(step).values.items() if kind != "name"}
    stepped = {n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", step, re.IGNORECASE)}
    if stepped:
        held["name"] = stepped
    for said in (read_slot(clause).values, read_slot(change).values):
        for kind, values in held.items():
            if len(values) != 1:
                continue
            fresh = said.get(kind, set()) - values
            if len(fresh) > 1:
                fresh -= read_slot(plan).values.get(kind, set())
            if kind == "name":
                fresh = {v for v in fresh if not _words(v) & _words(plan)}
            if len(fresh) == 1:
                old, new = next(iter(values)), next(iter(fresh))
                return _swap_in(step, old, _spelled(change, new))
    return None


def _named_swap(step: str, change: str) -> str | None:
    found = _SWAP.search(change)
    if found is None or not re.search(rf"\b{re.escape(found.group('old'))}\b", step, re.IGNORECASE):
        return None
    return _swap_in(step, found.group("old"), found.group("new"))


def _swap_in(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text, count=1, flags=re.IGNORECASE)


def _spelled(text: str, value: str) -> str:
    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
    return found.group(0) if found else value


def stepped_after(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(plan, its step, the new step) for a sentence that changes the step after one it names ("After Birmingham
    it's down to Cardiff" after "Route this week: Felixstowe, Birmingham, then up to Glasgow"), which the slot rules
    cannot see: it shares no word with the step it changes."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+", turn_text):
        after = _AFTER.match(sentence)
        words = terms(after.group("item")) if after else []
        for record in holding(words) if words else []:
            step = one_step(record, sentence)
            if step is not None:
                found.append((record, *step))
    return found
