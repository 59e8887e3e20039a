"""A newer value of a profile slot the user already has, said in a clause the router read as something else.

"I'm a pastry chef now, finished my training in May" is one sentence to the router (an event); its first
clause, without its change words, is the profile statement "I'm a pastry chef" that the router's own
profile rows read as a job title. "New email address: jo@fastpost.io", "I report to Dev Patel now" and
"I switched careers to insurance" name the slot itself (its words, or the relation that sets it). Only a
slot the user **already has** is changed this way: a turn that states a slot for the first time is the
router's to read, so nothing here can write a slot out of small talk.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.language import bare
from kioko_intelligence.ops import SKIPPED, MemoryOp
from kioko_intelligence.rules import NAME_WORDS, PROFILE, SLOTS, TAIL, first, plain

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

_GROUP_SLOT = {
    "name": "name",
    "location": "location",
    "age": "age",
    "employer": "employer",
    "job": "job_title",
    "team": "team",
    "team2": "team",
    "hometown": "hometown",
    "language": "language",
}
"""The router's profile rows' groups, by the slot each sets."""
_MORE_WORDS = {"job_title": ("career", "profession", "occupation", "position"), "manager": ("line manager",)}
_WORDS: dict[str, tuple[str, ...]] = {}
for _word, _slot in SLOTS.items():
    _WORDS[_slot] = (*_WORDS.get(_slot, ()), _word)
for _slot, _extra in _MORE_WORDS.items():
    _WORDS[_slot] = (*_WORDS.get(_slot, ()), *_extra)
_HOME = r"(?i:flat|place|house|apartment|bungalow|cottage|condo|home)\b"
"""A home ("a flat", "a place"; not "a room", most often a hotel's); a holiday or second home is one beside it, never
said after "a" alone."""
RELATIONS = {
    "manager": re.compile(
        rf"\b(?i:i|we)\s+(?i:now\s+)?(?i:report(?:ing)?)\s+(?i:directly\s+)?(?i:to)\s+(?P<v>{NAME_WORDS})"
    ),
    "location": re.compile(
        rf"(?:^|\b(?i:i|we)(?:\s+|(?='))|(?<=,\s)|(?<=\band\s))(?i:(?:have\s+|'ve\s+|just\s+|finally\s+|recently\s+)*)"
        rf"(?i:moved|relocated|moving|relocating)\s+(?i:back\s+)?(?i:home\s+)?(?i:over\s+)?(?i:to)\s+(?P<v>{NAME_WORDS})"
        # "Since October my home is in Oulu", "I have my own flat in Wrocław": where the user's home is now
        rf"|\b(?i:my|our)\s+(?i:(?:own|new)\s+(?:flat|place|house|apartment|home)|(?:new\s+)?home\s+is(?:\s+now)?)"
        rf"\s+(?i:in)\s+(?P<w>{NAME_WORDS})"
        # "Got meself a flat over the water in Birkenhead", "we bought a house in Frome": a home of the user's own taken
        rf"|(?:^|\b(?i:i|we)(?:\s+|(?='))|(?<=,\s)|(?<=\band\s))(?i:(?:have\s+|'ve\s+|just\s+|finally\s+|recently\s+)*)"
        rf"(?i:got|bought|found|rented|renting|bagged)\s+(?i:(?:me|my|our)sel(?:f|ves)\s+|meself\s+|us\s+)?"
        rf"(?i:a|an|our|my)\s+(?i:(?:own|new|little|small|tiny|lovely)\s+)?{_HOME}"
        rf"(?:\s+(?i:over|in|near|by|on|off|up|down|out|across|just|right|round|outside)"
        rf"(?:\s+[\w'-]+){{1,3}}?)?\s+(?i:in)\s+(?P<x>{NAME_WORDS})"
    ),
    "employer": re.compile(
        rf"(?i:\b(?:starting at|started at|start at|i'm now at|now working (?:at|for)|(?:i|we) now work (?:at|for)))\s+"
        rf"(?P<v>{NAME_WORDS})|(?i:\bjoined|\bjoining)\s+(?i:(?:a|an)\s+(?:[\w-]+\s+)?(?:startup|company|firm|agency|"
        rf"consultancy|studio|lab|bank|practice)\s+(?:called|named)\s+)(?P<w>{NAME_WORDS})"
    ),
}
"""A slot set by a relation rather than named: "I report to Dev Patel" (a manager), "Moved back home to
Galway", "my home is in Oulu now", "got my own flat in Wrocław" (where the user lives), "starting at Nestle on
Monday", "I joined a startup called Loomly"."""
BEING_IN = re.compile(
    rf"^(?i:(?:ever\s+)?since|from|as\s+of)\s+[^,.;!?]{{1,25}}?,?\s+(?i:i'm|i\s+am|we're|we\s+are)\s+"
    rf"(?i:now\s+)?(?i:in|based\s+in)\s+(?P<v>{NAME_WORDS})"
    rf"|\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:in|based\s+in)\s+(?P<w>{NAME_WORDS})\s+(?i:now|these\s+days|nowadays)\b"
    rf"(?!\s+(?i:for|on|till|until)\b)"
)
"""Being in a place, dated as a change: "Since autumn I am in Kraków", "we're in Leith now" (not "I'm in London now
for the conference"). A new value of the location slot the user has; no memory holding where the user lives is
rewritten by it (the turn's other clauses may change that memory whole: "Sold the Golf, got a Tesla, and we're in
Cardiff now")."""
HELD = {
    "manager": re.compile(
        rf"\b(?i:manager|boss)\s+(?i:is)\s+(?P<v>{NAME_WORDS})|\b(?i:reports?)\s+(?i:to)\s+(?P<w>{NAME_WORDS})"
    ),
    "location": re.compile(rf"\b(?i:live|lives|living|based|reside|resides)\s+(?i:in)\s+(?P<v>{NAME_WORDS})"),
    "employer": re.compile(rf"\b(?i:work|works|working)\s+(?i:at|for)\s+(?P<v>{NAME_WORDS})"),
}
"""How a memory that is not a profile slot holds the same relation: "User lives in Austin and works at Dell"."""
_HELD_TERMS = {
    "manager": ["t:manag", "t:boss", "t:report"],
    "location": ["t:live", "t:base", "t:resid"],
    "employer": ["t:work"],
}
_CHANGE_LEAD = re.compile(
    r"^(?:(?:actually|correction|update|big news|news|so|well|oh|and|but|also|now|these days|nowadays)\W+)+",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_WHEN_LEAD = re.compile(
    r"^(?:from|since|as of|starting|beginning|in)\s+(?:next\s+|this\s+|last\s+)?(?:january|february|march|april|may|june|"
    r"july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"week|month|year|today|tomorrow|the \w+)\b,?\s+(?=(?:i|we)\b)",
    re.IGNORECASE,
)
"""A time the change starts said first ("From April I am working at Denso"): the statement is what follows."""


def _value(found: re.Match[str]) -> str:
    """The value a relation's pattern found, whichever of its groups holds it."""
    groups = found.groupdict()
    return str(groups.get("v") or groups.get("w") or groups.get("x") or "")


def _said_slot(clause: str, slot: str) -> str | None:
    """The value a clause gives ``slot`` by naming it: "new email address: X", "my job is now X",
    "switched careers to X"."""
    words = "|".join(re.escape(w) for w in sorted(_WORDS.get(slot, (slot.replace("_", " "),)), key=len, reverse=True))
    found = re.search(
        rf"\b(?:{words})s?\s*(?:is\s+now\s+|is\s+|are\s+now\s+|:\s*|=\s*|changed\s+to\s+)(?P<v>[^,;!?]+)",
        clause,
        re.IGNORECASE,
    ) or re.search(
        rf"\b(?:switched|changed|moved)\s+(?:my\s+)?(?:{words})s?\s+(?:to|into)\s+(?P<v>[^,;!?]+)",
        clause,
        re.IGNORECASE,
    )
    if found is None:
        return None
    value = TAIL.sub("", bare(found.group("v")))
    if slot == "email":
        email = _EMAIL.search(value)
        return email.group(0) if email else None
    if slot == "phone_number" and len(re.findall(r"\d", value)) < 5:
        return None
    return value if 0 < len(value) <= 60 and len(value.split()) <= 6 else None


_NAMED_NOW = re.compile(
    rf"\b(?i:it's|it is|i'm|i am|my name's|my name is|(?:i\s+)?(?:go|goes|going)\s+by|known as|call me)"
    rf"\s+(?P<v>{NAME_WORDS})"
)
"""A full name said again ("so it's Maria Fernandez now", "since the wedding I go by Chidinma Okafor"): the user's
name when it shares a word with it."""


def _renamed(clause: str, name: str) -> str | None:
    found = _NAMED_NOW.search(clause)
    if found is None:
        return None
    said = bare(found.group("v"))
    old, new = set(name.lower().split()), set(said.lower().split())
    return said if old & new and old != new and len(new) >= 2 else None


def stated(clause: str) -> list[tuple[str, str]]:
    """The profile slots a clause states through the router's own rows, change words cut ("I'm a pastry chef
    now" -> job_title), or through a relation ("I report to Dev Patel")."""
    text = TAIL.sub("", bare(plain(_CHANGE_LEAD.sub("", _WHEN_LEAD.sub("", clause.strip())))))
    text = re.sub(r"^(i'm|i am|we're|we are)\s+(?:now|currently)\s+", r"\1 ", text, flags=re.IGNORECASE)
    found = first(PROFILE, text)
    slots: list[tuple[str, str]] = []
    if found:
        for group, value in found[1].groupdict().items():
            if value and group in _GROUP_SLOT:
                slots.append((_GROUP_SLOT[group], bare(value)))
    for slot, pattern in RELATIONS.items():
        relation = pattern.search(clause)
        if relation:
            slots.append((slot, bare(_value(relation))))
    being = BEING_IN.search(clause)
    if being and not any(slot == "location" for slot, _ in slots):
        slots.append(("location", bare(being.group("v") or being.group("w") or "")))
    return slots


def relation_rewrites(
    holding: Callable[[list[str]], list[Record]], mine: Callable[[str], bool], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, old value, new value) for each memory of the user's holding a relation the turn gives a new
    value ("User lives in Austin and work at Dell", then "We moved to Denver and I joined a startup called
    Loomly"): the value is rewritten in place, the memory's other clauses kept."""
    found = []
    for slot, pattern in RELATIONS.items():
        said = pattern.search(turn_text)
        if said is None:
            continue
        new = bare(_value(said))
        for record in holding(_HELD_TERMS[slot]):
            if record.kind == "profile" or not mine(record.content) or new.lower() in record.content.lower():
                continue
            held = HELD[slot].search(record.content)
            old = (held.group("v") or held.groupdict().get("w")) if held else None
            if old and new:
                found.append((record, bare(old), new))
    return found + _renamed_memories(holding, mine, turn_text)


_NAMED_USER = re.compile(rf"^User(?:'s (?:full )?name)?\s+is\s+(?P<v>{NAME_WORDS})")
"""A memory that is not the name slot but says who the user is: "User is Hannah Clarke, mum of the twins"."""


def _renamed_memories(
    holding: Callable[[list[str]], list[Record]], mine: Callable[[str], bool], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, old name, new name) for a memory saying who the user is that a full name said again renames: "Got
    married in June, so it's Hannah Osei on all the school forms now" after "User is Hannah Clarke, mum of the twins"
    (the same rule as the name slot's: the new full name shares a word with the old and differs from it)."""
    found = []
    for said in _NAMED_NOW.finditer(turn_text):
        new = bare(said.group("v"))
        words = [w for w in new.split() if w[:1].isupper()]
        if len(words) < 2:
            continue
        for record in holding([f"t:{w.lower()}" for w in words]):
            held = _NAMED_USER.match(record.content)
            if record.kind == "profile" or held is None or not mine(record.content):
                continue
            old = bare(held.group("v"))
            if _renamed(f"it's {new}", old) == new:
                found.append((record, old, new))
    return found


def _clauses(turn_text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|,\s*|;\s*|\s+and\s+(?=(?:i|we|my|our)\b)", turn_text, flags=re.IGNORECASE)
    return [p for p in parts if p and p.strip()]


PRONOUN_SET = re.compile(
    r"(?<![\w/])(?!(?i:he/she|she/he)\b)(?P<set>(?i:she|he|they|xe|ze|fae|ey)/(?i:her|hers|him|his|them|theirs|they|she|he|xem|xyr|hir|zir|"
    r"faer|em|eir|it|its)(?:/(?i:[a-z]+))?)(?![\w/])"
)
"""A set of pronouns ("she/her", "they/them", "he/they", "xe/xem"): a closed class of the language ("he/she" is the
generic pair of a writer, no one's set)."""
_SOMEONE_ELSES_SET = re.compile(
    r"\b(?:my|our|his|her|their)\s+(?:\w+\s+){0,2}?(?:son|daughter|kid|child|partner|wife|husband|friend|sibling|"
    r"brother|sister|colleague|boss|mum|mom|dad|parent|teen|student|client)s?\b|\b(?:he|she|they)\s+(?:uses?|goes|go)\b",
    re.IGNORECASE,
)
"""Whose pronouns a sentence gives when not the user's ("my kid uses they/them now")."""


def _pronouns(turn_text: str) -> str | None:
    """The one set of pronouns the turn gives the user ("Quick intro: I'm Robin, she/her"; "they/them from now on
    please"), or None: none, several, or another person's."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", turn_text):
        for said in PRONOUN_SET.finditer(sentence):
            if _SOMEONE_ELSES_SET.search(sentence[: said.start()]):
                return None
            found.append(said.group("set").lower())
    return found[0] if len(set(found)) == 1 else None


def profile_changes(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """Add a ``profile.set`` for each slot the user has that a clause of the turn gives another value, and for the
    user's pronouns when the turn gives them (a closed class, read whatever else the turn says)."""
    have = {
        r.metadata["slot"]: r
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"profile"})))
        if isinstance(r.metadata.get("slot"), str) and not r.metadata.get("superseded_by")
    }
    pronouns = _pronouns(turn_text)
    held = str(have["pronouns"].metadata.get("value", "")) if "pronouns" in have else ""
    if pronouns and pronouns != held.lower() and not any(op.fields.get("key") == "pronouns" for op in ops):
        for op in ops:  # "they/them from now on please" kept as knowledge beside the slot would stand for it
            text = str(op.fields.get("text") or "")
            if op.status == "planned" and op.action == "add" and PRONOUN_SET.search(text) and len(text.split()) <= 12:
                op.status, op.error = SKIPPED, "the user's pronouns: kept as the profile slot"
        ops.append(
            MemoryOp(
                "profile.set",
                fields={"key": "pronouns", "value": pronouns},
                reason="the pronouns the user goes by",
                confidence=0.8,
            )
        )
    if not have:
        return
    setting = {op.fields.get("key") for op in ops if op.op == "profile.set" and op.status == "planned"}
    for clause in _clauses(turn_text):
        found = stated(clause) + [(slot, value) for slot in have if (value := _said_slot(clause, slot))]
        if "name" in have and (renamed := _renamed(clause, str(have["name"].metadata.get("value", "")))):
            found.append(("name", renamed))
        for slot, value in found:
            if slot not in have or slot in setting:
                continue
            old = str(have[slot].metadata.get("value", ""))
            if not value or value.lower() == old.lower() or value.lower() in old.lower():
                continue
            ops.append(
                MemoryOp(
                    "profile.set",
                    fields={"key": slot, "value": value},
                    reason="a newer value of a profile slot the user has",
                    confidence=0.7,
                )
            )
            setting.add(slot)
