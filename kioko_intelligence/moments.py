"""Passing states of the moment: what is so right now and will not be by the next conversation.

"My tea's gone stone cold again.", "The A66 is a car park this morning.", "My phone's on 3 percent, so quick one.",
"My brain is fried after that hearing.", "I'm starving, haven't eaten since six.", "Sitting in the car park waiting
for my daughter.": each says how something is at this moment, and nothing a later question could use; a memory of
it is stale before it is read. The gate reads such a sentence as small talk.

A sentence is a passing state when every part of it (cut at commas, colons, dashes) is

- **a state of now**: the present state of one of the user's things or of the world around them ("my tea's gone
  stone cold", "the A66 is a car park", "my feet are killing me", the weather's "it's chucking it down"), a mood of
  the user (:data:`~kioko_intelligence.asides.MOODS`, "done", "back", "crying") with nothing after it but what
  dates it to now or its effect now ("with today", "I can barely see straight"), the user's posture said without a
  subject ("Sitting in the car park ..."), or what has not happened since a moment of today ("haven't eaten since
  six"); or
- **a mark of the moment**: a hurry or a pause ("so quick one", "hang on"), an aside or a reaction ("Long day",
  "Right");

and the sentence is dated to the moment: a mood, a posture and the weather are of the moment by themselves; a
thing's state needs a time of now ("again", "this morning", "right now", "after that hearing") or a mark beside it.

Nothing in it may last: no span ("since the op", "till Friday", "for weeks", "every", "always", "these days"), no
date or plan ("tomorrow", "Monday", "next", "will", "going to", "is to"), no change said done ("finally", "at
last"), no number but a percentage or a clock time, no one but the user (a relative, a friend, "he", a name:
"Mum's in hospital again" is read as usual), and no more than :data:`MAX_WORDS` words.

Not a passing state, read as usual: "My knee's been bad since the op" (a span), "I'm vegetarian" (no state of
now), "My car's in the garage till Friday" (a span: working memory), "I'm single again" (the user's state other than
a mood), "I'm rubbish at maths" (a mood word with more after it), "It's my birthday today" (an occasion).
Not handled: a state without a time of now or a mark ("The dog's snoring next to me"), a past mishap of the moment
("I left my keys in the door again").
"""

from __future__ import annotations

import re

from kioko_intelligence.asides import MOODS, is_aside, reproaches_self, squeeze
from kioko_intelligence.reactions import is_reaction
from kioko_intelligence.rules import FEEDBACK_BAD, FEEDBACK_OK, IRREGULAR_PAST, NOT_PAST

MAX_WORDS = 16
"""A state of the moment is said in a breath: a longer sentence says more."""

_NOW = re.compile(
    r"\b(?:right\s+now|rn|atm|just\s+now|this\s+(?:morning|afternoon|evening)|again|"
    r"after\s+(?:that|this|the|today's|this\s+morning's|all\s+that)\s+[a-z]+(?:\s+[a-z]+)?|"
    r"since\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midday|breakfast|lunch|"
    r"lunchtime|dinner|\d{1,2}(?::\d\d)?\s*(?:am|pm|o'clock)?|this\s+morning|i\s+(?:got|woke)\s+up)|"
    r"while\s+i\s+was\s+[a-z]+(?:\s+[a-z]+){0,2}$|"
    r"for\s+(?:\d+|a\s+few|a\s+couple\s+of|an|a\s+good|ten|twenty|thirty|forty|fifty|two|three|five)\s+"
    r"(?:minutes|mins|hours?|hrs?))\b",
    re.IGNORECASE,
)
"""A time of now: a time of this day, "again", a cause just past ("after that hearing", "since six", "while I was
typing"), minutes or hours ("for 40 minutes")."""
_TODAY = re.compile(
    r"^(?:today|tonight|this\s+(?:morning|afternoon|evening)|right\s+now|rn|atm|now|again)$", re.IGNORECASE
)
_HURRY = re.compile(
    r"^(?:(?:so|and|but)\s+)?(?:(?:a\s+)?quick\s+one|hang\s+on|hold\s+on|one\s+sec(?:ond)?|bear\s+with\s+me|"
    r"brb|(?:gotta|got\s+to|must)\s+(?:run|go|dash|be\s+quick)|(?:don't|do\s+not)\s+mind\s+me|ignore\s+me|"
    r"(?:i'll\s+be\s+)?back\s+in\s+(?:a|one)\s+(?:sec|second|minute|min|mo|moment|tick|jiffy))$",
    re.IGNORECASE,
)
"""A hurry or a pause said beside the state ("..., so quick one", "..., hang on")."""

_LASTING = re.compile(
    r"\b(?:since|for\s+(?:ages|years|months|weeks|days|hours|good|ever|\d+)\b|for\s+(?:a|an|the|two|three|four|five|"
    r"six|several|few|many|some)\s+(?:\w+\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?|while|summer|winter|"
    r"foreseeable|rest|time\s+being)\b|until|till|til|every|each|always|usually|normally|often|never|anymore|any\s+more|these\s+days|"
    r"lately|recently|from\s+now\s+on|for\s+good|permanently|finally|at\s+last|tomorrow|next|week|weekend|month|"
    r"year|season|term|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|"
    r"july|august|september|october|november|december|will|won't|'ll|going\s+to|gonna|plan|planning|want|wants|"
    r"hope|hoping|need\s+to|have\s+to|has\s+to|should|would|might)\b|"
    r"\b(?:is|are|am|'s|'re|'m)\s+to\s+[a-z]+",  # "My task right now is to clean up the buckets": a plan
    re.IGNORECASE,
)
"""What outlasts the moment: a span, a date, a plan, a change said done."""
_PERSON = re.compile(
    r"\b(?:mum|mom|mam|mother|dad|father|parents?|son|daughter|kids?|children|child|baby|wife|husband|partner|"
    r"boyfriend|girlfriend|brother|sister|sibling|gran|granny|grandma|grandad|grandpa|grandfather|grandmother|"
    r"aunt|auntie|uncle|cousin|niece|nephew|friend|boss|manager|colleague|neighbour|neighbor|he|she|they|his|her|"
    r"their|him|them|doctor|nurse|teacher)\b",
    re.IGNORECASE,
)
"""Someone else than the user: what happens to them is theirs to keep."""
_WAITED_FOR = re.compile(r"\b(?:waiting|queuing|queueing)\s+(?:for|on)\s+(?:my|the|our)\s+[a-z]+", re.IGNORECASE)
"""Whom a posture waits for ("waiting for my daughter"): the wait is the state, the daughter is not its news."""
_NAME = re.compile(r"(?<!^)(?<!\bthe\s)(?<!\bThe\s)(?<!\boutside\s)(?<!\bnear\s)(?<!\bpast\s)\b(?!I\b|I')[A-Z][a-z]+")
"""A name other than the first word, a "the ..." or a place passed ("the A66", "the Central line", "stuck outside
Wigan" are places of the moment)."""
_NUMBER_OF_NOW = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:%|percent|per\s+cent)|\b\d{1,2}(?::\d\d)?\s*(?:am|pm|o'clock)\b|\b\d{1,3}\s*(?:minutes|mins)\b",
    re.IGNORECASE,
)
"""A number of the moment: a battery, a clock time, minutes; any other number may last."""

_ADVERBS = (
    r"(?:(?:gone|got|been|sat|stood|just|still|all|absolutely|completely|totally|so|really|well|proper|properly|"
    r"literally|right|a\s+bit|a\s+little|bit|dead|stone|bone|on)\s+)*"
)
_LEAD = r"(?:(?:honestly|ugh|oh|god|man|argh|sigh|well|so|and|but|lol|ha|blimey|jeez|right|urgh|yo|omg|aiyo|lah)\s+)*"
_THING = re.compile(
    rf"^{_LEAD}(?:my|the|our|this|that)\s+(?:[\w'-]+\s+){{0,2}}?[\w'-]+?(?:'s|'re|\s+is|\s+are|\s+has|\s+have)\s+{_ADVERBS}[a-z'-]+",
    re.IGNORECASE,
)
"""A present state of a thing ("my tea's gone stone cold", "the A66 is a car park", "my feet are killing me")."""
_BODY = re.compile(
    rf"^{_LEAD}my\s+(?:brain|head|eyes|feet|back|legs|hands|fingers|neck|shoulders|stomach|tummy|throat|nose|body)"
    r"(?:'s|'re|\s+is|\s+are)\s+(?!(?:being|getting|having)\b).*\b(?:today|tonight)\b",
    re.IGNORECASE,
)
"""The user's body today ("Honestly my brain is mush today"): of the day by itself; "My back is being scanned
today" is an appointment."""
_TIME_LEFT = re.compile(
    r"^(?:i've|i\s+have|i)\s+(?:only\s+)?got\s+(?:\d{1,3}|a|one|two|three|five|ten|fifteen|twenty|a\s+few|"
    r"a\s+couple\s+of)\s+(?:minutes?|mins?|seconds?|secs?)(?:\s+(?:before|till|until)\s+(?:my|the)\s+next\s+[a-z]+)?$",
    re.IGNORECASE,
)
"""The user's time right now ("I've got five minutes before my next call"): a state of now by itself."""
_WEATHER = re.compile(
    rf"^(?:it's|it\s+is)\s+{_ADVERBS}(?:[a-z]+ing|{MOODS})\b(?:\s+(?:it\s+down|down|out|outside|here|in\s+here|"
    rf"out\s+there|up|today|tonight|this\s+(?:morning|afternoon|evening)))*$",
    re.IGNORECASE,
)
_WEATHER_HERE = re.compile(
    rf"^(?:it's|it\s+is)\s+{_ADVERBS}[a-z]+\s+(?:in\s+here|out\s+there|here|outside|out)$", re.IGNORECASE
)
"""The weather's "it" ("It's absolutely chucking it down here", "It's baltic in here"); "It's my birthday" is not."""
_MOOD = re.compile(
    rf"^(?:i'm|im|i\s+am|(?:i'm\s+|i\s+am\s+)?feeling)\s+(?:(?:so|really|very|totally|completely|absolutely|utterly|just|that|well|proper|"
    rf"properly|literally|a\s+bit|a\s+little|bit)\s+)*(?:{MOODS}|done|back|crying|dying|melting|shivering|"
    rf"yawning|flagging|wilting|fading|soaked|drenched|frozen|boiling|sweating|hot|in\s+(?:such\s+)?a\s+(?:[a-z]+\s+)?mood)\b|"
    rf"^(?:so|that|too|bit|a\s+bit|really|proper|properly|absolutely|completely|totally)\s+(?:{MOODS}|hot)\b",
    re.IGNORECASE,
)
"""A mood of the user, with its subject or without ("I'm so done", "I'm starving", "So tired")."""
_MOOD_AFTER = re.compile(
    r"^(?:with\s+(?:today|this|it\s+all|everything)|than\s+(?:this\s+morning|earlier|yesterday|before)|(?:that\s+)?i\s+(?:can|could)(?:n't|\s+not|\s+barely|\s+hardly)"
    r"\s+[a-z\s]+|(?:that\s+)?i\s+could\s+(?:(?:just|happily|literally)\s+)?[a-z]+(?:\s+[a-z]+){0,5})$",
    re.IGNORECASE,
)
"""What may follow a mood: what it is with ("done with today") or its effect now ("... I can barely see straight")."""
_NOT_SINCE = re.compile(
    r"^(?:i\s+)?(?:haven't|have\s+not|hasn't|not)\s+[a-z]+|^(?:i've|i\s+have)?\s*been\s+(?:up|awake|on\s+my\s+feet|on\s+hold|waiting|"
    r"sat\s+here|stuck\s+(?:here|in\s+traffic))\b",
    re.IGNORECASE,
)
"""What has not happened, or has gone on, since a moment of today ("haven't eaten since six", "been up since five")."""
_SPENT = re.compile(
    r"^(?:i\s+)?(?:barely|hardly|didn't|did\s+not|only|never)\s+slept(?:\s+a\s+wink)?\s+last\s+night$|"
    rf"^{_LEAD}i\s+(?:can't|cannot|can\s+barely|can\s+hardly)\s+(?:think|see|focus|concentrate|function)"
    r"(?:\s+straight)?\s+(?:today|tonight|rn|right\s+now|this\s+(?:morning|afternoon|evening))$",
    re.IGNORECASE,
)
"""How spent the user is: last night's sleep ("barely slept last night"), a mood's effect today ("I can't think
straight today")."""
_POSTURE = re.compile(
    r"^(?:just\s+|still\s+)?(?:sitting|sat|standing|stood|lying|waiting|queuing|queueing|stuck\s+(?:in|behind|at)|"
    r"hanging\s+around|parked\s+up)\b",
    re.IGNORECASE,
)
"""The user's posture said without a subject, a diary's present ("Sitting in the car park waiting for ...")."""
_STATE_BEFORE = re.compile(
    r"(?:\b(?:is|are|am|be|been|being|get|gets|'s|'re|'m)|n't)\s+(?:[a-z]+ly\s+|just\s+|still\s+|so\s+|all\s+)*[a-z]+$",
    re.IGNORECASE,
)
"""A participle after "is", "'s", "n't" ... : a state ("my brain is fried", "haven't eaten"), not an event."""
_NOT_EVENTS = frozenset("got set put let cut hit shut sat stood".split())
"""Past forms that are a state's participle here ("the cat's sat on my keyboard", "my tea's got cold")."""

_PART_CUT = re.compile(
    r"\s*[,;:\u2014\u2013]\s*|\s+-+\s+|\s+and\s+(?=it's|it\s+is|my\s|the\s|i'm\s)|\s+so\s+(?=(?:please\s+)?(?:excuse|forgive|"
    r"ignore|pardon)\b)"
)
_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", re.UNICODE)


def _past(part: str) -> bool:
    """Does ``part`` tell of an event past ("I left my keys", "the boiler packed up")?"""
    lowered = part.lower()
    for found in re.finditer(r"[a-z']+", lowered):
        word = found.group()
        event = word in ("was", "were", "had", "did") or (word in IRREGULAR_PAST and word not in _NOT_EVENTS)
        if (event or (len(word) > 4 and word.endswith("ed") and word not in NOT_PAST)) and not _STATE_BEFORE.search(
            lowered[: found.end()]
        ):
            return True
    return False


def _of_itself(part: str) -> bool:
    """A state that is of the moment by itself: a mood with nothing after it but its time or effect, a posture,
    the weather."""
    mood = _MOOD.match(part)
    if mood:  # "I'm rubbish at maths" says more than a mood
        rest = re.sub(r"[^\w\s']", "", part[mood.end() :]).strip()
        return not rest or bool(_TODAY.match(rest) or _MOOD_AFTER.match(rest))
    return bool(
        _POSTURE.match(part)
        or _WEATHER.match(part)
        or _WEATHER_HERE.match(part)
        or _BODY.match(part)
        or _TIME_LEFT.match(part)
        or _SPENT.match(part)
    )


_ON_THE_WAY = re.compile(
    r"^(?:i'm|im|i\s+am)\s+(?:just\s+|still\s+)?(?:on|in|at)\s+(?:the|a|my)\s+(?:train|bus|tube|tram|plane|ferry|car|"
    r"motorway|road|phone|loo|queue|platform|station|airport|lobby|waiting\s+room)\b(?:\s+(?:right\s+now|rn|atm|now|again|"
    r"this\s+(?:morning|afternoon|evening)))?$",
    re.IGNORECASE,
)
"""Where the user is at the moment, on the way or waiting ("I'm on the train right now"): a state of now only beside a
time of now or a mark; "I'm on the train every morning" lasts."""


def _state(part: str) -> bool:
    """Is ``part`` a state of now (a mood, a posture, the weather, a thing's state, what has not happened since)?"""
    if _of_itself(part) or _ON_THE_WAY.match(part):
        return True
    if _past(_NOW.sub(" ", part)):  # "while I was typing" dates the state, it tells no event
        return False
    return bool(_THING.match(part) or (_NOW.search(part) and _NOT_SINCE.match(part)))


_JUDGED_TODAY = re.compile(
    rf"^{_LEAD}(?:my|the|our|this|that)\s+(?:[\w'-]+\s+){{0,2}}?[\w'-]+?(?:'s|'re|\s+is|\s+are)\s+"
    rf"(?:(?:so|really|very|absolutely|proper|properly|super|well|dead|a\s+bit|bit|too|extra|unbelievably)\s+[a-z'-]+|"
    rf"(?:{MOODS}|slow|insane|mental|packed|rammed|dead|heaving|chaos|manic))\s+(?:today|tonight)$",
    re.IGNORECASE,
)
"""A thing judged for today ("My internet is so slow today", "this coffee is terrible today"): the judgement of the
day dates it; "The clinic is shut today" states a fact of the day and is read."""


_REPLY_JUDGED = re.compile(
    r"^(?:but\s+)?(?:that|this|your)\s+(?:(?:[a-z]+\s+){0,2}(?:tip|trick|advice|answer|suggestion|idea|list|recipe|"
    r"explanation|fix|reply|link|summary|template|one)\s+)?(?:(?:really|totally|just|honestly)\s+)?(?:saved|helped|"
    r"made\s+my|cleared|nailed)\b(?:\s+[a-z']+){0,4}$|"
    r"^(?:but\s+)?(?:that's|that\s+is|that\s+isn't|that's\s+not|not)\s+(?:quite\s+|exactly\s+|really\s+|just\s+)*what\s+i\s+"
    r"(?:meant|wanted|asked(?:\s+for)?|needed|was\s+after|had\s+in\s+mind)$|"
    r"^(?:but\s+)?close\s+enough$|^(?:but\s+)?(?:it|that)(?:'ll|\s+will)\s+do$|"
    r"^(?:not|that's\s+not|that\s+isn't)\s+(?:quite\s+|exactly\s+|really\s+)*what\s+i\s+(?:asked\s+for|wanted|meant|needed)$|"
    r"^(?:please\s+)?(?:excuse|forgive|ignore|pardon)\s+(?:the|my|all\s+the)\s+(?:typos?|spelling|mess|noise|brevity|"
    r"grammar|rambling)$",
    re.IGNORECASE,
)
"""What the user makes of the assistant's reply beside a reaction ("Thanks a million, that spreadsheet tip saved my
afternoon", "Ha, that's not quite what I meant, but close enough"): the reply's, not the user's. Not "that worked",
"that fixed it", "that did the trick": an outcome of a procedure or a strategy served (the router's feedback step)."""
_TIME_FOR = re.compile(r"^(?:[a-z]+\s+)?(?:time|o'clock)$|^(?:this|these)\s+[a-z]+$", re.IGNORECASE)
"""A call of the moment ("Right, brew time."), a thing of the moment exclaimed at ("Ugh, this queue."): beside a
reaction, a mark."""


def _mark(part: str) -> bool:
    """Is ``part`` only a mark of the moment: a hurry or a pause, an aside, a reaction, a time of now?"""
    return bool(
        _HURRY.match(part)
        or _REPLY_JUDGED.match(part)
        or _TIME_FOR.match(part)
        or is_aside(part)
        or is_reaction(part)
        or _TODAY.match(part)
        or _EXASPERATED.match(part)
        or _GREETING.match(part)
    )


_GREETING = re.compile(
    r"^(?:good\s+)?(?:morning|afternoon|evening|hi|hello|hey|hiya|howdy)(?:\s+again)?$", re.IGNORECASE
)


_MISHAP = re.compile(
    r"^(?:i\s+)?(?:just\s+|only\s+went\s+and\s+)?(?:forgot|left|spilled|spilt|dropped|burnt|burned|knocked|locked|"
    r"missed|tripped|stubbed|banged|put)\s+(?:my|the|a|an|coffee|tea|myself)\b"
    r"(?!\s+(?:job|career|licence|license|course|degree|place|flat|house|home|country|band|team|church|school|uni)\b)",
    re.IGNORECASE,
)
"""A mishap of the user's just past ("forgot my password again", "spilled coffee on my shirt"): a passing thing only
beside the name the user calls themselves for it ("I'm an idiot, forgot my password again")."""


_THANKS = re.compile(r"^(?:thanks|thank\s+you|cheers|ta)\b.*\bfor\b", re.IGNORECASE)
_EXASPERATED = re.compile(
    r"^(?:ugh+|argh+|urgh+|sigh|typical|gah|grr+|ffs|oof|honestly|man|god|jeez|blimey)$", re.IGNORECASE
)
"""A sound of exasperation at what is happening ("My tea's gone lukewarm, ugh."), which dates it to the moment."""


def _dates(part: str) -> bool:
    """Does the mark ``part`` date what is beside it to the moment: a hurry or a pause, an aside, a time of now, thanks
    for a tip ("Cheers for the liniment tip, the old boy's hips are better for it")? A bare interjection does not
    ("Oh and the trams are great" is read)."""
    return bool(
        _HURRY.match(part)
        or is_aside(part)
        or _TODAY.match(part)
        or _EXASPERATED.match(part)
        or (_THANKS.match(part) and is_reaction(part))
    )


def is_passing_state(sentence: str) -> bool:
    """Whether ``sentence`` only says how something is right now (see the module)."""
    if FEEDBACK_OK.search(sentence) or FEEDBACK_BAD.search(sentence):
        return False  # "That worked, thanks!": the outcome of what was served, read by the router's feedback step
    said = squeeze(sentence.strip().replace("\u2019", "'")).rstrip(".!? ")
    words = _WORD.findall(said)
    if not words or len(words) > MAX_WORDS:
        return False
    if re.search(r"\b\d", _NUMBER_OF_NOW.sub(" ", said)):  # "the A66" is a name, "3 percent" a number of now
        return False
    parts = [p for p in _PART_CUT.split(said) if p.strip()]
    # "Sorry, been a hectic week": the aside's week passed; "..., but it'll do": the reply's "will", not a plan
    said_over = " ".join(p for p in parts if not is_aside(p) and not _REPLY_JUDGED.match(p))
    if (
        _LASTING.search(_NOW.sub(" ", _TIME_LEFT.sub(" ", said_over)))
        or _PERSON.search(_WAITED_FOR.sub(" ", said))
        or _NAME.search(said)
    ):
        return False
    states = [_state(p) for p in parts]
    # "God, I'm such a klutz, spilled coffee on my shirt", "Just spilled coffee all down my shirt, brilliant.": a
    # mishap beside the name the user calls themselves for it, or beside a reaction to it
    if any(reproaches_self(p) or is_reaction(p) or _EXASPERATED.match(p) for p in parts):
        states = [s or bool(_MISHAP.match(p)) for p, s in zip(parts, states)]
    for at in range(1, len(parts)):  # "Too tired, I can hardly keep my eyes open": a mood's effect, after a comma
        states[at] = states[at] or bool(_MOOD.match(parts[at - 1]) and _MOOD_AFTER.match(parts[at]))
    if not all(s or _mark(p) for p, s in zip(parts, states)):
        return False
    if not any(states):  # marks only: "Sorry I've been quiet, mad couple of weeks.", "Cheers for last time, legend."
        return len(parts) > 1 and any(is_aside(p) or is_reaction(p) or _REPLY_JUDGED.match(p) for p in parts)
    marked = any(_dates(p) and not s for p, s in zip(parts, states))
    mishap = any(s and not _state(p) for p, s in zip(parts, states))  # a mishap beside its reaction is of now
    return marked or mishap or bool(_NOW.search(said)) or any(_of_itself(p) or _JUDGED_TODAY.match(p) for p in parts)


__all__ = ["MAX_WORDS", "is_passing_state"]
