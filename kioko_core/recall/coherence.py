"""Session coherence: a lexical candidate whose session holds other strong candidates gains a share of the best.

A conversation's session is about something, and the turns that answer a question sit among other turns
of the same session that share its words ("camping", "the kids", "July"): the question's evidence is seldom
the only match in its session. A memory that matches as well but is alone in its session (a passing remark in
a talk about something else) stays where its words put it. The signal reads only the candidates the postings
already nominated (their records, through the index cache) and each one's session: what it adds does not
depend on how many memories the user holds, only on how the best few hundred matches are grouped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import reduce
from itertools import repeat
from operator import add

from kioko_core.reading.query_and_draft import SESSION_TERM
from kioko_core.store import Record

SESSION_POOL = 100
"""How many of the best lexical candidates are grouped by session (the pool is cut to ``candidates`` after)."""
MATES_READ = 100
"""At most this many memories of one session are read for :func:`session_mates` (its newest)."""


def session_coherent(lexical: dict[str, float], records: dict[str, Record], weight: float) -> dict[str, float]:
    """``lexical`` with each candidate's score raised by ``weight`` x the best score of another candidate of its
    session (a memory without a session, or alone in it among ``lexical``, keeps its score)."""
    # per session: its best score and its second (equal to the best when two tie), in one pass without a list
    # per session: a recall groups a few hundred candidates
    first: dict[str, float] = {}
    second: dict[str, float] = {}
    sessions: list[str | None] = []
    for memory_id, score in lexical.items():
        record = records.get(memory_id)
        session = record.session_id if record is not None and record.session_id else None
        sessions.append(session)
        if session is None:
            continue
        best = first.get(session)
        if best is None:
            first[session] = score
        elif score > best:
            second[session], first[session] = best, score
        elif score > second.get(session, -math.inf):
            second[session] = score
    raised: dict[str, float] = {}
    for (memory_id, score), session in zip(lexical.items(), sessions):
        # the best other candidate: the session's best, or its second when this memory is the best
        if session is None:
            other = 0.0
        else:
            best = first[session]
            other = second.get(session, 0.0) if best == score else best
        raised[memory_id] = score + weight * other
    return raised


def session_mates(
    near: dict[str, float],
    records: dict[str, Record],
    weights: dict[str, float],
    sessions: int,
    members_of: Callable[[Sequence[str]], dict[str, list[str]]],
    read: Callable[[Sequence[str]], dict[str, Record]],
    holding: Callable[[Sequence[str]], set[str] | None] | None = None,
) -> dict[str, float]:
    """The other memories of the sessions of the ``sessions`` best of ``near`` (scores by id; ``records``: those of
    every memory ranked already) that hold a term of ``weights`` (the question's terms and their weights): id -> the sum of the weights
    of the terms each holds, as the lexical ranking scores it. Their records are added to ``records``.

    Past a few thousand memories, a question's word that its evidence holds is held by hundreds of other memories
    too, and an evidence that matches by one word falls out of the best few hundred matches, where the session
    signal (:func:`session_coherent`) could have lifted it. Its session's stronger matches are still there, and
    their sessions are few: reading those sessions (``members_of``: the ids under a session's term, at most
    :data:`MATES_READ` each; ``read``: records by id) brings it back, at a cost that does not grow with the user's
    memory. ``holding``, when given, tells from the index which ids hold a term of ``weights`` (None: it cannot
    say): only those are read.
    """
    chosen: list[str] = []
    for memory_id in sorted(near, key=lambda i: (-near[i], i)):
        record = records.get(memory_id)
        if record is not None and record.session_id and record.session_id not in chosen:
            chosen.append(record.session_id)
            if len(chosen) >= sessions:
                break
    if not chosen:
        return {}
    members = members_of([SESSION_TERM + session for session in chosen])
    # ``records`` holds every memory ranked already (those past ``near`` too): only the others are read
    unseen = [i for session in chosen for i in members.get(SESSION_TERM + session, []) if i not in records]
    held_ids = holding(unseen) if holding is not None and unseen else None
    if held_ids is not None:
        unseen = [i for i in unseen if i in held_ids]
    mates: dict[str, float] = {}
    held, weight_of = weights.keys(), weights.get
    for memory_id, record in (read(unseen) if unseen else {}).items():
        if held.isdisjoint(record.terms):  # most of a long session's memories hold none of the question's words
            continue
        # the weights added in the record's order of terms from 0.0, as a loop would add them (the same float)
        score = reduce(add, map(weight_of, record.terms, repeat(0.0)), 0.0)
        if score > 0:
            mates[memory_id] = score
            records[memory_id] = record
    return mates


SPEAKER = re.compile(r"([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}):\s")
"""A memory that opens with a name and a colon ("Caroline: I went to a support group") says what that person said,
as a transcript line does."""


def spoken_by_named(ids: Sequence[str], records: dict[str, Record], question: str) -> set[str]:
    """The memories of ``ids`` (their records in ``records``) said by a person ``question`` names: each opens with
    its speaker's name and a colon (:data:`SPEAKER`), and that name stands in the question as a word.

    A question about a person is answered by what that person said far more often than by what was said to
    them or about them ("What did Caroline research?": "Caroline: Researching adoption agencies ..."; on the
    LoCoMo development split 856 of 891 evidence turns of a question naming one of the two speakers are that
    speaker's), while the same words said by the other person match the question exactly as well."""
    asked = set(_WORDS.findall(question.lower()))
    if not asked:
        return set()
    said: set[str] = set()
    for memory_id in ids:
        record = records.get(memory_id)
        found = SPEAKER.match(record.content) if record is not None else None
        if found is not None and _named(found.group(1), question, asked):
            said.add(memory_id)
    return said


_WORDS = re.compile(r"\w+")


def _named(speaker: str, question: str, asked: set[str]) -> bool:
    words = speaker.lower().split()
    if not set(words) <= asked:
        return False
    return len(words) == 1 or re.search(r"\b" + re.escape(speaker) + r"\b", question, re.IGNORECASE) is not None


MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b", re.IGNORECASE)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")


def named_period(question: str) -> tuple[int | None, int | None]:
    """(year, month) the question names ("in July", "in December 2023", "in 2022"); None for what it does not
    name. "May" is read as the month only beside a day or a year ("on May 3", "May 2023"), not as the verb."""
    year = _YEAR.search(question)
    month = None
    for found in _MONTH.finditer(question):
        if found.group(1).lower() == "may" and not re.match(r"\s*(?:\d|,?\s*(?:19|20)\d\d)", question[found.end() :]):
            if not re.search(
                r"(?:\d\s*(?:st|nd|rd|th)?\s*(?:of\s+)?|\b(?:in|during|since|until|by)\s+)$", question[: found.start()]
            ):
                continue
        month = MONTHS.index(found.group(1).lower()) + 1
        break
    return (int(year.group(1)) if year else None), month


def in_period(created_at: float, period: tuple[int | None, int | None]) -> bool:
    """True when a memory written at ``created_at`` (UTC) falls in ``period`` (see :func:`named_period`)."""
    year, month = period
    when = datetime.fromtimestamp(created_at, UTC)
    return (year is None or when.year == year) and (month is None or when.month == month)
