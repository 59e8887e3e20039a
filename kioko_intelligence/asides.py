"""Asides of the moment: a sentence (or a clause) that says how the user is right now, what they call themselves
in passing, a greeting passed on from someone else, a sarcastic rejoinder, or that tells the assistant to pay no
mind to someone interrupting. None of them says anything lasting about the user or their world.

- **a passing mood**: "Feeling a bit flat today tbh.", "Completely knackered.", "bit better now", "so tired po
  today": at most :data:`MAX_WORDS` words, a mood word (:data:`MOODS`) with only degree words before it and only
  words of the moment after it ("today", "now", "tbh"). "I'm tired of my job at Tesco", "I'm exhausted all the
  time since the chemo" and "I'm down to 70 kilos" say more and are read as usual;
- **a name the user calls themselves in passing**: "God I'm such a muppet", "I'm hopeless, me.", "Classic me,
  eh.", "Me and my big mouth.": "such a"/"a total"/... before a word of mild self-abuse (:data:`SELF_NAMES`), or a set phrase ("classic
  me", "silly me", "story of my life"). "I'm hopeless at maths" says more;
- **a greeting passed on**: "He says hi lol", "Mum says thanks": a person and "says hi" and nothing else;
- **a sarcastic rejoinder**: "Oh great, another Monday.", "Just what I needed.", "Yeah because everyone loves the
  taxman.": praise before "another"/"more", "just what I needed", "yeah because everyone ...";
- **someone else's noise**: "Sorry, that was my son shouting, ignore him.": who made the noise and, at most, to
  pay them no mind;
- **how the day goes**: "Such a long day.", "Long day.", "Bit of a rough week.", "Not bad at all.", "Same old, same old.", "Living the dream, ha.", a
  wish for the moment ("I wish I could sleep in tomorrow"; "I wish I could speak Spanish" is read), and "No that's
  wrong, try again" said of the reply.

Words are read drawn out or not ("sooo tired", "Ohhh"): see :func:`squeeze`.
"""

from __future__ import annotations

import re

MAX_WORDS = 8

MOODS = (
    r"tired|knackered|exhausted|shattered|wrecked|drained|zonked|pooped|wiped(?:\s+out)?|done\s+in|burnt\s+out|"
    r"burned\s+out|flat|low|down|meh|blah|rough|grumpy|cranky|crabby|ratty|stressed(?:\s+out)?|frazzled|fried|"
    r"bored|sleepy|groggy|hungover|sluggish|sad|glum|gutted|fed\s+up|miserable|rubbish|awful|terrible|better|worse|"
    r"good|great|fine|ok(?:ay)?|alright|happy|chuffed|buzzing|grand|overwhelmed|anxious|nervous|restless|"
    r"achy|sore|hungry|starving|cold|freezing|roasting|chilled|relaxed|calm|content|excited|hyped|pumped|"
    r"emotional|weepy|moody|off\s+colour|under\s+the\s+weather|out\s+of\s+sorts|not\s+great|not\s+bad|"
    r"not\s+too\s+bad|so-so|up\s+and\s+down|all\s+over\s+the\s+place|dead\s+on\s+my\s+feet|running\s+on\s+empty|"
    r"swamped|snowed\s+under|flat\s+out|rushed\s+off\s+my\s+feet"
)
"""Words for how someone feels at a moment, not a lasting state of health ("sick", "ill" and "in pain" are
read as usual: they may be news the user wants kept)."""
_DEGREE = (
    r"a\s+(?:bit|little|tad|wee\s+bit)|bit|a\s+lot|so|really|very|pretty|proper|completely|totally|utterly|"
    r"absolutely|kinda|kind\s+of|sort\s+of|rather|quite|super|well|dead|mega|properly|just|still|bloody|"
    r"fairly|slightly|somewhat|way|too|extra|hella|lowkey|literally|feeling|getting|a\s+wee|wee"
)
_NOW = (
    r"today|now|tonight|this\s+(?:morning|afternoon|evening|week)|atm|right\s+now|at\s+the\s+moment|lately|"
    r"again|though|tho|honestly|tbh|ngl|lol|haha+|ha|po|lah|la|innit|me|mate|ugh|sigh|to\s+be\s+honest|"
    r"if\s+i'm\s+honest|if\s+i'm\s+being\s+honest|already|yet|as\s+well|too|for\s+some\s+reason|somehow"
)
_LEAD = (
    r"(?:(?:oh|ah|ugh|argh|meh|man|god|gosh|honestly|tbh|ngl|well|hay\s+naku|naku|aiyo|aiyah|hmm+|phew|yeah|"
    r"yep|nah|so|and|but|anyway|still|lol|haha+|ha|sigh|oof|blimey|jeez|geez|wow|omg|christ|lord|sheesh)\b[,!.\s]*)*"
)
_SUBJECT = r"(?:i'm|im|i\s+am|am|i\s+feel|feel|feeling|i'm\s+feeling|i\s+am\s+feeling|i've\s+been|been|i\s+was|was)?"
_MOOD = re.compile(
    rf"^{_LEAD}{_SUBJECT}\s*(?:(?:{_DEGREE})\s+)*(?:{MOODS})(?:[,!.\s]+(?:{_NOW}))*[.!\s]*$",
    re.IGNORECASE,
)

SELF_NAMES = (
    r"idiot|muppet|numpty|eejit|wally|plonker|clown|dork|doofus|dummy|fool|nightmare|disaster|mess|liability|noob|"
    r"melt|pillock|donut|doughnut|dope|twit|klutz|dunce|airhead|scatterbrain|space\s+cadet|basket\s+case|"
    r"walking\s+disaster|hot\s+mess|train\s+wreck|goof|goofball|nitwit|dingbat|dafty|moron|dumbass|loser|"
    r"hopeless|useless|rubbish|terrible|the\s+worst|a\s+joke|so\s+dumb|so\s+stupid|so\s+thick|thick|daft|dumb|stupid|"
    r"silly|clumsy|a\s+state|such\s+a\s+state"
)
"""Words of mild self-abuse said in passing ("I'm such a muppet", "I'm hopeless"): with nothing after them but a
word of the moment, not a trait to keep ("I'm hopeless at maths" is read as usual)."""
_SELF_NAME = re.compile(
    rf"^{_LEAD}(?:i'm|im|i\s+am)\s+(?:(?:such|so|officially|honestly|literally|just|really|actually|a\s+total|"
    rf"a\s+complete|an\s+absolute|a\s+right|an\s+utter|a\s+proper|a\s+real|the\s+biggest)\s+)*(?:an?\s+)?"
    rf"(?:{SELF_NAMES})(?:[,!.\s]+(?:{_NOW}|sometimes|honestly|i\s+swear))*[.!\s]*$|"
    rf"^{_LEAD}(?:what\s+an?\s+(?:{SELF_NAMES})\s+i\s+am|(?:classic|typical|silly|stupid|daft|clumsy|dozy|go|poor|lucky|"
    rf"muggins)\s+me|me\s+and\s+my\s+(?:big\s+)?mouth|story\s+of\s+my\s+life|trust\s+me\s+to|that's\s+so\s+me|so\s+me|how\s+very\s+me)"
    rf"(?:[,!.\s]+(?:{_NOW}|eh|huh|again|as\s+usual|as\s+always))*[.!\s]*$",
    re.IGNORECASE,
)
_SORRY_SELF = re.compile(
    rf"^(?:sorry|soz|sry|apologies|forgive\s+me)[,!.\s]+(?:i'm|im|i\s+am)\s+(?:(?:such|so|just|really|a\s+bit|"
    rf"completely|totally|absolutely|a\s+total|a\s+complete)\s+)*(?:an?\s+)?(?:{SELF_NAMES}|no\s+good|not\s+very\s+good)"
    rf"\s+(?:at|with)\s+(?:[a-z'-]+\s*){{1,3}}[.!\s]*$|"
    rf"^{_LEAD}(?:i'm|im|i\s+am)\s+(?:(?:such|so|just|really|a\s+bit|completely|totally|absolutely)\s+)*(?:an?\s+)?"
    rf"(?:{SELF_NAMES})\s+(?:at|with)\s+(?:this|that|it|these|those)(?:\s+stuff)?[.!\s]*$",
    re.IGNORECASE,
)
"""Self-deprecation offered as an apology for the talk ("Sorry, I'm rubbish with technology.", "Sorry, I'm useless
with computers.") or said of the thing at hand ("Ha, I'm rubbish at this."): a remark of the moment; "I'm hopeless at
maths" alone is read as usual."""
_AWAY = re.compile(
    r"^(?:sorry|soz|sry|apologies)[,!.\s]+(?:i've|i\s+have|i'd|i\s+had)\s+been\s+(?:so\s+|a\s+bit\s+|really\s+)?"
    r"(?:quiet|away|awol|mia|absent|off\s+the\s+radar|slow\s+to\s+reply|rubbish\s+at\s+replying|busy|swamped)[.!\s]*$",
    re.IGNORECASE,
)
"""An apology for the user's silence ("Sorry I've been quiet", "Sorry, I've been AWOL"): of the talk, not of them."""
_PASSED_ON = re.compile(
    r"^(?:(?:oh|and|also|lol|haha+|ha)\b[,!.\s]*)*(?:he|she|they|(?:my|the|our)\s+[a-z]+|[A-Z][a-z]+)\s+"
    r"(?:says?|said|sends?)\s+(?:hi|hello|hey|hiya|howdy|thanks|thank\s+you|cheers|ta|hi\s+back|hello\s+back|"
    r"(?:her|his|their)\s+(?:love|regards|best))(?:\s+(?:to\s+you|back|too|as\s+well))?"
    r"(?:[,!.\s]+(?:lol|haha+|ha|xx*|x|btw|by\s+the\s+way))*[.!\s]*$",
    re.IGNORECASE,
)
"""A greeting passed on from someone else ("He says hi lol", "Mum sends her love"): nothing of the user's world."""
_SARCASM = re.compile(
    r"^(?:oh\s+|ah\s+|yeah\s+)?(?:great|wonderful|brilliant|fantastic|marvellous|marvelous|lovely|perfect|super|"
    r"joy|goody|fab|splendid|smashing)[,!.\s]+(?:another|more|just|even\s+more)\s+[a-z]+(?:\s+[a-z]+)?[.!\s]*$|"
    r"^(?:(?:oh|ah|well|yeah)[,!.\s]+)*(?:just|exactly)\s+what\s+(?:i|we)\s+(?:needed|wanted|need)"
    r"(?:\s+(?:today|this\s+morning|right\s+now|now))?[.!\s]*$|"
    r"^(?:oh\s+)?(?:yeah|yea|sure)[,!.\s]+(?:right[,!.\s]+)?(?:because|cos|'cause|cause|coz)\s+(?:everyone|everybody|"
    r"nobody|no\s+one|that's\s+(?:what|how)|that\s+always)\b[^.;!?]{0,40}[.!]*$",
    re.IGNORECASE,
)
"""A sarcastic rejoinder: praise before a misfortune ("Oh great, another Monday."), "just what I needed", "yeah
because everyone loves the taxman". The words after it are few and say nothing of the user."""
_HOW_IT_GOES = re.compile(
    r"^(?:(?:oh|ah|ugh|man|god|honestly|well|yeah|meh|phew|ha)\b[,!.\s]*)*(?:(?:such|what)\s+an?\s+(?:\w+\s+)?"
    r"(?:day|week|morning|night|shift|evening|afternoon)(?:\s+(?:it's|it\s+has|it's\s+been|it\s+was|i've\s+had))?(?:\s+been)?|"
    r"(?:(?:it's\s+|it\s+has\s+|it\s+was\s+)?been\s+)?(?:(?:a\s+)?bit\s+of\s+an?\s+|hell\s+of\s+an?\s+|an?\s+)?"
    r"(?:long|rough|busy|hard|tough|crazy|mad|hectic|manic|stressful|exhausting|knackering|brutal|grim|heavy|slow|"
    r"full-on|mental|weird|shocking|awful|terrible|horrible)\s+(?:day|week|morning|night|shift|evening|afternoon|"
    r"start|couple\s+of\s+(?:days|weeks)|few\s+(?:days|weeks))(?:\s+(?:at\s+work|today|so\s+far))?|"
    r"not\s+(?:bad|too\s+bad)(?:\s+at\s+all)?|same\s+old(?:,?\s+same\s+old)?|living\s+the\s+dream|can't\s+complain|"
    r"mustn't\s+grumble|getting\s+there|hanging\s+in\s+there|could\s+be\s+worse|could\s+be\s+better|surviving|"
    r"(?:no,?\s+)?(?:that's|that\s+is|it's)\s+(?:wrong|not\s+right|incorrect|not\s+it)(?:,?\s+try\s+again)?|"
    r"i\s+wish\s+i\s+could\s+[a-z\s]+?\s+(?:today|tonight|tomorrow|right\s+now|this\s+(?:morning|afternoon|evening)))"
    rf"(?:[,!.\s]+(?:{_NOW}))*[.!\s]*$",
    re.IGNORECASE,
)
"""How the day goes and answers to "how are you" ("Such a long day.", "Not bad at all.", "Same old, same old.",
"Living the dream, ha."), a wish for the moment ("I wish I could sleep in tomorrow"), and "that's wrong, try again"
said of the reply."""
_NOISE = re.compile(
    r"^(?:(?:sorry|soz|sry|oops|lol|haha+|ha|argh|ugh)\b[,!.\s]*)*(?:that\s+was|that's|it\s+was|it's)\s+"
    r"(?:(?:my|the|our)\s+[a-z]+|[a-z]+)\s+(?:shouting|yelling|screaming|talking|typing|singing|crying|barking|"
    r"messing\s+(?:about|around)|on\s+the\s+keyboard|grabbing\s+(?:my|the)\s+phone|in\s+the\s+background)"
    r"(?:[,;!.\s]+(?:ignore|ignore\s+(?:him|her|them|that|it)|just\s+ignore\s+(?:him|her|them|that|it)|"
    r"sorry|lol|haha+))*[.!\s]*$",
    re.IGNORECASE,
)
"""Someone else's noise owned up to ("Sorry, that was my son shouting, ignore him."): who made it and nothing
more."""

_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", re.UNICODE)
_RUN = re.compile(r"([a-z])\1{2,}", re.IGNORECASE)


def squeeze(text: str) -> str:
    """``text`` with a letter drawn out three or more times said once ("sooo tired" -> "so tired", "Ohhh" ->
    "Oh"; "hmmm" -> "hm")."""
    return _RUN.sub(r"\1", text)


def is_aside(text: str) -> bool:
    """Whether ``text`` (a sentence or a clause) is only an aside of the moment (see the module): a passing mood,
    a name the user calls themselves in passing, a greeting passed on, a sarcastic rejoinder, someone else's
    noise. At most :data:`MAX_WORDS` words and no digit."""
    said = squeeze(text.strip().replace("\u2019", "'"))
    if not said or any(c.isdigit() for c in said) or len(_WORD.findall(said)) > MAX_WORDS:
        return False
    return any(
        p.match(said) for p in (_MOOD, _SELF_NAME, _SORRY_SELF, _AWAY, _PASSED_ON, _SARCASM, _NOISE, _HOW_IT_GOES)
    )


def reproaches_self(text: str) -> bool:
    """Whether ``text`` is only a name the user calls themselves in passing ("God, I'm such a klutz", "Typical me")."""
    said = squeeze(text.strip().replace("\u2019", "'"))
    return bool(said) and len(_WORD.findall(said)) <= MAX_WORDS and _SELF_NAME.match(said) is not None


__all__ = ["MAX_WORDS", "MOODS", "SELF_NAMES", "is_aside", "reproaches_self", "squeeze"]
