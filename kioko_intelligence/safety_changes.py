"""A safety fact narrowed: one thing of an allergy or an intolerance said to be fine now.

"I have allergy to shrimp and crab po, my lips are swelling", then "The doctor did the skin test, it is only shrimp
pala, crab is fine for me." The second turn names no allergy word, so no slot rule paired it with the first, and
"User has allergy to shrimp and crab" stayed in force beside it, shown for every food question. A turn that says one
thing is fine for the user now (:data:`FINE`: "X is fine / okay / safe (for me)", "I can eat / have X (again)",
"not allergic to X (after all / anymore)", "outgrown X", "grew out of X") changes the user's one current allergy or
intolerance memory naming X (:func:`kioko_core.recall.safety.classes_of`): when that memory names other things
beside X ("shrimp and crab"), X is taken out of it in place ("User has allergy to shrimp"); when X is all it names,
it is superseded by the turn's op (or, the router having kept nothing, by the turn itself stored as a fact).

Left alone: a thing no allergy memory names, a memory of someone else's ("Max has a severe egg allergy" is Max's;
"Max can eat egg now" names Max, not the user), two memories naming X, and a question ("Is crab fine for me?").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kioko_core.recall.safety import classes_of
from kioko_core.store import Record
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.slot_marks import current

_THING = r"([a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)"
FINE = (
    re.compile(
        rf"(?:^|[,.;:!]\s*|\b(?:but|and|so)\s+)(?:the\s+)?{_THING}\s+(?:is|are|'s)\s+(?:totally\s+|perfectly\s+|"
        rf"actually\s+|completely\s+)?(?:fine|ok|okay|alright|all right|safe|not a problem|no problem)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\bI\s+can\s+(?:eat|have|drink|take)\s+{_THING}\s+(?:again|now|after all|no problem|fine)\b", re.I),
    re.compile(rf"\b(?:not|no longer)\s+allergic\s+to\s+{_THING}\b", re.IGNORECASE),
    re.compile(rf"\b(?:outgrown|outgrew|grew out of|grown out of)\s+(?:the\s+|my\s+|his\s+|her\s+)?{_THING}\b", re.I),
)
"""How a turn says one thing is fine for the user now; the group is the thing."""
_TRAILING = re.compile(r"(?:\s+(?:allergy|allergies|intolerance|after|again|now|anymore|any|all|at))+$")
_NOT_THINGS = frozenset("it that this everything all he she they which who what".split())
_ALLERGY = frozenset({"allergy"})
_SOMEONE = re.compile(r"^\s*[A-Z][a-z]+(?:'s)?\s+(?:can|is|are|has|'s|outgrew|outgrown|has outgrown)\b")


def things_fine(turn_text: str) -> list[str]:
    """The things ``turn_text`` says are fine for the user now ("crab is fine for me" -> ["crab"])."""
    if turn_text.rstrip().endswith("?"):
        return []
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", turn_text.strip()):
        if _SOMEONE.match(sentence) and not sentence.lstrip().startswith(("I ", "I'")):
            continue  # "Max can eat egg now": someone else's
        for pattern in FINE:
            for match in pattern.finditer(sentence):
                thing = _TRAILING.sub("", match.group(1).strip().lower())
                thing = thing.split()[-1] if thing.split()[0] in {"the", "my", "a"} else thing
                if thing and thing.split()[0] not in _NOT_THINGS and thing not in found:
                    found.append(thing)
    return found


_LISTED = (r"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)", r"")


def without(content: str, thing: str) -> str | None:
    """``content`` with ``thing`` taken out of the list it is in ("allergy to shrimp and crab" -> "allergy to
    shrimp"), or None when it stands alone."""
    word = re.escape(thing)
    after = re.search(rf"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+){word}\b", content, re.IGNORECASE)
    if after is not None:
        return content[: after.start()] + content[after.end() :]
    before = re.search(rf"\b{word}(?:,\s*|\s+(?:and|or|&)\s+)(?=[a-z])", content, re.IGNORECASE)
    if before is not None:
        return content[: before.start()] + content[before.end() :]
    return None


def narrowed(
    any_of: Callable[[list[str]], list[Record]],
    ops: list[MemoryOp],
    turn_text: str,
    terms: Callable[[str], list[str]],
) -> set[str]:
    """Take each thing the turn says is fine out of the user's one allergy memory naming it (a rewrite in place
    riding on the turn's first add, or a supersede when it is all the memory names); the ids changed."""
    changed: set[str] = set()
    for thing in things_fine(turn_text):
        words = terms(thing)
        if not words:
            continue
        held = [
            r
            for r in any_of(words)
            if current(r)
            and r.id not in changed
            and classes_of(r.content) & _ALLERGY
            and re.search(rf"\b{re.escape(thing)}\b", r.content, re.IGNORECASE)
        ]
        if len(held) != 1:
            continue
        record = held[0]
        carrier = next(
            (op for op in ops if op.status == "planned" and op.action == "add" and not op.fields.get("supersedes")),
            None,
        )
        rest = without(record.content, thing)
        if carrier is None:
            carrier = MemoryOp(
                "fact.add",
                fields={"text": turn_text.strip()},
                reason="a thing of an allergy said to be fine now",
                importance=0.6,
                confidence=0.7,
            )
            ops.append(carrier)
        if rest is not None:
            old = record.content
            carrier.fields.setdefault("rewrites", []).append([record.id, old, rest])
        else:
            carrier.fields["supersedes"] = [*carrier.fields.get("supersedes", []), record.id]
        carrier.fields.setdefault("old_values", []).append(thing)
        carrier.reason = (carrier.reason + "; " if carrier.reason else "") + f"{thing} is fine now"
        changed.add(record.id)
    return changed


__all__ = ["FINE", "narrowed", "things_fine", "without"]
