"""A person who held a place leaves and another takes it: the memory naming the first now names the second.

"My GP is Doctor Aydın at the Hillside surgery", then "Doctor Aydın is retired, they gave me to Doctor Kaur";
"I share the chalet with Pierre and Annika", then "Annika's gone home with a bust knee, Luis has taken her bed".
The later turn names neither the role (GP, chalet) nor a change of it: it says the holder left and names the one
who came. Read without a model, three things must all be said in one turn:

- a person a current memory names, followed in the same clause by a verb of leaving ("retired", "left",
  "got the sack", "gone home", "stepped down", "on maternity leave" ...);
- a word that puts someone in the place ("took over", "has taken her bed", "gave me to", "in his place", "now",
  "instead", "new" ...);
- exactly one other name, one the memory does not hold.

The memory holding the leaver (exactly one: with two, the turn does not say which) is rewritten in place, the
leaver's name replaced by the newcomer's ("User shares the chalet with Pierre and Luis"); its history keeps the
old text. A leaver with no successor named ("Steve retired") or two names in the turn changes nothing here, nor does a turn
that says the place again ("Helga has retired, so Ines runs the book club now"): its own memory replaces the old.
"""

from __future__ import annotations

import re
from typing import Callable

import kioko_intelligence.rules as rules
from kioko_core.reading.analysis import STOP_WORDS
from kioko_core.store import Record
from kioko_intelligence.choices import names_in

_LEAVES = re.compile(
    r"^(?:'s|\s+(?:is|has|had|was|just|finally|now|has\s+now|is\s+now)){0,2}\s+(?:just\s+|finally\s+)?"
    r"(?:retired|left|quit|resigned|gone|went\s+home|got\s+(?:the\s+)?(?:sack|boot|chop)|got\s+(?:sacked|fired)|"
    r"been\s+(?:sacked|fired|let\s+go)|sacked|fired|let\s+go|moved\s+on|stepped\s+down|passed\s+away|died|"
    r"on\s+(?:\w+\s+)?leave|off\s+sick)\b",
    re.IGNORECASE,
)
"""What follows a name that says its holder left: "Doctor Aydın is retired", "Annika's gone home", "Steve got the sack"."""
_TAKES_PLACE = re.compile(
    r"\b(?:took\s+over|taken\s+over|taking\s+over|takes\s+over|(?:has|have|had)\s+taken|took\s+(?:his|her|their)|"
    r"replac(?:ed|ing|es)|instead|in\s+(?:his|her|their)\s+place|now|new|gave\s+me\s+to|given\s+me\s+to|"
    r"moved\s+me\s+to|put\s+me\s+with|assigned|covering|stepped\s+in|standing\s+in|filling\s+in)\b",
    re.IGNORECASE,
)
"""Words that put someone in a place."""


def _names(text: str) -> list[str]:
    return [
        n
        for n in names_in(text)
        if n.lower() not in rules.SENTENCE_WORDS and n.lower() not in STOP_WORDS and n not in ("I", "User")
    ]


def _leaver(text: str) -> tuple[str, list[str]] | None:
    """The one name ``text`` says left, and the turn's other names; None when no or several names leave."""
    names = _names(text)
    leaving = []
    for name in names:
        for found in re.finditer(rf"\b{re.escape(name)}\b", text):
            if _LEAVES.match(text[found.end() :]):
                leaving.append(name)
                break
    if len(leaving) != 1:
        return None
    return leaving[0], [n for n in names if n != leaving[0]]


def _acronym(name: str) -> bool:
    """Is ``name`` an acronym of three capitals or more ("SAP", "HMRC", "STM")? It names a system or a body, not a
    person who takes a place: "Refund all go through SAP now, Ms Chan retired" changes how refunds are done, it
    puts no one in Ms Chan's place. Two capitals may be a person's initials ("it's JP running the floor now")."""
    return any(len(word) > 2 and word.isupper() for word in name.split())


def _held_name(record: Record, leaver: str) -> str | None:
    """The name in ``record`` that holds every word of ``leaver`` ("Big Steve" for "Steve")."""
    words = set(leaver.lower().split())
    held = [n for n in _names(record.content) if words <= set(n.lower().split())]
    return held[0] if len(held) == 1 else None


def _restated(record: Record, held: str, terms: Callable[[str], list[str]], said: set[str]) -> bool:
    """Does the turn say the place again ("Helga has retired, so Ines runs the book club now")? Then its own new
    memory states it, and the slot rules let the old one give way: nothing is rewritten."""
    own = set(terms(record.content.replace(held, " "))) - set(terms("User"))
    return bool(own) and 2 * len(own & said) >= len(own)


def succeeded(
    holding: Callable[[list[str]], list[Record]], terms: Callable[[str], list[str]], turn_text: str
) -> list[tuple[Record, str, str]]:
    """(memory, leaver's name as the memory holds it, newcomer) when the turn says a person a memory names left and
    one other person took the place (module doc); ``holding(terms)`` finds the current memories holding every term."""
    if not _TAKES_PLACE.search(turn_text):
        return []
    read = _leaver(turn_text)
    if read is None:
        return []
    leaver, others = read
    words = terms(leaver)
    if not words:
        return []
    said = set(terms(turn_text))
    found = []
    for record in holding(words):
        if record.kind == "profile":
            continue  # a profile slot takes a new value through profile_changes, not a rewrite of its text
        held = _held_name(record, leaver)
        if held is None or _restated(record, held, terms, said):
            continue
        fresh = [n for n in dict.fromkeys(others) if n.lower() not in record.content.lower() and not _acronym(n)]
        if len(fresh) == 1:
            found.append((record, held, fresh[0]))
    return found if len(found) == 1 else []
