"""Step 1 of the linker: what a memory is about (entities, salient terms) and the English cue words."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Iterator

import snowballstemmer

from kioko_core.privacy.held_texts import keeps_text
from kioko_core.reading.regex_literals import anchor, anchored_finditer, casefold

# --------------------------------------------------------------------------- vocabularies

STOP_WORDS = frozenset(
    """
a about above after again against all almost along already also although always am among an and another
any anyone anything are around as at away back be became because been before being below between both
but by can cannot could did do does doing down during each either else enough etc even ever every
few for from further had has have having he her here hers herself him himself his how however i if in
into is it its itself just least less like likely many may me might mine more most much must my myself
near need never no nor not now of off often on once one only onto or other others our ours ourselves
out over own per perhaps quite rather really same several shall she should since so some something
sometimes soon still such than that the their theirs them themselves then there these they this those
though through thus till to today together too toward towards twice under until up upon us very via
was we well were what whatever when where whether which while who whom whose why will with within
without would yes yet you your yours yourself yourselves
""".split()
)

# Words that frame a stored memory rather than say what it is about ("Decision: ...", "User prefers ...").
FRAMING_WORDS = frozenset(
    """
user users decision decisions decided decide decides chose choose chosen goal goals lesson lessons learned
learnt prefers prefer preferred preference preferences likes note notes noted fact facts insight insights
summary summaries procedure procedures event events remember remembered worked memory agent assistant
""".split()
) - {"memory"}  # "memory" is a real topic word in a memory layer's own notes

# Verbs that carry no topic: "the fault came back" and "the theme came up" share nothing.
LIGHT_VERBS = frozenset(
    """
keep keeps kept keeping came come comes coming went go goes going gone got get gets getting make makes
made making take takes took taken taking do does did done doing put puts putting use uses used using
seem seems seemed give gives gave given say says said tell told let lets try tries tried
""".split()
)

# Capitalised words that never start or make a name: framing words, months, days, pronouns.
NAME_FRAMING = frozenset(
    """
user decision goal lesson procedure fact note insight summary event step steps skill strategy the a an
i we you he she they it this that these those my our your january february march april may june july
august september october november december monday tuesday wednesday thursday friday saturday sunday
today yesterday tomorrow found
""".split()
) | frozenset(
    """
hey hi hello hiya thanks thank thx yeah yes yep yup no nope wow whoa oh ooh aww omg lol haha hmm yay woohoo
congrats congratulations bye cheers sorry please ok okay sure cool great awesome nice well anyway also so
now here there then btw fyi dear
""".split()
)  # chat: "Hey Mel!", "Thanks Caroline" greet a name, they are not part of it

# Nouns that name a place or a machine when followed by a number ("line 3", "cell 4B").
ASSET_NOUNS = (
    "line",
    "press",
    "cell",
    "server",
    "station",
    "machine",
    "robot",
    "oven",
    "tank",
    "pump",
    "zone",
    "bay",
    "room",
    "floor",
    "building",
    "site",
    "host",
    "node",
    "rack",
    "unit",
    "area",
    "dock",
    "gate",
    "cluster",
    "shard",
    "router",
    "switch",
    "plant",
    "hall",
    "kiln",
    "mixer",
    "belt",
    "lane",
    "aisle",
    "workstation",
    "desk",
    "truck",
    "vehicle",
    "tool",
    "furnace",
    "reactor",
    "boiler",
    "filler",
)

PROBLEM_CUES = re.compile(
    r"\b(faults?|faulting|faulted|errors?|fail(?:s|ed|ing|ure|ures)?|jam(?:s|med|ming)?|broke|broken|"
    r"crash(?:es|ed|ing)?|outage|down|issues?|problems?|bugs?|alarms?|stuck|leak(?:s|ing|ed)?|"
    r"overheat(?:s|ing|ed)?|time[sd]? ?out|timeouts?|stopped working|not working|won't|doesn't work|"
    r"(?:keeps?|kept) \w+ing|slow(?:er)?|degraded|incident|defects?)\b",
    re.IGNORECASE,
)
FIX_CUES = re.compile(
    r"\b(fixed|fix(?:es)?|found it|root cause|was loose|were loose|replac(?:ed|ing)|repair(?:ed|ing)|"
    r"resolved|solved|tightened|reseated|patched|workaround|turned out|the cause was|caused by|"
    r"cleaned|recalibrated|realigned|restored|swapped)\b",
    re.IGNORECASE,
)
PROGRESS_CUES = re.compile(
    r"(\b(finished|shipped|passed|completed|complete|done|merged|released|deployed|launched|delivered|"
    r"achieved|reached|fixed|milestone)\b|\d+\s?%)",
    re.IGNORECASE,
)

_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:"
    r"\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?"  # addresses: 10.20.0.0/16
    r"|[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*"  # INC-4521, E-217, S7-1500 (digit checked below)
    r")(?![\w-])"
)
# The look-ahead on the nouns' first letters changes no match; it lets re reject a word boundary with one
# test instead of trying all the nouns there (a 1 MB text: 111 -> 51 ms).
_ASSET = re.compile(
    r"\b(?=[" + "".join(sorted({noun[0] for noun in ASSET_NOUNS})) + r"])"
    r"(" + "|".join(ASSET_NOUNS) + r")\s+(\d+[A-Za-z]?|[A-Za-z]\d+)\b",
    re.IGNORECASE,
)
# Where a place noun can start (read from the pattern): a long text is searched only there.
_ASSET_STARTS = anchor(_ASSET)
ANCHORED_FROM = 4096
"""Texts at least this long are searched for place nouns from the nouns' places; shorter ones by re alone."""
_NUMBER = re.compile(r"(?<![\w.,/:-])\d+(?:[.,]\d+)*(?![\w/:-]|[.,]\d)")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*[A-Za-z]|[A-Za-z]")
_CAPITALISED = re.compile(r"[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
_SPACES = re.compile(r"\s+")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n(]\s*|\s-\s+|\b\d+[).]\s+)$")

_FRAMING_PREFIX = re.compile(
    r"\b(?:goal|decision|lesson|procedure|fact|note|insight|summary|event|skill|strategy|todo|task)\s*:\s*$",
    re.IGNORECASE,
)
_stemmer = snowballstemmer.stemmer("english")

LOOKBEHIND_CHARS = 64
"""How far before a capitalised word analysis looks to decide whether it starts a sentence or follows
a framing prefix. A fixed window keeps each look constant-time, so analysis stays linear in the text."""


@keeps_text
@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball (Porter 2) stem of a lower-case word, cached: the same words recur in every memory."""
    return str(_stemmer.stemWord(word))


# Punctuation that surrounds a name in running text. Leading and trailing sets differ so that names
# such as "C++", "C#" and ".NET" keep their own punctuation while "(pgvector)," loses the sentence's.
LEADING_PUNCTUATION = "\"'([{<“‘«¿¡*_"
TRAILING_PUNCTUATION = "\"')]}>”’».,;:!?…*_"


def entity_key(name: str) -> str:
    """The key an entity is known by: lower-case, whitespace collapsed, surrounding punctuation stripped.

    ``entity_key("Line 3") == "line 3"``, ``entity_key(" *Kioko* ") == "kioko"``,
    ``entity_key("(pgvector),") == "pgvector"``. Punctuation inside a name stays (``"e-217"``,
    ``"10.20.0.0/16"``, ``"c++"``). A name that is only punctuation has the key ``""``. The analysis
    and the entity graph both key names with this one function, so they always agree.
    """
    collapsed = " ".join(str(name).split()).lower()
    return collapsed.lstrip(LEADING_PUNCTUATION).rstrip(TRAILING_PUNCTUATION).strip()


# --------------------------------------------------------------------------- analysis


@dataclass
class Analysis:
    """What a text is about: entity keys, salient terms, and which terms only name a place."""

    entities: list[str] = field(default_factory=list)
    """Entity keys, lower-case, in order of first mention."""
    terms: list[str] = field(default_factory=list)
    """Salient terms: ``e:<entity key>``, ``t:<stem>`` and ``n:<number>`` (a number outside a name)."""
    place_terms: set[str] = field(default_factory=set)
    """Terms that only name a place or machine ("e:line 3") and that place's words ("t:line")."""
    surface: dict[str, str] = field(default_factory=dict)
    """A term's first surface form in the text, for explanations ("t:clear" -> "clearing")."""
    words: list[str] = field(default_factory=list)
    """Every content-bearing word stem, framing words included: what the offline embedder hashes."""
    text_entities: tuple[str, ...] = ()
    """The entity keys the text names by itself, before the names the user's entity graph knows were looked
    for (the start of ``entities``): with ``words``, what the offline embedder hashes."""
    text_terms: tuple[str, ...] = ()
    """The salient terms of the text by itself, without the names the user's entity graph knows (``terms``
    when the graph names nothing more): what an analysis without ``known_entities`` gives, from this one."""

    def alone(self) -> Analysis:
        """This analysis as the text alone gives it: what :func:`analyze` returns without ``known_entities``
        (the names only the graph knows are dropped; the words, places and the text's own names stay)."""
        added = {"e:" + key for key in self.entities[len(self.text_entities) :]}
        return Analysis(
            entities=list(self.text_entities),
            terms=list(self.text_terms),
            place_terms=set(self.place_terms),
            surface={term: shown for term, shown in self.surface.items() if term not in added},
            words=list(self.words),
            text_entities=self.text_entities,
            text_terms=self.text_terms,
        )


@keeps_text
@lru_cache(maxsize=65536)
def _is_distinctive(word: str) -> bool:
    """ALLCAPS, CamelCase or containing a digit: a name even at the start of a sentence."""
    letters = [c for c in word if c.isalpha()]
    if any(c.isdigit() for c in word):
        return True
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True
    return any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)


class _Covered:
    """Whether a position falls inside any of a set of spans: spans merged once, each question a bisection.

    Checking every span for every word made analysis quadratic in the number of names in a text.
    """

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if end <= start:
                continue
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def __contains__(self, position: int) -> bool:
        index = bisect_right(self._starts, position) - 1
        return index >= 0 and position < self._ends[index]


def _ends_with(pattern: re.Pattern[str], text: str, position: int) -> bool:
    """``pattern`` (anchored with ``$``) matches the text just before ``position``, within the look-behind window."""
    return pattern.search(text, max(0, position - LOOKBEHIND_CHARS), position) is not None


_SENTENCE_MARKS = frozenset(".!?:;()-")


def _starts_sentence(text: str, position: int) -> bool:
    """``_SENTENCE_START`` matches just before ``position`` (within the look-behind window).

    Every way it matches ends in one of ``.!?:;()-`` followed by whitespace, or a newline in that
    whitespace, or the window is whitespace only: when the last other character is none of those and the
    whitespace holds no newline, the answer is no without a search (most capitalised words, inside a sentence).
    """
    low = max(0, position - LOOKBEHIND_CHARS)
    end = position
    while end > low and text[end - 1].isspace():  # str.isspace() is re's \s, character for character
        end -= 1
    if end > low and text[end - 1] not in _SENTENCE_MARKS and "\n" not in text[end:position]:
        return False
    return _ends_with(_SENTENCE_START, text, position)


def _first_mention(lowered: str, key: str) -> int:
    """Where ``key`` first occurs in ``lowered`` as a whole name (not inside a longer word), or -1."""
    position = lowered.find(key)
    while position >= 0:
        before = lowered[position - 1] if position else " "
        after_index = position + len(key)
        after = lowered[after_index] if after_index < len(lowered) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return position
        position = lowered.find(key, position + 1)
    return -1


def _names(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Sequences of capitalised words, by the first-word and framing-word rules."""
    found: list[tuple[int, int, str]] = []
    covered = _Covered(taken)
    tokens = [m for m in _CAPITALISED.finditer(text) if m.start() not in covered]
    index = 0
    while index < len(tokens):
        run = [tokens[index]]
        while index + 1 < len(tokens) and _SPACES.fullmatch(text, run[-1].end(), tokens[index + 1].start()):
            index += 1
            run.append(tokens[index])
        index += 1
        start = run[0].start()
        if not _is_distinctive(run[0].group()) and _starts_sentence(text, start):
            # A lone capitalised first word ("Found it", "Clear a jam") is no name; after a framing
            # prefix ("Goal: Ship Kioko") the first word is an action verb, so it goes but the rest stays.
            if len(run) == 1 or _ends_with(_FRAMING_PREFIX, text, start):
                run = run[1:]
        while run and run[0].group().lower() in NAME_FRAMING:
            run = run[1:]
        while run and run[-1].group().lower() in NAME_FRAMING:
            run = run[:-1]
        if run:
            found.append((run[0].start(), run[-1].end(), text[run[0].start() : run[-1].end()]))
    return found


@dataclass(frozen=True)
class _Scan:
    """What analysis reads from a text alone, before the names the user's entity graph knows are added."""

    entities: tuple[str, ...]
    entity_surface: tuple[tuple[str, str], ...]
    spans: tuple[tuple[int, int], ...]
    places: frozenset[str]
    place_words: frozenset[str]
    words: tuple[str, ...]
    word_terms: tuple[str, ...]
    word_surface: tuple[tuple[str, str], ...]
    numbers: tuple[tuple[int, str], ...]
    covered: _Covered | None = field(default=None, compare=False)
    """Whether a position is inside one of ``spans`` (built when there are numbers to test)."""


_NO_SPAN = (float("inf"), float("inf"))
_UNSEEN = ("", None)


def _word_entry(surface: str) -> tuple[str, str | None] | None:
    """What one surface word gives: its stem and its term (None for framing words and light verbs), or None
    when it is too short or a stop word. A pure function of the word, so a scan works it out once per word."""
    word = surface.lower()
    if word.endswith("'s"):
        word = word[:-2]
    word = word.replace("'", "")
    if len(word) < 2 or word in STOP_WORDS:
        return None
    stemmed = stem(word)
    if word in FRAMING_WORDS or word in LIGHT_VERBS:
        return stemmed, None
    return stemmed, "t:" + stemmed


@keeps_text
@lru_cache(maxsize=2)
def _scan(text: str) -> _Scan:
    """The text-only part of :func:`analyze`, kept for the last two texts. Recall and the layer's writes read
    their text once (:mod:`kioko_core.reading.query_and_draft`); what reads a text again is kept fast by this: the
    intelligence's importance score before a managed write, a relink, an explanation. Two, because a long
    text's scan is a few MB of words, and only the text being written or asked about is wanted again."""
    entities: list[str] = []
    surface: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    places: set[str] = set()
    seen: set[str] = set()

    def add_entity(key: str, start: int, end: int, place: bool = False) -> None:
        if key and key not in seen:
            seen.add(key)
            entities.append(key)
            surface.setdefault("e:" + key, text[start:end] if end > start else key)
        if place:
            places.add(key)
        spans.append((start, end))

    identifier_spans: list[tuple[int, int]] = []
    for match in _IDENTIFIER.finditer(text):
        token = match.group()
        if any(c.isdigit() for c in token):
            add_entity(entity_key(token), match.start(), match.end())
            identifier_spans.append((match.start(), match.end()))
    assets: Iterator[re.Match[str]] = _ASSET.finditer(text)
    if len(text) >= ANCHORED_FROM and _ASSET_STARTS is not None:
        folded = casefold(text)
        if len(folded) == len(text):
            assets = anchored_finditer(_ASSET, _ASSET_STARTS, text, folded)  # the same matches, found sooner
    for match in assets:
        add_entity(entity_key(match.group()), match.start(), match.end(), place=True)
    for start, end, name in _names(text, list(spans)):
        add_entity(entity_key(name), start, end)

    words: list[str] = []
    word_terms: list[str] = []
    word_surface: dict[str, str] = {}
    # identifier spans come from finditer, so they are sorted and disjoint: one pass walks them with the words
    identifiers = iter(identifier_spans)
    skip_start, skip_end = next(identifiers, _NO_SPAN)
    known: dict[str, tuple[str, str | None] | None] = {}  # a surface word's (stem, term), or None if it is no word
    for match in _WORD.finditer(text):
        start = match.start()
        while start >= skip_end:
            skip_start, skip_end = next(identifiers, _NO_SPAN)
        if start >= skip_start:
            continue  # "E-217" is one entity, not the words "e" and "217"
        written = match.group()
        entry = known.get(written, _UNSEEN)
        if entry is _UNSEEN:
            entry = known[written] = _word_entry(written)
        if entry is None:
            continue
        stemmed, term = entry
        words.append(stemmed)
        if term is None:
            continue
        word_surface.setdefault(term, written)
        word_terms.append(term)
    numbers = tuple((m.start(), "n:" + m.group()) for m in _NUMBER.finditer(text))
    return _Scan(
        entities=tuple(entities),
        entity_surface=tuple(surface.items()),
        spans=tuple(spans),
        places=frozenset(places),
        place_words=frozenset("t:" + stem(w) for key in places for w in key.split() if w.isalpha()),
        words=tuple(words),
        word_terms=tuple(word_terms),
        word_surface=tuple(word_surface.items()),
        numbers=numbers,
        covered=_Covered(spans) if numbers else None,
    )


def analyze(text: str, known_entities: Iterable[str] = ()) -> Analysis:
    """Entities and salient terms of ``text``; ``known_entities`` are keys the user's entity graph holds."""
    scan = _scan(text)
    analysis = Analysis(entities=list(scan.entities), words=list(scan.words))
    analysis.surface.update(scan.entity_surface)
    spans = list(scan.spans)
    seen = set(scan.entities)
    lowered = text.lower() if known_entities else ""
    for key in known_entities:
        if key and key not in seen:
            position = _first_mention(lowered, key)
            if position >= 0:
                seen.add(key)
                analysis.entities.append(key)
                analysis.surface.setdefault("e:" + key, text[position : position + len(key)])
                spans.append((position, position + len(key)))
    analysis.surface.update((t, s) for t, s in scan.word_surface if t not in analysis.surface)
    terms = ["e:" + key for key in analysis.entities]
    terms += scan.word_terms
    if scan.numbers:
        # "endpoint 3", "port 4842": a number the question and a memory share is as telling as a word;
        # one inside a name ("line 3", "E-217") is already counted through that name
        in_entity = scan.covered if scan.covered is not None and len(spans) == len(scan.spans) else _Covered(spans)
        terms += [term for start, term in scan.numbers if start not in in_entity]
    analysis.terms = list(dict.fromkeys(terms))
    analysis.text_entities = scan.entities
    if len(spans) == len(scan.spans):
        analysis.text_terms = tuple(analysis.terms)
    else:  # the graph's names took a number inside them, and added terms: the text alone keeps the number
        alone = ["e:" + key for key in scan.entities] + list(scan.word_terms)
        if scan.covered is not None:
            alone += [term for start, term in scan.numbers if start not in scan.covered]
        analysis.text_terms = tuple(dict.fromkeys(alone))
    analysis.place_terms = {"e:" + key for key in scan.places} | (scan.place_words & set(analysis.terms))
    return analysis


def own_terms(text: str) -> tuple[str, ...]:
    """The terms of ``text`` alone, as :func:`analyze` makes them without a graph's names, read from the same
    cached scan: a caller that only inspects a question's words (the planner's "does it name a topic?") does not
    read the question a second time."""
    scan = _scan(text)
    terms = ["e:" + key for key in scan.entities] + list(scan.word_terms)
    if scan.numbers:
        covered = scan.covered if scan.covered is not None else _Covered(list(scan.spans))
        terms += [term for start, term in scan.numbers if start not in covered]
    return tuple(dict.fromkeys(terms))


@keeps_text
@lru_cache(maxsize=65536)
def has_problem_cue(text: str) -> bool:
    """A fault, error, failure, jam ... is reported."""
    return PROBLEM_CUES.search(text) is not None


@keeps_text
@lru_cache(maxsize=65536)
def has_fix_cue(text: str) -> bool:
    """A fix is reported: fixed, found it, root cause, was loose, replaced ..."""
    return FIX_CUES.search(text) is not None


@keeps_text
@lru_cache(maxsize=65536)
def has_progress_cue(text: str) -> bool:
    """Progress is reported: finished, shipped, passed, 60 % ..."""
    return PROGRESS_CUES.search(text) is not None


def cues_of(text: str) -> tuple[bool, bool, bool]:
    """(:func:`has_fix_cue`, :func:`has_problem_cue`, :func:`has_progress_cue`) of ``text``, asked at once."""
    return has_fix_cue(text), has_problem_cue(text), has_progress_cue(text)


_LABEL_PREFIX = re.compile(
    r"^\s*(?:(?:goal|decision|lesson|procedure|fact|note|insight|summary|event|skill|strategy)\s*:\s*"
    r"|we (?:have )?decided (?:to |that )?|i (?:have )?decided (?:to |that )?)",
    re.IGNORECASE,
)


def label(content: str, width: int = 60) -> str:
    """A short label for a link line: framing prefix and final full stop removed, cut at ``width``."""
    text = " ".join(content.split())
    text = _LABEL_PREFIX.sub("", text, count=1).rstrip(" .")
    return text if len(text) <= width else text[: width - 1] + "…"
