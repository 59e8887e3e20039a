"""One topic, another plain value: a newer statement replaces an older one whose value is a common noun.

The frame rule of :mod:`.slots` compares typed values (a date, a number, a name, an identifier). Many values are
plain words: "toast with butter" -> "rice and miso soup" for breakfast, "clockwise" -> "anticlockwise" for a
walkaround, "`make release` on the build box" -> "the GitHub Action on tag push" for a deploy. Such a pair has
nothing typed to compare; what makes it one slot is that the two statements are about one *topic* and the
newer one says it changed. Here, without a model:

- the **topic** is a content word both statements hold that is not a common one ("breakfast", "walkaround",
  "deploy"; not "use", "time", "like"). The older memory must be the user's own (said in the first person, or
  of a kind that states the user's own value) and the newer one said by the user too, or the older memory is
  *titled* ("deploy: merge to main, ...", "User's walkaround: start at the nose, ...") and the newer one names
  its title: a title names the slot whoever states its new value;
- the **change** is a plain change word in the turn ("now", "these days", "anymore", "no more", "instead",
  "change", "moving to", "switched", "lately" ...);
- **keep both** when the turn adds rather than replaces ("also", "too", "as well", "another", "in addition"),
  when the two statements are about two subjects (:func:`.slot_subjects.different_subjects`), and when more than
  one older memory is on the topic (the router does not guess which).

A second loose rule needs no change word: **one topic, another name**. The newer statement names a thing (a
capitalised name: "Raspberry Pi", "Butterflies") the older one does not, the older names one the newer does not
("Dell", "Caterpillars"), they share a topic word (or a name both say: "DNS", "Harper") that is what the older is
about (its subject or title) or the noun both names qualify ("the Caterpillars room"), and the newer gives no
other value of a type the older holds (a day, a number) that the older lacks: "DNS is on a Raspberry Pi in the
comms cupboard" after "Office DNS runs on the old Dell tower", "they moved up to the Butterflies room" after "The
twins are in the Caterpillars room". A newer state that names its thing says the older one's thing is over as
plainly as a change word does. Only when exactly one older memory is on the topic so, said in an earlier session,
and the turn does not add.

The router is then not sure, and says so: both memories stay, the newer carries the conflict and is shown first
with "(was: ...)", the older leaves the context (the policy of docs/intelligence.md for an unsure change).
Nothing here reads the store; :func:`.slots.same_slot` hands in the candidates.
"""

from __future__ import annotations

import re

from kioko_intelligence.slot_reading import read_slot
from kioko_intelligence.slot_subjects import subject_words

STRONG_CUE = re.compile(
    r"\b(?:these days|nowadays|now|anymore|any more|no longer|no more|instead|from now on|from here on|lately|"
    r"recently|back to|switch(?:es|ed|ing)?|chang(?:e|es|ed|ing)|mov(?:e|es|ed|ing)\s+(?:\w+\s+){0,3}?(?:to|over to|onto))\b",
    re.IGNORECASE,
)
"""A plain word that says the value changed (weaker words such as "new" or "grew" are not enough here)."""
GENERIC = frozenset(
    "user have has take get make use work thing time way lot good fine well like want need go come day also just "
    "really start stop keep feel think know see look".split()
)
"""Words too common to make two statements one topic on their own."""
LIKING_WORDS = frozenset("prefer rather like love favourit favorit enjoy fan usual alway thing".split())
"""Stems of liking and habit: how a value is held, not what it is about."""
USERS_OWN = re.compile(r"\b(?:I|I'm|I've|I'd|my|mine|we|we're|we've|our|User|User's|me)\b", re.IGNORECASE)
"""A statement about the user's own things (a category value is the user's only when the text says so)."""
ADDING = re.compile(
    r"\b(?:also|as well|another|in addition|additionally|besides)\b|\btoo(?=\s*(?:[,.;!?)]|$))", re.IGNORECASE
)
"""A turn that adds a value beside the old one rather than replacing it."""
SUBJECTLESS = re.compile(
    r"^\W*(?:(?:just|finally|recently|so|and)\s+)*(?:switched|moved|changed|started|stopped|gave up|took up|picked up|"
    r"went back)\b",
    re.IGNORECASE,
)
"""A change the user said leaving the subject out ("Switched to evening runs, ..."): a statement of the user's own."""
_TITLE = re.compile(r"^\s*(?:(?:User's|my|our)\s+)?([^:,.;!?]{2,40}?)\s*:", re.IGNORECASE)
"""A titled memory: "deploy: merge to main, ...", "User's walkaround: start at the nose, ..."."""


def title_words(content: str) -> set[str]:
    """The frame words of ``content``'s title (empty when it has none, or a title of more than four words)."""
    found = _TITLE.match(content)
    if found is None or len(found.group(1).split()) > 4:
        return set()
    return read_slot(found.group(1)).frame


def one_topic(content: str, stated: bool, shared: set[str], said: str, said_frame: set[str], own: bool) -> bool:
    """Are an older memory (``content``; ``stated``: of a kind stating the user's own value) and a newer statement
    (``said``, its frame ``said_frame``; ``own``: a kind whose orders are the user's own, an instruction) one topic,
    sharing ``shared`` frame words?"""
    if not shared - GENERIC - LIKING_WORDS:
        return False
    title = title_words(content)
    if title and title <= said_frame and len(content.split()) <= 24:
        return True  # the newer statement names the older one's title: its slot, whoever says the new value
    if len(content.split()) > 16:
        return False
    if bool(USERS_OWN.search(content) or stated or SUBJECTLESS.match(content)) and bool(USERS_OWN.search(said) or own):
        return True
    # the older's subject and another word of its own both said again ("The twins only eat pasta plain with butter"
    # / "both twins now demand pesto on their pasta"): the same subject's same topic, whoever it is
    about = subject_words(content)
    return bool(about & shared) and len(shared - about - GENERIC - LIKING_WORDS) >= 1


def replaces_loosely(turn_text: str, candidates: int) -> bool:
    """Does the turn replace the one older memory on its topic (``candidates`` found), though unsure?"""
    return candidates == 1 and bool(STRONG_CUE.search(turn_text)) and not ADDING.search(turn_text)


_KIND_LABEL = re.compile(r"^\s*(?:Decision|Goal):\s*")
"""The label a kind's memory opens with (``Decisions`` store "Decision: <text>."): no title of the statement's own."""


def named_topic(topic: set[str], old: str, new: str, about: set[str]) -> bool:
    """Is a shared topic word what the older statement (``old``; ``about``: the words of what it is about, its
    subject) is about or titled, or the noun a name qualifies in both ("the Caterpillars room" / "the Butterflies
    room")? A word shared elsewhere ("line 2" of a sensor replaced by Maria and of dashboards on Grafana) says
    only that the two touch one thing."""
    old = _KIND_LABEL.sub("", old)  # "Decision: Florist for the Harper wedding: ...": the title follows the label
    head, colon, _ = old.partition(":")
    title = read_slot(head) if colon and len(head) <= 60 else None
    titled = title.frame | {w for name in title.values.get("name", ()) for w in name.split()} if title else set()
    if topic & (about | titled):
        return True
    return any(all(re.search(rf"\b[A-Z][\w'-]*\s+{re.escape(w)}", t) for t in (old, new)) for w in topic)


def names_another(
    mine_values: dict[str, set[str]], their_values: dict[str, set[str]], shared: set[str], said: str
) -> bool:
    """Do a newer statement (its values ``mine_values``, its text ``said``, lower case) and an older one
    (``their_values``), sharing the frame words and names ``shared``, name two things on one topic, with no other
    value of the newer's telling them apart (the rule "one topic, another name" of the module)?"""
    if not shared - GENERIC - LIKING_WORDS or ADDING.search(said):
        return False
    new_names = mine_values.get("name", set())
    old_names = {n for n in their_values.get("name", set()) if not _said(said, n)}
    if not new_names or not old_names:
        return False
    # another day, number or id beside the new name marks another thing ("port 8443 of the billing service")
    return all(values <= their_values.get(kind, set()) for kind, values in mine_values.items() if kind != "name")


def _said(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?:'?s|es)?(?!\w)", text) is not None
