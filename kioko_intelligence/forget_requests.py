"""Requests to forget read by their shape, for the turns the rows of :data:`~kioko_intelligence.rules.FORGET` miss.

A request to forget has two parts, whatever words say them: an **act** addressed to the assistant that takes
something out of what it keeps, and the **thing** it takes. The rows spell whole sentences ("forget my X",
"delete X from your memory"); people also say:

- the act with another verb of getting rid of something ("ditch that number", "bin it", "take Ashfall out of
  your memory", "let go of anything you know touching them", "withdraw the remark about ..."), or as a
  refusal to keep ("don't file the weigh-in", "this you must not keep", "kindly retain no note of it",
  "... shouldn't live anywhere but my head", "if every trace of it were removed");
- the thing before the act, in its own clause or sentence, and then only a pronoun after it ("The passport
  number, please remove it", "Right, that overdraft figure. ... Bin it.", "About Petrenko you can forget all",
  "Targets, ambitions, all that: bin the lot").

The reader here finds the act in any clause of the turn (after a vocative or an interjection: "Oi, ditch ..."),
takes the thing from the act's object or, for a pronoun, from what the turn said before it (the names it says
for "him"/"her", the thing a kind of memory is called for "them"/"the lot", else the topic of the clause before),
and says the request again in the words the rows read (``forget everything about P``, ``forget all my goals``,
``forget the passport number``), so matching it to the memories stays the one matcher's (:mod:`.forget_reading`).
A verb that is also an everyday verb ("drop", "lose", "take") is an act only with a pointer at what the
assistant keeps ("from your memory", "you've got") or a thing pointed at ("that number", "it", "the lot").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

SPELLINGS = {
    "aff": "off",
    "oot": "out",
    "aboot": "about",
    "'bout": "about",
    "bout": "about",
    "dinnae": "don't",
    "dinna": "don't",
    "divvent": "don't",
    "divn't": "don't",
    "dunnae": "don't",
    "nuh": "don't",
    "cannae": "can't",
    "canna": "can't",
    "wouldnae": "wouldn't",
    "shouldnae": "shouldn't",
    "owt": "anything",
    "nowt": "nothing",
    "summat": "something",
    "aught": "anything",
    "yer": "your",
    "yuh": "your",
    "yur": "your",
    "ur": "your",
    "mi": "my",
    "wor": "our",
    "tek": "take",
    "comot": "remove",
    "commot": "remove",
    "abeg": "please",
    "pls": "please",
    "plz": "please",
    "fae": "from",
    "frae": "from",
    "whit": "what",
    "whitever": "whatever",
    "'em": "them",
    "di": "the",
    "t'": "the",
    "dont": "don't",
    "wanna": "want to",
    "gonna": "going to",
    "y'all": "you",
    "yall": "you",
    "youse": "you",
    "yous": "you",
    "yow": "you",
    "dat": "that",
    "dis": "this",
    "dem": "them",
    "nothin'": "nothing",
    "nothin": "nothing",
    "nuttin": "nothing",
    "yung": "the",
}
"""Spellings of a dialect or a chat for the words a request is read by ("take the registration aff yer books", "divvent
keep owt aboot Gaz", "tek out mi passport number", "forget everything 'bout her"): read as the standard word."""
_SPELLED = re.compile(
    r"(?<![\w'])(?:" + "|".join(re.escape(w) for w in sorted(SPELLINGS, key=len, reverse=True)) + r")(?![\w'])",
    re.IGNORECASE,
)


_PLEASE_PREFIX = re.compile(r"\bpaki-?(?=[a-z])", re.IGNORECASE)
"""Tagalog's polite request prefix on an English verb ("pakidelete", "paki-remove"): "please" and the verb."""
_SOFTENERS = re.compile(r"\s+(?:na\s+lang|lang|na|po|ko)\b(?=\s|[,.!?]|$)", re.IGNORECASE)
"""Tagalog's softening and owning particles inside a request ("delete na lang the GCash number ko")."""
_SPLIT_VERB = re.compile(
    r"\b(throw|chuck|toss|clear)\s+(it|them|that|this|those|these|the\s+lot)\s+(away|out)\b",
    re.IGNORECASE,
)
"""A verb of getting rid whose particle follows a pronoun object ("you can throw them out"): the particle is put back
next to the verb, where the rows and the reader look for it ("throw out them")."""


def standard(text: str) -> str:
    """``text`` with the dialect and chat spellings of :data:`SPELLINGS` read as the standard words."""
    text = _SPELLED.sub(lambda m: SPELLINGS[m.group(0).lower()], text.translate(_QUOTES))
    if _PLEASE_PREFIX.search(text):
        text = _SOFTENERS.sub("", _PLEASE_PREFIX.sub("please ", text))
    text = _BE_DOING.sub(lambda m: _BE_DONE[m.group(1).lower()], text)
    return _SPLIT_VERB.sub(lambda m: f"{m.group(1)} {m.group(3)} {m.group(2)}", text)


_BE_DONE = {
    "forgetting": "forget",
    "erasing": "erase",
    "deleting": "delete",
    "removing": "remove",
    "wiping": "wipe",
    "clearing": "clear",
    "scrubbing": "scrub",
}
_BE_DOING = re.compile(r"\bbe\s+(" + "|".join(_BE_DONE) + r")\b", re.IGNORECASE)
"""A request said in the progressive ("Kindly be erasing my preferences"): the verb itself."""


STRONG = r"forget|erase|purge|expunge|unlearn|unsave|un-?remember|un-?know|withdraw"
"""Verbs that take something out of what is kept whatever their object."""
WEAK = (
    r"delete|remove|wipe(?:\s+out)?|scrub|clear(?:\s+out)?|drop|ditch|bin|scrap|toss|chuck|turf|lose|dump|trash|junk|"
    r"nuke|cancel|strike|disregard|discard|reset|nix|yeet|axe|"
    r"throw\s+(?:away|out)|get\s+rid\s+of|get\s+shot\s+of|let\s+go\s+of|take|get"
)
"""Everyday verbs of getting rid of something ("wipe out the ash", "remove the lid"): an act only with a pointer at
what is kept or at a thing said, and then only a tentative one when no pointer is said (see :class:`Request`)."""
BINNING = frozenset(
    {"scrap", "bin", "ditch", "scrub", "trash", "junk", "nuke", "turf", "dump", "toss", "chuck", "discard"}
)
"""The everyday verbs whose only sense is getting rid of something: they open a forget of a kind or a category as
"delete" does. A tentative request of one on any "the/my X" a memory holds was tried and dropped: it lost a probe of
the never-read halves that holds no forget (session 10); one on a thing a memory gives a number ("Scrap the parking
spot" after "... is number 38") is read (:func:`binned_only`)."""
KEEP = (
    r"keep\s+hold\s+of|keep|store|save|file|retain|hold\s+on\s*to|hang\s+on\s*to|hold\s+onto|hang\s+onto|record|log|note\s+down|"
    r"write\s+down|remember|hold"
)
"""Verbs of keeping: refused ("don't keep it"), they ask to forget."""
KEEPING = r"keeping|storing|saving|filing|retaining|holding\s+on\s*to|hanging\s+on\s*to|recording|logging|holding"
"""The same verbs in the progressive ("don't be keeping that gate code")."""
_COURTESY = re.compile(
    r"^(?:(?:please|pls|kindly)\s+to\s+|(?:please|pls|kindly|just|so|and|then|now|also|simply|maybe|possibly|perhaps|actually)\s+|(?:can|could|would|will)\s+(?:you|ya|u)\s+|"
    r"(?:you\s+)?help\s+me\s+(?:to\s+)?|"
    r"you\s+(?:can|could|may|might|should|must|just|need\s+to)\s+|(?:i'd|i\s+would)\s+like\s+you\s+to\s+|"
    r"i\s+(?:want|need)\s+you\s+to\s+|(?:you\s+)?(?:go\s+ahead\s+and|be\s+a\s+dear\s+and)\s+|"
    r"(?:would|is)\s+it\s+(?:be\s+)?possible\s+(?:for\s+(?:you|ya|u)\s+)?to\s+)+",
    re.IGNORECASE,
)
_ACT = re.compile(rf"^(?P<verb>{STRONG}|{WEAK})\b\s*(?P<rest>.*)$", re.IGNORECASE)
_ADDRESSED = re.compile(
    rf"^(?:(?!\b(?:did|do|does|have|had|why|when|how|where)\b).)*?(?:\b(?:you|ya|ye|u)\s+(?:(?:can|could|would|should|"
    rf"shall|may|might|must|will|need\s+to|please|kindly|just|simply|go\s+ahead\s+and)\s+)*|\b(?:please|kindly)\s+)"
    rf"(?=(?:{STRONG}|{WEAK})\b)",
    re.IGNORECASE,
)
"""A request said inside a frame, its verb after "you" and a modal or after "please": "I should be grateful if you
would expunge ...", "Is better you forget the NIE", "I shared it by mistake, kindly delete it". A question about
what was done ("did you delete ...", "why do you keep ...") is no request."""
_FRONTED_OBJECT = re.compile(
    rf"^(?P<thing>(?:this|that|these|those|the|my|our|everything|anything|all|whatever)\b.+?)\s+(?:you|ya|ye|u)\s+"
    rf"(?:(?:can|could|would|should|shall|may|might|must|will|please|kindly|just)\s+)*(?P<verb>{STRONG}|{WEAK})"
    rf"(?:\s+(?:lah|la|ah|leh|lor|please|pls|now|already|ok|okay))*$",
    re.IGNORECASE,
)
"""The thing said first, then the act with nothing after it: "This customer number you shall please delete"."""
DATA_NOUNS = re.compile(
    r"\b(?:number|no|code(?:\s*word)?|safe\s*word|pin|password|passcode|passphrase|address|e-?mail|phone|mobile|id|username|user\s+name|"
    r"handle|login|log-in|details|combination|combo|registration|reg|postcode|zip|birthday|date\s+of\s+birth|dob|"
    r"account|snap|snapchat|insta|instagram|socials?)s?$",
    re.IGNORECASE,
)
"""What a thing of the user's kept data is called (its last word): with an everyday verb ("bin the dentist's phone
number", "scrap the NHS number"), a request to forget when a memory holds it."""
_REFUSED = re.compile(
    rf"(?:^|\b(?:you|ye|u)\s+)(?:mind\s+)?(?:don't|do\s+not|dont|didn't|did\s+not|never|mustn't|must\s+not|shouldn't|should\s+not|"
    rf"needn't|need\s+not|no\s+need\s+to|no\s+point(?:\s+in)?(?=\s+(?:you|ya|u)\s)|won't|will\s+not|not)\s+(?:you\s+)?(?:dare\s+)?(?:to\s+)?"
    rf"(?:be\s+)?(?:{KEEP}|{KEEPING})\b\s*"
    rf"(?P<rest>.*)$",
    re.IGNORECASE,
)
_NOT_TO_KNOW = re.compile(
    rf"^(?:i\s+)?(?:(?:don't|do\s+not|dont|no\s+longer|would\s+rather\s+not|'d\s+rather\s+not)\s+(?:want|need|have|like)\s+"
    rf"(?:you|ya|u)\s+(?:to\s+)?|(?:i'd\s+|i\s+would\s+)?(?:rather|prefer)\s+(?:you|ya|u)\s+(?:didn't|did\s+not|"
    rf"weren't|were\s+not|not|never)\s+)(?:know|knowing|have|having|{KEEP}|{KEEPING}|remembering|kept|had|knew)\s+"
    rf"(?P<rest>.+)$",
    re.IGNORECASE,
)
"""A refusal said as what the user does not want the assistant to do: "I don't want you knowing my salary"."""
_NOTHING_STAYS = re.compile(
    r"^(?:nothing|none\s+of\s+(?:it|that|the\s+stuff))\s+(?:about|on|of|to\s+do\s+with|concerning)\s+(?P<rest>.+?)\s+"
    r"(?:should|must|may|can|is\s+to|needs\s+to)\s+(?:stay|remain|be\s+kept|be\s+stored|be\s+saved|stick\s+around)\b",
    re.IGNORECASE,
)
"""A refusal said as what must not stay ("Nothing about her should stay"): a forget of the subject."""
_NOT_HAVE_KEPT = re.compile(
    r"^(?:i'd|i\s+would|i)\s+(?:rather|prefer\s+to|prefer)\s+not\s+(?:to\s+)?have\s+(?P<rest>.+?)\s+(?:stored|kept|saved|"
    r"recorded|written\s+down|on\s+(?:file|record))\b",
    re.IGNORECASE,
)
"""A refusal said as what the user would rather not have kept ("I'd rather not have Callum's business stored anywhere")."""
_UNEASY = re.compile(
    r"^(?:i'm|i\s+am|i\s+(?:don't|do\s+not)\s+feel|i'm\s+not\s+feeling)\s+(?:not\s+)?(?:comfortable|ok|okay|happy)\s+"
    r"(?:with\s+)?(?:you|ya|u)\s+(?:knowing|having|keeping|storing|remembering|holding)\s+(?:about\s+)?(?P<rest>.+)$",
    re.IGNORECASE,
)
"""Unease at the assistant knowing something ("I don't feel comfortable with you knowing about Leo's exclusion")."""
_NOT_KEPT = re.compile(
    r"(?:\bif\s+|^(?:(?:can|could|would)\s+)?)(?P<rest>(?:(?!\bif\b).)+?)\s+(?:wasn't|weren't|isn't|aren't|was\s+not|"
    r"were\s+not|is\s+not|are\s+not|not)\s+(?:be\s+)?(?:kept|stored|saved|remembered|recorded|held|written\s+down)\b",
    re.IGNORECASE,
)
"""A wish or a question that something not be kept ("I'd appreciate it if my passport number wasn't kept", "That thing
about Leo - can it not be saved?")."""
_POSSESSED = re.compile(r"[A-Z][\w'-]*'s\s+\w")
_AFFAIRS = re.compile(
    r"(?P<name>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)'s\s+(?:business|affairs|stuff|things|life|situation|news|private\s+life|"
    r"personal\s+stuff)",
)
"""Someone's affairs as a whole ("Callum's business", "Leo's stuff"): everything about them."""
"""A thing named as someone's ("Leo's exclusion")."""
_REGRET = re.compile(
    r"\b(?:regret|shouldn't\s+have|should\s+not\s+have|wish\s+i\s+(?:hadn't|had\s+not|never))\s+(?:telling|told|"
    r"mentioning|mentioned|sharing|shared)\s+(?:you|ya|u)\s+(?:about\s+)?(?P<thing>.+)$",
    re.IGNORECASE,
)
"""A regret at having told the assistant something ("I regret telling you about my manager"): what a bare act after it
("Please erase.") takes."""
_NO_NOTE = re.compile(
    r"^(?:retain|keep|hold|have|store)\s+no\s+(?:note|record|trace|copy|mention)s?\s+(?:of\s+)?(?P<rest>.*)$",
    re.IGNORECASE,
)
_NOT_HELD = re.compile(
    r"^(?:make\s+sure\s+)?(?P<rest>.+?)\s+(?:shouldn't|should\s+not|mustn't|must\s+not|can't|cannot|isn't\s+to|"
    r"is\s+not\s+to|doesn't|does\s+not|don't|do\s+not|won't|will\s+not)\s+"
    r"(?:be|live|stay|sit|remain|be\s+kept|be\s+stored)\s+(?:in|on|anywhere|with)\b",
    re.IGNORECASE,
)
_KEPT_PRIVATE = re.compile(
    r"^(?:i'd|i\s+would)\s+(?:much\s+)?(?:rather|prefer)\s+(?:if\s+)?(?P<rest>that|it|this|(?:my|our|the)\s+[\w'-]+"
    r"(?:\s+[\w'-]+){0,3}?)\s+(?:stayed|stays|stay|remained|remains|was\s+kept|were\s+kept|is\s+kept|be\s+kept|kept)\s+"
    r"(?:between|private|off\s+the\s+record|with\s+me|just\s+with|among|confidential|secret)\b",
    re.IGNORECASE,
)
"""A wish that something stay private ("I'd rather that stayed between me and my doctor", "I'd prefer my salary
stayed private"): a refusal to keep it, read only when a memory holds it ("I'd rather it stayed warm" is no
request)."""
_CAN_GO = re.compile(
    r"^(?:so\s+)?(?P<rest>(?:that|this)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+|(?:the|my|our)\s+(?:[\w'-]+\s+){0,2}?"
    r"(?:number|no|code|pin|password|reg|registration|plate|address|e-?mail|id|login|details)|"
    r"(?:anything|everything|all)\s+(?:about|on|"
    r"to\s+do\s+with)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+)\s+(?:can|could|may|should|must)\s+go"
    r"(?:\s+(?:now|too|as\s+well|in\s+the\s+bin|out\s+the\s+window))?$",
    re.IGNORECASE,
)
"""A thing said before, let go ("I moved out, so that address can go", "Anything about my ex can go in the bin"): a
request to forget it, read only when a memory holds it ("that meeting can go ahead", "my daughter can go to the
party" say more)."""
_KEEP_OUT = re.compile(
    r"^keep\s+(?P<rest>.+?)\s+out\s+of\s+(?:your|ur|yer|the)\s+(?:memory|memories|notes|records?|head|system|files)\b",
    re.IGNORECASE,
)
"""A thing kept out of what the assistant keeps ("Can you keep my nan out of your memory?")."""
_WANTED_GONE = re.compile(
    r"^(?:i'd|i\s+would|i\s+want|i\s+need)\s+(?:like\s+|love\s+)?(?P<rest>(?:that|this|the|my|our|it|all|any|every)\b"
    r".*?)\s+(?:(?:deleted|erased|wiped|forgotten)\b|(?:gone|removed|binned)\s+(?:from|out\s+of|off)\s+(?:your|ur|the)\s+"
    r"(?:memory|memories|notes|records?|files|system)\b)",
    re.IGNORECASE,
)
"""A wish that something be gone ("I'd like the therapy stuff gone from your memory", "I want that number deleted");
"gone" and "removed" only from what the assistant keeps ("I want the old shed gone by spring" is no request)."""
_PASSIVE = re.compile(
    r"(?:\bif\s+|\bthat\s+|^(?:(?:could|can|would|will|may)\s+)?)(?P<rest>(?:(?!\bif\b).)+?)\s+(?:(?:could|would|can|may|might|must|should)\s+be|be|were|was|is|are|to\s+be|"
    r"got|gets?)\s+"
    r"(?:removed|deleted|erased|wiped|forgotten|purged|scrubbed|expunged|struck|binned|dropped)\b",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"\b(?:your|ur|yer|the\s+assistant's)\s+(?:memory|memories|notes|records?|books|files|head|brain|system|list)\b|"
    r"\bfrom\s+(?:memory|memories|the\s+records?)\b|\bon\s+(?:file|record)\b|"
    r"\byou(?:'ve|\s+have)?\s+(?:got|have|know|hold|keep|stored|remember|heard)\b|"
    r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:gave|given|told|sent|taught|shown|showed)\s+you\b",
    re.IGNORECASE,
)
_POINTED = re.compile(
    r"^(?:that|this|those|these|it|them|him|her|the\s+lot|all\s+of\s+(?:it|that|them)|it\s+all|all\s+that|"
    r"every(?:thing|\s+one)|any(?:thing)?|all|whatever)\b",
    re.IGNORECASE,
)
_TAKE_OUT = re.compile(
    r"^(?P<thing>.+?)\s+(?:out\s+of|off|from|outta)\s+(?:your|ur|yer|the)?\s*(?:memory|memories|notes|records|books|"
    r"files|head|brain|system|list)\b",
    re.IGNORECASE,
)
_TAKE_IT_OUT = re.compile(
    r"^(?P<thing>it|them|that|this|those|these|the\s+lot|all\s+of\s+(?:it|them|that))\s+out\b", re.IGNORECASE
)
"""A thing said before, taken out ("All the health stuff, take it out"): a tentative request, read only when a
memory holds what the pronoun stands for ("The bins, take them out" is a chore)."""
_TAKE_MINE_OUT = re.compile(r"^(?P<thing>(?:my|our)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+out$", re.IGNORECASE)
"""A thing of the user's taken out, asked of the assistant ("Could you take my work extension out?"): a tentative
request, read only when a memory holds it ("Can you take my dog out?" with no memory of a dog is no forget; "I'll take
my mum out" is not asked of the assistant)."""
_FROM_MEMORY = re.compile(
    r"^(?:from|out\s+of|off)\s+(?:your\s+|ur\s+|the\s+|my\s+)?(?:memory|memories|notes|records?|files|system)\b\s*",
    re.IGNORECASE,
)
_LETS = re.compile(r"^(?:let's|lets|let\s+us)\s+", re.IGNORECASE)
_NAME_ONLY = re.compile(r"(?:[A-Z][\w'-]+)(?:\s+[A-Z][\w'-]+){0,2}")
"""A thing named by its name alone ("Tavira", "Port Isaac")."""
_ASKED = re.compile(r"(?:please|pls|kindly|(?:can|could|would|will)\s+(?:you|ya|u))\b", re.IGNORECASE)
_OBJECT_END = re.compile(
    r"\s*[,;:\u2014\u2013]\s*|\s+from\s+(?:whatever|what|everything|anything|all)\s+(?:you|ye|u)\b.*$|"
    r"\s+(?:they|he|she|we)(?:'ve|\s+have|\s+had)?\s+(?:changed|moved|reset|sold|swapped|replaced|cancelled|closed|"
    r"left|gave|sent|got)\b.*$|"
    r"\s+(?:that\s+)?(?:you|ye|u)(?:'ve|\s+have)?\s+(?:got|have|know|hold|keep|stored)\b.*$|"
    r"\s+(?:that\s+|what\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:given|gave|give|told|tell|named|mentioned|said|shared|taught|showed|shown)\b.*$|"
    r"\s+(?:will|would|can|could)\s+(?:you|ya|ye|u|your)\s*$|\s+(?:please|pls|plz|thanks|cheers)\s+(?=\S).*$|\s+(?:and|but)\s+(?:keep|leave)\b.*$|\s+-\s+|\s+(?:because|since|as|cause|cos|'cause|so|but|and\s+(?:i|we))\s+|"
    r"\s+(?:from|out\s+of|off|in)\s+(?:your|ur|yer|the|my)\s+(?:memory|memories|notes|records?|books|files|head|brain|"
    r"system|list)\b.*$|\s+(?:on|in)\s+(?:file|record|the\s+record|memory)\b.*$|"
    r"\s+(?:for\s+me|for\s+good|entirely|completely|altogether|too|as\s+well|please|now|ah|lah|eh|"
    r"hor|again|anymore|any\s+more|no\s+more|at\s+all|can|only|yeah|lol|thanks|ta|nah|na|ok|okay)\s*$",
    re.IGNORECASE,
)
SUBJECT_FRAME = re.compile(
    r"^(?:every\s+trace|all\s+traces?|any\s+trace|everything|anything|nothing|all|whatever|what|every\s+mention|"
    r"any\s+mention|(?:all|any|every)\s+references?)\s+(?:else\s+)?"
    r"(?:(?:that\s+)?(?:you|ye|u)(?:'ve|\s+have)?\s+(?:got|have|know|hold|keep|remember|stored)\s+|"
    r"(?:that\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:ever\s+|just\s+)?(?:said|told\s+you|mentioned|shared|wrote|"
    r"typed)\s+)?"
    r"(?:about|on|of|(?<=reference\s)to|(?<=references\s)to|mentioning|naming|touching|concerning|regarding|involving|to\s+do\s+with|related\s+to|"
    r"connected\s+(?:to|with))\s+(?P<subject>.+)$",
    re.IGNORECASE,
)
"""The thing as a subject ("anything you know touching them", "every trace of it", "whatever you hold on Gary"),
also as what the user said of it ("what I said about my godson", "anything else about her")."""
_STAYS = re.compile(
    r"\s+(?:(?:should|shall|must|can|may)(?:n't|\s+not)?|is\s+to|are\s+to)\s+(?:stay|remain|be\s+kept|be\s+stored|"
    r"be\s+there|be\s+left)\b.*$",
    re.IGNORECASE,
)
"""What is said of a framed subject after it, no part of it ("Nothing to do with him should stay": him)."""
_FRONTED = re.compile(r"^about\s+(?P<subject>.+?)\s+(?:you|ye|u)\s+(?:can|could|may|should)\s+", re.IGNORECASE)
PERSON_PRONOUN = re.compile(r"^(?:him|her|them|the\s+(?:man|woman|guy|lad|lass|bloke|girl|boy)|that\s+family)$", re.I)
THING_PRONOUN = re.compile(
    r"^(?:it|this|that|these|those|them|the\s+lot|(?:all|any|every\s+bit)\s+of\s+(?:it|that|them|this)|it\s+all|"
    r"all\s+that|all|everything|"
    r"every\s+one\s+of\s+them|them\s+all|all\s+of\s+them|the\s+whole\s+lot|this\s+one|that\s+one)$",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:right|ok(?:ay)?|so|well|oh|ah|ach|och|oi|eh|ey|ay|hey|omg|ugh|oops|sorry|boy|look|listen|actually|nah|yeah|"
    r"lol|lmao|haha|ha|"
    r"no(?!\s+(?:need|point))|hmm+|on\s+reflection|"
    r"on\s+second\s+thoughts?|hold\s+on|wait|one\s+more\s+thing|by\s+the\s+way|also|and|but)\b[,!.]?\s+)+",
    re.IGNORECASE,
)
_VERB_START = re.compile(
    r"\s+(?:is|are|was|were|has|have|had|'s\s+(?:been|gone|got|stepped|left|moved|chucked|quit|done)|'ve|'re|will|"
    r"would|wouldn't|won't|isn't|aren't|wasn't|weren't|hasn't|haven't|couldn't|should|shouldn't|must|mustn't|can|"
    r"can't|could|did|does|do|don't|doesn't|didn't|got|gets|went|left|"
    r"stepped|moved|quit|resigned|settled|withdrew)\b",
    re.IGNORECASE,
)


_PARTICLES = re.compile(
    r"^(?:(?:can|please|pls|lah|ah|eh|hor|leh|lor|ok(?:ay)?|yeah|mate|then|now|already|too|also)\b\s*)+$", re.I
)
"""What may be left where an object would be: "Delete, please.", "you just throw away can?"."""
_DETERMINED = re.compile(
    r"(?:the|that|this|these|those|my|our|his|her|their|it|them|him|any|anything|everything|nothing|all|every|"
    r"whatever)\b",
    re.IGNORECASE,
)
_OWNED = re.compile(r"(?:all|every|each|any|my)\b", re.IGNORECASE)
_MY_SAID_ME = re.compile(r"me\s+[\w'-]+", re.IGNORECASE)
_TAIL_PARTICLES = re.compile(r"(?:\s+(?:lah|ah|eh|hor|leh|lor|mate|innit|yeah|like|then|ok))+$", re.IGNORECASE)
_OF = re.compile(r"\bo'\s+", re.IGNORECASE)
_RETRACT = re.compile(
    r"^(?:i\s+)?(?:withdraw|retract|take\s+back|unsay)\s+(?:the|my|what\s+i\s+said|that)\s*"
    r"(?:remark|comment|bit|line|note|statement|mention)?\s*(?:about|on|regarding)?\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_UNWANTED = re.compile(
    r"(?:^|\bi\s+)(?:don't|do\s+not|dont)\s+want\s+(?P<rest>(?:anything|everything|any\s+\w+|that|this|it|him|her|them|my\s+[\w\s'-]+?)"
    r"(?:\s+(?:about|on|of|mentioning|concerning)\s+[\w\s'-]+?)?)\s+(?:hanging\s+(?:round|around|about)|kept|stored|saved|"
    r"on\s+(?:file|record)|lying\s+(?:around|about)|around|in\s+your\s+(?:memory|notes|records))\b",
    re.IGNORECASE,
)


_PRETEND = re.compile(
    r"^(?:(?:just\s+)?pretend\s+(?:that\s+)?(?:i|we)\s+never\s+(?:said|mentioned|told\s+you(?:\s+about)?|brought\s+up|"
    r"shared|typed|wrote)|make\s+it\s+(?:so|like|as\s+if)\s+(?:that\s+)?(?:you|ya|u)\s+never\s+(?:heard|knew|saw|learned|"
    r"learnt)(?:\s+(?:about|of))?)\b\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
"""An unsaying said as make-believe ("Pretend I never told you my salary", "pretend I never said that", "make it so
you never heard about Gráinne"): the thing after it, or what was just said."""
_WH_CLAUSE = re.compile(r"^(?:where|when|what|who|how\s+much|how\s+many)\s+(?:i|we)(?:'m|'re|'ve)?\s+\w", re.I)
"""A thing said as what the user does ("Don't hold on to where I live", "forget how much I earn"): the forget
rows read which slot says it."""
_WH_THING = re.compile(
    r"^(?:who|what|where|when|which|how\s+much|how\s+many|how\s+old)\s+(?P<thing>(?:my|our)\s+[\w'-]+"
    r"(?:\s+[\w'-]+){0,3}?)(?:'s|\s+(?:is|are|was|were))$",
    re.IGNORECASE,
)
"""A thing named as an indirect question ("I don't want you knowing who my therapist is"): the thing it asks of."""
WITH_ITS = re.compile(
    r"^(?P<thing>.+?)\s+(?:and|&|plus)\s+(?:(?:(?:the|all\s+the)\s+(?:people|folks?|crowd|lot|gang)|everyone|everybody|"
    r"anyone|anybody)\s+(?:from|in|at|of|around)\s+(?:there|that\s+place|that\s+time|it)|(?:everything|anything|all)\s+"
    r"(?:that\s+)?(?:goes|comes|went|came|go|come)\s+with\s+(?:it|that|them|him|her)|all\s+(?:of\s+)?(?:it|that)|"
    r"(?:everything|anything|all)\s+(?:else\s+)?(?:about|on|of|to\s+do\s+with)\s+(?:it|that|them|him|her))\b.*$",
    re.IGNORECASE,
)
"""A thing taken with all that goes with it ("Forget Halden and everything that goes with it", "forget Ballymena and
the people from there", "forget them and everything about them"): a subject, everything naming it; not "the people"
as a kind of memory."""


@dataclass
class Request:
    """A request to forget found in sentence ``at``: ``thing`` as the user named it, or a pronoun standing for what
    the turn said before (``antecedents``, nearest first, the clauses before the act); ``subject`` when the thing
    is asked for as a subject ("everything about ...")."""

    at: int
    thing: str
    subject: bool
    antecedents: list[tuple[int, str]] = field(default_factory=list)
    firm: bool = True
    """False for an everyday verb with no pointer at what is kept ("Ditch that number"): read as a request only
    when a memory holds the thing; else the sentence is read as any other."""
    added: bool = False
    """A thing named after the request as taken along with it ("Forget all of it, coach and all")."""
    numbered: bool = False
    """Read only when a memory gives the thing a number: a binning verb on a thing named (:func:`binned_only`)."""


def points_at_memory(text: str) -> bool:
    """Whether ``text`` points at what the assistant keeps ("from the record", "out of your notes", "you've got")."""
    return _POINTER.search(standard(text)) is not None


def clauses_of(sentence: str) -> list[str]:
    """A sentence's clauses for this reader: cut at commas, semicolons, colons and dashes."""
    said = "".join(", " if unicodedata.category(c) == "So" else c for c in sentence.translate(_QUOTES))  # emoji
    return [c.strip() for c in _CLAUSE_CUT.split(said) if c.strip(" ,")]


_CLAUSE_CUT = re.compile(
    r"\s*[,;:\u2014\u2013]\s*|\s+-+\s+|\s+(?:so|and)\s+(?=(?:you\s+(?:can|could|may|might|should)|please|can\s+you|"
    r"could\s+you)\s+(?:just\s+)?(?:forget|erase|delete|remove|wipe|drop|bin|scrap|ditch|clear)\b|no\s+point\s+"
    r"(?:in\s+)?(?:you\s+)?keeping\b)|"
    r"\s+(?:so|and|but)\s+(?=(?:i\s+(?:don't|do\s+not|no\s+longer|would\s+rather|would\s+prefer)|i'd\s+(?:rather|prefer))\s+"
    r"(?:(?:want|need|like)\s+)?(?:you|ya|u)\b)",
    re.IGNORECASE,
)
"""Where a clause ends: a comma, a colon, a dash, and "so"/"and" before a request to forget ("Anouk's left the company
so you can forget about her": the name is said in the clause before the request), or before a refusal said as what
the user does not want the assistant to do ("I've thought about it and I don't want you keeping anything about my
kids")."""
_NEWS_SHIFT = re.compile(
    r"^(?:(?:and|oh|but|also)\s+)*(?:by\s+the\s+way|btw|in\s+other\s+news|on\s+another\s+note|other\s+than\s+that|"
    r"anyway|also|plus)\b[,!:]?\s+(?P<news>.+)$",
    re.IGNORECASE,
)


def news_after(sentence: str) -> str | None:
    """The news a sentence holding a request to forget goes on to tell after a change of topic ("... so you can forget
    about her, and by the way I've been promoted to team lead!" -> "I've been promoted to team lead!"), or None.
    Without a word that changes the topic ("by the way", "btw", "also", "anyway", "in other news"), what follows a
    request is read as part of it ("Forget my salary, I shouldn't have shared it")."""
    said = standard(sentence)
    parts = clauses_of(said)
    acted = False
    for at, clause in enumerate(parts):
        if act_of(clause, said) is not None:
            acted = True
            continue
        shifted = _NEWS_SHIFT.match(clause) if acted else None
        if shifted and len(shifted.group("news").split()) >= 3:
            return ", ".join([shifted.group("news"), *parts[at + 1 :]])
    return None


def act_of(clause: str, whole: str) -> tuple[str, bool, bool] | None:
    """The thing a clause asks the assistant to forget, whether it is asked as a subject, and whether the request is
    firm (see :class:`Request`); None for no act. An empty thing is an act said bare ("Delete, please.").

    ``whole`` is the turn (a pointer at what is kept may be said in another of its clauses)."""
    found = _act_of(clause, whole, binned=True)
    if found is None:
        return None
    thing, subject, firm = found
    return thing, subject, firm or subject or _POINTER.search(whole) is not None


def binned_only(clause: str, whole: str) -> bool:
    """Whether ``clause`` is a request only as a binning verb on a thing ("Just scrap the parking spot"): read only
    when a memory gives that thing a number (:data:`NUMBERED`)."""
    return _act_of(clause, whole, binned=True) is not None and _act_of(clause, whole, binned=False) is None


NUMBERED = re.compile(r"\b(?:is|are|was|'s)\s+(?:number\s+|no\.?\s+|#)?\d", re.IGNORECASE)
"""A memory giving a thing a number ("User's parking spot in the garage on Boylston is number 38")."""


def _act_of(clause: str, whole: str, binned: bool = False) -> tuple[str, bool, bool] | None:
    spoken = _LEAD.sub("", standard(clause.strip().rstrip(".!?")))
    ours = _LETS.match(spoken)  # "Let's drop Tavira altogether": the user and the assistant
    said = _COURTESY.sub("", spoken[ours.end() :] if ours else spoken, count=1).strip()
    if _GONE.fullmatch(said):  # "That salary figure I gave you - gone, please": what the clause before named
        return ("it", False, True) if _POINTER.search(standard(whole)) else None  # "Misty? Gone." is news
    fronted_object = _FRONTED_OBJECT.match(said)
    if fronted_object:  # "This customer number you shall please delete"
        verb = fronted_object.group("verb")
        framed = SUBJECT_FRAME.match(fronted_object.group("thing"))
        if framed:  # "Everything about him you delete lah"
            return framed.group("subject").strip(), True, True
        return fronted_object.group("thing"), False, bool(re.fullmatch(STRONG, verb, re.IGNORECASE))
    if not _FRONTED.match(said):  # "About Petrenko you can forget all" is read whole below
        said = _ADDRESSED.sub("", said, count=1)
    said = _OF.sub("of ", re.sub(rf"^(?:you|ye|u)\s+(?=(?:{STRONG}|{WEAK})\b)", "", said, flags=re.IGNORECASE))
    pretended = _PRETEND.match(said)
    if pretended:  # "Pretend I never told you my salary"
        rest = pretended.group("rest").strip(" .!?")
        if not rest or THING_PRONOUN.match(rest) or _JUST_SAID.fullmatch(rest):
            return "that", False, True
        return _OBJECT_END.split(rest, maxsplit=1)[0].strip(" .!?"), False, True
    retracted = _RETRACT.match(said)
    if retracted:  # "I withdraw the remark about my blood pressure"
        return retracted.group("rest").strip(" .!?"), False, True
    unwanted = _UNWANTED.search(said)
    if unwanted:  # "Don't want anything about him hanging round"
        subject = SUBJECT_FRAME.match(unwanted.group("rest").strip())
        return (subject.group("subject"), True, True) if subject else (unwanted.group("rest").strip(), False, True)
    fronted = _FRONTED.match(said)
    if fronted:  # "About Petrenko you can forget all"
        return fronted.group("subject"), True, True
    thing: str | None = None
    firm = False
    found = _ACT.match(said)
    if found is not None:
        verb, rest = found.group("verb").lower(), found.group("rest").strip()
        rest = _FROM_MEMORY.sub("", rest)  # "Remove from memory: locker code": the thing after the colon
        if verb in ("take", "get"):
            out = _TAKE_OUT.match(rest) or (_TAKE_IT_OUT.match(rest) if verb == "take" else None)
            if out is None and verb == "take" and _ASKED.match(spoken):  # "Could you take my work extension out?"
                out = _TAKE_MINE_OUT.match(rest)
            if out is None:
                return None
            rest = re.sub(r"^out\s+(?=\S)", "", out.group("thing"), flags=re.IGNORECASE)  # "take out my X from ..."
        elif verb == "withdraw":
            rest = re.sub(r"^(?:the|my)\s+(?:remark|comment|bit|line|note)\s+(?:about|on)\s+", "", rest, flags=re.I)
        weak = not re.fullmatch(STRONG, verb, re.IGNORECASE)
        firm = not weak
        mine_out = verb == "take" and _TAKE_MINE_OUT.match(found.group("rest")) is not None
        if _MY_SAID_ME.match(rest) and DATA_NOUNS.search(_OBJECT_END.split(rest, maxsplit=1)[0].strip(" .!?")):
            rest = "my" + rest[2:]  # "bin me works number": "me" said for "my" before the user's data
        bare_act = not _PARTICLES.sub(
            "", _OBJECT_END.split(rest, maxsplit=1)[0].strip(" .!?")
        )  # "Delete, please.", "you just throw away can?"
        pointed = (
            _POINTER.search(whole)
            or _POINTED.match(rest)
            or _TAKE_OUT.match(found.group("rest"))
            or _UNWANTED.search(whole)  # "Get rid of my email address, I don't want it stored"
            or SUBJECT_FRAME.match(rest)  # "remove what I said about my godson": a thing the user said
            or LAST_TALK.match(rest.strip(" .!?"))  # "delete what I said in our last chat"
        )
        head = _OBJECT_END.split(rest, maxsplit=1)[0].strip(" .!?")
        data = _DETERMINED.match(rest) is not None and DATA_NOUNS.search(head) is not None
        said_bit = None if _JUST_SAID.fullmatch(head) else _SAID_BIT.match(head) or _SAID_STUFF.match(head)
        # "Drop every preference", "Wipe all my routines": a whole kind of the user's ("Clear out the workflows
        # folder" is not)
        owned_kind = _OWNED.match(head) is not None and kind_named(head) is not None
        # "Just scrap the parking spot": a binning verb on a thing named, tentative (see binned_only)
        thrown = binned and verb in BINNING and _NAMED_THING.fullmatch(head) is not None
        # "Let's drop Tavira altogether": a name, read only when a memory names it (pronouns after "let's" are
        # "let's drop it", leaving a topic)
        named = ours is not None and _NAME_ONLY.fullmatch(head) is not None
        if ours and not named:
            return None  # "let's forget it" is "never mind"; the rows read "let's forget X"
        if weak and not (pointed or bare_act or data or said_bit or owned_kind or mine_out or thrown or named):
            return None
        thing = rest
        if said_bit:  # "Lose the bit about my salary", "Drop the five-a-side stuff": the thing it points at
            thing, firm = said_bit.group("thing"), True
    else:
        for pattern in (
            _NOT_TO_KNOW,
            _REFUSED,
            _NO_NOTE,
            _NOT_HELD,
            _PASSIVE,
            _KEPT_PRIVATE,
            _CAN_GO,
            _WANTED_GONE,
            _UNEASY,
            _NOT_KEPT,
            _NOT_HAVE_KEPT,
            _NOTHING_STAYS,
            _KEEP_OUT,
        ):
            hit = pattern.search(said)
            if hit is not None and pattern is _NOTHING_STAYS:  # "Nothing about her should stay"
                return hit.group("rest").strip(), True, True
            if hit is not None:
                # "this you must not keep": the thing said before the refusal
                thing = hit.group("rest").strip() or said[: hit.start()].strip()
                if not thing and pattern is _REFUSED:
                    return "", False, True  # "My salary information, please you do not keep": the clause before
                asked = _WH_THING.match(_OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?"))
                thing = asked.group("thing") if asked else thing  # "... knowing who my therapist is"
                break
        if thing is None or not (_DETERMINED.match(thing) or _WH_CLAUSE.match(thing) or _POSSESSED.match(thing)):
            return None  # "Don't store passwords in plain text" is a rule, not a request to forget
    thing = re.sub(r"^(?:about|of|on)\s+", "", thing.strip(), flags=re.IGNORECASE)
    if LAST_TALK.match(thing.strip(" .!?")):  # "what I said in our last chat": that conversation, said whole
        return thing.strip(" .!?"), False, True
    along = WITH_ITS.match(_OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?"))
    if along:  # "Forget Halden and everything that goes with it": everything naming Halden
        return along.group("thing").strip(), True, firm or not weak_verb(found)
    exists = _EXISTS.fullmatch(_OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?"))
    if exists:  # "Don't bring up Jordan again, forget he exists": everything about him
        return {"he": "him", "she": "her"}.get(exists.group(1).lower(), "them"), True, firm
    if _JUST_SAID.fullmatch(_OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?")):
        thing = "that"  # "forget I said that", "delete what I just told you": what the user has just said
    affairs = _AFFAIRS.fullmatch(_OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?"))
    if affairs:  # "Callum's business", "Leo's stuff": everything about Callum
        return affairs.group("name"), True, firm
    subject = SUBJECT_FRAME.match(thing)
    if subject:
        return _OBJECT_END.split(subject.group("subject").strip(), maxsplit=1)[0].strip(" .!?"), True, firm
    thing = _PARTICLES.sub("", _OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?"))
    if not thing and found is None:
        return None
    return thing, False, firm


LAST_TALK = re.compile(
    r"^(?:(?:every|any)thing|all|what|whatever|(?:all\s+)?the\s+(?:stuff|things))\s+(?:that\s+)?(?:(?:i|we)(?:'ve|\s+have)?\s+"
    r"(?:told\s+you|said|talked\s+about|mentioned|shared|went\s+on\s+about)\s+(?:about\s+)?|from\s+)"
    r"(?:last\s+time(?:\s+we\s+(?:talked|spoke|chatted|met))?|(?:in|during)\s+(?:our|the|my)\s+last\s+(?:chat|"
    r"conversation|session|talk)|(?:our|the)\s+last\s+(?:chat|conversation|session|talk)|last\s+session)$|"
    r"^(?:(?:all\s+of\s+)?(?:our|the|my)\s+last\s+(?:chat|conversation|session|talk))$",
    re.IGNORECASE,
)
"""A thing named as what the user said in the conversation before this one ("Everything I told you last time we
talked", "what I said in our last chat", "our last conversation"): every memory of that session."""


def weak_verb(found: re.Match[str] | None) -> bool:
    """Whether the act ``found`` (a match of the act pattern) was said with an everyday verb."""
    return found is not None and re.fullmatch(STRONG, found.group("verb"), re.IGNORECASE) is None


def topic_of(clause: str) -> str:
    """What a clause is about, for a pronoun after it: the words before its first verb ("The Hargreaves matter has
    settled" -> "The Hargreaves matter"; "that safe combination shouldn't live ..." -> "that safe combination"), or
    the whole clause when it has none ("The passport number")."""
    said = _LEAD.sub("", clause.strip().rstrip(".!?"))
    cut = _VERB_START.search(" " + said)
    head = (" " + said)[: cut.start()].strip() if cut else said
    head = _TAIL_PARTICLES.sub("", re.sub(r"'s$", "", head))
    return head if 0 < len(head.split()) <= 6 else ""


_JUST_SAID = re.compile(
    r"(?:(?:what|everything|all)\s+)?(?:i|we)\s+(?:just\s+|ever\s+)?(?:said|told\s+you|wrote|typed|mentioned|shared)"
    r"(?:\s+(?:that|it|this|earlier|before|just\s+now|there|about\s+(?:that|it|this)))?|"
    r"(?:that|the|my)\s+last\s+(?:bit|thing|part|one|message|line|sentence|comment)|that\s+bit|that\s+one",
    re.IGNORECASE,
)
"""What the user has just said, named as said ("forget I said that", "delete that last bit"): read as "that"."""
_SAID_BIT = re.compile(
    r"^(?:the|that|this|those|these)\s+(?:bit|bits|part|parts|stuff|thing|things|info|information|details?|note)\s+"
    r"(?:about|on|regarding|re|concerning)\s+(?P<thing>.+)$",
    re.IGNORECASE,
)
_SAID_STUFF = re.compile(
    r"^(?P<thing>(?:the|that|this|my|our)\s+(?:[\w'-]+\s+){1,3}?)(?:stuff|thing|things|business|bit|info)$",
    re.IGNORECASE,
)
"""What points at something the user said ("the bit about my salary", "the five-a-side stuff"): with an everyday verb
("lose", "drop"), a request to forget it."""
_GONE = re.compile(r"(?:gone|away\s+with\s+it|out|binned|scrapped|deleted|erased|forgotten|off\s+the\s+record)", re.I)
"""A clause that is only the act, said as its result ("- gone, please")."""
_EXISTS = re.compile(
    r"(?:that\s+)?(he|she|they)\s+(?:exists?|ever\s+existed|was\s+ever\s+(?:a\s+thing|born|here))", re.I
)
_ABOUT = re.compile(r"^(?:about|re|regarding|as\s+for|as\s+to|concerning)\s+(?P<thing>.+)$", re.IGNORECASE)
_PARTS = re.compile(r"\s*,\s*(?:and\s+|&\s+)?|\s+(?:and|&|plus|as\s+well\s+as)\s+", re.IGNORECASE)
_LISTED = re.compile(r"(?:(?:and|&)\s+)?(?:my|the|his|her|their|our)\s+[\w'-]+(?:\s+[\w'-]+){0,3}", re.IGNORECASE)
"""A clause after a request that only names one more thing ("..., my address and my GP")."""
_NAMED_THING = re.compile(r"(?:the|that|this|those|these|my|our|all\s+my|all\s+the)\s+[\w'-]+(?:\s+[\w'-]+){0,3}", re.I)
"""A clause that only names a thing ("The WeChat ID", "that overdraft figure"): the object of a bare act after it."""
_ALONG = re.compile(
    r"^(?:(?:including|plus|and\s+also)\s+(?P<first>(?:the\s+|my\s+)?[\w'-]+(?:\s+[\w'-]+){0,2})|(?P<thing>(?:the\s+|my\s+)?"
    r"[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:and|an'?|n)\s+(?:all|aw)|(?P<also>(?:the\s+|my\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
    r"(?:included|too|as\s+well))$",
    re.IGNORECASE,
)
"""A clause after a request naming one more thing it takes along: "coach and all", "Fraser n aw", "including Priya",
"the photos too"."""
_ALSO_ABOUT = re.compile(
    r"^(?:or|and|nor|plus)\s+(?:(?:every\s+trace|any\s+trace|everything|anything|all)\s+(?:else\s+)?(?:about|on|of|to\s+"
    r"do\s+with|concerning)\s+)(?P<subject>.+)$",
    re.IGNORECASE,
)
"""A clause after a request that asks for a subject as well ("..., or anything else about her")."""
_OWN_STATEMENT = re.compile(r"(?:i|we|he|she|they|it's|i'm|i've|i'll|we're|we've)\b", re.IGNORECASE)
"""A clause that starts with its own subject: no object of an act said bare before it."""
_DETERMINED_PART = re.compile(r"(?:my|the|that|this|his|her|their|our)\s+\w", re.IGNORECASE)


def items_of(thing: str) -> list[str]:
    """The things a request names together ("my address and my salary", "my salary, my address and my GP",
    "Rosa and Tiago"): every part said with a determiner or as a name; the thing itself when it is one, or when a
    part is neither ("salt and pepper", "my GP and stop asking")."""
    parts = [p.strip(" .!?") for p in _PARTS.split(thing) if p and p.strip(" .!?")]
    named = [
        p
        for p in parts
        if _DETERMINED_PART.match(p)
        or (all(w[:1].isupper() for w in p.split()) and p.split()[0].lower() not in _NOT_NAMES)
    ]
    return named if len(named) >= 2 and len(named) == len([p for p in parts if p.lower() not in _TAILS]) else [thing]


_NOT_NAMES = frozenset("i please thanks cheers ta ok okay".split())
_TAILS = frozenset("please thanks thank you cheers ta ok okay too as well for me".split())


_DETERMINERS = frozenset("the my our that this those these his her their your".split())
_PHRASE_ENDS = (
    frozenset(
        """by to for from in on at with of about is was are were and or but because since when that which who has have had
    will would can could did does do got gets went i you we he she they it me us them""".split()
    )
    | _DETERMINERS
)
NOUN_PHRASE_WORDS = 4
"""Longest thing named after a determiner, in words."""


def noun_phrases(clause: str) -> list[str]:
    """The things a clause names with a determiner ("I shared the Aadhaar number by mistake" -> "the Aadhaar
    number"; "I've changed my mind about sharing my address" -> "my mind", "my address"; "My salary's none of your
    business" -> "My salary's none", "My salary"), in order: what a pronoun after it may stand for."""
    words = re.findall(r"[\w'-]+", standard(clause))
    found = []
    for at, word in enumerate(words):
        if word.lower() not in _DETERMINERS:
            continue
        taken: list[str] = []
        for following in words[at + 1 : at + 1 + NOUN_PHRASE_WORDS]:
            if following.lower() in _PHRASE_ENDS:
                break
            taken.append(following)
            if following.lower().endswith("'s"):  # "My salary's none": the owner alone too
                found.append(" ".join([word, *taken])[: -len("'s")])
        if taken:
            found.append(" ".join([word, *taken]))
    return list(dict.fromkeys(found))


def read_requests(sentences: list[str]) -> list[Request]:
    """Every request to forget in a turn's ``sentences``, with the clauses before each act (its antecedents)."""
    sentences = [standard(text) for text in sentences]
    whole = " ".join(sentences)
    found: list[Request] = []
    before: list[tuple[int, str]] = []
    for index, text in enumerate(sentences):
        clauses = clauses_of(text)
        for position, clause in enumerate(clauses):
            act = act_of(clause, whole)
            if act is None:
                before.append((index, clause))
                continue
            thing, subject, firm = act
            named_before = _OBJECT_END.split(clauses[position - 1], maxsplit=1)[0].strip(" .!?") if position else ""
            if not thing and named_before and (kind_named(named_before) or _NAMED_THING.fullmatch(named_before)):
                thing, firm = named_before, True  # "All my goals, please delete", "The WeChat ID I give you, delete"
            if not thing:  # "Please disregard, and delete, all the standing directions ...": the next clause
                after = clauses[position + 1 :]
                nxt = _OBJECT_END.split(after[0], maxsplit=1)[0].strip(" .!?") if after else ""
                if _OWN_STATEMENT.match(nxt):
                    nxt = ""  # "All my goals, please delete, I want to think again": a statement of its own
                thing = nxt if nxt and not _PARTICLES.match(nxt) and act_of(after[0], whole) is None else ""
            framed = [m for _, c in reversed(before) if (m := SUBJECT_FRAME.match(c.strip(" .!?")))]
            if not thing and framed:  # "Anything about him, you just throw away can?"
                thing, subject, firm = _STAYS.sub("", framed[0].group("subject")).strip(), True, True
            elif THING_PRONOUN.match(thing) and position and SUBJECT_FRAME.match(clauses[position - 1].strip(" .!?")):
                # "Whatever you've got on the man, get shot of it": the pronoun is the subject just framed; "Nothing to
                # do with him should stay, please delete all": him
                thing, subject, firm = _STAYS.sub("", framed[0].group("subject")).strip(), True, True
            about = _ABOUT.match(clauses[position - 1].strip()) if position and not thing else None
            if about:  # "About my address: delete."
                thing, firm = about.group("thing").strip(" .!?"), True
            regret = next((m for _, c in reversed(before) if (m := _REGRET.search(c.strip(" .!?")))), None)
            if not thing and regret:  # "I regret telling you about my manager. Please erase."
                thing, subject, firm = _OBJECT_END.split(regret.group("thing"), maxsplit=1)[0].strip(" .!?"), True, True
            if not thing and not found:
                before.append((index, clause))  # "then wipe": a step, unless a request came before
                continue
            listed = []
            for following in clauses[position + 1 :]:  # "Forget my salary, my address and my GP."
                if not _LISTED.match(following.strip(" .!?")):
                    break
                listed.append(re.sub(r"^(?:and|&)\s+", "", following.strip(" .!?"), flags=re.IGNORECASE))
            if listed and _DETERMINED_PART.match(thing):
                thing = ", ".join([thing, *listed])
            numbered = not firm and binned_only(clause, whole)
            found.append(Request(index, thing or "it", subject, list(reversed(before)), firm, numbered=numbered))
            for following in clauses[position + 1 :]:  # "..., coach and all", "..., Fraser n aw", "including Priya"
                also = _ALSO_ABOUT.match(following.strip(" .!?"))
                if also:  # "don't keep any of that, or anything else about her": her as a subject, too
                    framed_also = _OBJECT_END.split(also.group("subject").strip(), maxsplit=1)[0].strip(" .!?")
                    found.append(Request(index, framed_also, True, list(reversed(before)), True, True))
                    continue
                along = _ALONG.match(following.strip(" .!?"))
                named = next((g for g in along.groups() if g), "") if along else ""
                if named and not THING_PRONOUN.match(named):
                    found.append(Request(index, named, named[:1].isupper(), list(reversed(before)), True, True))
            before.append((index, clause))
    # one sentence may say its request twice ("Nothing to do with him should stay, please delete all": the wish
    # and the act both name him): it is one request
    once: dict[tuple[int, str, bool, bool], Request] = {}
    for request in found:
        once.setdefault((request.at, request.thing.lower(), request.subject, request.added), request)
    return list(once.values())


_AS_A_WHOLE = (
    r"(?:\s+(?:info|information|stuff|details|history|records|things|bits|data|matters|side))?s?"
    r"(?:\s+(?:about|of|on|to\s+do\s+with)\s+me)?(?:\s+(?:that\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:given|gave|told|shared)"
    r"(?:\s+you)?(?:\s+about)?|\s+(?:that\s+)?(?:you|ya|u)(?:'ve|\s+have)?\s+(?:got|have|hold|keep|stored)"
    r"(?:\s+(?:for|on|about|of)\s+me)?)?\s*$"
)
"""A category named as a whole, its word the head of the thing ("all my health info", "my family", "everything
money-related about me", "all the phone numbers I've given you"): "my family photos" and "the health centre's
address" are things of their own."""
KIND_WORDS = (
    (
        re.compile(
            r"\blikes\s+and\s+dislikes\b|\bpreferences?\b|\blikes\b|\bdislikes\b|\btastes\b|"
            r"\bwhat\s+i\s+(?:like|love|prefer|enjoy)\b(?:\s+and\s+(?:what\s+i\s+)?(?:(?:don't|do\s+not)\s+like|hate|dislike|"
            r"(?:can't|cannot|can\s+not)\s+(?:stand|bear|stomach)|loathe|detest))?|"
            r"\bhow\s+i\s+like\s+(?:things|it|stuff)(?:\s+done)?",
            re.I,
        ),
        "preferences",
    ),
    (re.compile(r"\b(?:instructions|directions|rules|orders)\b", re.I), "instructions"),
    (re.compile(r"\b(?:goals|targets|ambitions|aims|objectives|resolutions)\b", re.I), "goals"),
    (re.compile(r"\bdecisions\b", re.I), "decisions"),
    (re.compile(r"\b(?:deadlines|due\s+dates)\b", re.I), "deadlines"),
    (re.compile(r"\b(?:appointments|appts|bookings|check-?ups)\b", re.I), "appointments"),
    (re.compile(r"\b(?:people|persons|everyone|everybody|contacts)\b", re.I), "people"),
    (re.compile(r"\bplans\b", re.I), "plans"),
    (re.compile(r"\b(?:procedures|routines|processes|workflows|how-?tos|checklists)\b", re.I), "procedures"),
    (
        re.compile(
            rf"\b(?:health|medical)(?:[- ](?:related|wise))?(?:\s+(?:thing|stuff|business|matter))?{_AS_A_WHOLE}", re.I
        ),
        "health",
    ),
    (re.compile(rf"\b(?:family|relatives){_AS_A_WHOLE}", re.I), "family"),
    (re.compile(rf"\b(?:children|kids){_AS_A_WHOLE}", re.I), "children"),
    (re.compile(rf"\b(?:love|dating|romantic)\s+life{_AS_A_WHOLE}", re.I), "love life"),
    (re.compile(rf"\b(?:money|financ(?:es|ial))(?:[- ](?:related|wise))?{_AS_A_WHOLE}", re.I), "money"),
    (re.compile(rf"\b(?:phone|mobile|contact|telephone)\s+numbers{_AS_A_WHOLE}", re.I), "phone numbers"),
    (
        re.compile(
            rf"\b(?:work|job|career)(?:[- ](?:related|wise)|(?=\s+(?:info|stuff|details|things|bits|matters|side)s?\b)){_AS_A_WHOLE}",
            re.I,
        ),
        "work stuff",
    ),
)
"""The words a kind (or a category) of memory is called by, in the plural a whole kind is asked with."""
_EVERY = re.compile(r"^(?:every|each|all(?:\s+of)?(?:\s+(?:my|the|your))?|any)\s+(?P<one>[\w\s-]+)$", re.I)
_QUALIFIED = re.compile(
    r"\s+(?:about|of|on|for|to\s+do\s+with|concerning|regarding|related\s+to|that|which|(?:i|we|you)(?:'ve|\s+have)?\s+\w+)\b",
    re.IGNORECASE,
)
"""Where what qualifies a kind's head begins ("things| about me", "appointment| I have mentioned to you")."""


def kind_named(thing: str) -> str | None:
    """The kind or category a thing names as a whole ("every due date", "all the standing directions",
    "Targets, ambitions"), as the word the kind rows read ("deadlines", "instructions", "goals"), or None."""
    said = thing.strip()
    every = _EVERY.match(said)
    if every:  # "every person", "every due date": the plural is the kind's name
        one = every.group("one").strip()
        # the head is the word before what qualifies it ("all medical things about me", "every appointment I
        # mentioned"): the plural is the head's, not the qualifier's ("... about mes")
        cut = _QUALIFIED.search(one)
        head, qualifier = (one[: cut.start()], one[cut.start() :]) if cut else (one, "")
        head = re.sub(r"\bperson$", "people", head, flags=re.I)
        head = head if head.lower().endswith("s") or head.lower().endswith("people") else head + "s"
        said = head + qualifier
    for pattern, word in KIND_WORDS:
        found = pattern.search(said)
        # a kind said with what qualifies it to the end ("all the phone numbers I have given you") is one thing
        whole = found is not None and found.end() == len(said) and len(said[: found.start()].split()) <= 3
        if (
            found
            and (len(said.split()) <= 6 or whole)
            and not re.match(r"\s+(?:of|about|for|on|at|in)\b", said[found.end() :])
        ):
            return word
    return None


def kind_mentioned(clause: str) -> str | None:
    """The kind a clause before a pronoun names anywhere in it ("Let's start over on my likes and dislikes")."""
    for pattern, word in KIND_WORDS:
        found = pattern.search(clause)
        if found and not re.match(r"\s+(?:of|about|for|on|at|in)\b", clause[found.end() :]):
            return word
    return None


def asks_to_forget(sentence: str) -> bool:
    """Whether a sentence holds a request to forget that points at what the assistant keeps or at a thing said
    (a pronoun, "that X", a kind): the gate must not drop it as a request to the assistant ("Clear every one of
    them.", "Bin the lot for me"). "Delete the staging database" points at neither and stays a request."""
    sentence = standard(sentence)
    for clause in clauses_of(sentence):
        act = act_of(clause, sentence)
        if act is None:
            continue
        thing, subject, firm = act
        if firm or _POINTED.match(thing) or kind_named(thing) or _users_data(thing) or _MIND_NOT.search(clause):
            return True
    return False


_MIND_NOT = re.compile(rf"\bmind\s+not\s+(?:{KEEPING})\b", re.IGNORECASE)
"""A refusal to keep asked as a favour ("Would you mind not holding on to the ADHD thing?"): a request to forget,
not a question, though a memory must still hold the thing."""


def _users_data(thing: str) -> bool:
    """Whether ``thing`` names a piece of the user's kept data ("my insurance number", "our gate code"): the gate
    lets "Please remove my insurance number" through; the reader forgets it only when a memory holds it."""
    head = _OBJECT_END.split(thing, maxsplit=1)[0].strip(" .!?")
    return re.match(r"(?:my|our)\s", head, re.IGNORECASE) is not None and DATA_NOUNS.search(head) is not None


__all__ = [
    "KIND_WORDS",
    "LAST_TALK",
    "NUMBERED",
    "WITH_ITS",
    "Request",
    "act_of",
    "asks_to_forget",
    "binned_only",
    "clauses_of",
    "kind_mentioned",
    "items_of",
    "kind_named",
    "news_after",
    "noun_phrases",
    "points_at_memory",
    "read_requests",
    "standard",
    "topic_of",
]
