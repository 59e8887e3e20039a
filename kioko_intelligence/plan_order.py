"""A plan's steps said in another order: the plan is rewritten with its steps reordered, none lost, none added.

"Migration plan for the monolith: auth service first, then billing, then search last", then "Finance wants the money
stuff off the old box by Q1, so billing jumps the queue". The slot rules see no newer value (no step is named with
another value), the plan rules see no step dropped or swapped for another, so the old order stayed in force beside
a sentence saying the new one. The turn names a step by its own words and says where it goes now:

- "X goes / comes / moves / is on before (ahead of, in front of) Y" puts X just before Y, "... after (behind) Y"
  just after it;
- "X first, (and / then) Y after(wards)" puts X just before Y ("we're fitting the suite first and tiling after");
- "X first (now)", "X goes / comes first", "X jumps the queue", "start / open with X" put X at the front;
- "X last", "X closes (the night, the show ...)", "X goes / comes last", "finish / end / close with X" put X at the
  end;
- "swap X and Y", "X and Y swap places (round)" exchange the two.

Each of X and Y must name exactly one step of one plan in force (its stemmed words, more of them than any other
step's); a plan is a numbered plan or a heading over three items or more (:func:`.plan_changes.plan_steps`). A
word that said a step's place in the old order ("first", "last", "to close", "to finish", "to start") is dropped
from every step when the order changes: the order itself says it now. The rewrite rides on an ``add`` of the turn
(``fields["rewrites"]``) like the other in-place rewrites of :mod:`.plan_changes`.

Not read: an order said only as a whole ("Flipping the whole trip round": no step named; "They've flipped the
handover order: runway state first now, then weather, then traffic" is the plan said anew, which replaces the old one
whole), a move relative to a step the turn does not name, a step named by a pronoun ("it goes first").
"""

from __future__ import annotations

import re
from typing import Callable

from kioko_core.store import Record
from kioko_intelligence.plan_changes import plan_steps, steps_in
from kioko_intelligence.slot_reading import CHANGE_WORDS

_NP = r"(?P<{name}>(?:[\w'-]+\s+){{0,4}}?[\w'-]+)"
_MOVE = r"(?:goes|go|going|comes|come|coming|moves|move|moving|is|are|gets|get|slots|slot|will\s+go|will\s+be)"
_WHO = r"(?:[\w'-]+\s+){0,2}?(?:(?:wants?|want|would like|are going|is going|'re going|'d like|will|'ll)\s+(?:to\s+)?)?"
"""Who says where the step goes, before "start / finish with": "Couple want to finish with ...", "We'll open with ..."."""
_BEFORE = re.compile(
    rf"^{_NP.format(name='x')}\s+(?:now\s+)?{_MOVE}\s+(?:on\s+|in\s+)?(?:now\s+)?"
    rf"(?P<where>before|ahead\s+of|in\s+front\s+of|after|behind)\s+{_NP.format(name='y')}\s*(?:now|instead)?\W*$",
    re.IGNORECASE,
)
_FIRST_THEN = re.compile(
    rf"{_NP.format(name='x')}\s+first\s*,?\s+(?:and|then)\s+{_NP.format(name='y')}\s+(?:after|afterwards|second|next)\b",
    re.IGNORECASE,
)
_FRONT = re.compile(
    rf"^(?:{_NP.format(name='x')}\s+(?:(?:now\s+)?{_MOVE}\s+)?first(?:\s+now)?|{_NP.format(name='x2')}\s+"
    rf"(?:jumps|jumped|jumping|will\s+jump)\s+the\s+queue|{_WHO}(?:start|starting|open|opening|"
    rf"begin|beginning)\s+with\s+{_NP.format(name='x3')})\W*$",
    re.IGNORECASE,
)
_END = re.compile(
    rf"^(?:{_NP.format(name='x')}\s+(?:(?:now\s+)?{_MOVE}\s+)?last(?:\s+now)?|{_NP.format(name='x2')}\s+"
    rf"(?:closes|will\s+close|now\s+closes)(?:\s+(?:the\s+)?\w+)?|{_WHO}(?:finish|finishing|end|"
    rf"ending|close|closing)\s+with\s+{_NP.format(name='x3')})\W*$",
    re.IGNORECASE,
)
_SWAP = re.compile(
    rf"^(?:swap|swapping|switch|switching|flip|flipping)\s+(?:round\s+|around\s+)?{_NP.format(name='x')}\s+and\s+"
    rf"{_NP.format(name='y')}(?:\s+(?:round|around))?\W*$|^{_NP.format(name='x2')}\s+and\s+{_NP.format(name='y2')}\s+"
    rf"(?:swap|swapped|switch|switched|trade|traded)\s+(?:places|round|around|slots)\W*$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"\s*(?:[,;:]|\s-\s|\s(?:and|so|but|because|since|which means)\s)\s*", re.IGNORECASE)
_PLACE_WORDS = re.compile(
    r"(?:\s*,?\s*\b(?:first|last|to (?:close|finish|start|open|end)(?: (?:it|the \w+))?|at the (?:end|start))\b)+"
    r"(?=\s*$)|^(?:first|last(?:ly)?)\s*,\s*",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:(?:then|and|next|finally|after that)\s+)+", re.IGNORECASE)
"""A list item's joining word ("then the jugglers"): the rebuilt list says its own."""
_ANEW = re.compile(r":[^:]*(?:,|\bthen\b)[^:]*(?:,|\bthen\b)|\bthen\b.*\bthen\b", re.IGNORECASE)
"""A sentence that says the whole order anew (a list after a colon, two "then"s): left to the rules of a plan said
anew, which replace the old one whole."""
_GENERIC = frozenset("user the go come move first last now step thing".split())


def _named(steps: list[str], phrase: str, terms: Callable[[str], list[str]]) -> int | None:
    """The index of the one step ``phrase`` names by its words (more of them than any other step), or None."""
    said = {t for t in terms(phrase) if t[2:] not in CHANGE_WORDS and t[2:] not in _GENERIC}
    if not said:
        return None
    scores = [len(said & set(terms(step))) for step in steps]
    best = max(scores)
    return scores.index(best) if best and scores.count(best) == 1 else None


def _moves(sentence: str) -> list[tuple[str, str, str | None]]:
    """(kind, X, Y) for every move the sentence says: kind "before", "after", "front", "end" or "swap"."""
    found: list[tuple[str, str, str | None]] = []
    for pair in _FIRST_THEN.finditer(sentence):
        found.append(("before", pair.group("x"), pair.group("y")))
    if found:
        return found
    for clause in _CLAUSE.split(sentence):
        clause = clause.strip(" .!")
        if not clause:
            continue
        if before := _BEFORE.match(clause):
            where = before.group("where").lower()
            kind = "after" if where in ("after", "behind") else "before"
            found.append((kind, before.group("x"), before.group("y")))
        elif front := _FRONT.match(clause):
            found.append(("front", front.group("x") or front.group("x2") or front.group("x3"), None))
        elif end := _END.match(clause):
            found.append(("end", end.group("x") or end.group("x2") or end.group("x3"), None))
    for whole in re.split(r"(?<=[.!?])\s+", sentence):
        for clause in re.split(r"\s*[,;:]\s*|\s+(?:so|but|because|since)\s+", whole):
            if swap := _SWAP.match(clause.strip(" .!")):
                found.append(("swap", swap.group("x") or swap.group("x2"), swap.group("y") or swap.group("y2")))
    return found


def _reorder(
    steps: list[str], moves: list[tuple[str, str, str | None]], terms: Callable[[str], list[str]]
) -> list[str] | None:
    """``steps`` in the order the moves say, or None when a move names no one step (or nothing moves)."""
    order = list(steps)
    for kind, x, y in moves:
        at = _named(order, x, terms)
        to = _named(order, y, terms) if y is not None else None
        if at is None or (y is not None and (to is None or to == at)):
            return None
        step, target = order[at], order[to] if to is not None else None
        if kind == "swap" and to is not None:
            order[at], order[to] = order[to], order[at]
            continue
        order.pop(at)
        if kind == "front":
            order.insert(0, step)
        elif kind == "end":
            order.append(step)
        elif target is not None:
            order.insert(order.index(target) + (kind == "after"), step)
    return order if order != steps else None


def _placeless(step: str) -> str:
    """``step`` without the words that said its place in the old order ("auth service first" -> "auth service")."""
    return _PLACE_WORDS.sub("", _LEAD.sub("", step)).strip() or step


def reordered(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(plan, the text its steps are in, that text with the steps in the order the turn says) for each plan whose
    steps the turn reorders (see the module)."""
    found: list[tuple[Record, str, str]] = []
    for sentence in re.split(r"(?<=[.!?])\s+", turn_text.strip()):
        if _ANEW.search(sentence):
            continue  # "flipped the order: runway state first now, then weather, then traffic": the plan said anew
        moves = _moves(sentence)
        if not moves:
            continue
        named = dict.fromkeys(t for t in terms(moves[0][1]) if t[2:] not in CHANGE_WORDS and t[2:] not in _GENERIC)
        held = {r.id: r for t in named for r in holding([t])}
        for record in held.values():
            numbered = steps_in(record.content)
            steps = numbered if len(numbered) >= 2 else plan_steps(record)
            if len(steps) < 2:
                continue
            order = _reorder(steps, moves, terms)
            if order is None:
                continue
            new = [_placeless(s) for s in order]
            if numbered and len(numbered) >= 2:
                span = _numbered_span(record.content)
                found.append((record, span, "; ".join(f"{i}) {s}" for i, s in enumerate(new, 1))))
            else:
                listed = _list_span(record.content, steps)
                if listed is None:
                    continue
                found.append((record, listed, f"{', '.join(new[:-1])}, then {new[-1]}"))
    return found


def _numbered_span(content: str) -> str:
    starts = [m for m in re.finditer(r"\d+\)\s+", content)]
    return content[starts[0].start() :].rstrip(" .")


def _list_span(content: str, steps: list[str]) -> str | None:
    """The text from the first item to the end of the last, as ``content`` writes it."""
    first = content.find(steps[0])
    last = content.rfind(steps[-1])
    if first < 0 or last < first:
        return None
    number = re.search(r"\d+[.)]\s*$", content[:first])  # "1) speeches 2) first dance": from the first number
    first = number.start() if number else first
    return content[first : last + len(steps[-1])]


__all__ = ["reordered"]
