"""A commitment called off: the decision or plan the user made is over, though the turn names no new value of it.

"We're going to Crete in August, flights are booked", then "Crete's off. My brother moved his wedding into August,
so we've rebooked for Lisbon in October": the second turn says no change word the slot rules read ("off" is none of
theirs) and its new destination shares no word with the old one, so the Crete trip stayed in the context as current.
The same class, said many ways:

- **the thing is over**: "X is / 's / was / has been off, dead, on hold, on ice, called off, cancelled, shelved,
  deferred, postponed, scrapped, binned, axed, parked, not happening" ("Second van idea is dead, the numbers don't
  work", "Loyalty card is on hold till after the summer", "the resurfacing was deferred at last night's meeting");
  "idea", "plan" or "thing" after the thing is no part of it, and "off" / "dead" must end their clause ("Dad's off
  work this week" says nothing is over);
- **the thing leaves the current plan**: "X slips / moves / is pushed / is bumped to next sprint (week, month,
  release ...)" or "to the backlog" ("Billing page slips to next sprint");
- **a name lets the commitment down** (a name only, said as one: capitalised): "X cancelled on us", "X pulled out",
  "X backed out", "X dropped out", "X fell through", "X took a job in Manchester", "X turned us down", or a bare
  "X cancel(led)" ("Hainan cancel, ticket too expensive").

The thing must not be a pronoun, a day or a time. A pronoun calls off the whole of one commitment only through the
other words of its sentence (:func:`all_off`: "Mum got wind of the surprise, so all that's off" names the plan for
Mum's 70th by "mum" and "surprise"; the caller takes it when those words name exactly one commitment). What it calls off is a memory in
force holding all its words (:func:`committed`): a decision or a plan, or a memory that says a commitment in its own
words ("we'll", "going to", "booked", "decided", "offering", "hiring", "buying", "agreed" ...). "The heating is off"
after "The heating comes on at 6" calls nothing off: that memory commits to nothing. Goals are left to their own
rows (a goal given up is ``goal.drop``).
"""

from __future__ import annotations

import re
from typing import Callable

from kioko_core.store import Record

_CLAUSE = r"(?:^|[.;:!?]\s+|,\s*(?:(?:so|and|but)\s+)?|\b(?:so|and|but|because|since)\s+)"
_THING = r"(?:(?:the|our|my|that|this|your|their)\s+)?(?P<thing>[\w&'-]+(?:\s+[\w&'-]+){0,4}?)"
_OVER = re.compile(
    _CLAUSE + _THING + r"(?:\s+(?:idea|plan|plans|thing))?"
    r"(?:'s|\s+is|\s+are|\s+was|\s+were|\s+has\s+been|\s+have\s+been|\s+got|\s+gets)\s+"
    r"(?:now\s+|officially\s+|definitely\s+|also\s+|all\s+|well\s+and\s+truly\s+)?"
    r"(?:(?:off|dead)(?=\s*(?:[,.;:!?)]|$|\s+(?:now|then|too|sadly|unfortunately|for now|after all)\b))|"
    r"on\s+hold|on\s+ice|called\s+off|cancell?ed|shelved|deferred|postponed|scrapped|binned|axed|parked|"
    r"not\s+happening|a\s+no-go)\b",
    re.IGNORECASE,
)
_LATER = re.compile(
    _CLAUSE + _THING + r"\s+(?:slips|slipped|moves|moved|is\s+pushed|was\s+pushed|gets\s+pushed|got\s+pushed|"
    r"is\s+bumped|was\s+bumped|got\s+bumped|goes|went|is\s+going)\s+(?:back\s+)?(?:to|into)\s+(?:the\s+)?"
    r"(?:next\s+(?:sprint|week|month|release|quarter|year|term|season|cycle|iteration|round)|backlog)\b",
    re.IGNORECASE,
)
_HELD_BACK = r"(?=\s*(?:[,.;:!?)]|$|\s+(?:for|till|until|because|since|as|now|then|this|next|again|after|indefinitely|at|with|from|by|on|in)\b))"
_PUT_OFF = re.compile(
    r"(?:^|[.;:!?]\s+|,\s*|\b(?:so|and|but|because|since)\s+)(?!(?:don't|do not|never|not|won't|can't)\b)"
    r"(?:(?:[\w']+\s+){0,3}?(?:holding|hold|held|putting|put|puts)\s+off\s+(?:on\s+)?" + _THING + _HELD_BACK + r"|"
    r"(?:[\w']+\s+){0,3}?(?:put|putting|puts)\s+" + _THING.replace("thing", "thing2") + r"\s+(?:on\s+hold|on\s+ice|"
    r"on\s+the\s+back\s*burner|on\s+the\s+shelf)\b|"
    r"(?:[\w']+\s+){0,3}?(?:shelved|shelving|parked|parking|postponed|postponing|deferred|deferring|"
    r"pulled\s+the\s+plug\s+on|pulling\s+the\s+plug\s+on|decided\s+against|called\s+off|calling\s+off)\s+"
    r"(?!(?:at|in|on|by|for|till|until|to|from|with|because|since|as|after|until)\b)"  # "was deferred at ...": passive
     + _THING.replace("thing", "thing3") + _HELD_BACK + r")",
    re.IGNORECASE,
)
"""A commitment put off by someone, said in the active voice: "We're holding off on the Gaelscoil for a year", "we've
put the loft conversion on ice", "The board shelved the rebrand", "we've decided against Lisbon"."""
_LET_DOWN = re.compile(
    r"(?:^|[.;:!?]\s+|,\s*(?:(?:so|and|but)\s+)?|\b(?:so|and|but|because|since)\s+)"
    r"(?P<thing>[A-Z][\w&'-]*(?:\s+(?:&\s+)?[A-Z][\w&'-]*){0,3})\s+(?:has\s+|have\s+|had\s+)?"
    r"(?:cancell?ed(?:\s+on\s+(?:us|me))?|cancel|pulled\s+out|backed\s+out|dropped\s+out|fell\s+through|"
    r"bailed(?:\s+on\s+(?:us|me))?|took\s+(?:a|another)\s+job|taken\s+(?:a|another)\s+job|"
    r"turned\s+(?:us|me|it|the\s+\w+)\s+down|let\s+(?:us|me)\s+down)\b"
)
_NOT_THINGS = frozenset(
    "it that this all everything anything something nothing which what he she they we i you there here one "
    "mine ours yours theirs his hers them both either neither today tomorrow tonight yesterday monday tuesday "
    "wednesday thursday friday saturday sunday weekend morning afternoon evening night week month year "
    "i'm we're it's that's everything's he's she's they're i've we've i'll we'll me us him her".split()
)
_COMMITTED = re.compile(
    r"\b(?:we'll|we will|I'll|I will|we're going|I'm going|going to|gonna|decided|decision|booked|booking|agreed|"
    r"plan|planned|planning|offer|offered|offering|hiring|hired|buying|launch|launches|launching|resolved|chose|"
    r"chosen|picked|settled on|signed|confirmed|scheduled|sticking with|going with|starting|starts)\b",
    re.IGNORECASE,
)
_COMMITTED_KINDS = frozenset({"decision", "procedural"})
_STEPS = re.compile(r"(?:^|[\s:;])\d{1,2}[.)]\s")


_ALL_OFF = re.compile(
    r"(?:^|[.;:!?]\s+|,\s*(?:(?:so|and|but)\s+)?|\b(?:so|and|but)\s+)(?:(?:all|so)\s+)?(?:that|it|this|the whole thing|"
    r"everything)(?:'s|\s+is|\s+was|\s+has\s+been)\s+(?:all\s+|now\s+|off\s+)?(?:off|cancell?ed|called\s+off|scrapped|"
    r"not\s+happening)(?=\s*(?:[,.;:!?]|$|\s+(?:now|then|sadly|for now|after all)\b))",
    re.IGNORECASE,
)
"""A commitment called off by a pronoun ("Mum got wind of the surprise, so all that's off"): the whole of it, named
only by the other words of its sentence."""


def all_off(text: str) -> str | None:
    """The sentence of ``text`` that calls something off by a pronoun, less the words that do, or None."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        found = _ALL_OFF.search(sentence)
        if found is not None:
            rest = (sentence[: found.start()] + " " + sentence[found.end() :]).strip(" ,.;")
            return rest or None
    return None


def called_off(text: str) -> list[str]:
    """The things ``text`` says are called off ("Crete's off" -> ["Crete"]), in the order said, each once."""
    found: list[str] = []
    for pattern in (_OVER, _LATER, _LET_DOWN, _PUT_OFF):
        for match in pattern.finditer(text):
            said = next(g for g in ("thing", "thing2", "thing3") if g in match.groupdict() and match.group(g))
            thing = match.group(said).strip(" ,.'\"")
            words = [w.lower().strip("'") for w in thing.split()]
            if not words or words[0] in _NOT_THINGS or all(w in _NOT_THINGS for w in words):
                continue
            if thing not in found:
                found.append(thing)
    return found


def commits(text: str) -> bool:
    """Does ``text`` say a commitment in its words ("we've rebooked for Lisbon", "The money will go to new fencing")?"""
    return _COMMITTED.search(text) is not None or _NEW_COMMITMENT.search(text) is not None


_NEW_COMMITMENT = re.compile(
    r"\b(?:rebook(?:ed|ing)?|re-?booked|will\s+(?:now\s+)?(?:go|be)|(?:is|are)\s+going\s+to)\b", re.I
)
"""Commitments said as the new one only (a memory saying them is no commitment :func:`committed` calls off)."""


def committed(record: Record) -> bool:
    """Does ``record`` hold a commitment of the user's (a decision, a plan, or one said as such) that can be called off?"""
    return record.kind in _COMMITTED_KINDS or _COMMITTED.search(record.content) is not None


def one_step_of(record: Record, thing_terms: set[str], terms_of: Callable[[str], list[str]]) -> bool:
    """Is ``record`` a numbered plan whose title does not name the thing (one of its steps is the thing: the plan's
    own rules drop that step, the plan stays)?"""
    if len(_STEPS.findall(record.content)) < 2:
        return False
    title = record.content.split(":", 1)[0] if ":" in record.content else ""
    return not (title and thing_terms <= set(terms_of(title)))
