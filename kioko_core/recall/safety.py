"""Safety-relevant facts: what the user said about allergies, diets, health, access needs and hard rules, found at
write time without a model and brought to the questions they bear on.

A memory of the user (a fact, preference or event about them: "User is allergic to peanuts.", "I use a
wheelchair", "User never flies") whose text matches one of :data:`CLASSES` is indexed under
:data:`SAFETY_TERM` when it is written (:func:`is_safety_relevant`), so a recall finds the user's safety facts
with one postings call. A question bears on such a fact (:func:`bears_on`) when they share a topic
(:data:`TOPICS`: cooking and restaurants for an allergy or a diet, travel and venues for a disability, health
and exercise for a condition) or a content word ("a good dessert with nuts?" and "allergic to nuts"). The
context shows those facts right after the profile and instructions, and a tight budget keeps them before
anything retrieved (:data:`~kioko_core.recall.budget.PRIORITY`).
"""

from __future__ import annotations

import re

from kioko_core.reading.analysis import analyze
from kioko_core.recall.safety_bridges import bridged

SAFETY_TERM = "x:safety"
SAFETY_KINDS = frozenset({"factual", "preference", "episodic"})
"""Kinds whose memories may be safety facts: what the user said about themselves (not general knowledge)."""
SHOWN = 5
"""At most this many safety facts in one context (a question rarely bears on more)."""

_WORD = r"\b(?:{})\b"


def _any(words: str) -> re.Pattern[str]:
    return re.compile(_WORD.format(words), re.IGNORECASE)


CLASSES: dict[str, re.Pattern[str]] = {
    "allergy": _any(
        r"allerg\w*|anaphyla\w*|epi-?pen|intoleran\w*|can(?:'t|not) (?:eat|have|tolerate|digest)|react(?:s|ion)? badly to"
    ),
    "diet": _any(
        r"vegan|vegetarian|pescatarian|halal|kosher|gluten[- ]free|dairy[- ]free|lactose|coeliac|celiac|"
        r"(?:don't|do not|doesn't|does not|never|won't) (?:eat|drink)|no (?:pork|beef|meat|fish|alcohol|dairy|sugar)|"
        r"teetotal\w*|sober"
    ),
    "medical": _any(
        r"asthma\w*|epilep\w*|diabet\w*|pregnan\w*|heart (?:condition|problem)s?|blood pressure|hypertension|"
        r"migraines?|panic attacks?|insulin|seizures?|arthritis|chronic \w+|medication|pacemaker|bad (?:knee|back|hip)s?|"
        r"(?:kidney|liver) (?:disease|problem)s?|celiac|coeliac|warfarin|blood thinners?|anticoagulants?|statins?|"
        r"antidepressants?|chemo\w*|claustrophob\w*|(?:motion|travel|sea|car)[- ]?sick\w*|vertigo|fear of heights|copd|"
        r"inhalers?|angina|arrhythmi\w*|dialysis|defibrillators?|blood thinners?|sciatica|slipped disc"
    ),
    "access": _any(
        r"wheelchair|mobility|crutch(?:es)?|walker|walking (?:stick|cane)|blind|visually impaired|low vision|"
        r"deaf|hard of hearing|hearing aid|sign language|(?:can't|cannot|can not) (?:walk|climb|use stairs|see|hear)|"
        r"step-free|disabilit\w*|disabled|screen reader|partially sighted|hearing loss|cochlear implants?|"
        r"guide dogs?|zimmer frame|(?:power|electric|motori[sz]ed) ?chairs?|mobility scooters?|(?:wheel ?)?chair users?"
    ),
    "constraint": _any(
        r"never|always|under no circumstances|must not|mustn't|not allowed to|can't stand|"
        r"(?:have|has|need|needs) to be careful (?:with|about)|(?:must|need to|have to|should) (?:avoid|stay away from)"
    ),
}
"""What makes a statement safety-relevant, by class (an allergy, a diet, a medical condition, an access need, a
hard rule the user keeps: "never", "always")."""

_LEAD = (
    r"(?:(?:ever\s+)?since|for|after|as of|from|last|this|two|three|a few|several|recently|lately|these days|"
    r"nowadays|now|today|currently|also|btw|fyi|by the way|for the record|just so you know|heads up|oh|and|so|well|"
    r"actually|honestly|sadly|unfortunately)\b[^.;!?]{0,30}?(?:,\s*|\s+)"
)
"""A time or a discourse marker said before the user's subject ("Since March I am having a pacemaker fitted", "Two
years ago I was diagnosed with epilepsy", "btw I'm allergic to kiwi")."""
ABOUT_USER = re.compile(rf"^\s*(?:{_LEAD})?(?:user\b|i\b|i'm\b|i've\b|my\b|me\b|our\b)", re.IGNORECASE)
"""A statement about the user: the router writes "User ...", a hand-written fact may keep "I ...", after a time or a
discourse marker (:data:`_LEAD`) too."""
ABOUT_SOMEONE = re.compile(
    r"^\s*(?:(?:[Oo]ne|[Tt]wo|[Ss]ome|[Bb]oth|[Aa] few) of (?:my|our) [a-z]+(?: [a-z]+)?,? )?"
    r"[A-Z][a-z]+(?: [A-Z][a-z]+)?,? (?:has|is|carries|needs|uses|gets|reacts|can't|cannot|can not|must)\b"
)
"""A statement about someone the user named ("Max has a severe egg allergy, he carries an EpiPen."), also after the
group of the user's people they belong to ("One of my pupils, Leo, has a severe sesame allergy"): the user's child,
partner, pupil or client, whose condition matters as much to what the user plans. Case-sensitive: a name, not a
sentence's first word ("Peanut allergies are common" names nobody)."""
SELF_LABEL = re.compile(r"^\s*((?:[\w'-]+\s+){0,4}[\w'-]+)\s+here\s*(?:[.!,;]|$)", re.IGNORECASE)
"""The user named by a label and "here", their subject left out ("Type 1 diabetic here.", "Coeliac here, btw"):
read, like a statement about someone named, for their health only. A label has no verb (:data:`_STATES`):
"Peanut allergies are common here" is about a place."""
_STATES = re.compile(
    r"\b(?:is|are|was|were|be|been|'s|'re|has|have|had|do|does|did|get|gets|got|seem|seems|common|rare)\b",
    re.IGNORECASE,
)

TOPICS: dict[str, re.Pattern[str]] = {
    "food": _any(
        r"eat\w*|ate|food\w*|cook\w*|recipes?|dinner|lunch|breakfast|brunch|meals?|snacks?|restaurants?|cafes?|"
        r"menus?|dish(?:es)?|cuisine|bake|baking|dessert|grocer\w*|takeaway|take-out|order (?:in|food)|drinks?|"
        r"pizza|sushi|curry|pasta|salad|sandwich\w*|cake|cookies?|bar|pub|wine|beer|cocktails?|party|picnic|"
        r"nuts?|peanuts?|milk|cheese|bread|eggs?|shellfish|seafood|fish|meat|chicken|pork|beef|"
        r"steak\w*|grill\w*|bbq|barbecue|burgers?|order (?:at|from)|what (?:should|can|could) (?:i|we) order|"
        r"coffee|tea|smoothies?|chocolate|sweets|candy|snacks?|tapas|buffet|catering|bistro|diner|brasserie|"
        r"ramen|noodles?|udon|pho|soups?|dumplings?|tacos?|burritos?|kebabs?|falafel|sauces?|spices?|spicy|"
        r"(?:should|can|could|shall) (?:i|we) order"
    ),
    "travel": _any(
        r"trips?|travel\w*|flights?|fly|flies|flew|flying|planes?|airports?|hotels?|hostel|vacation|holiday|visit\w*|tour\w*|"
        r"venues?|museums?|concerts?|theat(?:re|er)|stadium|events?|conference|festival|city|cities|trains?|"
        r"train station|cruise|book(?:ing)? (?:a|the) (?:room|table|seat)|sightseeing|itinerar\w*|weekend away|abroad|"
        r"hike|hiking|walk\w*|stairs|outing|day out|weekends?|city breaks?|getaways?|road trips?"
    ),
    "packing": _any(r"pack(?:ing)? for|what to pack|packing lists?|suitcases?|luggage|hand luggage|carry-?on"),
    "screens": _any(
        r"games?|gaming|video ?games?|consoles?|nintendo|playstation|xbox|vr|virtual reality|films?|movies?|cinema|"
        r"tv|telly|series|shows?|screens?|concerts?|gigs?|clubs?|nightclub|festival|light shows?|fireworks|arcade"
    ),
    "health": _any(
        r"health\w*|doctor|medic\w*|medicine|pills?|drugs?|pain\w*|sick|ill|symptoms?|exercis\w*|workout\w*|gym|"
        r"run|running|marathon|sports?|yoga|training|fitness|diet\w*|hike|hiking|swim\w*|vaccin\w*|pharmac\w*|"
        r"hospital|dentist|sleep|headaches?|aches?|fever|flu|colds?|cough\w*|painkillers?|ibuprofen|aspirin|"
        r"paracetamol|tablets?|take for"
    ),
}
"""What a question is about, as far as safety facts go."""

WORD_TOPICS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (_any(r"epilep\w*|seizures?|photosensitiv\w*|migraines?"), frozenset({"screens"})),
)
"""Topics a fact bears on because of a word of its own, beyond its class's: flashing screens and lights for
photosensitive epilepsy or migraines ("Which game would you recommend?")."""

CLASS_TOPICS = {
    "allergy": {"food", "health", "packing"},
    "diet": {"food"},
    "medical": {"health", "packing"},
    "access": {"travel", "health", "packing"},
    "constraint": set(),
}
"""The topics a class bears on whatever its words (a peanut allergy on any question about food, a medicine or an
auto-injector on what to pack); a hard rule bears on the topics its own words name ("User never flies": travel)."""


READ_WORDS = (
    "allergic allergy allergies anaphylaxis intolerant vegan vegetarian lactose coeliac celiac gluten halal kosher "
    "asthma epilepsy epileptic diabetes diabetic pregnant insulin seizures arthritis wheelchair deaf blind crutches "
    "disability disabled warfarin migraines pacemaker"
)
READ_TERMS = tuple(dict.fromkeys(t for t in analyze(READ_WORDS, []).terms if t.startswith("t:")))
"""The index terms of the words a safety fact is most often stated with. A memory written before
:data:`SAFETY_TERM` was given (or before its class knew a word) is not under it; recall also looks these terms
up and recognises the facts at read (:func:`is_safety_relevant`), so an old "User is allergic to shellfish."
is shown without waiting for its next write."""

FRAMING = frozenset(
    "t:" + w for w in ("never", "alwai", "always", "must", "use", "get", "have", "make", "take", "go", "need", "like")
)
"""Words a rule or a statement is framed with: sharing one says nothing about the question's subject."""


HEALTH = frozenset({"allergy", "diet", "medical", "access"})
"""The classes that matter for someone the user named: their health, not their habits ("Kumar never signs on a
Friday" is no safety fact of the user's)."""


def classes_of(text: str) -> set[str]:
    """The safety classes ``text`` states about the user or, health only, about someone the user named (empty for a
    statement about something else)."""
    if ABOUT_USER.match(text):
        return {name for name, pattern in CLASSES.items() if pattern.search(text)}
    label = SELF_LABEL.match(text)
    if ABOUT_SOMEONE.match(text) or (label and not _STATES.search(label.group(1))):
        return {name for name in HEALTH if CLASSES[name].search(text)}
    return set()


def is_safety_relevant(kind: str, text: str) -> bool:
    """Whether a memory of ``kind`` with ``text`` is indexed under :data:`SAFETY_TERM` when written: a statement about
    the user of :data:`SAFETY_KINDS`, or about someone the user named, which the router may keep as knowledge."""
    if kind in SAFETY_KINDS:
        return bool(classes_of(text))
    return kind == "semantic" and not ABOUT_USER.match(text) and bool(classes_of(text))


def topics_of(text: str) -> set[str]:
    return {name for name, pattern in TOPICS.items() if pattern.search(text)}


def _words(text: str) -> set[str]:
    return {t for t in analyze(text, []).terms if t.startswith("t:") and t != "t:user"}


def bears_on(fact: str, question: str) -> bool:
    """Whether the safety fact ``fact`` matters for ``question``: a shared topic (the fact's class's topics and
    those its words name) or a shared content word (the framing words of a hard rule aside)."""
    classes = classes_of(fact)
    if not classes:
        return False
    asked = topics_of(question)
    topics = set().union(*(CLASS_TOPICS[c] for c in classes)) | topics_of(fact)
    topics |= {t for pattern, named in WORD_TOPICS if pattern.search(fact) for t in named}
    if asked & topics or bridged(fact, question):
        return True
    return bool((_words(fact) - FRAMING) & _words(question))


__all__ = [
    "CLASSES",
    "READ_TERMS",
    "SAFETY_TERM",
    "TOPICS",
    "WORD_TOPICS",
    "bears_on",
    "classes_of",
    "is_safety_relevant",
    "topics_of",
]
