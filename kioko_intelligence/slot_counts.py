"""A count changed by what happened to it: "Seven new altos joined, which takes us to 39" after "We have 32 singers".

A speaker who says how a count changed often gives the change and the new total and names neither the thing
counted nor the old total: "Completed on the sale of the two in Dunstable, so it's four to look after now" (after
"I let out 6 flats in total"), "Varroa took three over the winter, so it's eight colonies this spring" (after
"Eleven colonies going into winter"). No word need be shared with the old statement, yet the arithmetic ties the
two together: the old count plus or minus the change is the new total (32 + 7 = 39, 6 - 2 = 4). That is the slot
rule here, with no list of verbs of gain or loss:

- the turn's *total* is its last number, said as an outcome ("so", "which takes us to", "makes", "leaves",
  "down to", "up to", "now" between the change and the total, or "now", "left", "in total" after it);
- a *change* is another number said before it; an older memory of the user holding exactly one number, the
  total less or plus a change, is the count's old statement;
- a noun after the total that the old statement does not hold counts something else ("so 5 hours" is no count
  of the 8 cats), and a turn that names the old total itself is left to the frame rules of :mod:`.slots`.

Exactly one such memory gets a newer version: its text with the new total (as the turn spells it), of its kind,
superseding it ("We have 39 singers on the books."). None, or more than one, and nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kioko_core.store import Record
from kioko_intelligence.ops import MemoryOp, value_replaced
from kioko_intelligence.slot_reading import read_slot, text_terms

_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
WORD_VALUES = {**{w: i for i, w in enumerate(_WORDS)}, **_TENS}
"""Number words and their values (a count said in words: "four to look after")."""
_COMPOUND_WORD = rf"(?:twenty|{'|'.join(_TENS)})[- ](?:{'|'.join(_WORDS[1:10])})"
"""A number word of tens and units ("twenty-six", "thirty one"), read before its tens alone."""
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b"
)
_COUNT = re.compile(
    rf"(?<![\w:.,/-])(\d{{1,3}}(?:,\d{{3}})+|\d+|{_COMPOUND_WORD}|{'|'.join(WORD_VALUES)})(?![\w:/%-]|[.,]\d)"
    rf"(?!\s*(?:am|pm|st|nd|rd|th)\b)(?!\s+(?:of\s+)?{_MONTH})",
    re.IGNORECASE,
)
"""A count: digits or a number word standing alone (not a time, a percentage, an ordinal, part of a date or a code)."""
_AFTER_MONTH = re.compile(rf"{_MONTH}\s*$", re.IGNORECASE)
_OUTCOME_BETWEEN = re.compile(
    r"\b(?:so|which|makes?|making|takes?|taking|brings?|bringing|leaves?|leaving|down to|up to|now|total)\b",
    re.IGNORECASE,
)
_OUTCOME_AFTER = re.compile(r"^\W*(?:now|left|remaining|in total|total|altogether|all told|to go)\b", re.IGNORECASE)
_NOT_NOUNS = frozenset(
    "now left remaining in total altogether all to go of on at for with and or but so then this that these those "
    "the a an it its is are was were be been in from by after before since till until as we us our i my me".split()
)
"""Words after a number that name nothing counted ("so it's four to look after", "14 in the squad now")."""


def value_of(said: str) -> int | None:
    """The number ``said`` is ("1,200" -> 1200, "seven" -> 7, "twenty-six" -> 26), or None."""
    plain = said.lower().replace(",", "")
    if plain.isdigit():
        return int(plain)
    tens, _, units = plain.replace("-", " ").partition(" ")
    if units:
        return WORD_VALUES[tens] + WORD_VALUES[units] if tens in WORD_VALUES and units in WORD_VALUES else None
    return WORD_VALUES.get(plain)


def counts(text: str) -> list[tuple[int, re.Match[str]]]:
    """The counts ``text`` says, in order, with where each is said."""
    found = []
    for match in _COUNT.finditer(text):
        if _AFTER_MONTH.search(text[: match.start()]):
            continue  # "October 14": a day of a date
        number = value_of(match.group(1))
        if number is not None and not (len(match.group(1)) == 4 and 1900 <= number <= 2100):  # a year, no count
            found.append((number, match))
    return found


def _terms(*numbers: int) -> list[str]:
    """The index terms a memory saying one of ``numbers`` holds (digits as written, with or without thousands
    commas; a number word as the index keeps it, "twenty" as "twenti"; "twenty-six" by its tens)."""
    terms = []
    for n in numbers:
        terms += [f"n:{n}", f"n:{n:,}"]
        for word, value in WORD_VALUES.items():
            if value == n or (n > 20 and value == n - n % 10):
                terms += [t for t in text_terms(word) if t.startswith("t:")]
    return list(dict.fromkeys(terms))


def _counted_word(text: str, end: int) -> str | None:
    """The word right after a number, when it names what is counted (a content word)."""
    found = re.match(r"\s+([A-Za-z][\w'-]*)", text[end:])
    if found is None or found.group(1).lower() in _NOT_NOUNS:
        return None
    return found.group(1)


def counted_change(
    holding: Callable[[list[str]], list[Record]], turn_text: str, op_of: dict[str, str]
) -> MemoryOp | None:
    """The newer version of the one count the turn's change and total point at (``holding``: current memories of
    the user holding any of some terms; ``op_of``: stored kind -> the op a newer version is written as)."""
    said = counts(turn_text)
    if len(said) < 2:
        return None
    total, found = said[-1]
    between = turn_text[said[0][1].end() : found.start()]
    if not (_OUTCOME_BETWEEN.search(between) or _OUTCOME_AFTER.search(turn_text[found.end() :])):
        return None
    changes = {n for n, match in said[:-1] if n and n != total}
    olds = {total + n for n in changes} | {total - n for n in changes if total - n > 0}
    olds -= {n for n, _ in said}  # a turn naming the old total is the frame rules' ("from 32 to 39")
    if not olds:
        return None
    noun = _counted_word(turn_text, found.end())
    matches: list[tuple[Record, str]] = []
    for record in holding(_terms(*sorted(olds))):
        if record.kind not in op_of:
            continue
        numbers = read_slot(record.content).values.get("number", set())
        held = [m for n, m in counts(record.content) if n in olds]
        if len(numbers) != 1 or len(held) != 1:
            continue  # one count a memory: a memory of several numbers is not surely this count's
        if noun and not set(text_terms(noun)) & set(text_terms(record.content)):
            continue  # "so 5 hours" counts something else than "8 cats"
        matches.append((record, held[0].group(1)))
    if len(matches) != 1:
        return None  # none, or not sure which
    record, old = matches[0]
    at = re.search(rf"(?<![\w,]){re.escape(old)}(?![\w,])", record.content)
    if at is None:
        return None
    reason = "a count changed by what the turn says happened: the old count and the change make the new total"
    spelled = found.group(1)
    if at.start() > 0 and spelled[:1].isupper() and spelled[1:2].islower():  # "Ten now" opened its turn only
        spelled = spelled[:1].lower() + spelled[1:]
    return value_replaced(record, at.start(), at.end(), spelled, old, op_of[record.kind], reason)


NONE_LEFT = re.compile(
    r"\b(?:none|nothing|zero)\s+(?:\w+\s+){0,2}?(?:left|remaining)\b|\bno\s+(?:more\s+)?(?:\w+\s+){0,2}?(?:left|"
    r"remaining)\b|\b(?:ran|run|running)\s+out\b|\ball\s+gone\b|\bused\s+up\b|\bsold\s+out\b|\bout\s+of\s+stock\b|"
    r"\bthe\s+last\s+(?:\w+\s+){0,3}?(?:went|has\s+gone|is\s+gone|'s\s+gone|got\s+used|was\s+used|sold|got\s+sold)\b",
    re.IGNORECASE,
)
"""Words that say a count came to nothing: "none left", "no more vials left", "ran out", "all gone", "used up", "sold
out", "the last vial went"."""
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_COUNTED = re.compile(
    r"\s+([A-Za-z][\w'-]*(?:\s+(?!of\b)[A-Za-z][\w'-]*)?)(?:\s+of\s+(?:the\s+|my\s+|our\s+)?([A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?))?"
)
"""What a count counts: the two words after it and what it is "of" ("4 vials of the flu vaccine": vials, flu
vaccine; "2 spare rooms": spare rooms)."""


def _content_terms(text: str) -> set[str]:
    return {t for t in text_terms(text) if t.startswith("t:")} - {"t:user"}


def emptied(holding: Callable[[list[str]], list[Record]], turn_text: str) -> tuple[Record, str] | None:
    """The one older count of the user's that a sentence of the turn says is now none, and that sentence: "The last
    vial went this morning, none left until the Friday delivery" after "We still have 4 vials of the flu vaccine".

    The sentence says the count came to nothing (:data:`NONE_LEFT`) and names what the older memory counts (the word
    after its one count, or what that is "of"); the older memory holds exactly one count, not zero. None when no
    sentence says so, or its thing is counted by no memory or by two."""
    for sentence in _SENTENCES.split(turn_text.strip()):
        if not NONE_LEFT.search(sentence):
            continue
        words = _content_terms(sentence)
        found = []
        for record in holding(sorted(words)):
            said = counts(record.content)
            if len(said) != 1 or said[0][0] == 0:
                continue
            counted = _COUNTED.match(record.content, said[0][1].end())
            if counted is None:
                continue
            thing = " ".join(part for part in counted.groups() if part)
            if _content_terms(thing) & words:
                found.append(record)
        if len(found) == 1:
            return found[0], sentence
    return None
