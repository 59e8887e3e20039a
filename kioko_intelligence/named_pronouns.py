"""A "he" or "she" that stands for the one person the turn just named, written as that person's name.

"Taras finished the retraining. He works as electrician for the Lviv trams now" says what "Taras works as
electrician ..." says, but a memory kept as "He works as electrician for the Lviv trams now." names no one: the
slot rules cannot see that it gives Taras a new trade (his old one, "User's brother Taras is working as miner",
stayed current), and "What does Taras do?" does not find it. A careful reader restores the name, and so does the
turn's tidy form: a sentence that opens on "He" or "She" takes the name of the person the sentence before opens on,
when

- that sentence opens on a name, alone or after "my/our <relation>" ("My brother Taras ...", "Ana ..."), and the
  name is no common English word (the word list of the ``spelling`` extra: "Will", "Grace" and "Max" are words, and
  "Yesterday" or "Finally" open sentences without naming anyone);
- that sentence names no one else (a capitalised word past its name, unless after "in", "at", "for", "to" ... which
  name a place or a firm: "Taras met Olga. She ..." is left as it is, since which of the two is meant is a guess).

Without the word list nothing is changed. Only within one message: a pronoun whose person was named in an earlier
turn is left to the rules that read the talk. Left alone too: "he" or "she" after a comma ("Mihai went to Bucharest,
he rents a flat there"), which the rules read as a clause of its own, and "he's" / "she's" (whose "'s" after a name
would read as a possessive: "so she's who I report to" is no "Ruth Abara's"); both, written as the name, lost
changes the slot rules had found (dev9, dev18).
"""

from __future__ import annotations

import re

from kioko_intelligence.casing import RARE_COUNT
from kioko_intelligence.spelling import word_count

__all__ = ["named_pronouns"]

_RELATION = (
    r"(?:my|our)\s+(?:\w+\s+)?(?:brother|sister|son|daughter|wife|husband|partner|mum|mom|dad|father|mother|uncle|"
    r"aunt|auntie|cousin|nephew|niece|friend|colleague|boss|neighbou?r|grandson|granddaughter|gran|grandma|grandad|"
    r"grandpa|grandmother|grandfather|fianc[ée]e?|girlfriend|boyfriend|stepdad|stepmum|stepmom|flatmate|housemate|"
    r"mate|teacher|manager|client)"
)
_OPENING = re.compile(
    rf"^(?:(?i:{_RELATION}),?\s+)?(?P<name>[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)(?:'s|’s)?\s+(?=[a-z])"
)
"""A sentence opening on a name: "Taras finished ...", "My brother Taras is ...", "Ana's moved ..."."""
_PRONOUN = re.compile(r"(?:^|(?<=[.!?]\s))(?:He|She)\s")
_AT_START = re.compile(r"^(?:He|She)(?=\s)")
_NAMED_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_USER = frozenset({"I", "I'm", "I've", "I'd", "I'll"})
_PLACE_WORDS = frozenset("in at for to from on near of the by into via outside inside around".split())
"""A name after one of these is a place, a firm or a thing ("works in Kryvyi Rih", "for the BBC"), not a second
person."""
_SENTENCES = re.compile(r"(?<=[.!?])(\s+)(?=[A-Z])")


def _person(sentence: str) -> str | None:
    """The one person ``sentence`` opens on and names alone (see the module), or None."""
    found = _OPENING.match(sentence)
    if found is None:
        return None
    name = found.group("name")
    for word in name.split():
        count = word_count(word.lower())
        if count is None or count >= RARE_COUNT:
            return None
    rest = sentence[found.end() :]
    for run in _NAMED_RUN.finditer(rest):
        before = rest[: run.start()].split()[-1:]
        if run.group(0) not in _USER and not (before and before[0].lower() in _PLACE_WORDS):
            return None  # someone else named beside them ("Taras met Olga")
    return name


def named_pronouns(text: str) -> str:
    """``text`` with each "He" / "She" that stands for the one person just named written as the name (see the
    module); else ``text``."""
    if "he" not in text.lower() or not _PRONOUN.search(text):
        return text
    parts = _SENTENCES.split(text)  # sentences at even places, the space between them at odd ones
    person: str | None = None
    for index in range(0, len(parts), 2):
        sentence = parts[index]
        if person is not None and _AT_START.match(sentence):
            sentence = _AT_START.sub(person, sentence, count=1)
        parts[index] = sentence
        person = _person(sentence)
    return "".join(parts)
