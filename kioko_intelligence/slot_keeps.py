"""A value said again as kept is no value changed: "switched to the Anytime Fitness by the office, still Tues and Thurs".

A turn may change one thing and say in the same breath that another stays ("Netflix went up to 12.99, Spotify's
unchanged"; "I'm freelance now, same clients as before"). The kept clause repeats the words of the older memory of
the kept thing ("User goes Tues and Thurs after work"), so the frame rule of :mod:`.slots`, which pairs a new
statement with the older memory it shares most words with, would take the kept thing for the one replaced: it is
superseded (its value lives on only inside the new statement) and the thing that did change stays current beside
its new value. Read without a model:

- a *keep clause* is a clause of the turn (split at punctuation and at "but", "while", "though", "whereas"; not at
  "and", which joins the parts of one value: "Tues and Thurs") holding a word of keeping (:data:`KEEPING`: "still",
  "stays", "remains", "unchanged", "the same", "as before", "as usual", "hasn't changed" ...);
- an older memory is *only kept* when at least half of its own words are said in keep clauses and none of them in
  the turn's other clauses.

A memory only kept is not replaced by the turn (the slot rules leave it; the nearest-memory rule of
:mod:`.slot_nearest` may then find the memory the change is about). A memory the changed clause names too
("I'm still at Google but they moved me to Zurich" beside "User works at Google in London": London is not kept)
is left to the rules as before. Nothing here reads the store.
"""

from __future__ import annotations

import re

from kioko_intelligence.slot_reading import text_terms

KEEPING = re.compile(
    r"\b(?:still|stays?|stayed|staying|remains?|remained|unchanged|the same|same as|as before|as usual|as ever|"
    r"as always|(?:has|have|had)n't changed|(?:has|have) not changed|no change|same old)\b",
    re.IGNORECASE,
)
"""Words that say a thing goes on as it was."""
_CLAUSES = re.compile(r"[,;:.!?]+\s+|\s+(?:but|while|though|although|whereas|tho)\s+|\s+[-–—]+\s+", re.IGNORECASE)


def _words(text: str) -> set[str]:
    plain = KEEPING.sub(" ", text)
    return {t for t in text_terms(plain) if t.startswith("t:")} - {"t:user"}


def keep_clauses(turn_text: str) -> tuple[list[str], list[str]]:
    """The turn's clauses that say something stays, and its other clauses."""
    kept: list[str] = []
    other: list[str] = []
    for clause in _CLAUSES.split(turn_text):
        if clause.strip():
            (kept if KEEPING.search(clause) else other).append(clause)
    return kept, other


def only_kept(content: str, turn_text: str) -> bool:
    """Is the older memory ``content`` only said again as kept by the turn (module doc)?"""
    kept, other = keep_clauses(turn_text)
    if not kept:
        return False
    own = _words(content)
    in_kept = own & _words(" ".join(kept))
    return bool(in_kept) and 2 * len(in_kept) >= len(own) and not own & _words(" ".join(other))
