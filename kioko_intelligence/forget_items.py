"""One item inside a memory that says more: what the memory says once the item is taken out.

"Forget the locker number" after "I train at the leisure centre on Mondays and Thursdays, locker 214 is mine" must
not lose the training days; "drop Ana's number" must keep where Ana lives. A memory is read as its clauses (cut at
commas, semicolons and "and" before a new subject); the clauses that hold the item's head word (the last word of
what the user named: "number" in "the dentist's phone number", a value in digits standing for it) are taken out
and the rest is the memory's new text. When every clause holds the item, or what is left says too little, or the
item's words are still in it, the whole memory goes (as before): nothing of the item may stay.

The new text is written as a new memory and the old one deleted (an update would keep the old text in the
memory's history).
"""

from __future__ import annotations

import re

from kioko_core.kinds.registry import KINDS
from kioko_intelligence.language import about_user, content_words

VALUE_WORDS = frozenset({"number", "code", "pin", "id", "digit", "figur", "amount", "sum", "total", "combin", "combi"})
"""Words (stems) for a value written in digits: held by any text with a digit."""
ADDRESS_WORDS = frozenset({"address", "street", "home", "postcod"})
"""Words (stems) for a street address: held by any text naming one (:data:`STREET_ADDRESS`)."""
STREET_ADDRESS = re.compile(
    r"\b\d+[a-zA-Z]?,?\s+(?:[A-Z][\w'-]+\s+){1,3}(?:Road|Rd|Street|St|Avenue|Ave|Lane|Ln|Drive|Dr|Close|Way|"
    r"Crescent|Terrace|Place|Court|Gardens|Grove|Hill|Row|Square|Walk|Mews|Boulevard|Blvd|Parade|Park)\b"
)
"""A street address in a text ("14 Larch Road", "7b Mill Lane")."""
NAME_WORDS = frozenset({"name", "surnam"})
"""Words (stems) for what someone or something is called: held by any text naming one (a capitalised word after its
first that is not "User"): "forget my teacher's name" takes "User's teacher is Mrs Patel"."""
_CAPITALISED = re.compile(r"(?<=\s)(?!User\b|I\b)[A-Z][\w'-]+")
REWRITTEN_KINDS = {info.name: info.op for info in KINDS if info.restated and info.op}
"""Stored kind -> the operation its text is written again with (the plain memories)."""
MIN_LEFT = 2
"""Content words (besides "user") a rewritten memory must keep to be worth keeping."""
_CLAUSE_CUT = re.compile(
    r"\s*[;,]\s+(?:and\s+|but\s+)?|\s+(?:and|but)\s+(?=(?:he|she|they|it|we|i|user|my|his|her|their|our|its)\b)",
    re.IGNORECASE,
)


_ASIDE = re.compile(r"(?:please|pls|kindly|note|btw|fyi|lol|thanks|cheers|ok|okay|so)\b", re.IGNORECASE)
"""A clause said to the assistant ("please note"), not about the memory's thing."""
_STATEMENT = re.compile(
    r"(?:he|she|they|we|i|user|user's|my|his|her|their|our|[A-Z][\w'-]*)\b.*?\s(?:is|are|was|were|am|has|have|had|"
    r"[a-z]+s|[a-z]+ed)\b"
)
"""A clause that says something on its own: a subject, then a verb ("she works as a vet", "I train on Mondays")."""
_POINTS_BACK = re.compile(r"\b(?:it|its|it's|them|this|that one)\b", re.IGNORECASE)


def holds(word: str, text: str, have: set[str] | None = None) -> bool:
    """Whether ``text`` holds ``word`` (a stem): itself, a word sharing its first five letters, a digit for a
    value word, a street address for an address word."""
    have = set(content_words(text)) if have is None else have
    if word in VALUE_WORDS and any(c.isdigit() for c in text):
        return True
    if word in ADDRESS_WORDS and STREET_ADDRESS.search(text):
        return True
    if word in NAME_WORDS and _CAPITALISED.search(text):
        return True
    return word in have or (len(word) >= 5 and any(h[:5] == word[:5] for h in have))


def head_word(words: tuple[str, ...]) -> str | None:
    """The word that names the item itself among its ``words`` (stems, in order): the last one ("the dentist's
    phone number" -> "number"; "Ana's number" -> "number")."""
    return words[-1] if words else None


def without_item(content: str, words: tuple[str, ...]) -> str | None:
    """``content`` with the clauses holding the item named by ``words`` taken out, or None when the whole memory
    should go (one clause, every clause holds it, too little left, or an item word still in what is left)."""
    head = head_word(words)
    if head is None:
        return None
    body = content.strip().rstrip(".!?")
    clauses = [c for c in _CLAUSE_CUT.split(body) if c and c.strip()]
    if len(clauses) < 2:
        return None
    held = [holds(head, c) for c in clauses]
    if not any(held) or all(held):
        return None
    # a clause pointing back at the item ("the accountant keeps losing it") goes with it
    kept = [c.strip() for c, h in zip(clauses, held) if not (h or _POINTS_BACK.search(c) or _ASIDE.match(c.strip()))]
    if held[0]:  # the main clause goes: a fragment that hung on it ("due in August") goes too
        kept = [c for c in kept if _STATEMENT.match(c)]
    text = ", ".join(kept)
    left = [w for w in content_words(text) if w != "user" and w not in words]  # more than the item's own words
    if len(left) < MIN_LEFT or holds(head, text):
        return None
    if re.match(r"(?:I|my)\b", text, re.IGNORECASE):
        text = about_user(text)
    return text[:1].upper() + text[1:].rstrip(".") + "."


__all__ = ["NAME_WORDS", "REWRITTEN_KINDS", "STREET_ADDRESS", "holds", "head_word", "without_item"]
