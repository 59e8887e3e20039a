"""A turn written without case, given the capitals a careful writer would have put there.

"we moved to bristol over the summer. my sister ana is dating lukas" says what the tidy sentence says, but
the offline router reads names by their capitals ("moved to Bristol", "is dating Lukas") and splits sentences
at a full stop followed by a capital. :func:`recase` puts back, in a turn that has no case of its own (all in
lower case, or all in capitals and lowered by the normaliser):

- the capital of each sentence's first word (the turn's, and after ``.``, ``!`` or ``?``) and the pronoun
  "I" ("i'm", "i've" ...);
- names the user has written with capitals before (``names``: the user's entity names, from the entity graph,
  "Ana", "GitHub Actions"), in their written form;
- the words English always capitalises, closed classes of the grammar: days of the week, months (not "may",
  nor "march" without a number beside it), languages and nationalities ("english", "german", "japanese");
- rare words: a plain word of three letters or more that the English word list (the ``spelling`` extra)
  holds fewer than :data:`RARE_COUNT` times, nor its American spelling ("colour", "neighbour" are words), and
  that no determiner or possessive comes right before ("lukas", "hetzner", "priya", not "my monstera").

Nothing here needs a model; without the word list only the first three steps apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kioko_intelligence.spelling import american_known, word_count

__all__ = ["RARE_COUNT", "recase"]

RARE_COUNT = 1000
"""A word the list counts fewer times than this is taken, in a turn without case, for a name."""

_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_MONTHS = "january february april june july august september october november december"
_LANGUAGES = """
english french german spanish italian portuguese dutch swedish norwegian danish finnish polish czech greek
russian ukrainian turkish arabic hebrew hindi urdu bengali punjabi tamil japanese chinese mandarin cantonese
korean vietnamese thai indonesian malay swahili yoruba igbo hausa persian farsi welsh irish scottish british
american canadian australian european african asian indian pakistani nigerian mexican brazilian latin
catalan basque romanian hungarian bulgarian serbian croatian slovak slovenian estonian latvian lithuanian
icelandic filipino tagalog
"""
ALWAYS_CAPITAL = frozenset(f"{_DAYS} {_MONTHS} {_LANGUAGES}".split()) | {d + "s" for d in _DAYS.split()}
"""Words English writes with a capital wherever they stand: days, months, languages and nationalities."""
_MONTH_WITH_NUMBER = frozenset({"march", "may"})
_BEFORE_MONTH = frozenset("in of since until till by from early late mid last next this".split())
"""Words after which "may" and "march" can only be months ("finished my training in may")."""
_DETERMINERS = frozenset(
    "the a an my our your his her their its this that these those some any each every no another one".split()
)
_INFLECTED = re.compile(r"(?:ed|ing|ly|ness|ment|tion|ions|ies|ers|ists)$")
_NAMING = frozenset({"named", "called", "nicknamed", "renamed"})
_NOT_NAMES = _DETERMINERS | frozenset(
    """me you him her us them it itself myself yourself out off back in on up over for to about at by from into
    with and or but so because if when then as that which who what something anything everything nothing
    someone anyone everyone nobody again today yesterday tomorrow earlier later once twice yet just already
    after before now""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_SENTENCE_END = re.compile(r"(?:^|[.!?]\s+|\n\s*)[\"'(\[]*$")
_PRONOUN_I = re.compile(r"^i(?:['’](?:m|ve|d|ll))?$")


def _cased_names(names: Iterable[str]) -> dict[str, str]:
    """lower-case name -> its written form, for names the user wrote with a capital."""
    known: dict[str, str] = {}
    for name in names:
        name = name.strip()
        if name and any(c.isupper() for c in name) and len(name) >= 2:
            known.setdefault(name.lower(), name)
    return known


def _acronym(word: str) -> bool:
    """A short word with no vowel ("pr", "db", "gp", "nhs"), or of three letters and not in the word list
    ("aws", "ceo", "api"): letters said one by one, written in capitals."""
    if not word.isalpha() or not 2 <= len(word) <= 4:
        return False
    if not re.search(r"[aeiouy]", word):
        return True
    return len(word) <= 3 and word_count(word) == 0


def _common(word: str) -> bool:
    """Is ``word`` a common English word (the word list counts it :data:`RARE_COUNT` times or more)?"""
    count = word_count(word)
    return count is not None and count >= RARE_COUNT


def _rare(word: str) -> bool:
    if len(word) < 3 or not word.isalpha():
        return False
    count = word_count(word)
    if count is None:
        return False
    if _INFLECTED.search(word) and (count or _known_stem(word)):
        return False  # "migrated", "emailing", "subscribers", "pipetting": a rare form of a word, no name
    return count < RARE_COUNT and not american_known(word, RARE_COUNT)


def _known_stem(word: str) -> bool:
    """Is ``word`` a form the word list lacks of a word it holds ("pipetting" of "pipette", "geocached" of
    "geocache")? The suffix cut off, with an "e" put back or a doubled last letter undone."""
    suffix = _INFLECTED.search(word)
    if suffix is None:
        return False
    stem = word[: suffix.start()]
    if len(stem) < 3:
        return False
    candidates = {stem, stem + "e"}
    if len(stem) > 3 and stem[-1] == stem[-2]:
        candidates.add(stem[:-1])
    return any(word_count(candidate) for candidate in candidates)


def _in_token(text: str, match: re.Match[str]) -> bool:
    """Is the word part of a path, a file name, an address ("config/prod.yaml", "a.b@c.io")?"""
    before = text[match.start() - 1 : match.start()]
    after = text[match.end() : match.end() + 2]
    return before in ("/", "@", "_", "\\", ".") or after[:1] in ("/", "@", "_", "\\") or bool(re.match(r"\.\w", after))


def recase(text: str, names: Iterable[str] = ()) -> str:
    """``text`` (written without case: the caller knows, as "im" may have become "I'm") with its sentence
    starts, "I", known names, days, months, languages and rare words capitalised."""
    known = _cased_names(names)
    out = text
    # names of several words first ("github actions"), then word by word
    for lower, written in sorted(known.items(), key=lambda item: -len(item[0])):
        if " " in lower:
            out = re.sub(rf"(?<![\w'’-]){re.escape(lower)}(?![\w'’-])", written, out)
    # an identifier of letters and digits ("inc-3301", "db-02", "b12", "x1") is written in capitals
    out = re.sub(r"(?<![\w./@-])[a-z]{1,6}-?\d[\w-]*(?![\w@/])", lambda m: m.group().upper(), out)
    pieces: list[str] = []
    at = 0
    for match in _WORD.finditer(out):
        word = match.group()
        if any(c.isupper() for c in word) or _in_token(out, match):
            continue  # a name of several words put back above; a part of a path, a file or an address
        lower = word.lower()
        before = out[: match.start()]
        previous = re.findall(r"[A-Za-z']+", before[-40:])
        prior = previous[-1].lower() if previous else ""
        new = word
        if _PRONOUN_I.match(lower):
            new = "I" + word[1:]
        elif lower in known and lower not in _NOT_NAMES and not (prior in _DETERMINERS and _common(lower)):
            new = known[lower]  # "max" after "Max" was written; not "the max" (a word again)
        elif lower in ALWAYS_CAPITAL:
            new = word.capitalize()
        elif lower in _MONTH_WITH_NUMBER and re.search(r"\d\s*(?:st|nd|rd|th)?\s*$", before):
            new = word.capitalize()
        elif lower in _MONTH_WITH_NUMBER and (re.match(r"\s+\d", out[match.end() :]) or prior in _BEFORE_MONTH):
            new = word.capitalize()
        elif prior in _NAMING and lower not in _NOT_NAMES and re.fullmatch(r"[a-z]+", lower):
            new = word.capitalize()  # "a horse named bella", "a band called hazel"
        elif _acronym(lower) and not re.search(r"\d\s*$", before):
            new = word.upper()  # "pr #4830", "the nhs", "aws": not after a number ("5 km")
        elif prior not in _DETERMINERS and re.fullmatch(r"[a-z]+(?:['’]s)?", lower) and _rare(lower.split("'")[0]):
            new = word.capitalize()
        if _SENTENCE_END.search(before):
            new = new[:1].upper() + new[1:]
        if new != word:
            pieces.append(out[at : match.start()] + new)
            at = match.end()
    pieces.append(out[at:])
    return "".join(pieces)
