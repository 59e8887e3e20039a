"""A turn's tidy form: how people write, brought to the phrasing the reading was written for.

The offline router's rules and the slot matching read tidy English: capitals on names and sentence starts,
apostrophes in contractions, commas between clauses. People write "im", "dont", "ive", in capitals, all in
lower case, with "um" and "you know" between the words, or dictate whole turns with no punctuation at all.
:func:`normalise` rewrites a user's turn, before it is routed, into a faithful tidy form of the same words:

- **case**: a turn mostly in capitals is put in lower case (words holding a digit, identifiers such as
  "INC-3301", keep theirs); a turn without case then gets a careful writer's capitals (sentence starts, "I",
  days, months, languages, rare words as names: :mod:`~kioko_intelligence.casing`); in a turn with case the
  pronoun "i" is "I";
- **contractions without apostrophes**, a closed class of words: "im" -> "I'm", "ive" -> "I've", "dont" ->
  "don't" (an auxiliary + "nt"), "youre", "weve", "thats", "hes" ...; "its" becomes "it's" only before a
  word that cannot follow a possessive ("its faster", "its those ...", "its been");
- **typing slips** in plain words ("swithced", "edtior"): :mod:`~kioko_intelligence.spelling`;
- **fillers**: "um", "uh", "er", "erm", "hmm", "basically", "literally", "you know" where it takes no object
  and asks nothing ("I spend you know most of my day", not "do you know", "everything you know", "you know
  what happened") or before a comma, "I mean" inside a sentence ("the old I mean one"), "like" before a comma
  ("it was, like, fast", "I like, work as a barista") or after a preposition ("on like the payments team");
  the first comma of a filler set off by two stays where the word before can end a clause ("now, uh,
  finished" -> "now, finished");
- **discourse markers** opening a sentence: "btw", "anyway", "oh and", "ok so", "also", "well" (not a plain
  "so" or "and": "so two now" goes on from the last turn);
- **clauses in unpunctuated dictation**: in a turn of eight words or more with no punctuation at all, a comma
  before a subject pronoun ("I", "we", "he", "she", "they", "it's" ...) that opens a new clause: the word
  before it is no conjunction, auxiliary or verb of saying and thinking, it follows no determiner + noun
  ("the editor i use"), and it opens no clause of one or two words without an object before another subject
  ("a Pixel 8 i use i gave ..."): "ok so i switched to vim last week its faster" -> "ok so I switched to Vim
  last week, it's faster";

- **spoken punctuation** in a dictated turn without written marks: "full stop", "comma", "question mark" ...
  said as words become the marks ("we moved to leeds full stop the dog is rex" -> "we moved to leeds. the dog
  is rex"), never after a determiner ("a comma"), "period" and "colon" only beside another mark said;

- **pictographs**: emoji (and their joiners and variation selectors) are taken out, a word's space kept: the
  rules read a sentence to its end ("so that's 6 now 😭❤️" is "so that's 6 now", the count the last turn
  named), and an emoji says nothing a later question asks for.

A tidy turn comes back unchanged (the function is idempotent), so the routing of well-written turns does
not move. Nothing here needs a model: the closed classes (pronouns, auxiliaries, conjunctions) are English
grammar, not phrasings of a benchmark; the typo and name steps read the English word list of the ``spelling``
extra and change nothing without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kioko_intelligence.casing import recase
from kioko_intelligence.list_turns import fold_lists
from kioko_intelligence.named_pronouns import named_pronouns
from kioko_intelligence.self_corrections import settle_messages
from kioko_intelligence.spelling import correct_typos

__all__ = ["normalise", "normalise_messages", "normalise_query"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
# --------------------------------------------------------------------------- contractions without apostrophes

_PRONOUN_CONTRACTIONS = {
    "im": "I'm",
    "ive": "I've",
    "youre": "you're",
    "youve": "you've",
    "youll": "you'll",
    "youd": "you'd",
    "weve": "we've",
    "theyre": "they're",
    "theyve": "they've",
    "theyll": "they'll",
    "theyd": "they'd",
    "itll": "it'll",
    "thats": "that's",
    "thatll": "that'll",
    "whats": "what's",
    "wheres": "where's",
    "whos": "who's",
    "hows": "how's",
    "theres": "there's",
    "heres": "here's",
    "hes": "he's",
    "shes": "she's",
    "cant": "can't",
    "wont": "won't",
    "aint": "ain't",
    "shouldve": "should've",
    "wouldve": "would've",
    "couldve": "could've",
}
"""Pronoun and auxiliary contractions whose apostrophe-less spelling is no English word of its own ("well",
"were", "ill", "id", "shed", "lets" are, and are left alone)."""
_NOT = re.compile(
    r"^(do|does|did|is|are|was|were|has|have|had|could|should|would|must|need|might|dare)nt$", re.IGNORECASE
)
"""An auxiliary + "nt": "dont", "didnt", "isnt", "havent", "wouldnt" -> "don't" ..."""
_ITS_BEFORE = re.compile(
    r"^(?:a|an|the|this|that|these|those|my|your|our|their|his|her|so|too|very|really|not|just|still|also|"
    r"already|always|never|quite|pretty|been|gone|done|become|made|going|gonna|got|now|ok|okay|fine|done|over|all|only|like|about|"
    r"because|more|less|much|way|time|\d[\w.,:]*|\w+ing|\w+er|\w+est|\w+ly)$",
    re.IGNORECASE,
)
"""A word after "its" that no possessive takes: "its faster", "its been", "its those seaweed snacks"."""
_NOUN_AFTER_ITS = frozenset("own only best worst first last".split())


def _contractions(text: str) -> str:
    words = list(_WORD.finditer(text))
    out, at = [], 0
    for index, match in enumerate(words):
        word = match.group()
        lower = word.lower()
        new = None
        if lower in _PRONOUN_CONTRACTIONS:
            new = _PRONOUN_CONTRACTIONS[lower]
        elif _NOT.match(word):
            new = word[:-2] + "n't"
        elif lower == "its" and index + 1 < len(words):
            following = text[match.end() : words[index + 1].start()]
            after = words[index + 1].group().lower()
            if following.strip() == "" and after not in _NOUN_AFTER_ITS and _ITS_BEFORE.match(after):
                new = "it's"
        elif lower == "its" and not text[match.end() :].strip(" .!?"):
            new = "it's"  # "yes its" at the end
        if new is None:
            continue
        if word[:1].isupper() and not new.startswith("I"):
            new = new[:1].upper() + new[1:]
        out.append(text[at : match.start()] + new)
        at = match.end()
    out.append(text[at:])
    return "".join(out)


# --------------------------------------------------------------------------- case

_IDENTIFIER = re.compile(r"^(?=.*\d)[\w./:@#+-]+$")


def mostly_capitals(text: str) -> bool:
    """Is ``text`` written mostly in capitals ("MY DOG IS CALLED MAX")? Its capitals then mark no names."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 8 and sum(c.isupper() for c in letters) > 0.6 * len(letters)


def _lower_capitals(text: str) -> str:
    """A turn in capitals in lower case, identifiers ("INC-3301", "DB-02") kept as written."""
    return re.sub(r"\S+", lambda m: m.group() if _IDENTIFIER.match(m.group()) else m.group().lower(), text)


_LONE_I = re.compile(r"(?<![\w'’./-])i(?=$|[\s,.!?;:)]|['’](?:m|ve|d|ll)\b)")
_SENTENCE_START = re.compile(
    r"(?<![.\w][a-z]\.)(?<!\b(?:dr|mr|ms|st|vs|no)\.)(?<!\bmrs\.)(?<!\bprof\.)(?<!\betc\.)(?<!\.\.)([.!?]\s+)([\"'(]?)([a-z])"
)


RECASE = True
"""A turn without case given a careful writer's capitals (:func:`~kioko_intelligence.casing.recase`)."""
SENTENCE_CAPITALS = False
"""A capital after a sentence's end in a turn without case: off, as measured it lost a never-read probe."""


def _capitals(text: str, lower_case: bool) -> str:
    """ "i" as "I"; in a turn with no capitals of its own, a capital after a sentence's end, so that
    "i moved. my dog is rex" reads as two sentences (a tidy turn's sentence starts are the writer's)."""
    if not lower_case:
        return _LONE_I.sub("I", text)
    # a turn without case stays without it: the router reads such a turn's lower-case words as names it may
    # hold ("i live in toronto" names a place), which a capital "I" would switch off
    text = re.sub(r"(?<![\w'’])I(?=['’](?:m|ve|d|ll)\b)", "i", text)  # "im" came back as "I'm"
    if not SENTENCE_CAPITALS:
        return text
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2) + m.group(3).upper(), text)


# --------------------------------------------------------------------------- fillers

_HESITATION = re.compile(
    r"(?:,\s*)?(?<![\w'’-])(?:u+m+|u+h+m*|e+r+m*|hm+|basically|literally)(?![\w'’-])(?:\s*,)?", re.IGNORECASE
)
"""A hesitation with the commas that set it off: "I, um, switched" -> "I switched"."""
_KNOW_BEFORE = (
    r"(?<!\bdo )(?<!\bdid )(?<!\bdon't )(?<!\bif )(?<!\bas )(?<!\bso )(?<!\bwhat )(?<!\ball )(?<!\bthat )"
    r"(?<!\bwho )(?<!\bhow )(?<!\beverything )(?<!\banything )(?<!\bpeople )(?<!\bsomeone )"
)
_YOU_KNOW = re.compile(
    r"(?:^|,)\s*you know\s*(?:,\s*|(?=[.!?]?$))"
    rf"|(?:,\s*)?{_KNOW_BEFORE}\byou know\s*,\s*"
    rf"|{_KNOW_BEFORE}"
    r"\byou know\s+(?!(?:what|how|where|when|who|whom|whether|if|about|that|him|her|them|it|me|us|this|these|"
    r"those|the|a|an|my|your|his|their|our|(?-i:(?!I\b)[A-Z])\w*)\b)",
    re.IGNORECASE,
)
""""you know" as a filler: set off by commas ("I, you know, switched"), followed by a comma ("my laptop you know,
is"), opening or closing the turn, or inside a sentence where it takes no object and asks nothing ("I spend
you know most of my day"; not "do you know", "everything you know", "you know what happened", "you know Sam")."""
_I_MEAN = re.compile(
    r"(?<=[\w%])(?<!\bno)(?<!\bsorry)(?<!\bwhat)(?<!\bif)(?<!\bor)(?<!\bwell)(?<!\bknow)\s*(,?)\s*\bI mean\b\s*,?\s*(?=\w)",
    re.IGNORECASE,
)
""""I mean" inside a sentence, after a word ("the old I mean one is disconnected", "way, I mean, through"):
a correction ("3:40, no, I mean 4:40") was settled before; what stays takes nothing back."""
_LIKE = re.compile(
    r"(,?)\s*(?<!\bwould )(?<!['’]d )(?<!\bdo )(?<!n't )(?<!\bdoes )(?<!\bdid )(?<!\bwhat I )(?<!\bwhat we )"
    r"(?<!\blook )(?<!\blooks )(?<!\bfeel )(?<!\bfeels )(?<!\bsounds )(?<!\bseems )\blike\s*,\s*",
    re.IGNORECASE,
)
_LIKE_AFTER = re.compile(r"\b(on|in|at|for|to|from|with|of|about|by|into|is|are|was|were)\s+like\s+(?=[\w'’])", re.I)
""""like" as a filler: followed by a comma ("I like, work as a barista", "the marathon like, prep"; not after
"would", "do", "don't"), or right after a preposition or "is" ("I'm on like the payments team")."""
_CLAUSE_GOES_ON = frozenset(
    """i we you he she they it my our your his her their the a an this that these those to of in on at for from
    with by about into is are was were am be been have has had do does did will would can could should must
    and or but""".split()
)
"""Words after which no clause ends: a filler set off by commas after one of them takes both commas with it
("I, um, switched"); after any other word the first comma stays ("a chef now, uh, finished my training")."""


def _filler_gone(text: str, match: re.Match[str], lead: bool | None = None) -> str:
    lead = match.group().lstrip()[:1] == "," if lead is None else lead
    if not lead or match.start() == 0:
        return " " if match.start() > 0 else ""
    before = re.findall(r"[\w'’]+", text[: match.start()])
    return ", " if before and before[-1].lower() not in _CLAUSE_GOES_ON else " "


_HEDGED_VERB = re.compile(
    r"\b(?P<who>i|we|they|he|she|i['’]ve|we['’]ve|i['’]m|we['’]re|they['’]ve|they['’]re|i['’]d|we['’]d)"
    r"(?P<comma>,)?\s+(?:kind of|sort of|kinda|sorta)\s+(?=(?:\w+ed|decided|want(?:ed)?|prefer(?:red)?|moved|"
    r"switched|started|stopped|gave|given|gone|got|changed|agreed|settled|picked|chose|chosen|like|love|hate|"
    r"prefer)\b)",
    re.IGNORECASE,
)
"""A hedge between the subject and a verb of doing or deciding: "We've kind of decided the garage can stay a
garage" says what "We've decided ..." says to a reader; hedged, no row read it and its weight fell under the
bar (the hedger's voice). The hedge's doubt is not lost: the importance reads the whole turn as said."""


def _fillers(text: str) -> str:
    text = _HESITATION.sub(lambda m: _filler_gone(text, m), text)
    text = _HEDGED_VERB.sub(lambda m: m.group("who") + " ", text)
    text = _YOU_KNOW.sub(lambda m: _filler_gone(text, m), text)
    text = _I_MEAN.sub(lambda m: _filler_gone(text, m, bool(m.group(1))), text)
    text = _LIKE.sub(lambda m: _filler_gone(text, m, bool(m.group(1))), text)
    text = _LIKE_AFTER.sub(r"\1 ", text)
    text = re.sub(r"[ \t]{2,}", " ", re.sub(r"\s+([,.!?])", r"\1", text))
    text = re.sub(r",(?:\s*,)+", ",", text)
    return re.sub(r"^[\s,]+|(?<=[.!?])\s*,", "", text).strip()


_MARKER = re.compile(
    r"(?:(?<=^)|(?<=[.!?]\s))(?:(?:oh and|and also|ok so|okay so|right so|right,\s*so|so yeah|by the way|btw|fyi|"
    r"anyway|anyways|also|oh|well)\b(?:\s*[,:\-\u2013]+\s*|\s+))+(?=\S+\s+\S)",
    re.IGNORECASE,
)
"""Discourse markers opening a sentence ("btw", "anyway,", "oh and", "ok so"): they tie the turn to the talk
and say nothing to keep; the rules read a sentence from its first word ("btw moved back home to Galway"). A
plain "so" or "and" stays: it may carry the turn on from the last one ("so two now")."""


def _markers(text: str) -> str:
    # a capitalised marker took the sentence's capital with it: the next word gets it back ("Cool. Also, please
    # always answer in English" -> "Cool. Please always ..."), as the rules read a sentence from its first word
    def drop(match: re.Match[str]) -> str:
        rest = text[match.end() :]
        return "\0" if match.group()[:1].isupper() and rest[:1].islower() else ""

    marked = _MARKER.sub(drop, text)
    return re.sub("\0(.)", lambda m: m.group(1).upper(), marked)


# --------------------------------------------------------------------------- clauses in dictation

_SUBJECT = frozenset(
    "i i'm i've i'd i'll we we're we've we'd we'll he he's she she's they they're they've it's".split()
)
_NO_BREAK_AFTER = frozenset(
    """
and but or nor so that because cause cos coz since as if when whenever while until till before after than though
although where which who whom whose what how why whether once unless then also and/or
do does did don't doesn't didn't am is are was were can could will would shall should may might must have has had
isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't haven't hasn't hadn't
think thought know knew guess hope said say says tell told feel felt believe mean meant realised realized noticed
heard wish reckon suppose bet sure glad afraid remember forgot forget figured found decided
like even just only maybe perhaps probably case
""".split()
)
"""Words a subject pronoun follows inside one clause: conjunctions, auxiliaries (questions), verbs of thinking."""
_DETERMINERS = frozenset("the a an this that these those every any some which what each another one".split())
_PLAIN_SUBJECT = frozenset("i we he she they".split())
_OBJECTS = frozenset("it him her them me you us this that there here".split())
_PREPOSITIONS = frozenset("in on at over to from for with by during after before since into about through".split())
_UNPUNCTUATED_MIN_WORDS = 8


def _unpunctuated(text: str) -> bool:
    words = text.split()
    return len(words) >= _UNPUNCTUATED_MIN_WORDS and not re.search(r"[.,;:!?]\s|[.,;:!?]$|\n", text.strip())


def _short_relative(tokens: list[str], at: int) -> bool:
    """Does the subject at ``at`` open a clause of one or two words with no object, ending the turn or followed
    by another subject ("a Pixel 8 i use i gave the iPhone away")? Then it describes what comes before it."""
    if tokens[at].lower() not in _PLAIN_SUBJECT:
        return False  # "it's", "we're": a contracted "be" opens a clause of its own ("last week it's faster")
    for width in (1, 2):
        after = [t.lower() for t in tokens[at + 1 : at + 1 + width]]
        if len(after) < width or any(t in _OBJECTS or t in _DETERMINERS for t in after):
            return False
        following = tokens[at + 1 + width].lower() if at + 1 + width < len(tokens) else None
        if following is None or following in _SUBJECT:
            return True
    return False


_OPENERS = frozenset(
    """just please right so but then now also actually anyway we you he she they it it's my our the this that
    there what how when where why can could would will do don't did is are let's thanks thank sorry no yes ok
    okay oh well maybe still sadly luckily honestly today tomorrow yesterday tonight currently never always
    turns turned""".split()
)
"""Words that open sentences and are never names: written with a capital inside a run-on that keeps its case
("in a row Right now I can do 20", "my birthday Please erase it"), each one starts a sentence."""
_NOUN_PHRASE = frozenset("my our your his her their the".split())
_PHRASE_STARTS = frozenset("a an this that these those".split())
_BE = frozenset("is are was were isn't aren't wasn't weren't".split())
_NO_BREAK_BEFORE_PHRASE = frozenset(
    """of as than like near under without within all both half each because if whether unless until when
    while where what which who how that so and or but nor see saw realise realize notice expect assume""".split()
)


def _states(tokens: list[str], at: int) -> bool:
    """Does the noun phrase at ``at`` ("my work laptop", "the first one") take a "be" within three words,
    before another phrase or subject starts ("... my work laptop is a MacBook")?"""
    for token in tokens[at + 1 : at + 4]:
        lower = token.lower().replace("’", "'")
        if lower in _BE:
            return True
        if lower in _NOUN_PHRASE or lower in _SUBJECT or lower in _PHRASE_STARTS:
            return False
    return False


def _clause_breaks(text: str) -> str:
    """Commas before the subjects, and the noun phrases that take a "be", opening a new clause of an
    unpunctuated dictated turn; a full stop before a capitalised sentence opener in a run-on with case."""
    if not _unpunctuated(text):
        return text
    tokens = text.split(" ")
    cased = any(c.isupper() for c in text) and any(c.islower() for c in text)
    out: list[str] = []
    since = 0
    for at, token in enumerate(tokens):
        lower = token.lower().replace("’", "'")
        before = out[-1].lower() if out else ""
        if (
            cased
            and out
            and token[:1].isupper()
            and lower in _OPENERS
            and at + 1 < len(tokens)
            and not tokens[at + 1][:1].isupper()
        ):
            out[-1] += "."
            since = 0
        elif lower in _SUBJECT and out and since >= 3:
            two_back = out[-2].lower() if len(out) > 1 else ""
            three_back = out[-3].lower() if len(out) > 2 else ""
            # "the editor i use" is one clause; "over the summer i work" two
            relative = two_back in _DETERMINERS and three_back not in _PREPOSITIONS
            relative = relative or _short_relative(tokens, at)
            if before not in _NO_BREAK_AFTER and not relative and not before.endswith(","):
                out[-1] += ","
                since = 0
        elif (
            lower in _NOUN_PHRASE
            and out
            and since >= 3
            and before not in _NO_BREAK_AFTER
            and before not in _PREPOSITIONS
            and before not in _NO_BREAK_BEFORE_PHRASE
            and before not in _DETERMINERS
            and not before.endswith(",")
            and _states(tokens, at)
        ):
            out[-1] += ","  # "IT replaced my ThinkPad my work laptop is a MacBook Pro now"
            since = 0
        out.append(token)
        since += 1
    return " ".join(out)


# --------------------------------------------------------------------------- spoken punctuation

_SAID_MARKS = {
    "full stop": ".",
    "period": ".",
    "comma": ",",
    "question mark": "?",
    "exclamation mark": "!",
    "exclamation point": "!",
    "semicolon": ";",
    "semi colon": ";",
    "colon": ":",
}
_SAID_MARK = re.compile(
    r"(?<![\w'’-])(full\s+stop|period|comma|question\s+mark|exclamation\s+(?:mark|point)|semi\s?colon|colon)"
    r"(?![\w'’-])",
    re.IGNORECASE,
)
_PLAIN_NOUNS = frozenset({"period", "colon"})
"""Marks that are nouns of their own ("a trial period", "the colon"): read as marks only beside another mark said."""
_NOT_BEFORE_MARK = frozenset(
    "a an the this that these those my your our his her their its every each no one which what another".split()
)
_WRITTEN_MARK = re.compile(r"[.,;:!?](?:\s|$)")


def _spoken_marks(text: str) -> str:
    """A dictated turn that kept its spoken punctuation ("we moved to leeds full stop the dog is rex comma he
    is 3") with its marks written: the rules read sentences and clauses by their marks. Only in a turn that
    has no written mark of its own, and a word that names a mark is a word where a determiner comes before it
    ("a comma") or it opens the turn; "period" and "colon" only beside another mark said."""
    if _WRITTEN_MARK.search(text) or not _SAID_MARK.search(text):
        return text
    found = list(_SAID_MARK.finditer(text))

    def is_mark(match: re.Match[str]) -> bool:
        before = re.findall(r"[\w'’]+", text[: match.start()])
        return bool(before) and before[-1].lower() not in _NOT_BEFORE_MARK

    marks = [m for m in found if is_mark(m)]
    if not any(" ".join(m.group(1).lower().split()) not in _PLAIN_NOUNS for m in marks):
        return text  # "my trial period" alone is a period of time
    out, at = [], 0
    for match in marks:
        said = " ".join(match.group(1).lower().split())
        out.append(text[at : match.start()].rstrip() + _SAID_MARKS[said])
        at = match.end()
    out.append(text[at:])
    return re.sub(r"([.,;:!?])(?=[^\s\d.,;:!?])", r"\1 ", "".join(out)).strip()


# --------------------------------------------------------------------------- labels said without their colon

_LABELS = (
    r"goals?|targets?|aim|objective|decision|correction|update|notes?(?:\s+to\s+self)?|reminder|deadline|"
    r"lessons?(?:\s+learn(?:ed|t))?|plan|steps|recipe|checklist|to\s?do|fyi|tip"
)
_LABEL = re.compile(
    rf"(?:(?<=^)|(?<=[.!?]\s))(?P<head>(?:(?P<before>[a-z]+)\s+)?(?P<label>{_LABELS}))\s+(?P<next>[\w'’]+)",
    re.IGNORECASE,
)
_LABEL_GOES_ON = frozenset(
    """is are was were be been will would shall should can could may might must has have had do does did of for
    and or but nor to that which who whom whose than as in on at by with from about into over after before
    it it's i'm i've this these those so then too again please says said went got ahead out around""".split()
)
"""Words after which a label is the subject of its sentence, not a heading ("my goal is to ...", "the plan for
June", "the deadline moved"): no colon."""
_NOT_BEFORE_LABEL = frozenset(
    "i we you they he she it to let lets let's i'll we'll will would can could should must a an the this that".split()
)
"""Words before "plan", "aim", "target", "note" that make it a verb ("we plan", "to aim") or a noun phrase
("a note", "the deadline") rather than a heading."""


_NOT_VERBS = frozenset("always sometimes perhaps nowadays afterwards besides towards".split())


def _dictated_labels(text: str) -> str:
    """A label that heads a note, said without its colon in a turn without case or marks ("goal run a half
    marathon by october", "party plan order the cake then book the hall", "note to self always take a
    snapshot"), given its colon back: the rules read "Goal: ...", "Party plan: ...", "Note to self: ..."."""

    def colon(match: re.Match[str]) -> str:
        before, after = (match.group("before") or "").lower(), match.group("next").lower().replace("’", "'")
        if before in _NOT_BEFORE_LABEL or before in _LABEL_GOES_ON or after in _LABEL_GOES_ON:
            return match.group()
        if re.search(r"(?:ed|[^s]s)$", after) and after not in _NOT_VERBS and not after[:1].isdigit():
            return match.group()  # "the plan changed", "the goal stands": a verb, the label is a subject
        return f"{match.group('head')}: {match.group('next')}"

    return _LABEL.sub(colon, text)


# --------------------------------------------------------------------------- the whole


_PICTOGRAPHS = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b50\u2b55\u2b1b\u2b1c\ufe0f\u200d\u20e3]"
_PICTOGRAPH = re.compile(
    rf"(?:(?<=^)|(?<=[.,!?;:\n]))[ \t]*(?:{_PICTOGRAPHS}[ \t]*)+|[ \t]*(?:{_PICTOGRAPHS}[ \t]*)+(?=$|[.,!?;:\n])",
    re.MULTILINE,
)
"""Emoji opening or closing a sentence or a clause ("so that's 6 now 😭❤️"); one standing for a word between
words ("I love 🍕 and pasta") stays."""


def _without_pictographs(text: str) -> str:
    if not _PICTOGRAPH.search(text):
        return text

    def gap(match: re.Match[str]) -> str:
        # between two words ("Done. 🎉 Next") a space stays; before a stop or at either end, nothing
        inside = 0 < match.start() and match.end() < len(text) and text[match.end()] not in ".,!?;:\n"
        return " " if inside else ""

    return _PICTOGRAPH.sub(gap, text).strip()


KnownNames = Callable[[str], Iterable[str]]
"""Given a turn written without case, the names the user wrote with capitals before that it may hold."""


def normalise(text: str, *, question: bool = False, names: KnownNames | None = None) -> str:
    """The tidy form of one user's text (see the module's doc); a tidy text comes back as it was. A
    ``question`` without case keeps it: the planner's names are matched without case, and a question it
    would not change stays the :class:`~kioko_core.reading.query_and_draft.Query` it came as. ``names`` is
    asked only for a turn without case: "max" is a name there when the user wrote "Max" before."""
    if not isinstance(text, str) or not text.strip():
        return text
    text = _spoken_marks(_without_pictographs(text))
    if not text.strip():
        return text
    capitals = mostly_capitals(text)
    tidy = _lower_capitals(text) if capitals else text
    lower_case = capitals or not any(c.isupper() for c in tidy)
    tidy = _markers(_fillers(correct_typos(_contractions(tidy))))
    if (lower_case or _unpunctuated(tidy)) and ":" not in tidy:
        tidy = _dictated_labels(tidy)
    tidy = _clause_breaks(tidy)
    if lower_case and RECASE and not question:
        return named_pronouns(recase(tidy, names(tidy) if names is not None else ()))
    tidy = _capitals(tidy, lower_case)
    return tidy if question else named_pronouns(tidy)


def normalise_query(query: str) -> str:
    """A question's tidy form for the planner: the same steps, the question's own words kept."""
    return normalise(query, question=True)


def normalise_messages(messages: list[dict[str, str]], names: KnownNames | None = None) -> list[dict[str, str]]:
    """The user's messages of a turn in their tidy form (the assistant's as they are; a list one item a line
    under a heading folded into one sentence, :mod:`~kioko_intelligence.list_turns`), then settled: a
    correction inside the turn ("lands at 6:40, no sorry, 7:40") keeps the one value meant. ``names``: the
    user's known names a text without case holds (:func:`normalise`)."""
    settled = settle_messages(messages)  # first: "German, um, actually Swiss German" is a correction
    tidy = [
        {**message, "content": normalise(fold_lists(message["content"]), names=names)}
        if message.get("role") == "user"
        else message
        for message in settled
    ]
    return settle_messages(tidy)
