"""Whose value is it? The subject a statement gives a value of, read from its words without a model.

A slot is a subject and an attribute. Two statements may share the attribute (a team's size, a cat's age, a
return's due date) and still be about two things of one kind: "The Berlin team has 8 engineers" and "The Madrid
team has 5 engineers", "Our cat Miso is 3 years old" and "Our other cat, Tofu, is 7", "My older sister lives in
Perth" and "My younger sister lives in Hobart", "I booked room 12" and "My colleague Asha booked room 15". Each
such pair changes *two* things at once: who or what the statement is about, and the value. A newer value of one
slot changes only the value.

The subject is the noun phrase before the statement's first verb ("The Berlin team", "Our other cat, Tofu",
"My wife's train to work", "db-01"). Two subjects are two things when

- one is the user ("I", "we", "User") and the other another person ("my colleague Asha", "my husband");
- both are persons named by two head nouns ("my sister" / "my brother"; a pronoun may stand for either);
- they have the same head noun ("team", "sister", "return", "train") and differ in whose it is ("my train" /
  "my wife's train"), in the names or identifiers they carry ("Miso" / "Tofu"), or in the words before the head
  ("older" / "younger", "tax" / "VAT"; words of liking or of age such as "favourite", "new", "old" do not count:
  "my go-to editor" is "my favourite editor");
- neither has a head noun and both are names or identifiers that differ ("db-01" / "db-02", "Project Atlas" /
  "Project Boreal").

and each predicate holds a value of its own (a number, date, identifier or name): "Anna is my manager" and
"Tomasz is my manager" are one slot's old and new value (the name is the value; the predicate holds none), and so
are "Sophie is the twins' childminder on Tuesdays and Thursdays" and "Brenda started with the twins, Tuesdays and
Thursdays" (the older names a role's holder; the newer's days are the older's: nothing of its own but the name).
Nothing here reads the store; :mod:`.slots` asks only when the turn says no word of change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kioko_core.privacy.held_texts import keeps_text
from kioko_intelligence.slot_reading import KEPT_CHARS, holds_role, read_slot

_TOKEN = re.compile(r"[A-Za-z0-9][\w'’.:/-]*[\w%]|[A-Za-z0-9%]|,")
_USER = frozenset("i i'm i've i'd i'll we we're we've we'd we'll user me".split())
_USERS = frozenset("my our user's".split())
_DETERMINERS = frozenset("the a an this that these those its his her their your".split())
_AUX = frozenset(
    "is are was were am be been being has have had will would can could should must may might do does did "
    "isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't can't couldn't shouldn't "
    "gets got keeps stays remains".split()
)
_ADVERBS = frozenset(
    "also still just now usually always never often already finally recently really only too currently normally "
    "mostly generally typically sometimes".split()
)
_PREPOSITIONS = frozenset("to of for at in on from with by about".split())
_SOFT = frozenset(
    "favourite favorite go-to preferred usual main primary default regular daily new old current previous former "
    "latest present first last next own".split()
)
"""Words before a head noun that say how the user likes or when, not which thing: no mark of another thing."""
_PERSONS = frozenset(
    "wife husband partner son daughter kid kids child children mum mom dad father mother parent parents grandparent "
    "brother sister sibling twin "
    "friend colleague coworker co-worker boss manager neighbour neighbor teammate boyfriend girlfriend fiance "
    "fiancee fiancé fiancée cousin aunt auntie uncle gran granny nan nana grandma grandpa grandad granddad grandmother "
    "grandfather niece nephew flatmate "
    "roommate housemate landlord landlady he she they".split()
)
PERSONS = _PERSONS
"""Nouns of a person (kin, friends, colleagues, roles around the user): a name bound to one names someone, who may
hold any role ("my gran Nerys" / "my neighbour Huw" both look after the cat)."""
_PRONOUN_HEADS = frozenset({None, "he", "she", "they"})
"""A subject that names no person of its own: a pronoun stands for one said before."""
_MAX_TOKENS = 8
"""A subject longer than this is not read (a clause, not a noun phrase): no rule applies."""
_LEAD = re.compile(r"^\W*(?:(?:so|ok|okay|oh|well|also|and|but|btw|anyway|fyi|plus)\b[,\s]*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Subject:
    """The noun phrase a statement is about, as far as its words tell."""

    user: bool
    """The user themself ("I", "we", "User", "my wife and I")."""
    owner: str | None
    """Whose the head is: "user" (my, our, User's), another's possessive word ("wife", "asha"), or None."""
    head: str | None
    """The head noun, lower case, a final plural "s" cut ("team", "sister"), or None (a name or identifier)."""
    modifiers: frozenset[str]
    """The words between the determiner and the head, lower case ("older", "berlin", "tax")."""
    names: frozenset[str]
    """Names and identifiers the subject carries, lower case ("miso", "db-01", "project atlas")."""
    person: bool
    """Another person than the user (a person noun as head or owner, "he", "she")."""
    predicate: str
    """The words after the subject."""


def subject(text: str) -> Subject | None:
    """The subject of ``text``'s first sentence, or None when its words do not show one plainly."""
    return _kept_subject(text) if len(text) <= KEPT_CHARS else _read_subject(text)


@keeps_text
@lru_cache(maxsize=8192)
def _kept_subject(text: str) -> Subject | None:
    """:func:`_read_subject` kept per text (a Subject is frozen: shared, never changed): a turn's statement is
    compared with record after record (:func:`someone_elses`, :func:`different_subjects`), and the same stored
    memories turn after turn."""
    return _read_subject(text)


def _read_subject(text: str) -> Subject | None:
    first = re.split(r"(?<=[.!?;])\s+", text.strip(), maxsplit=1)[0]
    first = _LEAD.sub("", first)
    if re.match(r"^[^:]{0,30}:\s", first):
        return None  # a label ("Goal: ...", "Team goal: ...") is no subject
    tokens = [(m.group(0), m.end()) for m in _TOKEN.finditer(first)]
    words: list[str] = []
    end = None
    for index, (token, stop) in enumerate(tokens):
        low = token.lower().replace("’", "'")
        if index == 0 and low in _USER:
            return _user(first[stop:])
        if index == 0 and low in ("he", "she", "they"):
            return Subject(False, None, low, frozenset(), frozenset(), True, first[stop:])
        if low in _AUX or low in _ADVERBS or (low.endswith("'s") and low[:-2] in ("it", "that", "there", "he", "she")):
            end = index
            break
        if words and token.islower() and _verb_like(low, words[-1]):
            end = index
            break
        if len(words) >= _MAX_TOKENS:
            return None
        words.append(token)
    if end is None or not words:
        return None
    predicate = first[tokens[end - 1][1] :] if end else first
    lowered = [w.lower().replace("’", "'") for w in words if w != ","]
    if "i" in lowered or "me" in lowered:
        return _user(predicate)  # "my wife and I"
    return _phrase([w for w in words if w != ","], predicate)


def _user(predicate: str) -> Subject:
    return Subject(True, None, None, frozenset(), frozenset(), False, predicate)


def _verb_like(low: str, before: str) -> bool:
    """Is ``low`` (after the word ``before``) the statement's verb: "ships", "listens", "booked", "jammed"?"""
    after_noun = before.lower() not in _DETERMINERS | _USERS and not before.lower().endswith("'s")
    if not after_noun or len(low) < 4 or not low.isalpha():
        return False
    return (low.endswith("s") and not low.endswith(("ss", "us", "is"))) or low.endswith("ed")


def _phrase(words: list[str], predicate: str) -> Subject:
    owner: str | None = None
    rest = list(words)
    lowered = [w.lower().replace("’", "'") for w in rest]
    if lowered and lowered[0] in _USERS | _DETERMINERS:
        owner = "user" if lowered[0] in _USERS else None
        rest, lowered = rest[1:], lowered[1:]
    # a possessive inside the phrase names another owner ("my wife's train": the wife's)
    for index, low in enumerate(lowered):
        if low.endswith("'s") and index < len(lowered) - 1:
            owner = low[:-2]
            rest, lowered = rest[index + 1 :], lowered[index + 1 :]
            break
    # the head: the last lower-case word before a preposition (the tail "to work", "in Berlin" qualifies it)
    cut = next((i for i, low in enumerate(lowered) if low in _PREPOSITIONS and i > 0), len(lowered))
    core = rest[:cut]
    names = {n for n in read_slot(" ".join(["x", *rest])).values.get("name", set())}
    names |= {w.lower() for w in rest if re.search(r"\d", w) and re.search(r"[A-Za-z]", w)}
    head_at = next((i for i in range(len(core) - 1, -1, -1) if _common(core[i])), None)
    head = core[head_at].lower() if head_at is not None else None
    modifiers = frozenset(w.lower() for w in core[:head_at] if w.lower() not in _SOFT) if head_at else frozenset()
    if head is not None and head.endswith("s") and not head.endswith("ss"):
        head = head[:-1]
    person = bool(head in _PERSONS or (owner and owner != "user" and owner in _PERSONS))
    if head is None and not names:
        return Subject(False, owner, None, frozenset(), frozenset(), False, predicate)
    return Subject(False, owner, head, modifiers, frozenset(names), person, predicate)


def _common(word: str) -> bool:
    """A common noun: lower case (a capitalised word is a name, even first in the sentence: "Project Atlas")."""
    if not word.isalpha():
        return False
    return word.islower()


def different_subjects(new_text: str, old_text: str) -> bool:
    """Are the two statements about two things of one kind, each with a value of its own (see the module)?"""
    new, old = subject(new_text), subject(old_text)
    if new is None or old is None:
        return False
    if not (read_slot(new.predicate).values and read_slot(old.predicate).values):
        return False  # "Tomasz is my manager" after "Anna is my manager": the name is the value
    if new.user != old.user:
        return (old if new.user else new).person  # "I booked room 12" / "My colleague Asha booked room 15"
    if new.user:
        return False
    if _two_persons(new, old):
        return True  # "my sister works at Siemens" / "my brother works at Bosch"
    if new.head is not None and new.head == old.head:
        if new.owner and old.owner and new.owner != old.owner:
            return True  # "my train" / "my wife's train"
        if new.names and old.names and not _overlap(new.names, old.names):
            return True  # "our cat Miso" / "our other cat, Tofu"
        return bool(new.modifiers and old.modifiers and not new.modifiers & old.modifiers)  # older / younger sister
    if _named_again(new, old):
        return False  # "Head of school wants the third-year crits done on the 19th": the crits' date, said by someone
    if new.head is None and old.head is None:
        if holds_role(old_text) and _values(new.predicate) <= _values(old.predicate):
            return False  # "Brenda started with the twins, Tuesdays and Thursdays": Sophie's role, a new holder
        return bool(new.names and old.names and not _overlap(new.names, old.names))  # db-01 / db-02
    if new.head is None or old.head is None:
        return False
    # two heads, each with a name of its own: "The little one, Zofia, started at Rainbow" / "Our eldest, Tomasz, ..."
    return bool(new.names and old.names and not _overlap(new.names, old.names))


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|we|we're|we've|we'd|we'll|us|User)\b(?!'s)", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|she|him|his|her|hers|he's|she's)\b", re.IGNORECASE)
_ANOTHERS_THING = re.compile(
    rf"\b(?:my|our|User's)\s+(?:\w+\s+)?(?:{'|'.join(sorted(_PERSONS - {'he', 'she', 'they'}))})(?:'s|s')\s",
    re.IGNORECASE,
)
"""A thing of another person's named in the predicate: "Petra is my wife's team lead now"."""
_USERS_THING = re.compile(r"\b(?:my|our|me|us|User's)\b", re.IGNORECASE)
"""The user named in the predicate ("They moved my desk", "Joe took over my round")."""


def someone_elses(new_text: str, old_text: str) -> bool:
    """Is the newer statement a change of another person's ("my sister switched to soy milk these days", "Max can eat
    crab now, his allergy is gone", "Petra is my wife's team lead now") and the older one the user's own ("User
    drinks oat milk", "User is allergic to shellfish", "My team lead is Oksana")? Then it is no newer value of the
    older, whatever change word it holds: the change is theirs. The newer must say nothing of the user ("I", "we":
    "my husband got a job in Leeds, so we're moving" is the user's move too)."""
    if _FIRST_PERSON.search(new_text):
        return False
    new, old = subject(new_text), subject(old_text)
    if new is None or old is None or new.user or not _users_own(old) or new.head == "they":
        return False  # "They moved my desk up to the 5th floor": "they" is as often no one in particular
    predicate = " " + new.predicate + " "
    if _ANOTHERS_THING.search(predicate):
        return True
    if _USERS_THING.search(predicate):
        return False  # "Petra is my team lead now", "Joe took over my round": the user's own thing, a new holder
    if new.person and (new.owner is not None or new.head in ("he", "she")):
        return True  # "my sister ...", "my wife's train ...", "she ..." (not "Four children now": a count)
    if new.head is None and new.names and _THIRD_PERSON.search(new.predicate):
        return True  # a name the statement calls "he" or "she": a person ("Max can eat crab now, his allergy ...")
    return False


def _users_own(old: Subject) -> bool:
    """The user's own statement: "I ...", "User ...", "my <thing>" (not "my sister", nor a named one: "my gran
    Nerys", "our dog Rex", who may hold a role another person takes over)."""
    return old.user or (old.owner == "user" and not old.person and not old.names)


def _named_again(new: Subject, old: Subject) -> bool:
    """Does the newer statement name the older one's subject again after its own subject ("Head of school wants the
    third-year crits done on the 19th" after "Crits for the third-year architecture students are on 12 March")? Its
    own subject is then who says or does it, and the value it gives is the older subject's: not another thing. The
    older subject's names, else its head, must all be said as words of the newer predicate."""
    if old.person or new.person:
        return False
    said = read_slot(new.predicate.lower()).frame  # lower case: a name is matched as a word like any other
    wanted = read_slot(" ".join(old.names).lower() if old.names else (old.head or "")).frame
    return bool(wanted) and wanted <= said


_ANOTHER = frozenset({"other", "another"})


def another_one(new_text: str, old_text: str) -> bool:
    """Does the newer statement open on *another* thing of the older one's kind ("My other brother Kwame is at KPMG"
    after "My brother Kofi works at Deloitte", "Our other cat ..." after "Our cat ...")? It adds one beside the older,
    whatever change word the turn holds elsewhere ("he just got promoted")."""
    new, old = subject(new_text), subject(old_text)
    if new is None or old is None or new.head is None or new.head != old.head:
        return False
    return bool(new.modifiers & _ANOTHER) and not old.modifiers & _ANOTHER


def _values(text: str) -> set[str]:
    return {v for values in read_slot(text).values.values() for v in values}


def _overlap(one: frozenset[str], other: frozenset[str]) -> bool:
    """Does a name of one hold or sit inside a name of the other ("vs code" / "code")?"""
    return any(a in b or b in a for a in one for b in other)


def named_subjects(new_text: str, old_text: str) -> bool:
    """Do the two statements open on two named things ("My daughter Ana studies ..." / "My older son Rafael
    studies ...") or two persons ("my sister ..." / "my brother ...")? Their names are then who each is about,
    not an old and a new value of one slot."""
    new, old = subject(new_text), subject(old_text)
    if new is None or old is None:
        return False
    if _two_persons(new, old):
        return True
    return bool(new.names and old.names) and not _overlap(new.names, old.names)


def _two_persons(new: Subject, old: Subject) -> bool:
    """Are the subjects two persons by their head nouns ("my sister" / "my brother"; "they" may be either)?"""
    heads = {new.head, old.head}
    return new.person and old.person and len(heads) == 2 and not heads & _PRONOUN_HEADS


def subject_words(text: str) -> set[str]:
    """The frame words and names of the noun phrase ``text`` is about, up to its head ("The torque sensor on line
    2 was ..." -> {"torqu", "sensor"}; "Office DNS runs on ..." -> {"offic", "dns"}); empty when its words do not
    show one plainly."""
    found = subject(text)
    if found is None or found.user:
        return set()
    words = [*found.modifiers, *([found.head] if found.head else [])]
    return read_slot(" ".join(words)).frame | {w for name in found.names for w in name.split()}
