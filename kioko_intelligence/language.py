"""The offline router's reading of English: sentences and clauses, the gate, mentions, importance, dates.

Stems and entities come from :mod:`kioko_core.reading.analysis` (the Snowball stemmer and the analyser the linker
uses), so "stabilising line 3" and "Stabilise line 3" share the words ``stabilis``, ``line``, ``3``.
Dates in words ("last month", "by March 31", "this morning") are resolved by ``dateparser``.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from kioko_core.kinds.registry import KINDS
from kioko_core.privacy.held_texts import keeps_text
from kioko_core.reading.analysis import STOP_WORDS, analyze, stem
from kioko_intelligence.asides import is_aside
from kioko_intelligence.forget_requests import asks_to_forget
from kioko_intelligence.moments import is_passing_state
from kioko_intelligence.reactions import is_interruption, is_pause, is_reaction
from kioko_intelligence.rules import (
    CHATTER,
    CHATTER_WHOLE,
    COUNTERFACTUAL,
    FORGET_NOT_GATED,
    IRREGULAR_PAST,
    PROCEDURE,
    first,
    instruction_rule,
    plain,
)

# --------------------------------------------------------------------------- sentences and clauses

# A sentence ends at . ! ? (or a newline) followed by space; "10.20.0.0/16" and "e.g. this" stay whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")
_CLAUSE_SPLIT = re.compile(
    r"[;,]\s+(?=(?:and\s+|but\s+|so\s+)?(?:now\s+|next\s+|also\s+)?(?:i|i'm|i've|i'd|we|we're|we've|my|our|also|"
    r"then\s+(?:i|i'm|i've|i'd|we|we're|we've|my|our|he|she|they)|he|she|they)\b)"
    r"|\s+(?:and|but|so)\s+(?=(?:now\s+|next\s+|also\s+)?(?:i|i'm|i've|we|we're|my|our|he|she)\b)"
    # an order to the assistant run on after a comma ("..., and honestly just use kilometres for me from now on")
    r"|[;,]\s+(?=(?:and\s+|but\s+|so\s+)?(?:honestly\s+|just\s+|please\s+|actually\s+)*"
    r"(?:use|call|give|answer|reply|write|address|stop|don't|do not)\b[^,.;!?]*"
    r"\b(?:for me|from now on|going forward|please)\b)",
    re.IGNORECASE,
)
_NAMED_PERSON = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Miss|Prof|Doctor)\.?\s+[A-Z][a-z]+")
"""A person named with a title: a "he" or "she" said right after stands for them ("Dr Sandhu sorted me out, he's my
dentist now"), so the clause is not cut from the name."""
_HE_SHE = re.compile(r"(?:and\s+|but\s+|so\s+)?(?:he|she)\b", re.IGNORECASE)


_ABBREVIATION = re.compile(r"(?:^|\s)(?:dr|mr|mrs|ms|st|prof|jr|sr|vs|no|approx|dept|inc|ltd|co)\.$", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace tidied, empty ones dropped; "Dr. Chen" and "St. Mary's" stay whole."""
    found: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = " ".join(piece.split()) if piece else ""
        if not piece:
            continue
        if found and _ABBREVIATION.search(found[-1]):
            found[-1] += " " + piece
        else:
            found.append(piece)
    return found


_WITH_USER = re.compile(
    r"^(?:(?i:my|our)\s+[\w'-]+|(?!I\b|I')[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?i:and\s+(?:i|me))\b"
)
"""A subject of two, one of them the user: "Jess and I fell out", "Lukas and me, we are separated"."""
_THEY = re.compile(r"^(?:and\s+|but\s+|so\s+)?(?:now\s+)?(?:we|he|she|they)\b", re.IGNORECASE)


def clauses(sentence: str) -> list[str]:
    """Independent clauses: "I'm Kumar, I live in Pune" -> ["I'm Kumar", "I live in Pune"].

    A subject of two with the user ("Jess and I fell out badly, we're not friends now") is not cut at its
    "and", nor before a "we", "he", "she" or "they" that refers back to them: split there, "Jess" was lost
    and "we're not friends now" named no one."""
    together = _WITH_USER.match(sentence.strip())
    parts, start = [], 0
    for cut in _CLAUSE_SPLIT.finditer(sentence):
        if together and (cut.start() < together.end() or _THEY.match(sentence[cut.end() :])):
            continue
        if _HE_SHE.match(sentence[cut.end() :]) and _NAMED_PERSON.search(sentence[start : cut.start()]):
            continue
        parts.append(sentence[start : cut.start()])
        start = cut.end()
    parts.append(sentence[start:])
    return [c.strip(" ,;") for c in parts if c and c.strip(" ,;")]


def bare(text: str) -> str:
    """The text without final punctuation and spaces."""
    return text.strip().rstrip(".!?;:, ").strip()


def capitalise(text: str) -> str:
    """The first letter upper case, when the first word is a plain word: "sk-abc1", "iPhone", "pgvector's" stay."""
    text = bare(text)
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text


def sentence(text: str) -> str:
    text = bare(text)
    return text + "." if text else text


# --------------------------------------------------------------------------- the gate

_SMALL_TALK_WORDS = frozenset(
    """
hi hello hey heya hiya yo morning evening afternoon night good bye goodbye cya see later soon thanks thank
thx ty cheers appreciated appreciate much lot lots so very many a you ok okay k kk sure got it great
cool nice sounds perfect awesome excellent yes yeah yep yup no nope nah alright right fine lol haha
hehe wow super brilliant amazing fantastic neat indeed exactly agreed understood noted welcome np
problem worries all gotcha makes sense true the for your help that's that is helpful hmm hm oh ah
sorry hear glad meet pleasure mistake bad i'm to my there go ahead talk tomorrow asking exactly what needed
curious just mind never mate buddy pal folks ta heaps legend star cheerio
lovely love sorted then brill ace speak catch at off out
""".split()
)
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|how|how's|why|when|where|who|whom|whose|which|can|could|would|will|do|does|did|is|"
    r"are|am|was|were|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|"
    r"couldn't|any idea|anything|any)\b",
    re.IGNORECASE,
)
_REQUEST_START = re.compile(
    # "Now make it rhyme", "OK, now translate it": a follow-up order opens with a word of sequence
    r"^(?:(?:ok(?:ay)?|right|alright|so|now)[,\s]+)*"
    r"(?:please\s+|pls\s+|kindly\s+)?(?:can you|could you|would you|will you|help me|tell me|show me|give me|"
    r"let me know|explain|summari[sz]e|write|draft|translate|list|find|search|look up|check|create|generate|"
    r"make|compose|rewrite|fix|debug|review|compare|calculate|compute|convert|suggest|recommend|describe|"
    r"analy[sz]e|plan(?![^:?]{0,60}:)|outline|delete|remove|clear|drop|run|open|send|book|schedule|set up|install|update|wipe|"
    r"reinstall|restart|reboot|revert|roll back|rollback|restore|upload|download|rename|copy|cancel|archive|"
    r"brainstorm|remind me|"
    r"refactor|implement|build|add|format|read|go|continue|proceed|repeat|try|show|print|sort)\b"
    r"(?!\s*[,:\u2014\u2013]|\s+-\s)"  # "Update: we moved to Haifa", "Update, ...": a label, no order
    # "Book count is at 9", "Run time is 40 minutes": the verb's word opens a noun that is the subject, no order
    r"(?!\s+(?!(?:what|who|whom|whose|where|when|why|how|which|whether|if|it|this|that|there|these|those|he|she|they|"
    r"we|you|i|me|us|him|her|them)\b)[a-z]+\s+(?:is|are|was|were)\b)",
    re.IGNORECASE,
)
_NEVER_GATED = re.compile(
    r"\b(?:remember|don't forget|do not forget|note that|keep in mind|from now on|going forward|in future|"
    r"always|never(?!\s+mind|\s+thought\s+of\s+(?:it|that))|forget|lesson|learned|learnt|note to self|"
    r"next time)\b|\b(?:your|the assistant's) memor(?:y|ies)\b|"
    r"\bmemories (?:about|of|on|regarding)\b|\beverything (?:that )?you (?:know|remember|have)\b|"
    r"^(?:revert|reverse|revisit|overturn)\w*\s+(?:the\s+|our\s+|my\s+)?decision\b\s*[:,-]|" + FORGET_NOT_GATED,
    re.IGNORECASE,
)
_WORD_TOKEN = re.compile(r"[a-z']+|[^\sa-z']+")


def is_small_talk(text: str) -> bool:
    """Greetings, thanks and acknowledgements only: "thanks!", "ok great, thank you so much"; a number is never."""
    if re.search(r"\d", text):
        return False  # "I'm 29."
    words = re.findall(r"[a-z']+", text.lower())
    symbols = re.sub(r"[\w\s.,!?'\-:;()]", "", text)
    return bool(words or symbols) and all(w in _SMALL_TALK_WORDS for w in words) and len(words) <= 12


_OPENING_HEDGE = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|um+|uh+|erm+|hmm+|and|but|anyway)[,\s]+)*(?:i think|i guess|i suppose|i reckon|"
    r"i believe|i feel like|i could be wrong|i might be wrong|maybe|probably|perhaps|possibly)\b",
    re.IGNORECASE,
)
_STILL_ASKING = re.compile(
    r"\b(?:what|what's|how|why|which|where|when|who|whether|if|you|your|any idea|any tips|thoughts)\b|"
    r"\b(?:i|we)\s+(?:should|could|might|would|can|ought)\b|"
    r",\s*(?:right|yeah|yes|no|correct|ok(?:ay)?|isn't it|aren't we|don't we|didn't i|didn't we|wasn't it)\s*\?\s*$",
    re.IGNORECASE,
)
_OWN = re.compile(r"\b(?:i'm|i've|i'll|we|we're|we've|we'll|my|our|us)\b", re.IGNORECASE)


def hedged_statement(text: str) -> bool:
    """A statement of the user's said with a hedge and a rising "?" ("I think, maybe, we'll probably go for the Volvo
    estate?", "Okay so, I could be wrong, but we've put a deposit down on the Skoda?"): it opens with a hedge ("I
    think", "I guess", "maybe", "probably", "I could be wrong" ...), says something of the user's own ("we'll",
    "we've", "my" ...) and asks nothing (no question word, no "you", no "should we / could I")."""
    text = text.strip()
    if not text.endswith("?") or not _OPENING_HEDGE.match(text):
        return False
    rest = re.sub(r"\bi (?:could|might) be wrong\b", " ", text, flags=re.IGNORECASE)
    return bool(_OWN.search(rest)) and not _STILL_ASKING.search(rest)


def is_question(text: str) -> bool:
    text = text.strip()
    if _WHAT_I_WANT_WHEN.match(text) or hedged_statement(text):
        return False
    return text.endswith("?") or bool(_QUESTION_START.match(text) and not text.endswith("."))


_WHAT_I_WANT_WHEN = re.compile(
    r"^what\s+(?:i|we)\s+(?:really\s+|most\s+)?(?:want|need)\s+(?:(?:this|next)\s+\w+|by\s+[\w\s]+?)\s+(?:is|are)\s+"
    r"[^?]+$",
    re.IGNORECASE,
)
"""A goal said as what the user wants by when ("What I want this year is my CPC certificate"): no question."""


def is_request(text: str) -> bool:
    """An instruction to do something now ("Can you summarize this?", "delete the staging database")."""
    return bool(_REQUEST_START.match(text.strip()))


_STATEMENT_THEN_QUESTION = re.compile(
    r"^(?:(?:since|as|because|given that|now that)\s+)?(?P<statement>(?:i|i'm|i've|i'd|my|we|we're|we've|our)\b"
    r"[^?]*?)(?:\s*,|\s+-+|\s*\u2014)\s*(?:so\s+)?(?:what|how|any|can|could|would|will|is|are|do|does|should|"
    r"which|where|who|why|when|got|anyone|thoughts|ideas)\b[^?]*\?\s*$",
    re.IGNORECASE,
)
_HEARSAY = re.compile(r"\b(?:says|said|thinks|claims|told me|heard|asked)\b", re.IGNORECASE)


def statements_before_question(text: str) -> list[str]:
    """The statements a question opens with: "I moved to Berlin last month, any tips?" -> ["I moved to Berlin last month"]."""
    match = _STATEMENT_THEN_QUESTION.match(text.strip())
    if match is None or _HEARSAY.search(match.group("statement")):
        return []
    return clauses(match.group("statement"))


def gate_reason(sentence_text: str) -> str | None:
    """Why a sentence holds nothing to remember ("small talk", "a question", "a request", "chatter"), or None.

    A standing instruction ("Format dates as YYYY-MM-DD for me"), a procedure ("how I deploy: ...") and a
    question that opens with a statement about the user ("I'm vegetarian, what should I cook?") are kept.
    """
    if not sentence_text.strip():
        return "empty"
    if asks_to_forget(sentence_text):
        return None
    if COUNTERFACTUAL.match(plain(bare(sentence_text))):  # "If I won the lottery I'd ... never come back": a wish,
        return "chatter"  # though it says "never" (a standing instruction's word)
    if _NEVER_GATED.search(sentence_text):
        return None
    if (
        is_small_talk(sentence_text)
        or is_reaction(sentence_text)
        or is_pause(sentence_text)
        or is_interruption(sentence_text)
        or is_aside(sentence_text)
        or is_passing_state(sentence_text)
    ):
        return "small talk"
    said = plain(bare(sentence_text))
    if first(PROCEDURE, said) or instruction_rule(said):
        return None
    if is_question(sentence_text):
        return None if statements_before_question(sentence_text) else "a question"
    if is_request(sentence_text):
        return "a request to the assistant"
    if is_chatter(said) or CHATTER_WHOLE.fullmatch(said) or COUNTERFACTUAL.match(said):
        return "chatter"
    return None


INTERJECTION = re.compile(
    r"^(?:(?:wow|whoa|woah|haha+|hehe+|lol|lmao|omg|oh my god|phew|yay|woohoo|ooh|oh|ah|hmm+|hm+|ok(?:ay)?|so|well|"
    r"guess what)\b[\s,!.…:;-]*)+",
    re.IGNORECASE,
)
"""Words a turn may open with before saying something ("Wow, I got promoted", "Haha ok so my sister moved")."""
_FIRST_PERSON_START = re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our)\b", re.IGNORECASE)


def is_chatter(said: str) -> bool:
    """Conversation about the conversation (:data:`CHATTER`, at most 8 words). A sentence that only opens with an
    interjection and goes on with a statement of the user's ("Wow, I got promoted to team lead today!",
    "Haha ok so my sister moved to Lyon") is not: what follows the interjection is judged instead ("Hmm, I
    guess" is still chatter)."""
    if not (CHATTER.match(said) and len(said.split()) <= 8):
        return False
    opened = INTERJECTION.match(said)
    rest = said[opened.end() :] if opened else ""
    if not rest or not _FIRST_PERSON_START.match(rest) or len(rest.split()) < 3:
        return True
    return bool(CHATTER.match(rest)) or CHATTER_WHOLE.fullmatch(rest) is not None


def gate(text: str) -> str | None:
    """Why the whole turn holds nothing to remember, or None when some sentence may.

    Every sentence must be gated for the turn to be: "Thanks! I moved to Berlin." is routed.
    """
    said = sentences(text)
    reasons = [gate_reason(s) for s in said] or ["empty"]
    if any(r is None for r in reasons):
        # "Forget that." points back too, but at what the user said: it is read
        pointing = [r is None and points_back(s) and not asks_to_forget(s) for s, r in zip(said, reasons)]
        if all(p or r is not None for p, r in zip(pointing, reasons)) and any(pointing):
            return "a reply to what was just said"
        return None
    distinct = list(dict.fromkeys(r for r in reasons if r != "empty")) or ["empty"]
    if distinct == ["small talk"]:
        return "small talk"
    if distinct == ["empty"]:
        return "empty"
    return "questions or requests only" if len(distinct) > 1 else distinct[0]


_POINTING = frozenset("it that this these those them one ones you".split())
"""Words that point at something the conversation named, not the memory ("I'll try that", "I appreciate it")."""
_NOT_LEXICAL = frozenset(
    """i me my we us our you your he she they it its that this these those them one ones a an the to of in on at for
    with about from out up down over off by as so and or but if then than just really also now today tomorrow tonight
    later soon again still already maybe probably definitely actually honestly too very quite pretty ok okay yes yeah
    yep no nope oh ah wow nice cool great good alright right sure please well hmm haha lol do does did doing done will
    would can could should shall may might must be is am are was were been being have has had get got go going gonna
    let s ll m re ve d t not n next other another some any all more much""".split()
)
"""Words that carry no content of their own: pronouns, auxiliaries, particles, discourse and time words."""
_NAMED = re.compile(r"\d|(?<!^)\b(?!I\b|I')[A-Z][a-z]")


def points_back(sentence: str) -> bool:
    """A sentence whose only content is a verb about something the conversation named: "Okay I'll try that now",
    "Wow, I didn't know that", "I appreciate it", "Oh nice, I'll check it out", "Alright, let's do the next one".
    A memory of it would say nothing a later question could use ("User will try that now"). A name or a number
    says something ("I'll do it on Friday" is kept), and so does a sentence that opens with the pointing word,
    whose subject it is ("It's my birthday today", "That flight got cancelled")."""
    if _NAMED.search(sentence.strip()):
        return False
    words = re.findall(r"[a-z]+", sentence.lower().replace("n't", " not"))
    at = next((i for i, w in enumerate(words) if w in _POINTING), None)
    if at is None:
        return False
    lexical = [i for i, w in enumerate(words) if w not in _NOT_LEXICAL]
    return len(lexical) <= 1 and all(i < at for i in lexical) and words[0] not in _POINTING


_QUANTIFIERS = frozenset("neither either both none each nor every everything nothing anything something".split())


def says_nothing(sentence: str) -> bool:
    """A sentence made only of words that carry no content of their own ("Neither of them.", "Both of them, yes.",
    "All of it."): it only points at what was said before it, and a memory of it says nothing. A number or a name
    says something ("Both of them, Ana and Luis." is read)."""
    if _NAMED.search(sentence.strip()):
        return False
    words = re.findall(r"[a-z]+", sentence.lower().replace("n't", " not"))
    return bool(words) and all(w in _NOT_LEXICAL or w in _QUANTIFIERS for w in words)


# --------------------------------------------------------------------------- words and mentions

GENERIC_WORDS = frozenset(
    stem(w)
    for w in """
goal goals task tasks project projects prep preparation work thing things stuff plan plans job jobs item
items part parts piece step steps training studies studying revision progress
""".split()
)
"""Words that never match a goal or decision on their own."""

_FILLERS = (
    frozenset(
        """
whole entire actual finally just yesterday today tonight morning week month year already
""".split()
    )
    | STOP_WORDS
)
_CONTENT_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:\.\d+)?")


@keeps_text
@lru_cache(maxsize=8192)
def content_words(text: str, keep_generic: bool = True) -> tuple[str, ...]:
    """Stems of the words that carry meaning: no stop words, ``'s`` cut, numbers kept ("line 3")."""
    found: list[str] = []
    for token in _CONTENT_TOKEN.findall(text):
        word = token.lower()
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if not word or word in _FILLERS or (len(word) < 2 and not word.isdigit()):
            continue
        stemmed = stem(word)
        if keep_generic or stemmed not in GENERIC_WORDS:
            found.append(stemmed)
    return tuple(dict.fromkeys(found))


def mention_matches(mention: str, name: str) -> bool:
    """Does ``mention`` refer to the goal or decision ``name``?

    Two shared content words covering at least half of the mention, or every word of a one- or
    two-word mention. Generic words ("goal", "task", "project", "prep") never match on their own.
    """
    words = content_words(mention, keep_generic=False)
    if not words:
        return False
    target = set(content_words(name))
    shared = sum(1 for w in words if w in target)
    if len(words) <= 2 and shared == len(words):
        return True
    return shared >= 2 and shared * 2 >= len(words)


def names_itself(mention: str, name: str) -> bool:
    """Is ``mention`` the goal itself rather than a step towards it ("the prep for the Azure exam")?"""
    words = content_words(mention)
    target = set(content_words(name))
    return bool(words) and all(w in target for w in words)


def coverage(words: tuple[str, ...], text: str) -> float:
    """The share of ``words`` that ``text`` contains (stems)."""
    if not words:
        return 0.0
    have = set(content_words(text))
    return sum(1 for w in words if w in have) / len(words)


# --------------------------------------------------------------------------- first person -> "User"

_IRREGULAR_PAST = IRREGULAR_PAST
_THIRD_PERSON = {
    "have": "has",
    "am": "is",
    "'m": "is",
    "'ve": "has",
    "do": "does",
    "go": "goes",
    "was": "was",
    "don't": "doesn't",
    "haven't": "hasn't",
    "can't": "can't",
    "won't": "won't",
}
_ADVERBS = frozenset(
    "really also usually always often never still just already mostly sometimes actually "
    "currently now definitely absolutely totally truly only rarely seldom barely hardly honestly personally "
    "generally normally typically probably even kinda finally recently ever".split()
)


def third_person(verb: str) -> str:
    lower = verb.lower()
    if lower in _THIRD_PERSON:
        return _THIRD_PERSON[lower]
    if lower in _IRREGULAR_PAST or (lower.endswith("ed") and lower not in KNOWN_VERBS) or not lower.isalpha():
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


KNOWN_VERBS = frozenset(
    """
accept add admire adopt adore agree aim allow answer appreciate apply argue arrange ask attend avoid bake believe
belong blame book borrow bring build buy call care carry change chase check choose clean climb coach code collect
come commute compete complain cook cost count cover create cycle dance deal decide deliver depend deploy design
despise detest develop dislike do doubt draw dream dress drink drive drop earn eat edit own employ enjoy expect
explain fear feel fight find fish fix fly follow forget get give go grow guess hate have hear help hike hire hold
hope host hunt identify ignore imagine include intend invest join keep kill know lead learn leave like listen live
look lose love maintain manage mean meet mind miss mix move need note notice offer open operate organise organize
paint pay perform pick plan play practise practice prefer prepare present print promise provide publish pull push
put read recommend record relax rely remember rent repair report require research rest ride rise run save say see
sell send serve share shop sing sit skate ski sleep smoke speak spend stand start stay stop study support suppose
surf swim take talk teach tend test think train travel trust try understand use visit wait wake walk want watch
wear wish work worry write
""".split()
)
"""The verbs the rewrite to the third person conjugates; any other verb keeps the user's own words."""

REWRITE_WORDS = frozenset(
    """
user user's is has does doesn't isn't hasn't was would will can can't won't goal decision how to use go with
instead of because for steps
""".split()
)
"""The words a rewrite may add to what the user said (besides the third person of :data:`KNOWN_VERBS`)."""


def rewrite_vocabulary() -> frozenset[str]:
    """Every word a stored text may hold that the user did not say: framing words and conjugated known verbs."""
    return REWRITE_WORDS | THIRD_PERSON_WORDS | frozenset(third_person(v) for v in KNOWN_VERBS)


_HEAD = re.compile(r"^I(?:'m|\s+am)\b|^I'(?:ve|d|ll)\b|^I\s+", re.IGNORECASE)
_HEAD_VERB = {"i'm": "User is", "i am": "User is", "i've": "User has", "i'd": "User would", "i'll": "User will"}
_UNCHANGED = frozenset(
    """
can can't cannot could couldn't will won't would wouldn't should shouldn't must might may did didn't was wasn't
used
""".split()
)
_MULTI_ADVERBS = re.compile(r"^(?:no longer|kind of|sort of|pretty much|more or less|at least)\s+", re.IGNORECASE)
_LATER_PERSON = {
    "i": "they",
    "i'm": "they're",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
}
_LATER = re.compile(r"(?<![\w/'-])(?:I\s+am|I\s+was|i'm|i've|i'd|i'll|i|me|my|mine|myself)(?![\w/'-])", re.IGNORECASE)
THIRD_PERSON_WORDS = frozenset(_LATER_PERSON.values()) | {"are", "were"}


def _later(match: re.Match[str]) -> str:
    word = " ".join(match.group(0).lower().split())
    if word == "i am":
        return "they are"
    if word == "i was":
        return "they were"
    return _LATER_PERSON[word]


def _verb_for_user(words: list[str]) -> list[str] | None:
    """``["really", "like", "tea"]`` -> ``["really", "likes", "tea"]``; None when the verb is not one it knows."""
    index = 0
    while index < len(words) - 1 and words[index].lower() in _ADVERBS:
        index += 1
    if index >= len(words):
        return None
    verb = words[index].lower()
    if verb in _THIRD_PERSON or verb in KNOWN_VERBS:
        conjugated = third_person(words[index])
    elif verb in _UNCHANGED or verb in _IRREGULAR_PAST or (verb.endswith("ed") and verb[:-2] in KNOWN_VERBS):
        conjugated = words[index]
    elif verb.endswith("ed") and (verb[:-1] in KNOWN_VERBS or verb[:-3] + "y" in KNOWN_VERBS):
        conjugated = words[index]
    elif len(verb) > 4 and verb[-3] == verb[-4] and verb.endswith("ed") and verb[:-3] in KNOWN_VERBS:
        conjugated = words[index]  # "stopped", "planned"
    else:
        return None
    return words[:index] + [conjugated] + words[index + 1 :]


def about_user(text: str) -> str:
    """Rewrite a first-person statement about the user: "I have two kids" -> "User has two kids.".

    Only what it is sure of: "I'm" / "I've" ..., a verb of :data:`KNOWN_VERBS` (conjugated), a past or
    modal verb (kept), "My ..." -> "User's ..."; later first-person words become "they", "their" ...
    ("I like my coffee black" -> "User likes their coffee black."). Any other verb keeps the user's own
    words: no rewrite ever makes up a word ("I no longer want" -> "User no longer wants", never "noes").
    """
    text = capitalise(text)
    head = _HEAD.match(text)
    if head:
        said = " ".join(head.group(0).lower().split())
        rest = text[head.end() :].strip()
        if said in _HEAD_VERB:
            rewritten = f"{_HEAD_VERB[said]} {rest}".rstrip()
        else:
            adverbs = _MULTI_ADVERBS.match(rest)
            lead = adverbs.group(0) if adverbs else ""
            words = _verb_for_user(rest[len(lead) :].split(" "))
            if words is None:
                return sentence(text)
            rewritten = "User " + lead + " ".join(words)
        text = "User" + _LATER.sub(_later, rewritten[len("User") :])
    elif together := _WITH_SOMEONE.match(text):
        # "My wife and I moved to Porto" -> "User and their wife moved to Porto" (not "User's wife and they ...")
        text = f"User and their {together.group(1)}" + _LATER.sub(_later, text[together.end() :])
    elif re.match(r"^My\b", text):
        text = "User's" + _LATER.sub(_later, text[2:])
    return sentence(text)


_WITH_SOMEONE = re.compile(r"^(?:My|Our)\s+([\w'-]+(?:\s+[\w'-]+)?)\s+and\s+I\b")
"""A subject of the user and someone of theirs ("My wife and I ...", "Our neighbour and I ...")."""


# --------------------------------------------------------------------------- importance

BASE_IMPORTANCE = {
    **{info.op: info.importance for info in KINDS if info.op},
    "relation": 0.6,
    "memory": 0.6,
}
"""Operation kind -> the importance its new memory starts at: a kind's from its registry row (instructions
highest, episodes lowest), a link's and an edit's the middle."""
_EXPLICIT = re.compile(
    r"\b(?:remember|important|importantly|must|crucial|don't forget|do not forget|note that|"
    r"keep in mind)\b",
    re.IGNORECASE,
)
_STAKES = re.compile(
    r"\b(?:outages?|safety|deadlines?|allerg(?:ic|y|ies)|urgent|emergenc(?:y|ies)|injur(?:y|ies|ed)|danger(?:ous)?|"
    r"accidents?|fire|critical|hospital|sick|died|death|lawsuit|fired|afraid|scared|worried|furious|"
    r"thrilled|devastated|terrified)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|for now|"
    r"temporarily|for the moment|kind of|sort of)\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"\b(?:switched|changed|moved|anymore|any more|no longer|these days|nowadays|instead|correction|"
    r"from now on|replaced|ditched)\b",
    re.IGNORECASE,
)
"""A change of something the user said before: a newer value of a slot matters as much as the old one did."""
_HEDGED_CHANGE = re.compile(rf"{_CHANGE.pattern}|\b(?:now|ended up|in the end|these days)\b", re.IGNORECASE)
"""A change word that keeps a hedged statement's weight: "I suppose we're sort of with EDF now, maybe" replaces what the
user had, however unsure they sound, and fell below the floor of what is kept."""
_NUMBER = re.compile(r"(?<![\w-])\d+(?:[.,:/]\d+)*%?(?![\w-])")
SHORT_WORDS = 5


def importance(kind: str, text: str) -> float:
    """The model-free poignancy score in [0, 1]: the kind's base, then the spec's adjustments."""
    score = BASE_IMPORTANCE.get(kind, 0.5)
    if _EXPLICIT.search(text):
        score += 0.2
    if _STAKES.search(text):
        score += 0.1
    if _CHANGE.search(text):
        score += 0.1
    entities = analyze(text).entities
    numbers = [n for n in _NUMBER.findall(text) if not any(n in e for e in entities)]
    score += 0.04 * min(3, len(entities) + len(numbers))
    if _HEDGE.search(text) and not _HEDGED_CHANGE.search(text):
        score -= 0.15  # a hedged change ("I think we've sort of ended up in Todmorden now") is still the newest value
    if len(text.split()) <= SHORT_WORDS:
        score -= 0.08
    return round(min(1.0, max(0.0, score)), 2)


# --------------------------------------------------------------------------- time

TIME_CUE = re.compile(
    r"\b(?:yesterday(?: (?:morning|afternoon|evening|night))?|today|tonight|this (?:morning|afternoon|evening|week|month|year)|"
    r"last (?:night|week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?:minutes?|hours?|days?|weeks?|months?|years?) ago|"
    r"earlier today|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)
_DUE = re.compile(
    r"\b(?:by|before|until|due(?: on| by)?)\s+((?:(?:the )?end of (?:the )?)?(?:next |this )?(?:"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?|"
    r"\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*(?:,? \d{4})?|"
    r"\d{4}-\d{2}-\d{2}|week|month|year|quarter|friday|monday|tuesday|wednesday|thursday|saturday|sunday|"
    r"tomorrow|q[1-4](?: \d{4})?))\b",
    re.IGNORECASE,
)


def _parse(phrase: str, now: datetime, prefer: str) -> datetime | None:
    return _parse_at(phrase.lower(), now.replace(second=0, microsecond=0), prefer)


@keeps_text
@lru_cache(maxsize=1024)
def _parse_at(phrase: str, now: datetime, prefer: str) -> datetime | None:
    """dateparser costs a millisecond or more a call: the same phrase in the same minute is parsed once."""
    import dateparser  # late: a second of import time only for turns that mention a date

    try:
        parsed: datetime | None = dateparser.parse(
            phrase, languages=["en"], settings={"RELATIVE_BASE": now, "PREFER_DATES_FROM": prefer}
        )
    except Exception:  # an odd phrase is no date, never an error
        return None
    return parsed


def when(text: str, now: datetime) -> tuple[str, datetime] | None:
    """A time cue in ``text`` and the moment it names ("this morning" -> today 09:00), or None."""
    match = TIME_CUE.search(text)
    if match is None:
        return None
    moment = _parse(match.group(0), now, "past")
    return (match.group(0), moment) if moment is not None and moment <= now else None


def due_date(text: str, now: datetime) -> tuple[str, str] | None:
    """``"... by March 31"`` -> ``("March 31", "2027-03-31")``: the next such date, as ISO."""
    match = _DUE.search(text)
    if match is None:
        return None
    moment = _parse(match.group(1), now, "current_period")
    if moment is not None and moment.date() < now.date():  # "by Friday" means the coming one
        moment = _parse(match.group(1), now, "future") or moment
    if moment is None:
        return None
    if moment.date() < now.date():  # "by March 31" said in April means next year's
        try:
            moment = moment.replace(year=moment.year + 1)
        except ValueError:
            return None
    return match.group(1), moment.date().isoformat()


def has_time_cue(text: str) -> bool:
    return TIME_CUE.search(text) is not None
