"""The literal strings a regular expression cannot match without: a cheap test that lets a scan skip a pattern.

``required_literals(re.compile(r"\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b"))`` is ``{"AKIA", "ASIA"}``: every match
contains one of them, so a text that contains neither cannot match and the pattern need not run on it.
Python's ``re`` finds a pattern that starts with a literal quickly, but one that starts with ``\\b`` or a
look-behind is tried at every position of the text; ``str`` containment tests of a few literals are one
fast pass each.

The literals are read from the pattern's parse tree (``re._parser``, the parser ``re.compile`` itself uses),
never written by hand, so they cannot drift from the pattern. The derivation only ever gives up
(``None``: the pattern must always run) or returns strings that every match must contain:

- a literal character is itself; a small character class (``[pousr]``) is its characters;
- a sequence multiplies the exact strings of its consecutive exact parts (``api[_ -]?key``), and any one
  such run, or any one part's own requirement, is required of the whole; the longest is chosen;
- an alternation requires one of its branches' requirements (all of them must have one);
- a repeat of at least one requires what its item requires; an optional or starred item requires nothing;
- zero-width assertions (``\\b``, look-arounds) consume nothing and are skipped.

With ``re.IGNORECASE`` the literals are lower-case and must be looked for in :func:`casefolded` text.

:func:`anchor` goes further where it can: the literals every match *starts* with, after a run of known
characters (``\b(?:[A-Za-z0-9]+[_-])*token`` starts in the word run before "token"), so that
:func:`anchored_finditer` tries the pattern only at those few places and still finds exactly what
``finditer`` finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants  # type: ignore[attr-defined]  # the parser re.compile uses (3.11+)
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any, Iterator

MAX_STRINGS = 128
"""Largest set of exact strings kept for one part; beyond it the part's strings are not multiplied on."""

SMALL_CLASS = 8
"""Largest character class read as a set of literal characters."""

# Non-ASCII characters that re.IGNORECASE matches to an ASCII letter (Python's re documentation names
# these four; a test checks every code point): the containment test must see them as that letter.
_IGNORECASE_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD_TABLE = str.maketrans(_IGNORECASE_ASCII)


def casefold(text: str) -> str:
    """``text`` lower-cased so that a case-insensitive literal match in it is a plain substring.

    ASCII text is lowered as is; other text first maps the characters IGNORECASE equates with ASCII
    letters ("ſ" with "s", the Kelvin sign with "k") to those letters.
    """
    if text.isascii():
        return text.lower()
    return text.translate(_FOLD_TABLE).lower()


@dataclass(frozen=True)
class _Info:
    """What a part of a pattern matches: its exact strings (when known and few), strings one of which every
    match contains (``required``) and strings one of which every match starts with (``prefix``)."""

    exact: frozenset[str] | None
    required: frozenset[str] | None
    prefix: frozenset[str] | None


_UNKNOWN = _Info(None, None, None)
_EMPTY = _Info(frozenset({""}), None, frozenset({""}))


def required_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` contains (lower-case with IGNORECASE), or None.

    None means no such set could be derived: the pattern has to be run on every text. A string that
    contains another of the set is left out (finding the shorter one is enough).
    """
    if not isinstance(pattern.pattern, str):
        return None
    ignorecase = bool(pattern.flags & re.IGNORECASE)
    tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    required = _usable(_sequence(list(tree), ignorecase).required)
    if required is None:
        return None
    return frozenset(text for text in required if not any(other != text and other in text for other in required))


def _usable(strings: frozenset[str] | None) -> frozenset[str] | None:
    """A requirement is only worth anything if none of its strings is empty."""
    if strings is None or not strings or "" in strings:
        return None
    return strings


def _better(first: frozenset[str] | None, second: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two requirements: longer shortest string, then fewer strings."""
    first, second = _usable(first), _usable(second)
    if first is None:
        return second
    if second is None:
        return first
    rank_first = (min(map(len, first)), -len(first))
    rank_second = (min(map(len, second)), -len(second))
    return first if rank_first >= rank_second else second


def _product(first: frozenset[str], second: frozenset[str] | None) -> frozenset[str] | None:
    """Every string of ``first`` followed by every string of ``second``; None when there would be too many."""
    if second is None or len(first) * len(second) > MAX_STRINGS:
        return None
    return frozenset(a + b for a in first for b in second)


def _sequence(items: list[tuple[Any, Any]], ignorecase: bool) -> _Info:
    best: frozenset[str] | None = None
    run: frozenset[str] = frozenset({""})  # exact strings of the current run of exact parts
    prefix: frozenset[str] | None = None  # fixed at the first part that is not exact
    all_exact = True
    for op, av in items:
        info = _node(op, av, ignorecase)
        best = _better(best, info.required)
        joined = _product(run, info.exact)
        if joined is not None:
            run = joined
            continue
        # a part that is not exact (or too many strings): the run so far is followed by the part's start
        head = _product(run, info.exact if info.exact is not None else info.prefix)
        if all_exact:
            prefix = head if head is not None else run
            all_exact = False
        best = _better(_better(best, run), head)
        run = info.exact if info.exact is not None else frozenset({""})
    best = _better(best, run)
    if all_exact:
        return _Info(run, best, run)
    return _Info(None, best, prefix)


def _node(op: Any, av: Any, ignorecase: bool) -> _Info:
    if op is _constants.LITERAL:
        return _char_class([(op, av)], ignorecase)
    if op is _constants.IN:
        return _char_class(av, ignorecase)
    if op in (_constants.AT, _constants.ASSERT, _constants.ASSERT_NOT):
        return _EMPTY
    if op is _constants.SUBPATTERN:
        _group, add_flags, del_flags, pattern = av
        if add_flags or del_flags:
            return _UNKNOWN  # (?i:...) and the like change how literals match: not worth the care
        return _sequence(list(pattern), ignorecase)
    if op is getattr(_constants, "ATOMIC_GROUP", None):
        return _sequence(list(av), ignorecase)
    if op is _constants.BRANCH:
        _, branches = av
        return _branch([_sequence(list(branch), ignorecase) for branch in branches])
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, getattr(_constants, "POSSESSIVE_REPEAT", None)):
        low, high, pattern = av
        item = _sequence(list(pattern), ignorecase)
        if low == high == 1:
            return item
        if low == 0:
            if high == 1 and item.exact is not None:
                return _exact(item.exact | {""})
            return _UNKNOWN
        return _Info(None, _better(item.required, item.exact), item.exact if item.exact is not None else item.prefix)
    return _UNKNOWN  # any character, categories, negated literals, group references: no literal known


def _exact(strings: frozenset[str]) -> _Info:
    return _Info(strings, _usable(strings), strings)


def _branch(branches: list[_Info]) -> _Info:
    if all(branch.exact is not None for branch in branches):
        strings = frozenset().union(*(branch.exact for branch in branches if branch.exact is not None))
        if len(strings) <= MAX_STRINGS:
            return _exact(strings)
    required: set[str] = set()
    prefixes: set[str] | None = set()
    for branch in branches:
        need = _better(branch.required, branch.exact)
        if need is None:
            return _UNKNOWN
        required |= need
        start = branch.exact if branch.exact is not None else branch.prefix
        prefixes = None if prefixes is None or start is None else prefixes | start
    if prefixes is not None:
        prefixes = _shortest_prefixes(prefixes)
        if len(prefixes) > MAX_STRINGS:
            prefixes = None
    return _Info(None, frozenset(required), None if prefixes is None else frozenset(prefixes))


def _shortest_prefixes(strings: set[str] | frozenset[str]) -> set[str]:
    """``strings`` without those that start with another of them: as a set of prefixes, it says the same."""
    return {text for text in strings if not any(other != text and text.startswith(other) for other in strings)}


def _char_class(items: list[tuple[Any, Any]], ignorecase: bool) -> _Info:
    characters: set[str] = set()
    for op, av in items:
        if op is _constants.LITERAL:
            characters.add(chr(av))
        elif op is _constants.RANGE:
            low, high = av
            if high - low >= SMALL_CLASS:
                return _UNKNOWN
            characters.update(chr(code) for code in range(low, high + 1))
        else:
            return _UNKNOWN  # a negation or a category (\d, \s, \w)
        if len(characters) > SMALL_CLASS:
            return _UNKNOWN
    if ignorecase:
        if any(not character.isascii() and character.lower() != character.upper() for character in characters):
            return _UNKNOWN  # a cased non-ASCII letter: its case-insensitive matches are not worth the care
        characters = {character.lower() for character in characters}
    return _exact(frozenset(characters))


# --------------------------------------------------------------------------- where matches can start

MAX_LEAD = 512
"""Largest set of characters read for the part of a pattern before its anchor literal."""


@dataclass(frozen=True)
class Anchor:
    """Where every match of a pattern starts: at an occurrence of one of ``literals`` (lower-case when the
    pattern ignores case), or inside the run of ``lead`` characters just before one (``\\b(?:\\w+_)*token``
    starts at "token" or in the ``api_`` before it)."""

    literals: frozenset[str]
    lead: frozenset[str]


def anchor(pattern: re.Pattern[str]) -> Anchor | None:
    """Where ``pattern``'s matches can start, or None when that cannot be read from the pattern.

    The pattern's top-level parts are taken in order: zero-width assertions are skipped (``match`` checks
    them in place); the first part from which the rest of the pattern must start with known literals gives
    the literals; every part before it must consume only characters of a known, small set (the lead).
    """
    if not isinstance(pattern.pattern, str):
        return None
    ignorecase = bool(pattern.flags & re.IGNORECASE)
    items = list(_sre_parse.parse(pattern.pattern, pattern.flags))
    lead: set[str] = set()
    for index, (op, av) in enumerate(items):
        if op in (_constants.AT, _constants.ASSERT, _constants.ASSERT_NOT):
            continue
        starts = _usable(_sequence(items[index:], ignorecase).prefix)
        if starts is not None:
            return Anchor(frozenset(_shortest_prefixes(starts)), frozenset(lead))
        consumed = _characters(op, av, ignorecase)
        if consumed is None or len(lead | consumed) > MAX_LEAD:
            return None
        lead |= consumed
    return None


def _characters(op: Any, av: Any, ignorecase: bool) -> set[str] | None:
    """Every character a part can consume (more is fine, fewer is not), or None if not a small known set."""
    if op in (_constants.AT, _constants.ASSERT, _constants.ASSERT_NOT):
        return set()
    if op is _constants.LITERAL:
        return _cased(chr(av), ignorecase)
    if op is _constants.IN:
        found: set[str] = set()
        for item, value in av:
            if item is _constants.LITERAL:
                more = _cased(chr(value), ignorecase)
            elif item is _constants.RANGE and value[1] - value[0] < MAX_LEAD:
                more = set()
                for code in range(value[0], value[1] + 1):
                    cased = _cased(chr(code), ignorecase)
                    if cased is None:
                        return None
                    more |= cased
            else:
                return None  # a negation or a category
            if more is None:
                return None
            found |= more
        return found
    if op is _constants.SUBPATTERN:
        _group, add_flags, del_flags, pattern = av
        return None if add_flags or del_flags else _all_characters(list(pattern), ignorecase)
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, getattr(_constants, "POSSESSIVE_REPEAT", None)):
        return _all_characters(list(av[2]), ignorecase)
    if op is _constants.BRANCH:
        found = set()
        for branch in av[1]:
            more = _all_characters(list(branch), ignorecase)
            if more is None:
                return None
            found |= more
        return found
    return None


def _all_characters(items: list[tuple[Any, Any]], ignorecase: bool) -> set[str] | None:
    found: set[str] = set()
    for op, av in items:
        more = _characters(op, av, ignorecase)
        if more is None or len(found | more) > MAX_LEAD:
            return None
        found |= more
    return found


def _cased(character: str, ignorecase: bool) -> set[str] | None:
    """The characters ``character`` matches: itself, and with IGNORECASE its other case and the non-ASCII
    letters re equates with it; None for a cased non-ASCII letter under IGNORECASE (not worth the care)."""
    if not ignorecase or character.lower() == character.upper():
        return {character}
    if not character.isascii():
        return None
    lower = character.lower()
    return {lower, character.upper()} | {odd for odd, ascii in _IGNORECASE_ASCII.items() if ascii == lower}


def anchored_finditer(
    pattern: re.Pattern[str], where: Anchor, text: str, folded: str, limit: float = 0.125
) -> Iterator[re.Match[str]]:
    """The matches ``pattern.finditer(text)`` gives, found by trying the pattern only where one can start.

    ``folded`` is :func:`casefolded` text for a pattern that ignores case (else ``text`` itself) and must be
    as long as ``text``, so that positions agree. Every match starts at a literal or in the lead run before
    one, so trying those positions in order, each from where the last match ended, finds the same leftmost
    matches; ``match(text, position)`` sees the text before the position, as a search does (``\\b``,
    look-behinds). When the candidates are more than ``limit`` of the text, the plain search is cheaper.
    """
    if len(folded) != len(text):
        raise ValueError("folded text must be as long as the text")
    starts: set[int] = set()
    lead = where.lead
    for literal in where.literals:
        position = folded.find(literal)
        while position >= 0:
            if position not in starts:
                starts.add(position)
                back = position
                # every position already taken has its lead run taken too: stop there
                while back > 0 and text[back - 1] in lead and back - 1 not in starts:
                    back -= 1
                    starts.add(back)
            if len(starts) > limit * len(text) + 64:
                yield from pattern.finditer(text)
                return
            position = folded.find(literal, position + 1)
    end = 0
    for start in sorted(starts):
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            yield match
            end = match.end()
