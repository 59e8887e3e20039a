"""A date of the same thing said again: the thing an older memory dates, named again with another date.

"My defence of the dissertation is on 9 June, in the big hall of the faculty", then "One member of committee is
sick, so they put my defence to 23 June. Same hall." The frame rule of :mod:`.slots` asks that the two statements
share half the words of the smaller one; a reason said in the same sentence ("one member of committee is sick")
fills the newer frame with words of its own, and "put ... to" is no change word, so the old date stayed in force
beside the new one. A date belongs to a thing: when the newer statement names again *everything* the older one's
subject is (its head and modifiers, "defence"; or its names, "the Okafor wedding" said as "the Okafors"), both
hold a date and the newer one says another, the newer is a newer value of that date's slot, however many other
words the sentence has. Without a change word it is not sure (a marked conflict: the newer shown first with
"(was: ...)"); with one the frame rule already took it.

Left alone: a thing whose subject is only a person or the user ("I'm off on 3 May" names no thing), and a newer
subject that is the older thing and more ("The Harper wedding rehearsal is on 13 June" beside "The Harper wedding
is on 14 June": a part of the wedding, with a date of its own).
"""

from __future__ import annotations

import re

from kioko_intelligence.slot_subjects import subject, subject_words


def dated_again(new_text: str, old_text: str, shared: set[str], types: list[str]) -> bool:
    """Does ``new_text`` give another date to the thing ``old_text`` dates? ``shared``: the frame words (and names)
    the two statements share; ``types``: the value types both hold."""
    if "date" not in types:
        return False
    old = subject(old_text)
    if old is None or old.user or old.person or not old.head:
        return False
    words = subject_words(old_text)
    names = {w for name in old.names for w in name.split()}
    if not words or not (words <= shared or (names and names <= shared)):
        return False
    # the thing itself, not a part of it or another thing of its name: the word naming it ends its noun phrase
    return _ends_its_phrase(new_text, old.head if words <= shared else sorted(names)[0])


_FOLLOWERS = frozenset(
    "is are was were be been being has have had will would shall can could may might must got gets getting get "
    "now to on for at in of from by till until and but so then again too also has date day moved put pushed "
    "brought shifted changed".split()
)
"""Words after a noun that do not go on with its noun phrase ("my defence to 23 June", "the Okafors are ...")."""


def _ends_its_phrase(text: str, word: str) -> bool:
    """Is ``word`` (or its plural or possessive) said in ``text`` at least once as the end of its noun phrase: followed
    by a verb, a preposition or a mark, not by another noun ("wedding rehearsal", "Harper christening")?"""
    pattern = re.compile(rf"\b{re.escape(word)}(?:s|es)?(?:'s|')?(?=\W|$)\s*([A-Za-z]+)?", re.IGNORECASE)
    for found in pattern.finditer(text):
        after = (found.group(1) or "").lower()
        if not after or after in _FOLLOWERS:
            return True
    return False


__all__ = ["dated_again"]
