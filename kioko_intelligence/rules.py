"""The offline router's English, as tables: each row is a pattern, the operation it leads to, and a phrasing
it is for; :mod:`heuristic` holds the builders that turn a row's match into operations, and the order in
which the tables are tried.

The module is a table of data rows, one row a phrasing, and is as long as its rows (issue #37 leaves such a
module whole, however long): the code that acts on the rows lives in :mod:`heuristic`.

A new phrasing is one row: its ``example`` is checked to match its own row (and to route to its ``op``) by
``tests/intelligence/test_router_phrasings.py``; ``tests/intelligence/test_router_rules.py`` shows that a row added to a table routes a
phrasing nothing routed before. The rows of a table are tried in order and the first that matches wins
(and whose :attr:`Row.needs` holds); their named groups are what the table's builder reads, and a row's
``options`` say how the builder treats it (instead of the row's position, so adding or reordering rows
never changes what another row does):

========================  ==============================================================================
table                     groups (options)
========================  ==============================================================================
``PROFILE``               ``name``, ``location``, ``age``, ``employer``, ``job``, ``team``, ``hometown``,
                          ``language`` (any of them)
``PREFERENCE``            ``what`` (the rest of the clause)
``INSTRUCTION``           ``rule`` (the instruction as said); ``needs=about_answering``: only a sentence
                          about how to answer (:data:`ANSWERING`) is an instruction by this row
``GOAL``                  ``title``
``COMPLETE`` / ``DROP``   ``mention`` (the goal as the user names it)
``DECISION``              ``body`` (what was chosen, with its rationale)
``SWITCH``                ``new``, and ``old`` or ``topic`` (the old choice is then the current decision
                          about the topic), ``why`` (optional); options ``may_be_a_move`` (a first-person
                          "moved from A to B" between places is a move), ``needs_decision`` (replaces only
                          a decision in force), ``needs_decision_unless_chosen`` (the same unless ``new``
                          holds a verb of choosing)
``LESSON``                ``lesson``, ``context`` (optional); ``template`` shapes the lesson
                          (``{text}`` the clause, ``{lesson}`` the group)
``PROCEDURE``             ``steps`` and ``task`` ("How to <task>") or ``head`` (the title as said); option
                          ``loose``: no "to <task>:" header, so three steps or a "then" are needed
``TASK``                  ``task``
``FORGET``                ``phrase`` (what to forget)
``MOVED``                 ``place``
``IDENTIFIERS``           the first group that matched; ``slot`` names the working-memory key
``RELATION``              ``subject``, ``relation``, ``object``
========================  ==============================================================================

Patterns read a clause after :func:`plain`: lead-ins ("Actually", "Oh and", "Ok so", "By the way") cut,
and a leading time ("This year", "Right now") moved to the end, so the rows anchor at the subject.
The module ends with the cues the router's classification reads (first person, past, ongoing, numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from kioko_core.reading.analysis import stem
from kioko_intelligence.instruction_topics import aspects

OPTIONS = frozenset(
    {"may_be_a_move", "needs_decision", "needs_decision_unless_chosen", "loose"},
)
"""Every option a row may carry; a misspelt one is refused when the row is built."""


@dataclass(frozen=True)
class Row:
    """One phrasing: ``pattern`` (compiled, case-insensitive unless it says otherwise), the op it leads to."""

    op: str
    pattern: re.Pattern[str]
    example: str
    options: frozenset[str] = frozenset()
    needs: Callable[[str], bool] | None = None
    """A further condition on the whole text for the row to count (the next row is tried when it fails)."""
    template: str = ""
    slot: str = ""


def row(
    op: str,
    pattern: str,
    example: str,
    flags: int = re.IGNORECASE,
    *,
    options: tuple[str, ...] = (),
    needs: Callable[[str], bool] | None = None,
    template: str = "",
    slot: str = "",
) -> Row:
    unknown = set(options) - OPTIONS
    if unknown:
        raise ValueError(f"unknown row options {sorted(unknown)}; known: {sorted(OPTIONS)}")
    return Row(op, re.compile(pattern, flags), example, frozenset(options), needs, template, slot)


def first(rows: tuple[Row, ...], text: str) -> tuple[Row, re.Match[str]] | None:
    """The first row whose pattern matches ``text`` from its start (and whose ``needs`` holds), and the match."""
    for candidate in rows:
        match = candidate.pattern.match(text)
        if match and (candidate.needs is None or candidate.needs(text)):
            return candidate, match
    return None


_I = r"(?:i|we)(?=[\s'])"
_IM = r"(?:i'm|i am|im|we're|we are)"
NAME_WORDS = r"[A-Z][\w&.'-]*(?:\s+(?:[A-Z0-9][\w&.'-]*|de|van|von|da|del|la|le))*"
_NAME = NAME_WORDS
_WHY = r"(?:\s*[,;]?\s+(?:because|since|as|so that|cause|'cause)\s+(?P<why>.+))?"

# --------------------------------------------------------------------------- clause lead-ins

LEAD_IN = re.compile(
    r"^(?:(?:actually|oh|oh and|and|also|so|now|next(?!\s+(?:time|goal|target|aim|objective)\b)|then|so yeah|ok so|"
    r"okay so|ok|okay|well|honestly|btw|by the way|fyi|anyway|"
    r"hey|hi|hello|yeah|yes|guess what|just so you know|for the record|quick update|update|good news|"
    r"funny enough|but|plus|turns out(?: that)?|it turns out(?: that)?|in the end|after all)"
    r"(?:\s*[,:!.\-\u2013]+\s*|\s+)(?=\S)|(?:after|following)\s+[\w\s'-]{2,40}?(?:\s*,\s*|\s+(?=(?:we|i)\b)))+",
    re.IGNORECASE,
)
"""Words that open a clause without adding to it: "Actually we switched ...", "Ok so we're using ..."."""

CHANGE_LEAD = re.compile(
    r"^(?:change of plans?|changed my mind|i changed my mind|we changed our minds?|on second thought|"
    r"(?:(?:a|one|quick|small|little|slight|minor|tiny)\s+){0,2}(?:correction|fix|update|amendment|clarification)\s+"
    r"(?:to|on|about|of|for)\s+(?:something|what|a thing|one thing|the thing|that)\s+(?:i|we)\s*(?:'ve\s+|have\s+)?"
    r"(?:told|said to|gave|mentioned to)\s+you(?:\s+(?:earlier|before|last time|yesterday|the other day|once))?"
    r"(?=\s*[,:\-\u2013])|"
    r"scratch that|update|correction|(?:revert|revers|revisit|overturn|rethink|revis|chang|updat)(?:e|ed|ing)?\s+"
    r"(?:of\s+|to\s+)?(?:the\s+|a\s+|our\s+|my\s+)?decision)\s*[,:!.\-\u2013]*\s*",
    re.IGNORECASE,
)
"""Lead-ins that announce a change of mind ("revert decision: FastAPI -> Litestar"): what follows replaces a current
decision when it names one. A correction of something said to the assistant ("Quick correction to something I told
you: the school is Oakwood Academy, not Oakfield") is one too: what follows is read without it (said to "you", the
sentence was dropped whole)."""

TIME_LEAD = re.compile(
    r"^(?P<time>(?:this|next|last) (?:week|month|quarter|year|semester|term|summer|winter|spring|autumn|fall|sprint)|"
    r"today|tonight|tomorrow|right now|at the moment|these days|lately|nowadays|"
    r"by the end of (?:the |this |next )?(?:week|month|quarter|year|sprint)|in \d{4})\s*,?\s+(?=\S)",
    re.IGNORECASE,
)
"""A leading time: moved to the end ("This year I want to visit Japan" -> "I want to visit Japan this year")."""

TAIL = re.compile(
    r"(?:\s*,?\s+(?:by the way|btw|tbh|lol|haha|now|these days|at the moment|currently|nowadays|for now|"
    r"anymore|any more|after all|in the end|originally|here|at work|for short|though|too|as well))+$",
    re.IGNORECASE,
)
"""Tails that say nothing about a slot's value: "I live in Lisbon now", "My name's Tomasz, by the way"."""


def plain(clause: str) -> str:
    """The clause with its lead-ins cut and a leading time moved to the end; ``im`` read as ``I'm``."""
    text = clause.strip()
    for _ in range(3):
        cut = LEAD_IN.sub("", text, count=1)
        time = TIME_LEAD.match(cut)
        if time:
            cut = f"{cut[time.end() :].rstrip(' .!')} {time.group('time').lower()}"
        if cut == text:
            break
        text = cut
    return re.sub(r"^im\b", "I'm", text)


# --------------------------------------------------------------------------- profile

JOB_NOUNS = (
    "engineer|developer|programmer|designer|architect|analyst|scientist|researcher|manager|director|lead|"
    "nurse|doctor|physician|surgeon|dentist|pharmacist|teacher|professor|lecturer|student|tutor|lawyer|"
    "attorney|accountant|auditor|consultant|planner|pilot|photographer|writer|journalist|editor|artist|"
    "musician|chef|cook|baker|farmer|electrician|plumber|mechanic|technician|operator|administrator|admin|"
    "founder|co-founder|cofounder|owner|ceo|cto|cfo|coo|cio|vp|officer|specialist|coordinator|assistant|"
    "intern|apprentice|trainee|clerk|cashier|driver|firefighter|paramedic|therapist|psychologist|"
    "veterinarian|vet|librarian|translator|marketer|recruiter|salesperson|entrepreneur|freelancer|"
    "contractor|sre|devops|tester|qa|secretary|receptionist|economist|statistician|biologist|chemist|"
    "physicist|mathematician|nanny|caregiver|carer|barista|waiter|waitress|bartender|postdoc|phd student"
)
_JOB = rf"(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{JOB_NOUNS}))"
_ARTICLE = r"(?:an?|the)\s+"
_EMPLOYER = rf"(?P<employer>{_NAME})"
_EMPLOYER_LOWER = r"(?P<employer>the [a-z][\w-]*(?: [a-z][\w-]*){0,2})"

_WORKING_FOR = re.compile(
    r"\bworking\s+for\s+(\w[\w&.'-]*(?:\s+\w[\w&.'-]*){0,3}?)(?:\s+(?:in|at|as|on|since)\b|\s*[,.;]|\s*$)",
    re.IGNORECASE,
)


def _names_an_employer(text: str) -> bool:
    """ "I am working for Škoda in Mladá Boleslav, process engineer": "working for" and a name (words written with a
    capital, then the sentence's end, a comma or "in / at / as / on / since") is an employer, no aim ("working for a
    promotion", "working for Grade 8 by summer")."""
    found = _WORKING_FOR.search(text)
    return found is not None and all(word[:1].isupper() for word in found.group(1).split())


PROFILE: tuple[Row, ...] = (
    row(
        "profile.set",
        rf"^(?i:my name is|my name's|name's|name is|i'm|i am|"
        rf"(?:just |please |feel free to |(?:you|u) (?:can|may|could|might) (?:now |also |just )?)?call me|"
        rf"they call me|people call me|"
        rf"everyone calls me)\s+(?P<name>{_NAME})$",
        "They call me Mo",
        0,
    ),
    row(
        "profile.set",
        rf"^(?i:i\s+(?:live|reside|stay)|i'm based|i am based|based|living|i'm living|i am living|"
        rf"i've been living|i have been living|we live|we're based|we are based)\s+(?i:in)\s+"
        rf"(?P<location>{_NAME}(?:,\s*{_NAME})?)(?:\s+(?i:for|since)\s+.+)?$",
        "I've been living in Cape Town for five years",
        0,
    ),
    row(
        "profile.set",
        r"^(?:i'm|i am|im)\s+(?:now\s+|already\s+|turning\s+)?(?P<age>\d{1,3})(?:\s+years?\s+old)?$",
        "I'm 29",
    ),
    row(
        "profile.set",
        rf"^(?i:i\s+work\s+(?:at|for)|i'm working\s+(?:at|for)|i am working\s+(?:at|for)|working\s+(?:at|for))\s+"
        rf"{_EMPLOYER}(?:\s+(?i:as)\s+(?i:an?\s+)?(?P<job>.+))?$",
        "I'm working at Deloitte as an auditor",
        0,
    ),
    row(
        "profile.set",
        rf"^(?:i\s+work\s+for|i'm working\s+for)\s+{_EMPLOYER_LOWER}\s+as\s+(?:an?\s+)?(?P<job>.+)$",
        "I work for the city council as a planner",
    ),
    row(
        "profile.set",
        rf"^(?i:i\s+work\s+as|i'm working\s+as)\s+(?i:an?\s+)?(?P<job>[\w\s-]+?)"
        rf"(?:\s+(?i:at|for|in)\s+{_EMPLOYER})?$",
        "I work as a nurse at St. Mary's Hospital",
        0,
    ),
    row(
        "profile.set",
        rf"^(?i:i\s+(?:just\s+|recently\s+)?(?:started|began)\s+(?:a\s+new\s+job|a\s+job|working|work)|"
        rf"i\s+(?:just\s+|recently\s+)?joined|i\s+got\s+(?:hired|a\s+job)|i\s+was\s+hired)\s+(?i:at|by|with)?\s*"
        rf"{_EMPLOYER}(?:\s+(?i:as)\s+(?i:an?\s+)?(?P<job>[\w\s-]+?))?(?P<when>\s+(?i:last|this|yesterday|today|in)\b.*)?$",
        "I just started a new job at Spotify as a backend developer",
        0,
    ),
    row(
        "profile.set",
        rf"^(?i:i'm|i am)\s+(?i:an?|the)\s+(?i:{_JOB})(?:\s+(?i:at|for|with|of)\s+(?:(?i:an?\s+)?[\w\s-]*?(?i:called|named)\s+)?"
        rf"{_EMPLOYER})?$",
        "I'm a data engineer at Zalando",
        0,
    ),
    row(
        "profile.set",
        rf"^(?:i'm|i am)\s+(?:an?|the)\s+{_JOB}(?:\s+(?P<detail>(?:at|for|in|with|of)\s+.+))?$",
        "I'm a teacher at a primary school in Leeds",
    ),
    row(
        "profile.set",
        r"^(?:our|my)\s+team\s+is\s+(?:called|named)\s+(?P<team>.+)$|^(?:i'm|i am)\s+(?:on|in)\s+the\s+"
        r"(?P<team2>[\w\s-]+?)\s+team$",
        "Our team is called Platform Reliability",
    ),
    row(
        "profile.set",
        rf"^(?i:i'm|i am|i come)\s+(?i:originally\s+)?(?i:from)\s+(?P<hometown>{_NAME})$",
        "I'm from Ghana originally",
        0,
    ),
    row(
        "profile.set",
        rf"^(?i:i\s+speak)\s+(?P<language>{_NAME})\s+(?i:natively|as my (?:first|native) language)$",
        "I speak Portuguese natively",
        0,
    ),
)
"""The profile slots said in a clause. Names start with a capital ("as a controls engineer" is no name)."""

LOWER_LOCATION = re.compile(r"^i\s+(?:live|am based|'m based)\s+in\s+(?P<location>[a-z][a-z-]+(?:\s[a-z][a-z-]+)?)$")
"""A turn written all in lower case ("i live in toronto") names a place in lower case too."""

# --------------------------------------------------------------------------- preferences and instructions

PREFERENCE: tuple[Row, ...] = (
    row(
        "preference.add",
        rf"^{_I}\s*(?:(?:really|also|usually|generally|much|strongly|do|absolutely|honestly|kind of|kinda|actually|"
        r"just|still|definitely|totally|tend to|always|genuinely|truly)\s+)*(?P<verb>prefer|like|love|enjoy|hate|"
        r"dislike|detest|despise|can't stand|cannot stand|can not stand|don't (?:really |much |particularly )?like|"
        r"do not (?:really )?like|don't (?:really )?enjoy|adore|'d rather|would rather)\s+(?P<what>.+)$",
        "I don't really like crowded places",
    ),
    row(
        "preference.add",
        rf"^(?:{_IM}|i'm really|i am really|(?:i've|i have|i|we've|we have|we)\s+(?:now\s+|finally\s+|slowly\s+)?"
        r"(?:become|turned into|grown into))\s+(?:not\s+)?(?:really\s+)?(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?"
        r"(?P<verb>fan of|into|obsessed with|crazy about|keen on|not keen on|more of an? [\w-]+ person|"
        r"a [\w-]+ person)\s*(?P<what>.*)$",
        "I'm a big fan of Brandon Sanderson's books",
    ),
    row(
        "preference.add",
        r"^(?:not|never been) (?:a |much of a )?(?:big |huge )?(?P<verb>fan) of (?P<what>.+)$",
        "Not a big fan of horror movies",
    ),
    row("preference.add", r"^my\s+favou?rite\s+(?P<what>.+?)\s+(?:is|are)\s+.+$", "My favourite band is Radiohead"),
    row("preference.add", r"^(?P<what>.+?)\s+(?:is|are)\s+my\s+favou?rite\b.*$", "Jazz is my favorite genre"),
)

ANSWERING = re.compile(
    r"\b(?:answers?|replies|reply|responses?|bullet points?|bullets|paragraphs?|short|shorter|concise|brief|"
    r"detailed|verbose|format(?:ting)?|tone|emojis?|(?:the|just|only|no|any|with|without|more|less) code|"
    r"code (?:examples|samples|snippets|blocks|comments)|examples|explanations?|"
    r"markdown|tables?|jargon|prose|units|metric|imperial|sources|citations|references|pleasantries|apologi[sz]\w*|"
    r"syntax|summar(?:y|ies|i[sz]e)|dates|english|german|french|spanish|italian|portuguese|dutch|"
    r"polish|hindi|japanese|chinese|formal|casual|direct|simple|simpler|plain|technical|emoji)\b",
    re.IGNORECASE,
)
"""Words about how to answer: a preference or an imperative holding one is a standing instruction."""


def about_answering(text: str) -> bool:
    """A word of :data:`ANSWERING`, or of an aspect of answering an instruction sets
    (:data:`~kioko_intelligence.instruction_topics.ASPECTS`: "keep it professional", "12-hour with am and pm")."""
    return ANSWERING.search(text) is not None or bool(aspects(text).keys() - _THE_USERS)


_THE_USERS = frozenset({"address", "pronouns"})
"""Aspects that are the user's own (a name, pronouns: "call me Bea" is their name, a profile slot)."""


_ASKED = (
    r"give me|use|assume|answer|reply|respond|write|send me|show me|put|keep|stop|start|include|add|leave out|skip|"
    r"avoid|be|make|call me|tell me|mention|list|suggest|recommend|draft|format|quote|cite|refer to|pick|stick to|"
    r"default to|go with|lead with|open with|start with|end with"
)
"""What the user asks the assistant to do in an instruction said with a recurring case ("When I ask for a pairing,
give me one red and one white"): a verb of answering, of any topic."""
_ONE_OFF = (
    r"(?:get a (?:chance|minute|moment|sec)|have (?:a (?:chance|minute|moment|sec)|time)|can|are done|'re done|"
    r"finish|'re free|are free|see this|read this)"
)
"""A case that happens once ("When you get a chance, check the logs"): a request, not a standing instruction."""

_BOOKING_STANDING = re.compile(
    r"\b(?:always|every time|each time|every single time|from now on|from here on|going forward|in future|"
    r"in the future|these days|nowadays|by default|as a rule)\b",
    re.IGNORECASE,
)
_WHENEVER_BOOKING = re.compile(r"^(?=.*\bwhenever\b)(?=.*\b(?:book|reserve|seat)\b)", re.IGNORECASE)
"""What makes a request to book or get something for the user a standing one ("These days book me the aisle",
"Book me an aisle seat whenever you can"): "whenever" only for a booking ("Send me the report whenever you can" is a
task for now)."""


def _standing_booking(text: str) -> bool:
    return _BOOKING_STANDING.search(text) is not None or _WHENEVER_BOOKING.match(text) is not None


INSTRUCTION: tuple[Row, ...] = (
    row(
        "instruction.add",
        r"^(?:please\s+|just\s+)?(?:(?:these days|nowadays|from now on|going forward|in future|by default),?\s+)?"
        r"(?:please\s+)?(?P<rule>(?:book|reserve|get|order|put|seat|find)\s+(?:me|us)\b.+)$",
        "Book me an aisle seat whenever you can",
        needs=_standing_booking,
    ),
    row(
        "instruction.add",
        r"^(?:please\s+)?(?P<rule>(?:always|never(?!\s+mind)|from now on,?|going forward,?|in (?:the )?future,?|"
        r"don't ever|do not ever)\s+.+)$",
        "Please always answer in German",
    ),
    row(
        "instruction.add",
        r"^(?:please\s+)?(?P<rule>(?:answer|respond|reply|write|talk|speak)\s+(?:to me\s+)?(?:in|with|using)\s+.+)$",
        "Talk to me in Spanish so I can practice",
    ),
    row(
        "instruction.add",
        r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?P<rule>(?:always|never|from now on|stop|start)\b.+)$",
        "Can you always include sources from now on",
    ),
    row(
        "instruction.add",
        r"^(?:please\s+|pls\s+|just\s+)?(?P<rule>(?:keep|don't|do not|stop|use|be|avoid|skip|include|format|"
        r"address me|call me|give me|no need to|no more|no\s+[\w-]+(?:\s+[\w-]+)?\s+(?:anymore|any more|please)|less|"
        r"more|write|reply|answer|respond|explain|talk|chat|speak|go back to(?!\s+(?:the|that|this|my|your)\b)|"
        r"go ahead and|switch to|stick to|enough of|(?:finish|end|begin|open|start)\s+(?:each|every|all|your))\b.+)$",
        "Keep your answers short please",
        needs=about_answering,
    ),
    row(
        "instruction.add",
        r"^(?:(?:from now(?: on)?|for now|now|these days|going forward),?\s+)?(?P<rule>you\s+(?:can|may|should|could|"
        r"must|are to)\s+(?:now\s+|also\s+|just\s+|only\s+)?(?:answer|respond|reply|write|talk|speak|use|switch|"
        r"call|address|give|keep)\b.+)$",
        "From now you can answer me in English",
        needs=about_answering,
    ),
    row(
        "instruction.add",
        r"^(?:please|pls)\s+(?P<rule>[a-z]+\s.*?\b(?:always|every time|each time|whenever)\b.*)$",
        "Please correct my English grammar always when I write something wrong",
    ),
    row(
        "instruction.add",
        r"^(?:please\s+|just\s+)?(?P<rule>(?:give me|use|write|show me|send me|put|keep|stop|start|don't|do not|"
        r"answer|reply|talk|speak|call me|address me)\b.+?\s+(?:from now on|from here on(?: in| out)?|going forward|"
        r"in future|from today on|for the rest of the \w+)(?:,?\s+please)?)$",
        "Give me do re mi from here on",
    ),
    row(
        "instruction.add",
        r"^(?:please\s+)?(?P<rule>(?:address me|refer to me|sign (?:off|emails) as)\s+.+)$",
        "Address me as Dr. Chen",
    ),
    row(
        "instruction.add",
        r"^(?:please\s+|just\s+)?(?P<rule>be\s+(?:(?:a bit|a little|more|less|very|extra|[a-z]+ly)\s+){0,2}[a-z-]+\s+"
        r"(?:with|to|towards)\s+me\b.*)$",
        "Please be relentlessly cheerful with me",
    ),
    row(
        "instruction.add",
        r"^(?P<rule>(?:(?:my|the|your|new|updated?|to)\s+){0,2}(?:(?:output|answer|answering|reply|response|"
        r"writing|formatting|format)\s+(?:prefs|preferences|rules|style|guidelines)|(?:prefs|preferences|rules|style|"
        r"guidelines)\s+(?:for|on)\s+(?:the\s+|your\s+|my\s+)?(?:output|answers?|replies|responses?|formatting|"
        r"writing))\s*:\s*.+)$",
        "Preferences for output: executive summary first, max 5 bullets",
    ),
    row(
        "instruction.add",
        r"^(?P<rule>(?:when|whenever|if)\s+you\s+.+)$",
        "When you write SQL for me, use Postgres syntax",
        needs=about_answering,
    ),
    row(
        "instruction.add",
        rf"^(?P<rule>(?:when(?:ever)?|each time|every time|any ?time)\s+(?:you|i)\s+(?!{_ONE_OFF})[^,]{{3,60}},\s*"
        rf"(?:please\s+|just\s+|always\s+)?(?:{_ASKED})\b.+)$",
        "When you give me commands, assume Ubuntu and apt",
    ),
    row(
        "instruction.add",
        rf"^(?:please\s+|just\s+)?(?P<rule>(?:{_ASKED})\b.+?,?\s+(?:always|every time|each time|every single time))$",
        "Give me times in Zulu, always",
    ),
    row(
        "instruction.add",
        rf"^(?P<rule>for\s+(?:any\s+|all\s+)?[\w'-]{{2,30}}[a-z]s,?\s+(?:please\s+|just\s+|always\s+)?"
        rf"(?:{_ASKED})\b.+)$",
        "For pairings just give me your single best bottle",
    ),
    row(
        "instruction.add",
        rf"^(?P<rule>{_I}\s*(?:(?:really|also|just|no longer|don't|do not|would|'d)\s+)*(?:want|like|prefer|need)"
        r"\s+(?!to\b).+)$",
        "I'd like shorter responses",
        needs=about_answering,
    ),
    row(
        "instruction.add",
        r"^(?P<rule>(?:strictly\s+|only\s+|just\s+)?[\w'/ -]{3,40}?(?:\s+only)?,?\s+(?:please|pls)\b(?:\s*[;,:]\s*.+)?)$",
        "Strictly plain text please; I'm using a screen reader",
        needs=about_answering,
    ),
)
"""Standing instructions. The imperatives and wishes that could be about anything count only when the
sentence is about answering (:data:`ANSWERING`)."""


def instruction_rule(text: str) -> str | None:
    """The standing instruction ``text`` states (the row's ``rule``), or None; an instruction after its reason
    and a "so" ("The choir has learned solfège, so give me do re mi from here on") is the whole sentence."""
    found = first(INSTRUCTION, text)
    if found:
        return found[1].group("rule")
    led = _SO_INSTRUCTION.match(text)
    if led and first(INSTRUCTION, led.group("rule")):
        return text
    return text if _led_by_an_order(text) else None


_SO_INSTRUCTION = re.compile(r"^.{8,}?(?:,\s*|\s+)so\s+(?P<rule>.+)$", re.IGNORECASE)
_NOT_AN_ORDER = frozenset(
    "i i'm i've i'd we we're we've my our the a an it it's its this that these those you your he she they there "
    "thanks thank ok okay sorry yes no yeah yep hi hey hello well oh so and but if when".split()
)
"""First words of a clause that is no order to the assistant (a subject, a greeting, a reply)."""


def _led_by_an_order(text: str) -> bool:
    """Is ``text`` a run of orders to the assistant, one of them a standing instruction in a later clause ("Drop the
    cheerleading, just give me straight answers, no pep")? The first clause opens with a verb (no subject, greeting
    or reply word: :data:`_NOT_AN_ORDER`), and a clause after a comma is an instruction by the rows."""
    parts = [p.strip() for p in re.split(r",\s*|;\s*", text) if p.strip()]
    if len(parts) < 2:
        return False
    opening = parts[0].split()[0].lower()
    if opening in _NOT_AN_ORDER or not opening.isalpha():
        return False
    return any(first(INSTRUCTION, part) for part in parts[1:])


# --------------------------------------------------------------------------- goals

_WHEN_WORD = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|"
    r"autumn|fall|winter|christmas|easter|year|term|semester|season)"
)
"""A time an aim is set for ("Now I go for C1 in December"; "Now we're going for a pint" sets none)."""
_NOT_AN_AIM = (
    r"(?!(?:know|ask|see|say|check|thank|talk|tell|mention|share|understand|clarify|confirm|add|note|make sure|"
    r"be clear|point out|let you|remind)\b)"
)
GOAL: tuple[Row, ...] = (
    row(
        "goal.add",
        r"^(?:my|our|the|our team's|the team's|next|new)\s+(?:[\w'-]+\s+){0,3}?(?:goal|aim|objective|target|mission|"
        r"ambition|resolution|focus|dream|plan|priority)\s+(?:for\s+[\w\s]+?\s+|this\s+\w+\s+|now\s+)?(?:is|will be|:)\s+"
        r"(?:to\s+)?"
        r"(?P<title>.+)$",
        "My main aim this semester is to get an A in statistics",
    ),
    row(
        "goal.add",
        r"^(?:goal|aim|objective|target|ambition|resolution)\s+(?:for\s+(?:the|this|next)\s+\w+|this\s+\w+)\s+"
        r"(?:is|will be)\s+(?:to\s+)?(?P<title>.+)$",
        "Target for the year is Grade 5 piano",
    ),
    row(
        "goal.add",
        r"^(?:(?![\w-]+'s\b)[\w'-]+\s+){0,2}?(?:(?:q[1-4]|h[12])\s+)?(?:goal|target|aim|objective|okr|kr)"
        r"(?:\s+(?:for\s+)?(?:this|the|next)\s+\w+)?\s*:\s*"
        r"(?P<title>.+)$",
        "Goal: ship v2 of the API before Christmas",
    ),
    row(
        "goal.add",
        rf"^(?:{_IM}\s+(?:also\s+|really\s+|still\s+)?|)(?:aiming|trying|hoping|planning|determined|"
        rf"working hard|looking|striving)\s+to\s+{_NOT_AN_AIM}(?P<title>.+)$",
        "I'm trying to get my AWS certification before summer",
    ),
    row(
        "goal.add",
        rf"^(?:{_IM}\s+(?:also\s+)?|)(?:aiming|working|working hard|pushing)\s+(?:for|towards?)\s+(?P<title>.+)$",
        "We're aiming for SOC 2 compliance by Q4",
        needs=lambda text: not _names_an_employer(text),
    ),
    row(
        "goal.add",
        rf"^{_I}\s*(?:also\s+|really\s+|still\s+|eventually\s+|definitely\s+)*(?:want|wanna|plan|intend|aim|hope|"
        rf"would like|'d like|would love|'d love|am hoping|'m hoping)\s+(?:to\s+)?{_NOT_AN_AIM}(?P<title>(?:be|get|"
        r"become|learn|run|read|finish|pass|visit|save|lose|write|build|launch|ship|reach|hit|cut|reduce|grow|"
        r"increase|improve|start|complete|earn|buy|move|travel|climb|swim|do|make|master|speak|play|"
        r"quit|stop|land|publish|release|migrate|achieve|double|triple|halve|bring|hire|raise|"
        r"close|win|own|pay|study|practice|practise|train|sell|switch|retire|open|join|apply|spend)\b.+)$",
        "I want to run a marathon by October",
    ),
    row(
        "goal.add",
        rf"^{_I}\s*(?:also\s+|really\s+)?(?:want|wanna|need|have)\s+(?:to\s+)?(?P<title>.+?\b(?:by|before|until)\b.+)$",
        "We need to migrate all services to Kubernetes by the end of the year",
    ),
    row(
        "goal.add",
        rf"^{_I}(?:'ve| have)\s+set\s+(?:myself|ourselves|us|me)\s+(?:a|the)\s+(?:goal|target)\s+(?:of|to)\s+"
        r"(?P<title>.+)$",
        "I've set myself a target of 10,000 steps a day",
    ),
    row(
        "goal.add",
        rf"^{_I}\s*(?:really\s+|fully\s+|still\s+)?(?:mean|intend)\s+to\s+{_NOT_AN_AIM}(?P<title>.+)$",
        "I mean to sail round the Scillies once more before I'm eighty",
    ),
    row("goal.add", r"^the plan is to\s+(?P<title>.+)$", "The plan is to launch the beta in June"),
    row(
        "goal.add",
        r"^next\s+(?:thing|up|one|on the list|challenge|mission)\s*[:,-]\s*(?P<title>(?:a|an|to|my|\d)[\w-]*\s.+)$",
        "Next thing: a sub-50 10k before the autumn",
    ),
    row(
        "goal.add",
        r"^now\s+(?:i|we)\s+(?:go|am going|'m going|are going|'re going|aim|am aiming|'m aiming)\s+for\s+"
        rf"(?P<title>(?=.*(?:\d|\b{_WHEN_WORD}\b)).+)$",
        "Now I go for C1 in December",
    ),
    row(
        "goal.add",
        r"^(?:(?:my\s+|the\s+)?[\w'-]+\s+(?:says|said|reckons|wants me to)\s+)?(?:go|aim|push|try)\s+for\s+"
        r"(?P<title>.+?),?\s+so\s+that's\s+(?:my|the|our)\s+new\s+(?:goal|target|aim)$",
        "Coach says go for 120 kg by Christmas, so that's the new target",
    ),
    row(
        "goal.add",
        r"^what\s+(?:i|we)\s+(?:really\s+|most\s+)?(?:want|need|am after|'m after|am aiming for|'m aiming for|"
        r"hope for|am going for|'m going for)\s+(?:to do\s+)?(?:(?:this|next)\s+\w+\s+|by\s+[\w\s]+?\s+)(?:is|are)\s+"
        r"(?:to\s+)?(?P<title>.+)$",
        "What I want this year is my CPC transport manager certificate",
    ),
    row(
        "goal.add",
        r"^(?:(?:my\s+|the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+(?:says|said|wants me|told me|recommends|reckons)\s+"
        r"(?:that\s+)?)?(?:i|we)\s+(?:should|must|need to|have to|ought to|am supposed to|'m supposed to)\s+"
        r"(?P<title>[a-z][\w'-]*\s+(?:[\w'-]+\s+){0,3}?\d[\d,.]*\s*[\w'%-]+(?:\s+[\w'-]+){0,3}?\s+"
        r"(?:a|per|each|every)\s+(?:day|night|week|month|year)\b.*)$",
        "Doctor says I should do 6000 steps a day",
    ),
)
"""Goals and aims: "my goal is", "I'm aiming to", "I want to <a verb of doing> ...", "the plan is to"."""

COMPLETE: tuple[Row, ...] = (
    row(
        "goal.complete",
        rf"^(?:{_I}\s*)?(?:have\s+|'ve\s+|just\s+|finally\s+|successfully\s+|officially\s+)*(?:finished|completed|"
        r"passed|shipped|achieved|reached|launched|released|delivered|accomplished|aced|nailed|cleared|"
        r"stabili[sz]ed|submitted|hit|got done with|am done with|'m done with|are done with|done with|"
        r"made it to|handed in|wrapped up|got)\s+(?P<mention>.+)$",
        "I passed the Azure exam",
    ),
    row(
        "goal.complete",
        r"^(?P<mention>.+?)\s+(?:is|are|'s)\s+(?:now\s+|finally\s+|officially\s+)?(?:complete|completed|done|"
        r"finished|over|live|shipped|launched)$",
        "The platform upgrade is complete",
    ),
)
DROP: tuple[Row, ...] = (
    row(
        "goal.drop",
        rf"^(?:{_I}\s*|{_IM}\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:gave up on|given up on|giving up on|"
        r"am giving up on|'m giving up on|abandoned|dropped|quit|stopped|ditched|shelved|scrapped|cancelled|"
        r"canceled|packed in|jacked in|binned|parked|parking|put on hold|put on ice)\s+"
        r"(?:(?:on|studying for|working on|training for|preparing for|trying to)\s+)?(?P<mention>.+)$",
        "I'm giving up on Rust",
    ),
    row(
        "goal.drop",
        rf"^(?:{_IM}\s+(?:not going to|not gonna|no longer going to|no longer)\s+(?:chasing|pursuing|doing|going for|"
        r"working on|trying to|aiming for|planning to)?|(?:not|no longer)\s+(?:chasing|pursuing|doing|going for|"
        r"working on|trying for|aiming for))\s*(?P<mention>.+)$",
        "I'm not going to learn Rust after all",
    ),
    row(
        "goal.drop",
        rf"^{_I}(?:'ve| have)?\s+decided\s+(?:not\s+to|against)\s+(?P<mention>.+)$",
        "I've decided not to run the marathon this year",
    ),
    row(
        "goal.drop",
        r"^(?P<mention>.+?)\s+(?:(?:is|'s)\s+(?:off|cancelled|canceled|dead|not happening|on hold|on ice)|"
        r"(?:can|will have to|'ll have to)\s+wait)\b|"
        r"^(?P<mention2>.+?)\s+(?:isn't|is not)\s+(?:happening|going to happen)",
        "The marathon is off",
    ),
)
_AMOUNT = r"(?P<number>\d{1,3}(?:\.\d+)?)\s?(?:%|percent|per cent)"
_FRACTION = (
    r"(?P<fraction>halfway|half way|half-way|half|a third|one third|two thirds|a quarter|one quarter|three quarters)"
)
PROGRESS_FIGURE = re.compile(rf"\b{_AMOUNT}|\b{_FRACTION}\b", re.IGNORECASE)
PROGRESS_WORD = re.compile(
    r"\b(?:done|complete|completed|finished|through|into|of the way(?: through)?|there)\b|"
    r"\bat\s+(?:about\s+|roughly\s+|around\s+)?(?=\d)",
    re.IGNORECASE,
)
FRACTIONS = {
    "halfway": 0.5,
    "half way": 0.5,
    "half-way": 0.5,
    "half": 0.5,
    "a third": 1 / 3,
    "one third": 1 / 3,
    "two thirds": 2 / 3,
    "a quarter": 0.25,
    "one quarter": 0.25,
    "three quarters": 0.75,
}
COUNT_OF = re.compile(
    r"\b(?P<done>\d+(?:,\d{3})*)\s+(?:out\s+)?of\s+(?:the\s+|my\s+|our\s+)?(?P<total>\d+(?:,\d{3})*)\b"
)
"""Progress as a count: "I've read 12 of the 24 books", "20 of the 40 services are on Kubernetes"."""

# --------------------------------------------------------------------------- decisions

DECISION: tuple[Row, ...] = (
    row(
        "decision.add",
        rf"^{_I}\s*(?:have\s+|had\s+|'ve\s+|finally\s+|just\s+|all\s+)*(?P<verb>decided|agreed|settled|chose|"
        r"picked|opted|selected|committed|went with|ended up (?:choosing|picking|going with|with)|locked in)\s+"
        r"(?:to\s+|that\s+|on\s+|for\s+)?(?:(?:it|this|that)\s*[:\u2014-]\s*)?(?P<body>.+)$",
        "We went with Postgres for the new service since we already run it",
    ),
    row(
        "decision.add",
        rf"^(?:{_I}(?:'ll| will| are going to|'re going to|'m going to| am going to| are gonna|'re gonna|'m gonna)|"
        rf"let's|{_IM}|{_I}'ll|{_I} will)\s+(?P<verb>go with|going with|stick with|sticking with|use|using|"
        r"be using)\s+(?P<body>.+)$",
        "We're going with Vercel for hosting",
    ),
    row(
        "decision.add",
        r"^(?:the team|the board|management|leadership|everyone|we all|the committee|my partner and i|"
        r"my wife and i|my husband and i)\s+(?P<verb>decided|agreed|approved|chose|picked|voted)\s+"
        r"(?:to\s+|that\s+|on\s+|for\s+)?(?P<body>.+)$",
        "The team agreed to use trunk-based development",
    ),
    row(
        "decision.add",
        r"^(?:the (?:call|decision) (?:was made|has been made|is)\s+(?:to\s+)?|(?P<verb>decision|decided|"
        r"final answer|final decision|verdict)\s*:\s*)(?P<body>.+)$",
        "Decided: weekly releases on Tuesdays",
    ),
    row(
        "decision.add",
        r"^(?:our|my|the)\s+(?:pick|choice)\s+for\s+(?P<topic>.+?)\s+is\s+(?P<choice>.+)$",
        "Our pick for the analytics stack is dbt plus BigQuery",
    ),
    row(
        "decision.add",
        r"^(?P<body>[^,;]{8,}?)\s*(?:,|;|\s-|:)\s*(?:(?:it's|that's|it is|that is|all|now)\s+)?"
        r"(?P<verb>decided|agreed|settled|confirmed|final)(?:\s*,\s*[a-z]+)?\s*[.!]*$",
        "Quiz night stays on a Wednesday, decided",
    ),
)
STATED_DECISION_VERBS = frozenset(
    "decided agreed settled confirmed final decision verdict approved voted".split()
    + ["final answer", "final decision"]
)
"""Verbs of :data:`DECISION` after which the body is the decision as said (no "go with" put before it)."""

CHANGE_CUE = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing) (?:off|away|over|on)|migrat\w+|replac\w+|instead|rather than|"
    r"dropp(?:ed|ing)|ditch(?:ed|ing)|no longer|not anymore|anymore|is out|are out|is gone|got rid|"
    r"took (?:its|their) place|from now on|now|over|not|moved|moving|changed|changing)\b|\s(?:->|=>|\u2192)\s",
    re.IGNORECASE,
)
"""A sentence naming a current decision's choice and another one with one of these (or an arrow, "FastAPI ->
Litestar") replaces the decision."""

SWITCH: tuple[Row, ...] = (
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*|(?P<topic0>[\w\s]+?)\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+|now\s+)*(?:switched|moved|migrated|"
        r"changed|went|transitioned|relocated|shifted)\s+(?:over\s+)?from\s+(?P<old>.+?)\s+(?:over\s+)?to\s+"
        rf"(?P<new>.+?){_WHY}$",
        "We switched from Qdrant to pgvector because we already run Postgres",
        options=("may_be_a_move",),
    ),
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*|{_IM}\s+)?(?:have\s+|'ve\s+|just\s+|now\s+)*(?:switched|switching|moved|moving|migrated|"
        r"migrating|changed|changing)\s+(?P<topic>.+?)\s+(?:over\s+)?to\s+(?P<new>[^,;]+?)"
        r"(?:(?:\s*[,;]\s*|\s+(?:because|since|as|so that)\s+)(?P<why>.+))?$",
        "Switched payments over to Adyen, Stripe's fees were too high",
    ),
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*)?(?:have\s+|'ve\s+|just\s+)?(?:replaced|swapped|traded|exchanged)\s+(?P<old>.+?)\s+"
        rf"(?:with|for)\s+(?P<new>.+?)(?:\s+for\s+(?P<topic>.+?))?{_WHY}$",
        "We replaced Stripe with Adyen for payments",
        options=("needs_decision",),
    ),
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*)?(?:have\s+|'ve\s+|just\s+)?(?:ditched|dropped|left|abandoned)\s+(?P<old>[^,;]+?)\s+for\s+"
        rf"(?P<new>[^,;]+?){_WHY}$",
        "We ditched Stripe for Adyen",
    ),
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*)?(?:have\s+|'ve\s+|just\s+)?moved\s+(?:off|away from)\s+(?P<old>.+?)\s+and\s+(?:on)?to\s+"
        r"(?P<new>.+?)(?:\s+(?:last|this|in)\b.*)?$",
        "We moved off Airflow and onto Dagster last sprint",
    ),
    row(
        "decision.supersede",
        rf"^(?P<new>.+?)\s+(?:replaces|replaced|has replaced|is replacing|will replace|takes over from|took over from)"
        rf"\s+(?P<old>[^,;]+?)(?:\s+(?:for|as)\s+(?P<topic>.+?))?(?:\s+(?:last|this|in)\b.*)?{_WHY}$",
        "GitHub Actions replaced Jenkins for our CI last month",
        options=("needs_decision",),
    ),
    row(
        "decision.supersede",
        rf"^(?:{_I}\s*)?(?:chose|picked|went with|opted for|are going with|'re going with|will go with|'ll go with)"
        r"\s+(?P<new>.+?)\s+over\s+(?P<old>[^,;]+?)"
        rf"(?:\s+for\s+(?P<topic>.+?))?(?:\s+after all|\s+in the end)?{_WHY}$",
        "We chose Porto over Lisbon for the offsite after all",
        options=("needs_decision",),
    ),
    row(
        "decision.supersede",
        rf"^instead of\s+(?P<old>[^,]+?)\s*,?\s+{_I}\s*(?:now\s+)?(?:use|will use|'ll use|are using|'re using|"
        rf"went with|go with|chose|picked)\s+(?P<new>.+?)(?:\s+now)?{_WHY}$",
        "Instead of MySQL we use Postgres for the user database now",
    ),
    row(
        "decision.supersede",
        rf"^(?P<new>.+?)\s+(?:instead of|rather than|in place of)\s+(?P<old>[^,;]+?)(?:\s+now|\s+after all|"
        rf"\s+in the end)?{_WHY}$",
        "We're going with Dagster instead of Airflow now",
        options=("needs_decision_unless_chosen",),
    ),
    row(
        "decision.supersede",
        rf"^(?P<new>.+?)\s*,\s+not\s+(?P<old>[^,;]+?){_WHY}$",
        "On second thought we'll go with pgvector, not Qdrant",
        options=("needs_decision",),
    ),
)
"""A choice replaced. ``new`` may carry its verb ("We're going with Dagster"): the router keeps the named part."""
"""Rows with ``needs_decision`` replace only a decision in force ("X, not Y" with nothing decided is no change
of mind); "X instead of Y" too unless X is chosen with a verb of choosing (:data:`CHOOSING`)."""
CHOOSING = re.compile(r"\b(?:use|using|chose|choose|picked|pick|opted|went with|go with|going with|switch\w*)\b", re.I)

CHOICE_LEAD = re.compile(
    r"^(?:.*?\b(?:with|use|using|getting|get|buy|buying|bought|chose|choose|picked|pick|go|going|"
    r"on|onto|to|for|'s|is|it's|are|'re)\s+)+(?:an?\s+|the\s+)?",
    re.IGNORECASE,
)
"""The verb phrase in front of a new choice: "We're going with Dagster" -> "Dagster"."""

# --------------------------------------------------------------------------- lessons and procedures

LESSON: tuple[Row, ...] = (
    row(
        "strategy.add",
        r"^(?:(?:a|the|my|our|big|key|main|one|important|biggest|hard)\s+)*(?:lessons?(?: learned| learnt)?|"
        r"takeaways?|rule of thumb|pro tip|tip|learning|note to self|notes to self|reminder to self|"
        r"for next time|note for next time|what i (?:learned|learnt)|what we (?:learned|learnt)|"
        r"something i (?:learned|learnt))(?:\s+(?:from|of|for|to|about)\s+[^:\-\u2013]{1,40}?)?"
        r"(?:\s+(?:today|this week|yesterday))?\s*[:\-\u2013]\s*(?P<lesson>.+)$",
        "Note to self: always take a snapshot before upgrading Postgres",
    ),
    row(
        "strategy.add",
        rf"^(?:{_I}\s*)?(?:have\s+|'ve\s+)?(?:learned|learnt)(?: the hard way| today| recently)?\s+that\s+"
        r"(?P<lesson>.+)$",
        "I learned the hard way that you should pin your dependency versions",
    ),
    row(
        "strategy.add",
        r"^next time,?\s+(?:i'll|i will|we'll|we will|i should|we should|i need to|we need to|i must|we must|"
        r"remember to|make sure to|i'm going to|we're going to)?\s*(?P<lesson>.+)$",
        "Next time I'll test the backup restore before the migration",
    ),
    row(
        "strategy.add",
        r"^(?:in hindsight|looking back|in retrospect),?\s+(?P<lesson>(?:i|we)\s+should(?:\s+have|'ve)\s+.+)$",
        "In hindsight, we should have load-tested before the launch",
        template="{text}",
    ),
    row(
        "strategy.add",
        r"^never again will (?:i|we)\s+(?P<lesson>.+)$",
        "Never again will I run migrations without a backup",
        template="Never {lesson}",
    ),
    row(
        "strategy.add",
        r"^what (?:really )?(?:worked|works) (?:for me|for us|best)(?: was| is)\s+(?P<lesson>.+)$",
        "What worked for me was breaking the essay into 300-word chunks",
    ),
    row(
        "strategy.add",
        r"^the (?:trick|secret|key)\s+(?:with|to|for|in)\s+(?P<context>.+?)\s+is\s+(?:to\s+)?(?P<lesson>.+)$",
        "The trick with sourdough is to keep the starter warm",
    ),
)
LESSON_CONTEXT = re.compile(r"^(?:when|while|whenever|if|before|after|for)\s+([^,]{3,}),\s*(.+)$", re.IGNORECASE)
GOOD_TO_KNOW = re.compile(
    r"^(?:good|useful|worth|nice) to (?:know|remember|keep in mind)(?: for (?:next time|the future|later))?$|"
    r"^(?:lesson learned|lesson learnt|noted for next time|remember that for next time)$",
    re.IGNORECASE,
)
"""A sentence that makes the turn's other sentences a lesson: "Turns out X. Good to know for next time."."""

PROCEDURE: tuple[Row, ...] = (
    row(
        "procedure.add",
        r"^(?:to|how to|in order to)\s+(?P<task>[^,:]{3,}?)\s*[,:]\s*(?P<steps>.+)$",
        "To reset the safety relay, switch off the breaker, then press reset for 5 seconds",
        needs=lambda text: first(INSTRUCTION, text) is None,
    ),
    row(
        "procedure.add",
        r"^(?:here's|here is|this is|that's|that is)?\s*how (?:i|we)\s+(?:usually\s+)?(?P<task>[^,:]{3,}?)\s*:\s*"
        r"(?P<steps>.+)$",
        "Here's how I deploy: build the image, push it, then bump the tag",
    ),
    row(
        "procedure.add",
        r"^(?:my|our|the)\s+(?P<head>(?:[\w-]+\s+){0,3}?(?:process|routine|procedure|workflow|checklist|recipe|"
        r"steps?|way)(?:\s+(?:for|to|of)\s+[^:]{3,}?)?|way (?:i|we) [^:]{3,}?)\s*(?:is|are)?\s*:\s*(?P<steps>.+)$",
        "The steps to restore a backup are: stop the app, download the snapshot, then start the app again",
    ),
    row(
        "procedure.add",
        r"^(?:my\s+|our\s+|the\s+)?(?P<head>(?:[\w-]+\s+){0,2}?(?:plan|to-?dos?|to-?do list|itinerary|agenda)"
        r"(?:\s+(?:for|to|of)\s+[^:]{3,}?)?|"
        r"(?:[\w-]+\s+){0,2}?steps)\s*(?:is|are)?\s*:\s*(?P<steps>.+)$",
        "Plan for the office move: first pack the lab equipment, then book the movers, then update the address",
    ),
    row(
        "procedure.add",
        r"^(?P<head>(?:recipe|instructions|steps|checklist) for [^:]{3,}?|[^:,]{3,40}?\s+works like this)\s*:\s*"
        r"(?P<steps>.+)$",
        "Rolling back works like this: revert the merge commit, wait for the pipeline, then check the dashboards",
    ),
    row(
        "procedure.add",
        r"^(?P<head>(?:when|whenever|every time|each time)\s+(?!you\b)[^,]{3,}?)\s*,\s*(?:i|we)\s+"
        r"(?:usually\s+|always\s+|first\s+)?(?P<steps>.+)$",
        "Whenever a new hire joins, I create their accounts, add them to Slack, and book an intro",
        options=("loose",),
    ),
    row(
        "procedure.add",
        r"^(?P<head>(?:when|whenever|if|every time|each time)\s+(?!(?:you|i|we)\b)[^,]{3,}?)\s*,\s*"
        r"(?P<steps>(?!(?:the|an?|it|its|this|that|these|those|there|they|he|she|i|we|you|my|our|your|their|his|her|"
        r"then|and|but|so|not|no)\b)[a-z]+\s.+)$",
        "When the label printer jams, open the lid, pull the roll out, and feed it back in under the guide",
        options=("loose",),
    ),
    row(
        "procedure.add",
        r"^(?P<head>for\s+(?:an?\s+|every\s+|each\s+)[^,]{3,}?)\s*,?\s+(?:i|we)\s+(?P<steps>.+)$",
        "For a hotfix we branch off the release tag, cherry-pick the fix, and deploy straight to prod",
        options=("loose",),
    ),
    row(
        "procedure.add",
        r"^(?:i|we)\s+(?:usually\s+|always\s+|normally\s+|typically\s+)?(?P<task>[^,]{3,}?)\s+by\s+"
        r"(?P<steps>\w+ing\b.+)$",
        "I usually prep for an exam by reviewing my notes, doing past papers, and then sleeping early",
        options=("loose",),
    ),
    row(
        "procedure.add",
        r"^first(?:ly)?,?\s+(?:i|we)\s+(?P<steps>.+)$",
        "First I pull the latest main, then I run the migrations, and finally I restart the workers",
        options=("loose",),
    ),
)
"""Steps for a task; the ``loose`` rows (no "to <task>:" header) need three steps or a "then"."""
STEP_SPLIT = re.compile(
    r"\s*[,;]\s*(?:and\s+then\b|then\b|and\s+finally\b|finally\b|after\s+that\b|and\b)?\s*|"
    r"\s+(?:and\s+then|then|after\s+that|afterwards|and\s+finally|finally|lastly)\s+|\s*\b\d+[.)]\s+",
    re.IGNORECASE,
)
SEQUENCE = re.compile(r"\b(?:then|after that|afterwards|finally|lastly|next)\b|\b\d+[.)]\s", re.IGNORECASE)
STEP_START = re.compile(r"^(?:first(?:ly)?|start by|begin by|i|we|and)\s*,?\s+", re.IGNORECASE)

# --------------------------------------------------------------------------- working memory

_DOING = (
    r"debugging|fixing|investigating|working on|looking into|troubleshooting|trying to fix|analy[sz]ing|testing|"
    r"reviewing|writing|preparing|setting up|migrating|deploying|handling|dealing with|configuring|installing|"
    r"upgrading|repairing|diagnosing|focused on|focusing on|in the middle of|busy with|chasing|tracking down|"
    r"refactoring|building|drafting|cleaning up|triaging|editing|rewriting|patching|updating"
)
_ING = (
    r"(?!(?:nothing|something|anything|everything|morning|evening|thing|during|bring|string|spring|wedding|ceiling|"
    r"building|meeting|king|ring|sing|feeling|being|having|loving|liking|hating|enjoying|hoping|thinking|wondering|"
    r"missing|wishing|getting|going|coming|looking forward|moving|trying|aiming|striving)\b)[a-z]{2,}ing"
)
"""An activity under way ("redlining", "plating"): a word in -ing that is not a thing ("morning") nor a state
("feeling", "going": those say how the user is or where they will be, not what they are doing). Nor "moving"
("Moving on to db-05" with an identifier is a move on: ``working_changes`` rewrites the task it holds)."""
_DONE_FIRST = (
    r"(?:[^,]{1,40}?\b(?:done|finished|settled|out|crashed|sorted|fixed|closed|complete|completed|wrapped up|"
    r"back with [^,]+)\s*,\s*)?"
)
"""What was finished, said before the next activity ("Bay 3 settled, heading to bay 7 now"): part of the task."""
_CODE = r"(?:\b[A-Za-z]+[-_]?\d[\w-]*|#\d+|[\w.-]*/[\w./-]*\w)"
"""An identifier (web-03, B13, #4830, a path): moving on to one is ``working_changes``' to read, which rewrites
the identifier in the task the session holds ("Patching server db-02 tonight" -> "... db-05 ...")."""
_NOW_TAIL = r"(?:right now|at the moment|currently|now|today|for now|next|tonight|this morning|this afternoon)"
HABIT = re.compile(r"\b(?:every|each|usually|always|normally|often|most (?:days|mornings|evenings))\b", re.IGNORECASE)
"""A habit is not the task of the session ("Running 5k every morning")."""
STATED = re.compile(
    r"\b(?:is|are|was|were|got|gets|has|have|had|will|would|starts?|ends?)\b|\b(?:it|that|there|he|she|they)'s\b",
    re.IGNORECASE,
)
"""A verb that states something: the -ing word is a thing then ("Driving test got moved, it's July 8 now")."""
TASK: tuple[Row, ...] = (
    row(
        "working.set",
        rf"^{_IM}\s+(?:currently\s+|now\s+|still\s+|just\s+|busy\s+)*(?P<task>(?:{_DOING})\b.+)$",
        "I'm debugging ticket INC-4521",
    ),
    row(
        "working.set",
        r"^(?:currently\s+|still\s+|now\s+|just\s+)*(?P<task>(?:working on|looking into|debugging|investigating|"
        r"troubleshooting|digging into)\b.+)$",
        "Currently working on PR #418 for the billing fix",
    ),
    row(
        "working.set",
        rf"^(?:currently|still)\s+(?P<task>(?:{_DOING})\b.+)$",
        "Still debugging the memory leak in the worker",
    ),
    row(
        "working.set",
        rf"^(?P<task>(?:{_DOING})\s+(?:\w+\s+){{0,3}}?[\w/.-]*\d[\w/.-]*\b.*)$",
        "Patching server db-02 tonight",
    ),
    row(
        "working.set",
        r"^(?:my|our)\s+(?:current\s+|main\s+)?(?:task|focus|job for today)(?:\s+(?:right now|today|for today|"
        r"at the moment|this week))?\s+is\s+(?:to\s+)?(?P<task>.+)$",
        "My task right now is to clean up the old S3 buckets",
    ),
    row(
        "working.set",
        rf"^(?P<task>{_DONE_FIRST}(?:now\s+|currently\s+|still\s+|just\s+)*(?:{_ING}|on (?:a|the) (?:call|phone)|"
        rf"with (?:a|the|my) \w+)\b.*?)\s*,?\s+{_NOW_TAIL}$",
        "Doing the lambing records for the north field flock today",
        needs=lambda text: HABIT.search(text) is None and STATED.search(text) is None,
    ),
    row(
        "working.set",
        r"^(?:currently|right now|at the moment)\s*,?\s+(?P<task>with\s+(?:a|the|my)\s+.+)$",
        "Currently with the patient in bay 3",
    ),
    row(
        "working.set",
        rf"^(?P<task>{_DONE_FIRST}now\s+{_ING}\b.+)$",
        "Table 9 out, now firing table 14's starters",
        needs=lambda text: STATED.search(text) is None,
    ),
    row(
        "working.set",
        rf"^(?P<task>{_DONE_FIRST}(?:on to|onto|moving on to|turning to|next up is)\s+(?!.*{_CODE}).+?)(?:\s+now)?$",
        "Lambing records finished, on to the feed order now",
    ),
    row(
        "working.set",
        rf"^(?P<task>{_DONE_FIRST}{_ING}\s+(?:\w+\s+){{0,3}}?[\w/.-]*\d[\w/.-]*\b.*)$",
        "B12 crashed, rerunning it as B13 with less memory",
        needs=lambda text: HABIT.search(text) is None and STATED.search(text) is None,
    ),
)
POINTER = re.compile(
    r"^(?:the|my|our|here's the|here is the|this is the)\s+(?:log(?: file)?|file|link|url|path|ticket|branch|repo|"
    r"error|dashboard|stack trace|trace|pr|runbook)\b.*?(?:\bis\b|\bare\b|:|\bat\b|\bfrom\b|\bon\b)|"
    r"^(?:i'm|i am|im|we're|we are)\s+(?:now\s+|currently\s+|still\s+)?on\s+(?:the\s+)?(?:git\s+)?branch\b",
    re.IGNORECASE,
)
"""A sentence that only points at something of the session ("The log file is at ...", "I'm on branch
feature/sso-login, wiring up the SAML callback"): the scratchpad only."""

# --------------------------------------------------------------------------- chatter

CHATTER = re.compile(
    r"^(?:let's(?!\s+(?:use|go with|stick with|switch|pick|choose|move|keep))|let us|let me|imagine|suppose|"
    r"remind me|never mind|nevermind|if (?:i|we) (?:were|had|could)|(?:ha+,?\s+)?if only\b(?!\s+\w+\s+\w+)|"
    r"i'll get back|i will get back|i see what you mean|i see(?!\s+[\w.])|i think so|i guess|that sounds|sounds good|"
    r"that's (?:interesting|great|fine|ok|okay|cool|fair|true|right|not what)|no,? that's not|it depends|"
    r"i'm not sure|i am not sure|not sure|i'm just curious|just curious|i was wondering|great question|"
    r"good question|wait|hmm+|hm+|sure|of course|go ahead|bye|see you|haha+|hehe|lol|lmao|wow|phew|what a relief|"
    r"nice one|(?:thanks|thank you)(?: so much| a lot)?,? (?:that|this|it) (?:was|is|'s) (?:really |very |so |super )?"
    r"(?:helpful|useful|great|nice|interesting|impressive)|that (?:was|is|'s) (?:really |very |so |super )?"
    r"(?:helpful|useful|impressive|interesting|amazing|awesome))\b",
    re.IGNORECASE,
)
"""Conversation about the conversation: nothing to remember, even when it is not small talk."""
COUNTERFACTUAL = re.compile(
    r"^(?:(?:ha+|lol|honestly|tbh|well|so|man|god|imagine)[,!.]?\s+)*if\s+(?:only\s+)?(?:i|we)\s+(?:ever\s+|just\s+|"
    r"actually\s+|still\s+)?(?:[a-z]+ed|were|was|had|won|could|did|went|got|made|took|lost|found|knew|bought|sold|"
    r"quit|left|became|ran|met|came|lived|owned|spoke|grew)\b[^.;]*?[,\s]\s*(?:i|we|it|that|life|things)(?:'d|\s+would|\s+might|"
    r"\s+could)\b",
    re.IGNORECASE,
)
"""A wish said as a counterfactual ("If I won the lottery I'd just buy a boat", "if we had more room we'd get a
dog", "If I ever moved abroad it'd be somewhere like Portugal"): what would be, not what is; nothing to remember.
A plan's condition ("If I get the job, I'll move") is read."""
CHATTER_WHOLE = re.compile(
    r"(?:(?:ok(?:ay)?|great|perfect|nice|cool|good|sure|right|alright|ha+|yes|yeah|hmm+|oh|ah)[,!.]?\s+)*"
    r"(?:sounds like a plan|good to know(?:,? thanks)?|love it|interesting(?:,? tell me more)?|tell me more|"
    r"(?:that's |this is )?exactly what i (?:needed|wanted|was looking for)|"
    r"great (?:suggestion|idea|tip|advice)(?:,? i'll (?:try|use) (?:it|that|this))?|"
    r"i'll (?:think about|try|check|look into|give) (?:it|that|this)(?: a (?:go|try|shot))?|"
    r"i will (?:think about|try|check) (?:it|that|this)|"
    r"sorry,? i was (?:away|busy|afk|distracted)(?: for a (?:bit|while|moment|minute|second))?|"
    r"you're (?:right|a star|the best|amazing|a lifesaver)|my (?:mistake|bad)|fair (?:point|enough)|"
    r"(?:that )?makes (?:a lot of |total )?sense(?:,? thanks(?: for explaining)?)?|"
    r"(?:that|this|which) explains (?:it|that|a lot|everything|why)|"
    r"(?:(?:anyway|anyhow|anyways)[,!.]?\s+)?(?:enough about me|enough of that|where was i|back to you)|"
    r"(?:ha(?:ha)+h?|lol|lmao)[,!.]?\s+stop(?:\s+it)?)",
    re.IGNORECASE,
)
"""A whole sentence of reaction to the conversation ("Sounds like a plan", "Great suggestion, I'll try it",
"Sorry, I was away for a bit"): it must be all the sentence says, so "Perfect, I moved to Berlin" is read."""

# --------------------------------------------------------------------------- feedback on what was served

FEEDBACK_OK = re.compile(
    r"\b(?:(?:that|this|it)(?:'s| has| have)?\s+(?:worked|works(?: now)?|fixed it|did the trick|did it|solved it|helped)|"
    r"works now|problem solved|all good now|that fixed it|it's fixed|fixed now)\b",
    re.IGNORECASE,
)
FEEDBACK_BAD = re.compile(
    r"\b(?:still broken|didn't work|did not work|doesn't work|does not work|still (?:failing|not working|the same|broken)|"
    r"no luck|that failed|not fixed|made it worse|still getting)\b",
    re.IGNORECASE,
)
"""A sentence saying whether the suggestion the agent was given worked (searched anywhere in the sentence)."""

# --------------------------------------------------------------------------- forgetting

FORGET_POINTER = re.compile(
    r"\b(?:stored?|storing|on (?:record|file)|remember\w*|memor(?:y|ies)|(?:keep|keeping|have|hold) (?:it|that|this|them)|"
    r"you (?:have|know|keep)|(?:i|we) (?:gave|told|sent) you)\b",
    re.IGNORECASE,
)
"""What makes "delete my X" a request to forget: the sentence also points at what the assistant keeps ("..., I
don't want it stored"); "delete the staging database" alone is about the user's work."""
FORGET: tuple[Row, ...] = (
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:let's\s+|let us\s+)?(?:forget|don't remember|do not remember|stop remembering|unlearn)\s+"
        r"(?:about\s+|that\s+)?(?P<phrase>.+)$",
        "Forget about my trip to Berlin",
    ),
    row(
        "memory.delete",
        r"^(?:i'd|i would)\s+(?:rather|prefer)\s+(?:that\s+)?you\s+(?:didn't|did not|don't|do not|not|never)\s+"
        r"(?:keep|store|remember|hold on to|save|record)\s+(?P<phrase>.+)$",
        "I'd rather you didn't keep my old address",
    ),
    row(
        "memory.delete",
        r"^(?:i'd|i would)\s+(?:rather|prefer)\s+(?:(?:that\s+)?you\s+|it\s+if\s+you\s+)(?:just\s+)?"
        r"(?:forgot|forget|deleted|erased|dropped|let go of)\s+(?:about\s+)?(?P<phrase>.+)$",
        "I'd prefer you forgot about my old address",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:just\s+)?pretend\s+(?:that\s+)?(?:i|we)\s+never\s+(?:told you|said|mentioned|shared)\s+"
        r"(?:anything\s+)?(?:about\s+)?(?P<phrase>.+)$",
        "Pretend I never told you about my old address",
    ),
    row(
        "memory.delete",
        r"^(?:i\s+)?(?:don't|do not)\s+(?:want|need)\s+you\s+to\s+(?:keep|store|remember|hold on to|save)\s+"
        r"(?P<phrase>.+)$",
        "I don't want you to keep my old address",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:don't|do not|stop)\s+(?:keep|keeping|store|storing|hold on to|holding on to)\s+"
        r"(?P<phrase>(?:my|the|that|this|anything|everything)\s+.+)$",
        "Please stop storing my old address",
    ),
    row(
        "memory.delete",
        r"^(?:(?:there's\s+|there is\s+)?no need to remember|you (?:can|may|could) (?:forget|drop|delete)|"
        r"you (?:don't|do not) need to (?:remember|keep|know))\s+(?:about\s+)?(?P<phrase>.+)$",
        "No need to remember my old address anymore",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:delete|remove|erase|get rid of|drop|scratch|clear)\s+(?P<phrase>(?:my|the|that|this)\s+.+)$",
        "Delete my old address, I don't want it stored",
        needs=lambda text: FORGET_POINTER.search(text) is not None or DELETE_SLOT.search(text) is not None,
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:delete|remove|erase|clear|wipe|drop|scratch|purge|get rid of)\s+(?P<phrase>.+?)\s+"
        r"(?:from|out of|in)\s+(?:your\s+|the assistant's\s+|kioko's\s+|the\s+)?(?:memory|memories|notes|records)\b",
        "Please delete my old address from your memory",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:delete|remove|erase|clear|wipe|drop|scratch|purge|get rid of)\s+(?P<phrase>(?:everything|anything|all)\s+"
        r"(?:about|on|regarding|concerning)\s+.+)$",
        "Scratch everything about the Lisbon project",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:delete|remove|erase|clear|wipe|forget)\s+(?:everything|all|anything)\s+"
        r"(?:that\s+)?(?:you know|you remember|you have stored|you've stored|you've got|you have got|you have|you've|"
        r"you keep)\s+"
        r"(?:about|on|of|regarding)\s+(?P<phrase>.+)$",
        "Erase everything you know about my ex",
    ),
    row(
        "memory.delete",
        r"^(?:please\s+)?(?:delete|remove|erase|clear|wipe)\s+(?:all\s+)?(?:of\s+)?(?:your\s+|the\s+)?"
        r"memories\s+(?:about|of|on|regarding)\s+(?P<phrase>.+)$",
        "Delete all your memories about the Lisbon project",
    ),
)
"""A request to forget; what to forget (``phrase``) is matched against the user's memories. Read after
:data:`ASK_TO` ("Could you please ...") and :data:`FORGET_LEAD` ("Actually, ...") are cut."""
FORGET_THAT = re.compile(r"^(?:please\s+)?(?:delete|erase|wipe|remove)\s+(?:it|that|this)$", re.IGNORECASE)
"""A request to erase what the sentence before named ("Please erase it"): nothing of its own to forget or keep."""
FORGET_LEAD = re.compile(
    r"^(?:(?:actually|on second thoughts?|come to think of it|in fact|oh|and|also|ok(?:ay)?|hmm+|so|well|wait|"
    r"one more thing|by the way|btw|hang on|hold on|sorry)\b[,!:]?\s+)+",
    re.IGNORECASE,
)
"""Words that open a request to forget without changing it ("Actually, forget everything about Priyanka")."""
FORGET_TAIL = re.compile(
    r"\s+(?:and|but)\s+(?:keep|leave)\b.*$|"
    r"\s+(?:from|out of|in)\s+(?:your\s+|the\s+)?(?:memory|memories|notes|records)\b.*$|"
    r"\s+(?:that\s+)?(?:i|we)\s+(?:gave|told|said to|mentioned to|shared with)\s+you\b.*$|"
    r"\s+(?:that\s+)?you\s+(?:have|know|keep|stored|have stored|remember)\b.*$|"
    r"\s+(?:entirely|completely|altogether|for good|please|as well|too|at all|anymore|any more|any longer|now)$|"
    r"\s+(?:ever\s+)?happened$",
    re.IGNORECASE,
)
"""Words after what to forget that only point at the memory ("the plate I gave you", "Tom entirely")."""
FORGET_ALIASES = {
    "salary": ("earn", "income", "paid", "pay", "wage", "grand"),
    "income": ("earn", "salary", "paid"),
    "weight": ("weigh", "kilo", "kilos", "kg", "pounds", "stone"),
    "birthday": ("born", "birth"),
    "address": ("street", "road", "avenue", "lane", "live"),
    "licence": ("license", "registration", "reg"),
    "license": ("licence", "registration", "reg"),
    "password": ("passcode", "code", "pin"),
    "pin": ("code", "passcode"),
    "number": ("code", "pin", "combination", "combo"),
    "code": ("number", "pin", "combination", "combo", "passcode"),
    "combination": ("code", "number", "combo"),
    "medication": ("take", "tablet", "pill", "prescription"),
    "bank": ("account", "sort", "iban", "card"),
}
"""Words a request names a thing by that its memory may not use ("forget my salary" for "I earn 85k"): a word
of the request counts as found when one of its aliases is."""
FORGET_SUBJECT = re.compile(
    r"\b(?:everything|anything|all)\s+(?:that\s+)?(?:(?:you|i|we)\s+(?:know|remember|have stored|'ve stored|have|keep|"
    r"said|told you|mentioned)\s+)?(?:about|on|regarding|concerning)\s+|\bmemories\s+(?:about|of|on|regarding)\s+|"
    r"\bwhat (?:i|we) (?:said|told you|mentioned) (?:about|on)\s+|"
    r"\bwhat you (?:know|have|remember|have stored|'ve stored|'ve got) (?:about|on)\s+|\b(?:any|every|all) mentions? of\s+",
    re.IGNORECASE,
)
"""A forget of a subject, not of one statement ("forget everything about Krutika", "erase all your memories of
the Lisbon project", "forget what I said about Jonas"): every memory naming it goes (``memory.forget_about``)."""
ASK_TO = re.compile(r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)", re.IGNORECASE)
# Kinds are named here by design: these are the English words people use for a kind of memory ("my likes",
# "the rules") and the kind each means, vocabulary the registry's names are not.
FORGET_KINDS = {
    "preferences": "preference",
    "likes and dislikes": "preference",
    "likes": "preference",
    "dislikes": "preference",
    "instructions": "instruction",
    "rules": "instruction",
    "goals": "goal",
    "decisions": "decision",
    "procedures": "procedural",
    "facts": "factual",
    "lessons": "strategy",
}
"""The kinds a request can forget as a whole ("forget all my preferences"), by the word it names them with."""
FORGET_KIND = re.compile(
    r"^(?:please\s+)?(?:forget|delete|remove|erase|clear|wipe|drop|reset|scratch|purge|scrap|bin|ditch|dump)\s+(?:out\s+)?"
    r"(?:(?:all|every(?:thing)?|any)\s+(?:of\s+)?(?:my|the|your)?|my|your)\s*(?P<kind>"
    + "|".join(FORGET_KINDS)
    + r")\b"
    r"(?!\s+(?:about|of|on|regarding|for)\b)",
    re.IGNORECASE,
)
"""A request to forget a whole kind of memory ("drop all the instructions I gave you", "clear out my
preferences"); "forget all my goals about X" is about X, not the kind. Without "all" the kind must be the
user's ("my"/"your"): "delete the decisions table" is about the user's work."""
FORGET_CATEGORIES = (
    "deadlines|due dates|people|persons|contacts|family|relatives|friends|colleagues|co-?workers|health|medical|"
    "money|finances|phone numbers|"
    r"[a-z]+ (?:preferences|likes|dislikes|tastes)"
)
"""What a forget may name beside a kind (:mod:`~kioko_intelligence.forget_reading`'s ``FORGET_CATEGORY``: "clear all
the deadlines", "forget all my food preferences")."""
FORGET_NOT_GATED = (
    r"\b(?:delete|remove|erase|clear|wipe|drop|reset|scratch|purge|scrap|bin|ditch|dump)\s+(?:out\s+)?"
    r"(?:all\s+|every\s+|any\s+)?"
    r"(?:of\s+)?(?:my|the|your)\s+(?:" + "|".join(FORGET_KINDS) + "|" + FORGET_CATEGORIES + r")\b|"
    # "remove all deadlines": "all" and a kind or category of memory, with no "my" / "the"
    r"\b(?:delete|remove|erase|clear|wipe|scratch|purge)\s+(?:out\s+)?(?:all|every)\s+(?:"
    + "|".join(FORGET_KINDS)
    + "|"
    + FORGET_CATEGORIES
    + r")\b|"
    r"\bfrom (?:your |the )?memor(?:y|ies)\b|\brather you (?:didn't|did not|don't|not)\b|"
    r"\b(?:don't|do not) (?:want|need) you to (?:keep|store|remember)\b|"
    r"\b(?:don't|do not|stop) (?:keep|store)(?:ing)? (?:my|the|that|this)\b|\bno need to remember\b|"
    r"\b(?:delete|remove|erase|wipe|scratch|purge|drop|clear|get rid of)\s+(?:everything|anything|all)\s+(?:about|on|regarding)\b|"
    r"\byou (?:can|may|could) (?:forget|drop|delete)\b|\b(?:don't|do not) want (?:it|that|this|them) (?:stored|kept|on record)\b"
)
"""Requests to forget that read like requests to the assistant ("Drop all the instructions I gave you"):
the gate lets them through (:func:`~kioko_intelligence.language.gate_reason`)."""
SAID_POINTER = (
    r"(?:the|my|that|this|our)\s+(?:[\w'-]+\s+){0,3}?(?:thing|stuff|bit|part|business)\b(?!\s+(?:is|was|are|were)\b)"
)
"""What points at something the user said ("the bit about my knee", "the Lisbon thing"): after "scrap", "ignore",
"never mind" ... it makes the sentence a request to forget (:data:`DISMISS_SAID`)."""
DISMISS_SAID = (
    r"^(?:(?:actually|oh|ok(?:ay)?|so|and|also|wait|sorry|yeah|no|hang\s+on|hold\s+on)\b[,!]?\s+)*"
    r"(?:(?:can|could|would|will)\s+you\s+|you can\s+|please\s+|just\s+)*"
    r"(?:(?:scrap|bin|ignore|disregard|never\s*mind|strike|cross out|scratch|erase|delete|remove|wipe|drop|"
    r"get rid of|clear)\s+(?=what (?:i|we) (?:just\s+|earlier\s+)?(?:said|told you|mentioned|shared)\b|what you (?:know|have|remember|"
    r"have stored|'ve stored|'ve got) (?:about|on)\b|(?:any|every|all) mentions? of\b|"
    r"(?:the|that|this)\s+(?:bit|bits|part|stuff|thing|things)\s+(?:about|on|regarding)\b)|"
    rf"(?:scrap|bin|ignore|disregard|never\s*mind|strike|cross out|scratch)\s+(?={SAID_POINTER}))"
)
"""A verb that dismisses what was said, before "what I said" or a pointer at it ("Scrap what I said about Dmitri",
"Never mind the Lisbon thing", "You can ignore the bit about my knee"): read as "forget ..."."""
FORGET_NOT_GATED += "|" + DISMISS_SAID
FORGET_FRAME = re.compile(
    r"^(?:what (?:i|we) (?:said|told you|mentioned) (?:about|on)|anything (?:about|on)|everything (?:about|on)|"
    r"(?:that\s+)?(?:i|we)\s+(?:ever\s+)?(?:mentioned|said|told you)(?:\s+(?:anything\s+)?about)?|"
    r"what you (?:know|have|remember|have stored|'ve stored|'ve got) (?:about|on)|(?:any|every|all) mentions? of|"
    r"the (?:note|thing|bit|part|memory|fact|stuff) (?:about|on)|about)\s+",
    re.IGNORECASE,
)
"""The frame around what to forget ("what I said about", "the note on"): cut from the phrase."""
CUT = re.compile(r"\s*[,;]\s*|\s+(?:because|since|as|cause)\s+", re.IGNORECASE)
"""Where a mention ends: a comma or a reason ("forget my address, I moved")."""
EVERYTHING = frozenset(
    {
        "it",
        "that",
        "this",
        "everything",
        "all",
        "all of it",
        "all of that",
        "everything you know",
        "everything about me",
        "all of this",
        "me",
        "all that",
        "everything i said",
        "everything i told you",
        "what i said",
        "all memories",
        "all your memories",
    }
)
"""Phrases that ask to forget everything: never done from a conversation (``forget_user`` is explicit)."""
SLOTS = {
    "name": "name",
    "age": "age",
    "phone number": "phone_number",
    "phone": "phone_number",
    "mobile": "phone_number",
    "mobile number": "phone_number",
    "cell number": "phone_number",
    "email": "email",
    "email address": "email",
    "e-mail": "email",
    "birthday": "birthday",
    "date of birth": "birthday",
    "address": "address",
    "home address": "address",
    "job": "job_title",
    "job title": "job_title",
    "role": "job_title",
    "title": "job_title",
    "company": "employer",
    "employer": "employer",
    "team": "team",
    "manager": "manager",
    "boss": "manager",
    "timezone": "timezone",
    "time zone": "timezone",
    "native language": "language",
    "first language": "language",
    "language": "language",
    "hometown": "hometown",
    "location": "location",
    "city": "location",
    "country": "country",
    "api key": "api_key",
    "password": "password",
    "username": "username",
    "user name": "username",
    "website": "website",
    "github": "github",
}
_DELETE_SLOT = (
    r"\b(?:delete|remove|erase|wipe|scratch|purge)\s+my\s+(?:" + "|".join(sorted(SLOTS, key=len, reverse=True)) + r")\b"
)
DELETE_SLOT: re.Pattern[str] = re.compile(_DELETE_SLOT, re.IGNORECASE)
"""A profile slot is deleted only from memory: "Delete my phone number please" is a forget (and passes the gate)."""
FORGET_NOT_GATED += "|" + _DELETE_SLOT
"""Profile slots said as "my <slot> is <value>", by the words that name them."""
SLOT = re.compile(
    r"^my\s+(" + "|".join(sorted(map(re.escape, SLOTS), key=len, reverse=True)) + r")\s+(?:is|=|:)\s+(.+)$",
    re.IGNORECASE,
)
SLOT_MENTION = re.compile(r"^(?:my|the user's)\s+(.+)$", re.IGNORECASE)

# --------------------------------------------------------------------------- a move

MOVED: tuple[Row, ...] = (
    row(
        "profile.set",
        r"^(?:(?:big |good |great |some )?news[,:!]?\s+|so,?\s+|well,?\s+|also,?\s+|btw,?\s+|by the way,?\s+)?"
        r"(?:i|we)\s*(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:moved|relocated)\s+to\s+(?P<place>.+)$",
        "We just moved to Lisbon",
    ),
)
"""A move without the place left ("We just moved to Lisbon"): the location, when the place looks like one."""
TIME_TAIL = re.compile(
    r"\s+(?:last|this|yesterday|today|tonight|earlier|(?:a|an|one|two|three|four|five|six|\d+)\s+(?:minutes?|hours?|days?|"
    r"weeks?|months?|years?)|in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|in\s+\d{4}|"
    r"on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|over\s+the\s+(?:summer|winter|spring|autumn|fall|weekend|"
    r"holidays?))\b.*$",
    re.IGNORECASE,
)
"""A time at the end of a mention ("the Berlin marathon last Sunday", "to Austin in March"): not part of it."""

# --------------------------------------------------------------------------- what a sentence says in passing

REMEMBER_PREFIX = re.compile(
    r"^(?:(?:(?:can|could|would|will)\s+you\s+|(?:i|we)\s*(?:would like|'d like|want|need)\s+you\s+to\s+)?"
    r"(?:please\s+)?(?:remember|note to self|note|keep in mind|don't forget|do not forget)\b\s*(?:that\s+|:\s*)?|"
    r"(?:i|we)\s*(?:would like|'d like|want|need)\s+you\s+to\s+(?:please\s+)?(?=call me\b|address me\b)|"
    r"(?:as\s+)?(?:i|we)\s+(?:already\s+)?(?:told|said to)\s+you,?\s+(?:that\s+)?(?=(?:i|i'm|i've|my|we|we're|our)\b))",
    re.IGNORECASE,
)
"""What opens a statement the user wants kept ("remember that ...", "I need you to remember ...", "I'd like you to call
me Sam") or says again ("I told you my sister lives in Leeds"): the statement is read without it."""
CHOSEN = re.compile(
    r"\b(?:use|using|adopt|go with|pick|choose|switch to|move to|buy|hire|deploy|run)\s+"
    r"(?:the\s+|a\s+|an\s+)?([\w.+#/-]+)",
    re.IGNORECASE,
)
RATIONALE = re.compile(r"\s*,?\s+(?:because|since|as|so that)\s+", re.IGNORECASE)

IDENTIFIERS: tuple[Row, ...] = (
    row(
        "working.set",
        r"\b(?:ticket|incident|issue|bug|case|story)\s*#?\s*([A-Z][A-Z0-9]*-\d+|\d{3,})\b"
        r"|\b((?:INC|TICKET|REQ|CHG|BUG|SR|PRB|TASK)-?\d+)\b",
        "Looking at ticket 4521 again",
        slot="ticket",
    ),
    row(
        "working.set",
        r"\b((?!(?:UTF|ISO|SHA|MD|COVID|SOC|IPV|TLS|SSL|HTTP|CVE)-)[A-Z][A-Z0-9]{1,9}-\d+)\b",
        "OPS-77 is the one",
        0,
        slot="ticket",
    ),
    row(
        "working.set",
        r"\b(?:on|checked out|check out|checking out|checkout|switched to|switching to|switch to|created|cut|"
        r"pushed to|rebased|merged)\s+(?:the\s+|a\s+|my\s+|our\s+|new\s+)*(?:git\s+)?branch\s+`?"
        r"([\w.-]*[/_-][\w./-]*\w|main|master|develop|trunk)\b`?"
        r"|\b(?:checked out|checking out|git checkout(?:\s+-b)?|git switch(?:\s+-c)?)\s+`?([\w.-]+/[\w./-]*\w)`?"
        r"|\b(?:the\s+)?`?([\w.-]+/[\w./-]*\w)`?\s+branch\b",
        "Checked out hotfix/cookie-expiry",
        slot="branch",
    ),
    row(
        "working.set",
        r"\b(?:PR|MR|pull request|merge request)\s*#?\s*(\d+)\b",
        "PR 418 has the fix",
        slot="pull_request",
    ),
    row(
        "working.set",
        r"\b(?:work order|WO)\s*#?\s*([A-Z0-9][\w-]*\d[\w-]*)",
        "Work order WO-1182 is open",
        slot="work_order",
    ),
    row(
        "working.set",
        r"\b(?:error|fault|alarm|exception)\s+(?:code\s+)?#?\s*([A-Z]{1,4}-?\d+|0x[0-9A-Fa-f]+|\d{2,})\b",
        "The drive shows fault F0002",
        slot="error",
    ),
    row(
        "working.set", r"(https?://[^\s,;)]+[^\s,;).])", "The dashboard is https://grafana.example/d/42", 0, slot="link"
    ),
    row(
        "working.set",
        r"(?<![\w:/.])((?:~|\.{1,2})?(?:/[\w.-]+){2,}/?|[A-Za-z]:\\(?:[\w.-]+\\)*[\w.-]+)"
        r"|(?<![\w:/.@-])([\w-]+(?:/[\w.-]+)+\.[A-Za-z]{1,5})\b",
        "The log is at /var/log/app/error.log",
        0,
        slot="file",
    ),
)
"""The session's identifiers, searched anywhere in a sentence; a row's ``slot`` is the working-memory key and
its first group that matched the value."""

RELATION: tuple[Row, ...] = (
    row(
        "relation.add",
        rf"^(?P<subject>{NAME_WORDS})\s+(?P<relation>uses|runs on|reports to|is part of|belongs to|works at|works for|"
        rf"depends on|is located in|manages|owns|is owned by|connects to|is based in|leads)\s+(?P<object>{NAME_WORDS})\.?$",
        "Postgres runs on Kubernetes",
        0,
    ),
)
"""A relation between two named things, with the graph on (names start with a capital)."""

# --------------------------------------------------------------------------- goals: the words around a mention

GOAL_WORDS = frozenset("goal goals target targets objective objectives aim aims resolution plan dream".split())
HEDGES = re.compile(
    r"\b(?:maybe|about|roughly|around|nearly|almost|like|probably|so far|now|already|just|over|approximately|"
    r"i'd say|i think|i guess)\b",
    re.IGNORECASE,
)
SO_FAR = re.compile(
    r"\b(?P<amount>\d[\d,]*(?:\.\d+)?)\b(?=.*\b(?:so far|to date|towards?|until now)\b)|"
    r"\b(?:so far|to date)\b.*?\b(?P<amount2>\d[\d,]*(?:\.\d+)?)\b",
    re.IGNORECASE,
)
OWN_VERB = re.compile(
    r"^(?:(?:i|we)\s+(?:just\s+|finally\s+|actually\s+)*)?(?P<verb>[a-z]+)\s+(?P<rest>.+)$", re.IGNORECASE
)
PAST_OF = {
    "run": "ran",
    "get": "got",
    "read": "read",
    "write": "wrote",
    "win": "won",
    "buy": "bought",
    "make": "made",
    "do": "did",
    "go": "went",
    "swim": "swam",
    "become": "became",
    "build": "built",
    "take": "took",
    "see": "saw",
    "find": "found",
    "ride": "rode",
    "climb": "climbed",
    "hit": "hit",
    "lose": "lost",
    "sell": "sold",
    "quit": "quit",
    "give": "gave",
    "begin": "began",
    "fly": "flew",
    "teach": "taught",
    "learn": "learned",
}

# --------------------------------------------------------------------------- what the rest of a turn is

FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b", re.IGNORECASE)
ONGOING = re.compile(
    r"^(?:i'm|i am|we're|we are)\s+(?:\w+ly\s+|still\s+|now\s+|currently\s+)?\w+ing\b"
    r"|\b(?:is|are|was|were)\s+(?:still\s+)?\w+ing\b",
    re.IGNORECASE,
)
STANDING = re.compile(
    r"^(?:i'm|i am|we're|we are)\s+(?:(?:a|an)\s+(?:retired|former|qualified|trained|registered|certified|licensed|"
    r"chartered|married|divorced|widowed|self-employed|semi-retired)\b|(?:\w+ly\s+|still\s+)?(?:training|saving|"
    r"studying|preparing|revising|practi[cs]ing)\s+(?:up\s+)?for\s+(?:a|an|my|our|the)\s)",
    re.IGNORECASE,
)
"""Who the user is or what they are working towards, said in the words of a past or an ongoing act ("I'm a retired
magistrate", "I'm training for a triathlon", "we're saving for a house"): a standing fact of theirs, not an episode
(with a time cue it is one: "I'm training for the race this week")."""
IRREGULAR_PAST = frozenset(
    """
went was were had did got made took came saw gave found told felt left kept began bought brought built caught
chose drove ate fell forgot flew grew heard held knew lost met paid put ran read said sent set sold spent stood
thought understood won wrote broke cut let hit quit shut became slept spoke taught wore woke rode sang swam
""".split()
)
"""Irregular past forms of verbs (the language's and the moments' reading of what is past)."""
PAST_AUX = re.compile(r"\b(?:was|were|had|did)\b|'ve\b|\b(?:have|has)\s+(?:\w+ly\s+)?(?:been|\w+ed)\b", re.IGNORECASE)
NOT_PAST = frozenset("need needed? speed feed bed red seed embed hundred shed based used indeed".split()) - {"needed?"}
PASSIVE = re.compile(r"\b(?:is|are|be|been|being|am|'s|'re|get|gets)\s+\w+ed\b", re.IGNORECASE)
YOU = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)
GENERIC_YOU = re.compile(
    r"\b(?:when|whenever|if|once|as soon as|before|after|unless|until|till)\s+you(?:'ve|'re)?\s+"
    r"(?!(?:can|could|would|will|might|may|please|mind|don't mind|do not mind|get a (?:chance|minute|moment))\b)"
    r"[^,;:.!?]*",
    re.IGNORECASE,
)
"""A clause of anyone's "you", opened by a word of time or condition: "far easier on the back when you lift the
supers", "cheaper if you book early". It says how a thing is for anyone, not something to the assistant; a
request's "if you could", "when you get a chance" is one."""


def addressed(text: str) -> bool:
    """Does ``text`` speak of or to the assistant ("you", "your") outside a clause of anyone's "you"
    (:data:`GENERIC_YOU`)?"""
    return bool(YOU.search(GENERIC_YOU.sub(" ", text)))


ATTRIBUTE = re.compile(
    r"^(?:i'm|i am)\s+(?!(?:ready|back|here|there|sorry|done|fine|ok|okay|good|great|tired|busy|confused|lost|"
    r"curious|in|out|off|home|away|awake|asleep|late|early|bored|hungry|excited|happy|sad|stuck|free|available|"
    r"around|listening|alright|well|new|not|so|just|also|still)\b)[a-z][\w-]+$",
    re.IGNORECASE,
)
"""A two-word first-person attribute ("I'm vegetarian", "I'm left-handed"), classified though it is short."""
NO_AIM = re.compile(r"^\w+\s+(?:it|this|that|them|him|her)\b", re.IGNORECASE)
PRONOUN_SUBJECTS = frozenset("he she they it we i you this that there".split())
"""Subjects that are no name: "She reports to Maria" adds no relation. Who "she" is, the sentence does not say; an
entity "She" would join every woman the user mentions and outlive a forget of the person."""
DEICTIC = re.compile(r"^(?:that|this|it|these|those)(?:'s\b|\s)", re.IGNORECASE)
DEICTIC_REASON = re.compile(
    r"^(?:that|this|it|these|those)\b[^,;]*?(?:,\s*|\s+)(?:and so|so|which is why|that's why)\s+"
    r"(?P<rest>(?:the|my|our|i|i'm|i've|we|we're|we've|a|an|user|user's)\b.+)$",
    re.IGNORECASE,
)
"""A reason only the conversation explains, then what follows from it ("It was peaking way too early so the
starter's on a bedtime feed these days"): the consequence, which opens on a subject of its own, is the statement
("It was so good I cried" opens no subject after "so" and is left alone)."""
NOT_TAIL = re.compile(r"\s*,\s*not\s+[^,]+$", re.IGNORECASE)
"""A correction's tail ("I live in Madrid, not Barcelona"): not part of the slot's value."""
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
    "thousand million once twice"
).split()
NUMBERS = re.compile(r"\b(?:\d+(?:[.,]\d+)?%?|" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
NUMBER_CHANGE = re.compile(
    r"\b(?:now|up to|down to|went up|went down|since|anymore|these days|so far|increased|decreased|grew|"
    r"dropped to|rose|nowadays)\b",
    re.IGNORECASE,
)
TIME_UNITS = frozenset(stem(w) for w in "second minute hour day week month year time".split())
NUMBER_STEMS = frozenset(stem(w) for w in NUMBER_WORDS)
QUANTITY = re.compile(
    r"\b(\d+(?:[.,]\d+)?|" + "|".join(NUMBER_WORDS) + r")\s+(?:more\s+|extra\s+)?([a-z][a-z-]+)", re.IGNORECASE
)
TOOLISH = frozenset(
    """
postgres postgresql mysql sqlite oracle mongodb redis kafka qdrant pgvector python java rust go golang ruby
javascript typescript azure aws gcp jira slack teams excel linux windows mac macos docker kubernetes react
vue angular django flask spark grafana tableau notion confluence github gitlab bitbucket
""".split()
)
SENTENCE_WORDS = frozenset(
    """
i we you he she they it my our the a an this that these those actually so change changed ok okay well also and but
then now turns switched moved instead yes no oh hey hi after on since because as if when while for with from to
""".split()
)

TABLES: dict[str, tuple[Row, ...]] = {
    "PROFILE": PROFILE,
    "PREFERENCE": PREFERENCE,
    "INSTRUCTION": INSTRUCTION,
    "GOAL": GOAL,
    "COMPLETE": COMPLETE,
    "DROP": DROP,
    "DECISION": DECISION,
    "SWITCH": SWITCH,
    "LESSON": LESSON,
    "PROCEDURE": PROCEDURE,
    "TASK": TASK,
    "FORGET": FORGET,
    "MOVED": MOVED,
    "IDENTIFIERS": IDENTIFIERS,
    "RELATION": RELATION,
}
"""Every table of rows by its name (the tests route each row's example)."""
