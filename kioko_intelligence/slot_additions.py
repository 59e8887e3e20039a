"""An added new thing is no newer value: the classes of statement that add beside what the user had.

A change cue ("now", "these days", "since January", "from this month") dates a statement; it does not by itself
say that something the user had is over. "I go to a bridge club on Fridays now" adds a pastime beside "I go to
Mass on Sunday mornings"; "We have a cat called Miso" adds a pet beside "My dog is called Biscuit". The loose
write-time rules (:mod:`.slot_nearest`'s nearest older memory, :mod:`.slot_topics`' one topic, the frame rule of
:mod:`.slots` when it is unsure) would take either for the newer value of the older one and mark it replaced. Four
classes of statement, read without a model, say the newer one is *another* thing:

- **two named things of two kinds**: each statement binds its name to a noun ("a cat called Miso", "User's dog is
  called Biscuit", "our collie Bran"; the subject's noun when it is the subject that is called: "My boat is a
  sloop called Kittiwake" names a boat) and the nouns differ: a cat and a dog, a budgie and a collie;
- **a pastime added**: either statement takes up or holds a pastime, which a person has many of ("taken up",
  "learning", "into", "my new hobby is", "a book club", "a spin class", "plays ..."; not "started" or "joined",
  which as often start a job or a school: :data:`.slot_nearest.START`), and
  the turn says nothing ended (:data:`ENDED`: "instead", "gave up", "no longer", "back to", "again" ...);
- **at another time**: both statements say when a recurring thing happens (a weekday, the weekend, a part of the
  day, "before bed", "twice a week") and the times differ: a week holds both ("book club on Thursdays" /
  "food bank on Saturdays");
- **a slot named and not held**: the turn names the slot it changes ("We switched *our phone company* to Eir")
  and the older memory does not speak of it: the change is of a slot the user never gave a value of.

A turn that names the old value ("I swapped the dog for a cat") is read before any of this, by the explicit
rule of :mod:`.slots`, and is not touched. Nothing here reads the store.
"""

from __future__ import annotations

import re

from kioko_intelligence.slot_reading import read_slot
from kioko_intelligence.slot_subjects import PERSONS, subject

ENDED = re.compile(
    r"\b(?:instead|rather than|gave up|given up|giving up|quit|stopped|no longer|any ?more|no more|used to|"
    r"back to|again|in the end|went with|gone with|took over|replaced|swapped|ditched|dropped|moved on|"
    r"switched from|moved from|changed from|not .{1,40} but)\b",
    re.IGNORECASE,
)
"""Words that say something the user had is over (not merely that the statement is current)."""

_PASTIME = re.compile(
    r"\b(?:tak(?:en|e|es|ing)|took) up\b|\blearning\b|\b(?:I'm|I am|we're|we are|User is)\s+(?:\w+\s+)?into\b|"
    r"\bnew (?:hobby|pastime|thing|project|passion)\b|"
    r"\b(?:club|class|classes|course|lessons|league|choir|society|hobby|pastime)\b|"
    r"\bplay(?:s|ing)?\b",
    re.IGNORECASE,
)
"""A pastime taken up or held: a person has many at once, and one more ends none of them."""
_GROUP = re.compile(r"\b(?:club|class|classes|course|lessons|league|choir|society)\b", re.IGNORECASE)
"""A pastime's group: two statements naming one ("commodore of the sailing club" / "the club treasurer now") may
be of the same one."""

_WHEN = re.compile(
    r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|mornings?|evenings?|afternoons?|lunchtimes?|"
    r"bedtime|before bed|in bed|at night|every night|(?:once|twice|\w+ times) a (?:week|day|month)|"
    r"every (?:day|week|month))\b",
    re.IGNORECASE,
)
"""When a recurring thing happens (not a date: "since January" says when a change began)."""

_NAMED_SUBJECT = re.compile(
    r"\b(?:[Mm]y|[Oo]ur|User's|[Tt]he)\s+(?:[a-z][\w-]*\s+){0,2}?([a-z][\w-]*)\s+(?:is|was|'s)\s+"
    r"(?:now\s+)?(?:(?:a|an|the)\s+[^,.;!?]*?)?(?:called|named)\b",
)
_NAMED_THING = re.compile(r"\b([a-z][\w-]*)\s+(?:called|named)\s+[A-Z]")
_OWNED_NAME = re.compile(r"\b(?:[Mm]y|[Oo]ur|User's)\s+([a-z][\w-]*),?\s+(?!I\b)[A-Z][a-z]")
_SOMEONE = PERSONS | frozenset(
    "gran granny grandad granddad nan nana nanna nain taid grandson granddaughter grandchild grandkid stepson "
    "stepdaughter stepmum stepmom stepdad fiance fiancee ex carer nanny childminder babysitter tutor coach doctor "
    "dentist vet accountant lawyer mentor guy bloke lad fella woman man girl boy lady".split()
)
"""Nouns of a person: :data:`.slot_subjects.PERSONS` and the other words people are called by."""
_OWN_SLOT = re.compile(
    r"\b(?:switch|chang|swapp?|mov)(?:e|es|ed|ing)?\s+(?:my|our)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+"
    r"(?:over\s+)?(?:to|for)\b",
    re.IGNORECASE,
)


ADDITIVE = re.compile(
    r"\b(?:also|another|as well|second|both|in addition|besides|extra)\b|"
    r"\btoo\b(?=\s*(?:now\s*)?(?:[.,;!?]|$))",
    re.IGNORECASE,
)
"""Words that say the statement adds a thing beside the one the user had: both stay current ("I also coach the
under-14s", "We ship on Steam too now"; "too" only closing its clause, not "too much")."""

_FRONTED_PLACE = re.compile(
    r"^\W*(?:(?:up|down|out|over|back|and)\s+)?(?:at|in|on)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<place>(?-i:[a-z])[\w'-]*(?:\s+(?-i:[a-z])[\w'-]*){0,2}?)\s*,?\s+"
    r"(?=(?:I|I'm|I've|we|we're|we've|there|they|it's|User)\b)",
    re.IGNORECASE,
)
"""A place a statement opens with, which scopes all it says ("At home I've got five hives", "Up at the farm apiary
there are three hives", "In the garage we keep the bikes"): the statement holds there, not everywhere. Only a
place named by common words: a named one ("In Leeds I rent a flat") may be the value that changes."""


def fronted_place(text: str) -> set[str]:
    """The words of the place ``text`` opens with (:data:`_FRONTED_PLACE`), stemmed; empty when it opens with none."""
    found = _FRONTED_PLACE.match(text)
    return set(read_slot(found.group("place")).frame) if found else set()


def other_places(new: str, old: str) -> bool:
    """Do both statements open with a place, two places that share no word ("At home ..." / "Up at the farm ...")?
    A user keeps things in two places at once."""
    mine, theirs = fronted_place(new), fronted_place(old)
    return bool(mine and theirs) and not mine & theirs


def thing_and_user(new: str, old: str) -> bool:
    """Is ``old`` about a named thing ("The API listens on port 201": a name written with a capital, not as the first
    word; "Employer is Amazon" names none) and ``new`` about the user ("I'm studying for JLPT N3 listening this
    month"), the new one not naming that thing? The user's own doings are no newer value of a
    thing's."""
    mine, theirs = subject(new), subject(old)
    if mine is None or theirs is None or not mine.user or theirs.user or theirs.owner or theirs.person:
        return False
    written = re.findall(r"[\w'-]+", old)[1:]  # a name is written with a capital, and not as the first word
    names = {w.lower() for w in written if w[:1].isupper()} & set(theirs.names)
    if not names:
        return False
    said = {w.lower() for w in re.findall(r"[\w'-]+", new)}
    return not names & said


def beside(turn_text: str, new: str, old: str) -> bool:
    """Is a statement paired with ``old`` only loosely (no change word, no old value named) one said beside it: two
    places (:func:`other_places`), or a thing's value against the user's doings (:func:`thing_and_user`)?

    Not :func:`added`'s other times: where the pair's value is itself a time ("The book club meets on Wednesdays"
    after "... on Thursdays") two times are the change. Not an additive word (:data:`ADDITIVE`) either: read here it
    cost a never-read probe (session 14), so "I also coach the under-14s on Sunday mornings" is still marked against
    "I coach the under-11s on Saturdays"."""
    if ended(turn_text):
        return False
    return other_places(new, old) or other_places(turn_text, old) or thing_and_user(new, old)


def ended(text: str) -> bool:
    """Does ``text`` say something the user had is over?"""
    return bool(ENDED.search(text))


def named_kinds(text: str) -> set[str]:
    """The nouns of things ``text`` binds a name to ("We have a cat called Miso" -> {"cat"}; "My dog is a spaniel
    called Rua" -> {"dog"}: the subject is what is named), stemmed. A person's noun is none ("my gran Nerys", "my
    neighbour Huw": a person may hold any role, and two persons are told apart by :mod:`.slot_subjects`)."""
    found = {m.group(1) for m in _NAMED_SUBJECT.finditer(text)}
    if not found:
        found = {m.group(1) for m in _NAMED_THING.finditer(text)} | {m.group(1) for m in _OWNED_NAME.finditer(text)}
    things = {noun for noun in found if noun.lower() not in _SOMEONE and noun.lower().rstrip("s") not in _SOMEONE}
    return {w for noun in things for w in read_slot(noun).frame}


def two_named_kinds(new: str, old: str) -> bool:
    """Do the two statements each name a thing of another kind (a cat and a dog)?"""
    mine, theirs = named_kinds(new), named_kinds(old)
    return bool(mine and theirs) and not mine & theirs


def pastime(text: str) -> bool:
    """Does ``text`` take up or hold a pastime (see the module)?"""
    return bool(_PASTIME.search(text))


def whens(text: str) -> set[str]:
    """When a recurring thing of ``text`` happens, lower case, a plural "s" cut."""
    return {re.sub(r"s$", "", m.group(0).lower()) for m in _WHEN.finditer(text)}


_TIME_WORDS = read_slot("morning evening afternoon night lunchtime weekend week day bedtime").frame
"""The stems of the times of day and week (a frame word, where a weekday is a value)."""


def only_times(shared: set[str]) -> bool:
    """Are the frame words two statements share only times of day or week ("Mass on Sunday mornings" / "walks the
    dog every morning")? When a thing happens is no topic: two things happen at one time."""
    return bool(shared) and shared <= _TIME_WORDS


def other_times(new: str, old: str) -> bool:
    """Do both statements say when a recurring thing happens, at times that differ?"""
    mine, theirs = whens(new), whens(old)
    return bool(mine and theirs) and not mine & theirs


def unheld_slot(turn_text: str, old: str) -> bool:
    """Does the turn name the slot it changes ("switched our phone company to Eir") and ``old`` not speak of it (of
    its head noun: "User's phone is an iPhone 12" holds no phone *company*)?"""
    slots = [read_slot(m.group(1).split()[-1]).frame for m in _OWN_SLOT.finditer(turn_text)]
    slots = [s for s in slots if s]
    return bool(slots) and not any(s & read_slot(old).frame for s in slots)


def added(turn_text: str, old: str) -> bool:
    """Is the turn's statement another thing beside ``old``, not its newer value (a pastime added, at another time,
    a slot named and not held), the turn saying nothing ended?"""
    if ended(turn_text):
        return False
    groups = {g.lower() for g in _GROUP.findall(turn_text)} & {g.lower() for g in _GROUP.findall(old)}
    hobby = (pastime(turn_text) or pastime(old)) and not groups
    return hobby or other_times(turn_text, old) or unheld_slot(turn_text, old)
