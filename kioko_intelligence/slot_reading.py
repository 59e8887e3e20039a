"""Reading a slot out of a text, without a model: its frame words, its values by type, and the old values a
change-phrased text names. What :mod:`.slots` compares to find the memory a turn gives a newer value of; nothing
here reads the store."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from kioko_core.privacy.held_texts import keeps_text
from kioko_core.reading.analysis import analyze

_NP = r"(?:the |my |our |a |an |his |her |their )?([\w][\w.+#/'-]*(?:\s+[\w][\w.+#/'-]*){0,3}?)"
_STOP = (
    r"(?=\s*(?:[,.;:!?)]|$|\s(?:to|for|with|and|but|because|since|as|now|anymore|any more|in favou?r|over|last|this|at|on|in|after|"
    r"yesterday|today|these days|nowadays|lately|completely|entirely|totally|altogether|for good)\b))"
)
_CHANGE_VERB = r"(?:moved|moving|switched|switching|changed|changing|migrated|migrating|went|gone|upgraded|transitioned|swapped|converted|moved on)"
_EXPLICIT = [
    re.compile(rf"\b{_CHANGE_VERB}\b[^.;]*?\bfrom\s+{_NP}\s+(?:to|for|in favou?r of)\b", re.IGNORECASE),
    re.compile(
        rf"\b(?:replaced|swapped|ditched|dropped|traded|exchanged)\s+(?:out\s+)?{_NP}\s+(?:with|for)\b", re.IGNORECASE
    ),
    re.compile(rf"\binstead of\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(rf"\bnot\s+{_NP},?\s+but\b", re.IGNORECASE),
    re.compile(rf",\s*not\s+{_NP}\s*(?:[,.;!]|$)", re.IGNORECASE),
    re.compile(
        rf"\b(?:left|quit|sold|ditched|dropped|outgrown|outgrew|skipping|skipped|replaced|moved on from|gave up on|"
        rf"got rid of|gave away|stopped using|no longer use|no longer using|cancelled|canceled|cancelling|scrap|scrapped|"
        rf"unsubscribed from)\s+{_NP}{_STOP}",
        re.IGNORECASE,
    ),
    re.compile(rf"\bgave\s+(?:the|my)\s+{_NP}\s+(?:to|away)\b", re.IGNORECASE),
    re.compile(rf"\b(?:given|giving)\s+up(?:\s+on)?\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(rf"\b(?:stopped|stop|quit|gave up|no longer)\s+\w+ing\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(
        rf"\b(?:don't|do not|doesn't|does not|didn't|won't|no longer)\s+\w+(?:\s+to)?\s+{_NP}\s+(?:anymore|any more)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\bno(?:\s+more)?\s+{_NP}\s+(?:anymore|any more)\b", re.IGNORECASE),
    re.compile(rf"\bno more\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(
        rf"\b(?:i'm|i am|we're|we are)\s+(?:done with|off|over|sick of|tired of|through with)\s+{_NP}{_STOP}",
        re.IGNORECASE,
    ),
    # "I've gone off Earl Grey", "went right off lager": stopped liking it
    re.compile(rf"\b(?:gone|went|going)\s+(?:right\s+|completely\s+)?off\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(
        r"(?:^|[,;]\s*|\b(?:and|but|so)\s+)(?:the\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:is|are|was|were)\s+too\b"
    ),
    # a preference stated against the old one: "prefer tea to coffee", "more into cycling than running"
    re.compile(rf"\bprefer(?:s|red)?\s+.+?\s+(?:to|over)\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(rf"\b(?:more into|more of a|rather)\s+.+?\s+than\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(rf"\b(?:works|work|is|are)\s+better\s+than\s+{_NP}{_STOP}", re.IGNORECASE),
    re.compile(rf"\brather than\s+{_NP}{_STOP}", re.IGNORECASE),
]
# "Ravi isn't my mentor", "Helga retired", "Acme was too expensive", "8 was unrealistic": the subject before
_SUBJECT_GONE = re.compile(
    r"(?:^|[,.;:]\s*|\b(?:and|but|so)\s+)(?:(?:the|my|our)\s+)?((?:[A-Z][\w.'-]*\s+){0,2}[A-Z][\w.-]*?(?:\s+\d[\w.]*)?|\d[\w.,%]*)(?:\s+|'s\s+)"
    r"(?:(?:(?:has|had)\s+)?(?:stepped down|resigned|retired|moved on|left(?=\s*(?:[,.;!?]|$)))|"
    r"isn't|is not|gone\b|aren't|are not|is no longer|are no longer|retired|was too|were too|was unrealistic|"
    r"was wrong|was a mistake|is gone|are gone|is out|is history|is over|moved away|passed away|left the|"
    r"is leaving|quit|broke|died|is broken|was stolen|got stolen)\b"
)
_NEW_VALUE = re.compile(
    rf"\b(?:from\s+.+?\s+(?:to|for)|replaced\s+.+?\s+with|ditched\s+.+?\s+for|swapped\s+.+?\s+for)\s+{_NP}{_STOP}",
    re.IGNORECASE,
)
CUE = re.compile(
    r"\b(?:now|nowadays|these days|anymore|any more|no longer|actually|correction|corrected|instead|"
    r"changed?|switch(?:ed)?|moved|shifted|pushed|postponed|delayed|brought forward|extended|rescheduled|updated?|"
    r"from now on|not .+ but|new|turns out|i meant|scratch that|got promoted|went up|went down|"
    r"consolidated|grew|dropped|down to|up to|turned|slipped|raised|lowered|reorg|relocated|retrained|rebooked|"
    r"went back|back to|lately|extended|upgraded|downgraded|migrated|enough of)\b",
    re.IGNORECASE,
)
CHANGE_WORDS = frozenset(
    "now nowaday day these anymor actual correct correct instead chang switch move push postpon delay "
    "extend reschedul updat new turn meant scratch got went consolid grew drop down up back forward "
    "realli still current use alway decid also week month year ago last old slip rais lower honest reloc "
    "retrain rebook late sorri".split()
)
_SAME_WORD = {"deadlin": "due", "due": "due"}
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve twenty thirty half quarter".split()
_DATE = re.compile(
    rf"\b(?:(?:{'|'.join(_MONTHS)})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+(?:{'|'.join(_MONTHS)})"
    rf"|\d{{1,2}}(?:st|nd|rd|th)|(?:{'|'.join(_WEEKDAYS)})s?|(?:{'|'.join(_MONTHS[:12])}))\b",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_TENS_AND_UNITS = (
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ](?:one|two|three|four|five|six|seven|eight|nine)"
)
"""One number said in two words ("twenty-one", "thirty five"): one value, not two."""
_NUMBER = re.compile(rf"\b(?:\d+(?:[.,]\d+)*%?|{_TENS_AND_UNITS}|{'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
_IDENT = re.compile(r"\b(?=[\w/.-]*\d)(?=[\w/.-]*[A-Za-z])[\w][\w/.-]*\w\b")
_HOLDER = re.compile(
    r"(?:^|(?<=[.!?]\s))\s*([A-Z][a-z][\w-]*)(?:'s|\s+is|\s+was)\s+(?:now\s+)?(?:my|our|the|his|her|their)\b"
)
"""A name that opens its sentence as the holder of a role: "Joanne's my transport manager", "Sophie is the twins'
childminder" (the value of the slot "my transport manager"; a capital opening a sentence marks no name otherwise)."""
_TAKER = re.compile(
    r"(?:^|(?<=[.!?]\s))\s*((?:(?:Mr|Mrs|Ms|Mx|Dr)\s+)?[A-Z][a-z][\w-]*(?:\s+[A-Z][a-z][\w-]*)?)\s+"
    r"(?:has\s+)?(?:started with|started as|took over|taken over|has taken over|is taking over|stepped in|"
    r"is covering|is with (?:my|our|the))\b"
)
"""A name that opens its sentence as who took a role on: "Brenda started with the twins", "Ruth Abara took over the
infra team", "Mr Adebayo is with my class" (the new holder: a name, though a capital opening a sentence is none)."""
_NOT_HOLDERS = frozenset(
    "This That It There Here He She They We What Which Who Everything Nothing Today Tomorrow Yesterday Now Mine "
    "Yours Ours Everyone Someone Nobody Something Anything Life Work Home Dinner Lunch Breakfast".split()
)
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b(?:[A-Z]|[ie][A-Z])[\w'-]*(?:\s+[A-Z][\w'-]*)*")
"""A name: capitalised words, or a product spelled iPad / eBay."""
_NOT_NAMES = frozenset(
    {
        "User",
        "I",
        "I'm",
        "I've",
        "I'd",
        "I'll",
        "Goal",
        "Decision",
        "Summary",
        "Session",
        "Dr",
        "Mr",
        "Mrs",
        "Ms",
        "Prof",
    }
)
_PRONOUNS = frozenset("it that this them one there those these he she they him her something anything".split())


@dataclass
class Slot:
    """What one text says about a slot: its frame words and its values by type."""

    frame: set[str]
    values: dict[str, set[str]] = field(default_factory=dict)


TITLE_DOT = re.compile(r"\b(Dr|Mr|Mrs|Ms|Mx|St|Prof|Jr|Sr)\.", re.IGNORECASE)
"""A title's dot is no sentence end: "Dr. Okafor" is a name."""


_STEP_NUMBER = re.compile(r"(?:^|(?<=[\s:;]))\d{1,2}[.)](?=\s)")
"""A list's step number ("1) Order the cake"): no value of the slot."""


def _shouted(text: str) -> bool:
    """Is ``text`` written mostly in capitals ("TAKE THE BLOOD PRESSURE TABLET AT BEDTIME NOW")? Its capitals
    then mark no names: every word would read as one."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 8 and sum(c.isupper() for c in letters) > 0.6 * len(letters)


KEPT_CHARS = 2000
"""Texts up to this long have their reading kept (:func:`_kept_slot`, :func:`_text_terms`); a longer one is read at each call."""


def read_slot(text: str) -> Slot:
    """The frame and values of ``text``: a Slot of the caller's own (a copy of what is kept per text)."""
    slot = _kept_slot(text) if len(text) <= KEPT_CHARS else _read_slot(text)
    return Slot(set(slot.frame), {kind: set(found) for kind, found in slot.values.items()})


@keeps_text
@lru_cache(maxsize=8192)
def _kept_slot(text: str) -> Slot:
    """:func:`_read_slot` kept per text (never handed out: the callers get copies), as :func:`_text_terms`."""
    return _read_slot(text)


_POSSESSIVE = re.compile(r"['\u2019]s$")


def _read_slot(text: str) -> Slot:
    values: dict[str, set[str]] = {}
    if _shouted(text):
        text = text.lower()
    rest = _STEP_NUMBER.sub(" ", TITLE_DOT.sub(r"\1", text))
    for kind, pattern in (("email", _EMAIL), ("date", _DATE), ("id", _IDENT), ("number", _NUMBER)):
        for found in pattern.findall(rest):
            values.setdefault(kind, set()).add(found.lower().rstrip("."))
        rest = pattern.sub(" ", rest)
    for found in _HOLDER.findall(rest) + _TAKER.findall(rest):
        if found.split()[-1] not in _NOT_HOLDERS:
            values.setdefault("name", set()).add(found.lower())
            rest = re.sub(rf"\b{re.escape(found)}\b", " ", rest)
    for found in _NAME.findall(rest):
        # a name's possessive is the name ("The ThinkPad's keyboard" names the ThinkPad, not another thing)
        words = [_POSSESSIVE.sub("", w) for w in found.split() if w not in _NOT_NAMES]
        if words:
            values.setdefault("name", set()).add(" ".join(words).lower())
    named = {w for name in values.get("name", ()) for w in name.split()}
    frame = set()
    for term in analyze(_NAME.sub(" ", rest), []).terms:
        if not term.startswith("t:"):
            continue
        word = term[2:]
        if word in CHANGE_WORDS or word in named or len(word) < 3:
            continue
        frame.add(_SAME_WORD.get(word, word))
    return Slot(frame, values)


def holds_role(text: str) -> bool:
    """Does ``text`` open on a name holding a role ("Sophie is the twins' childminder ...", "Joanne's my transport
    manager")? The name is then the value of the role's slot."""
    found = _HOLDER.match(text)
    return found is not None and found.group(1) not in _NOT_HOLDERS


def old_values(text: str) -> list[str]:
    """The old values a change-phrased text names ("moved from X to Y" -> X); a list's things each as well ("no
    eggs or dairy anymore" -> "eggs or dairy", "eggs", "dairy")."""
    found: list[str] = []
    for pattern in _EXPLICIT:
        found += [m.group(1) for m in pattern.finditer(text)]
    found += [m.group(1) for m in _SUBJECT_GONE.finditer(text)]
    kept = []
    for value in found:
        value = re.sub(
            r"^(?:(?:so|and|but)\s+)?(?:(?:the|my|our|a|an)\s+)?", "", value.strip(" ,.'\""), flags=re.IGNORECASE
        )
        words = value.lower().split()
        if not words or all(w in _PRONOUNS for w in words) or (len(value) < 2 and not value.isdigit()):
            continue
        if value not in kept:
            kept.append(value)
        # "no eggs or dairy anymore", "quit beer and wine": each thing of a list is an old value of its own
        items = [i.strip() for i in re.split(r"\s*,\s*|\s+(?:or|and|nor)\s+", value) if i.strip()]
        if len(items) > 1:
            kept += [i for i in items if i not in kept and i.lower() not in _PRONOUNS and len(i) > 2]
    return kept


def new_value(text: str) -> str | None:
    found = _NEW_VALUE.search(text)
    return found.group(1).strip(" ,.") if found else None


def text_terms(text: str) -> list[str]:
    """The word, entity and name terms of ``text`` (what the term index keeps of it)."""
    return list(_text_terms(text)) if len(text) <= KEPT_CHARS else _read_terms(text)


@keeps_text
@lru_cache(maxsize=8192)
def _text_terms(text: str) -> tuple[str, ...]:
    """:func:`text_terms` kept per text: the slot rules read the same stored memories turn after turn (every
    candidate of a stance, a category, a frame). A forget empties it (:mod:`kioko_core.privacy.held_texts`)."""
    return tuple(_read_terms(text))


def _read_terms(text: str) -> list[str]:
    return [t for t in analyze(text, []).terms if t.startswith(("t:", "e:", "n:"))]
