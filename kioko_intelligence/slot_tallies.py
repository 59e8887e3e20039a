"""A running figure said again: "Fundraiser total is £3,450 after the bake sale" after "The school fundraiser has
raised £1,200 so far toward the new playground".

A figure said with "so far", "to date", "at the moment" or "currently" says of itself that it will change: it is a
tally, and a later figure of the same thing is its newer value, though the two statements share only the thing's
name ("fundraiser") and not enough words for the frame rule of :mod:`.slots`. Here, without a model, a newer
statement replaces such an older memory when

- the older memory holds exactly one figure and a word of tallying (:data:`PROVISIONAL`), and is current;
- the newer statement holds exactly one figure of the same sort (the same currency, a percentage, or a count of
  the same noun: "57 open bugs" / "11 bugs"), and a different one;
- the newer is about the older's thing (its subject's head noun: "The petition" / "Petition just passed ...") or
  its tally ("Fundraiser total"), not a part of it ("The fundraiser's raffle made £300") or someone else's;
- the newer adds nothing beside the older ("also", "another", "too": :data:`.slot_topics.ADDING`) and is not
  about another thing of the same kind (:func:`.slot_subjects.different_subjects`);
- exactly one older memory fits.

The router is not sure (the thing may have parts: "the bake sale alone made £300"), so the two are put in a marked
conflict: the newer is shown with "(was: ...)" and the older stays in the store, out of the context.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kioko_core.store import Record
from kioko_intelligence.slot_reading import text_terms
from kioko_intelligence.slot_subjects import different_subjects, subject
from kioko_intelligence.slot_topics import ADDING

PROVISIONAL = re.compile(
    r"\b(?:so far|to date|thus far|up to now|until now|at the moment|currently|as it stands|as things stand|"
    r"running total|at present)\b",
    re.IGNORECASE,
)
"""Words that say a figure is the state of a tally that goes on ("has raised £1,200 so far")."""
_FIGURE = re.compile(
    r"(?P<cur>[£$€¥])?\s?(?<![\w.,])(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d.,]\d)"
    r"(?:\s?(?P<pct>%|per ?cent\b)|\s?(?P<k>k\b))?(?:\s+(?:\w+\s+)?(?P<noun>[a-z]{3,}))?",
    re.IGNORECASE,
)
_NOT_A_COUNT = frozenset(
    "am pm st nd rd th and or of to in on at for the by per so far now this that until from with".split()
)
"""Words after a number that say nothing of what it counts."""


def figures(text: str) -> list[tuple[str, str]]:
    """The figures of ``text`` as (sort, value): the sort a currency symbol, "%", or the counted noun's stem."""
    found = []
    for match in _FIGURE.finditer(text):
        value = match.group("num").replace(",", "")
        if match.group("cur"):
            sort = match.group("cur")
        elif match.group("pct"):
            sort = "%"
        else:
            noun = (match.group("noun") or "").lower()
            sort = "" if noun in _NOT_A_COUNT else noun.rstrip("s")
        if match.group("k"):
            value += "000"
        found.append((sort, value))
    return found


TALLY_HEADS = frozenset({"total", "tally", "count", "figure", "sum", "number", "score"})
"""Head nouns that name a tally of the thing before them ("Fundraiser total is £3,450")."""


def _same_thing(old: str, new: str) -> bool:
    """Is the newer statement's subject the older's thing, or its tally ("The petition" / "Petition",
    "The school fundraiser" / "Fundraiser total"), not a part of it ("The fundraiser's raffle") or another's?"""
    theirs, mine = subject(old), subject(new)
    if theirs is None or mine is None or theirs.head is None or mine.owner not in (None, "user"):
        return False
    if mine.head not in (None, theirs.head, *TALLY_HEADS):
        return False
    return any(word.rstrip("s") == theirs.head for word in {*mine.names, mine.head or ""})


def running_tally(holding: Callable[[list[str]], list[Record]], text: str, turn_text: str) -> list[Record]:
    """The one current older memory holding a tally ``text`` (an op's text, from ``turn_text``) gives a newer figure
    of, or none (``holding``: the user's current memories holding any of some terms; see the module)."""
    if ADDING.search(turn_text):
        return []
    mine = figures(text)
    if len(mine) != 1:
        return []
    sort, value = mine[0]
    terms = [t for t in text_terms(text) if t.startswith("t:")]
    fits = []
    for record in holding(terms):
        if not PROVISIONAL.search(record.content):
            continue
        theirs = figures(record.content)
        if len(theirs) != 1 or theirs[0][1] == value:
            continue
        their_sort = theirs[0][0]
        if sort != their_sort and not (sort and their_sort and (sort in their_sort or their_sort in sort)):
            continue
        if not sort and not their_sort:
            continue  # two bare numbers say nothing of counting one thing
        if not _same_thing(record.content, text) or different_subjects(text, record.content):
            continue
        fits.append(record)
    return fits if len(fits) == 1 else []


__all__ = ["PROVISIONAL", "figures", "running_tally"]
