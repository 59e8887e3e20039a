"""Reactions to the assistant: a short sentence made only of thanks, praise, interjections and words of address.

The gate's small-talk words are English greetings and thanks; people react in their own words and languages too
("Sweet as, ta.", "Aye, right enough.", "Spasibo, very good.", "Y'all are quick.", "Wah, so fast one.").
Such a sentence says nothing of the user or their world: every word in it is one of the words below, it has no
digit, no word of the user (I, my, we ...) and no more than :data:`MAX_WORDS` words. The words are kinds of
reaction (gratitude in the languages users write from, praise and judgement, interjections, address), not
sentences: a sentence with one word outside them ("Sweet, no milk", "Very good coffee here") is read as usual.
"""

from __future__ import annotations

import re

from kioko_intelligence.asides import squeeze

MAX_WORDS = 7

GRATITUDE = frozenset(
    """
ta thanks thank thankyou thanx thx tnx tx ty tysm tyvm cheers merci danke dankeschön dankie bedankt dank gracias
grazie obrigado obrigada spasibo spasiba arigato arigatou arigatō domo tak takk tack kiitos dzięki dziekuje
dziękuję shukran asante xiexie xièxie gamsahamnida kamsahamnida dhanyavaad dhanyavad shukriya toda efharisto
teşekkürler tesekkurler sağol mahalo salamat beaucoup mille vielen muchas muito tante bolshoe obliged
diolch dziękuję dziekuje děkuji dekuji köszönöm koszonom multumesc mulțumesc hvala efcharisto evcharisto
nandri dhonnobad terima kasih matur nuwun xie appreciated appreciate shot chur ngiyabonga enkosi baie dankie
""".split()
)
"""Thanks, in English and in the languages users write from."""
PRAISE = frozenset(
    """
good great fine perfect nice neat cool lovely brilliant brill grand sweet beaut beauty bonza bonzer ripper choice
mint sound tidy cracking smashing champion magic class legend wicked sick dope lit fire solid clutch goated iconic
amazing awesome excellent superb splendid marvellous marvelous wonderful terrific fab fabulous fantastic super
quick fast speedy clever smart helpful kind funny hilarious brutal harsh wild crazy mad bonkers classic
cute adorable genius gold gem star treasure right true fair enough indeed quite exactly correct precisely
bueno bene benissimo perfetto bien wunderbar toll prima genial top bravo chapeau clear
bon bonne super très tres schön schon sehr gut muy bella bello buono ottimo świetnie swietnie dobrze dobre
lush ace boss lekker sharp sorted spot-on lowkey highkey slaps bussin valid based elite peak banger goat vibes
noice nais shweet sweeet coolio dandy nifty ripper stellar spiffy snazzy gorgeous fair play steady nicely interesting
happy merry best typical
""".split()
)
"""Words of praise or judgement of what was said."""
UNDERSTANDING = frozenset(
    """
sense clears cleared clearer clarifies clarified explains explained helps helped needful works
""".split()
)
"""Words saying the answer landed ("Makes total sense now.", "That clears it up.", "Kindly do the needful.")."""
INTERJECTIONS = frozenset(
    """
aye och ach wah wa wow whoa woah eh ah oh ooh oof oops whoops yikes blimey crikey gosh golly jeez geez shiok
alamak aiyo aiyoh aiyah haiya lah leh lor mah hor sia walao yay woo woohoo hooray huh meh pfft ugh bah duh mm mmm
mhm mm-hm uh-huh uh hmm hm ha hah haha heh hehe lol lmao lmfao rofl omg omfg ole olé voila voilà ja jawohl si sí
oui nein da nyet hai vale claro allora va boom bingo bet word ngl tbh fr yessir aight ight nvm k kk okie okey
dokey okey-dokey righto righty roger copy wilco affirmative noted understood gotcha yep yup yeah yes yea nah no
nope ok okay alright sure amen phew whew welp well onya mamma mia ayy ayyy ayo aye-aye yass yasss cap facts
deffo defo totes innit ey oi ahh aah ooh-la-la oh-la-la ouais bof tja naja och-aye jeepers cor blimey begorrah
haw hoo whoo yup-yup nice-one ta-da tada respect la sorry brb gtg g2g ttyl afk
""".split()
)
"""Sounds and one-word answers that react without saying anything."""
FRAME = frozenset(
    """
you y'all yall ya u ye you're youre ur you've you'll thee are were is was be 's 're it it's its that that's this
these those so very really too such pretty just as always ever again a an the and but or of for to at all much
lot lots one ones bit little what how mate dear love luv friend bro bruv fam chief boss sir ma'am madam guys
folks man girl buddy pal god bless lord heavens goodness oh gosh thank there here now then most
million bunch ton heaps loads muchly kindly bredren bredrin bru bra bruh cuz mon ami amigo hombre dude fella
lads lass hun babe darling pet hen duck chuck sweetie kid our sounds seems looks feels about will do shall action
makes made make total totally complete completely perfectly real proper up things everything way never thought get
got see now back turnaround reply replies answer answers response help explanation work effort yesterday earlier today
have carry on bother ur sm many yaar ji bhai für die hilfe por todo evening morning afternoon night day weekend new year christmas holidays easter
talk later speak soon catch worries worry problem problems probs prob dramas drama biggie sweat fuss look
""".split()
)
"""Words that frame a reaction ("you are so quick", "God bless you, my friend", "that's very good of you")."""

_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", re.UNICODE)
_USER = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|mine|we|we're|we've|our|ours|us)\b", re.IGNORECASE)
_WORDS = GRATITUDE | PRAISE | INTERJECTIONS | FRAME | UNDERSTANDING
_FOR_ME = re.compile(r"\b(?:for|to|by|with)\s+me\b", re.IGNORECASE)
_I_REACT = re.compile(
    r"\b(?:i\s+(?:see|get\s+(?:it|that)|got\s+(?:it|that)|understand)|(?:i\s+am|i'm|we\s+are|we're)\s+(?:[a-z]+\s+){0,2}?"
    r"(?:grateful|thankful|obliged|indebted))\b",
    re.IGNORECASE,
)
"""The user's own words that only react ("Ah I see now.", "I am most grateful."): read as "understood"."""


SIGN_OFF = re.compile(
    r"(?:(?:with\s+)?(?:(?:kind(?:est)?|best|warm(?:est)?|many)\s+)?(?:regards|wishes|thanks)|yours\s+(?:sincerely|"
    r"faithfully|truly|ever)|sincerely|cordially|respectfully|all\s+the\s+best|take\s+care|love|much\s+love|xx+|x)"
    r"(?:[,.!]+\s*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)?[.!]*",
)
"""A letter's closing, with the writer's name after it ("Kind regards, Margaret.", "Yours sincerely, Margaret
Hughes", "With best wishes.")."""


_VERDICT = re.compile(
    r"(?:that's|that\s+is|that\s+was|it's|it\s+is|it\s+was|what\s+an?)\s+[a-z'-]+(?:\s+[a-z'-]+)?|"
    r"(?:too|how|very)\s+[a-z'-]+|[a-z'-]+\s+but\s+[a-z'-]+|"
    r"[a-z'-]+\s+(?:answer|reply|response|one|point|idea|question|take|call|shout|effort|work|stuff)",
    re.IGNORECASE,
)
"""A judgement of what was just said, in at most three words: "that's pure magic", "what a week", "too easy",
"diplomatic answer". It is a reaction only beside a reaction word (see :func:`is_reaction`)."""
_CLAUSE_CUT = re.compile(r"\s*[,;:\u2014\u2013]\s*|\s+-+\s+")


def _judged(sentence: str) -> bool:
    """Whether ``sentence`` is a reaction and a short judgement of the reply, each its own clause ("Cheers pal,
    that's pure magic.", "Ha, diplomatic answer.", "Too easy, cheers.", "ugh, what a week"): no digit, no word
    of the user, no name, at most :data:`MAX_WORDS` words, the judgement at most three."""
    said = sentence.strip().rstrip(".!?").replace("\u2019", "'")
    parts = [p for p in _CLAUSE_CUT.split(said) if p.strip()]
    words = _WORD.findall(said)
    if len(words) > MAX_WORDS or any(c.isdigit() for c in said) or _USER.search(said):
        return False
    if re.search(r"\bmy\b", said, re.IGNORECASE):
        return False  # "Cool, that's my brother" says who someone is
    if any(w[:1].isupper() for part in parts for w in _WORD.findall(part)[1:]):
        return False  # "Cheers, that's Tom's" names someone
    if len(parts) == 1:  # "ngl that's kinda helpful": the reaction words open the judgement
        opening = 0
        while opening < len(words) - 1 and _reacts(words[opening]):
            opening += 1
        rest = said.split(None, opening)[-1] if opening else ""
        return bool(rest) and _VERDICT.fullmatch(rest.strip()) is not None
    reacting = [_reacts(p) for p in parts]
    return any(reacting) and all(r or _VERDICT.fullmatch(p.strip()) for p, r in zip(parts, reacting))


def _reacts(clause: str) -> bool:
    words = [w.lower() for w in _WORD.findall(clause)]
    reacting = [w for w in words if w in GRATITUDE or w in PRAISE or w in INTERJECTIONS or w in UNDERSTANDING]
    return bool(reacting) and all(w in _WORDS for w in words)


_THANKS_FOR = re.compile(
    r"^(?:(?:thanks|thank\s+you|thank\s+u|ta|cheers|sorry|soz|apologies|my\s+apologies)\s+(?:so\s+much\s+|again\s+|"
    r"a\s+lot\s+)?for\s+(?P<rest>[^,;:]+?))[.!]*$",
    re.IGNORECASE,
)
"""Thanks or an apology for something of the talk ("Sorry for all the questions.", "Thanks for being patient."): at
most five words after "for", none of the user's, no digit and no name."""


_TALK_HELP = re.compile(
    r"^(?:the|your|that|this|those|these|all\s+the|all\s+your)?\s*(?:[a-z'-]+\s+){0,2}?(?:help|tips?|advice|suggestions?|"
    r"ideas?|pointers?|recipes?|answers?|replies|reply|explanation|info|information|heads-up|heads\s+up|reminders?|"
    r"chat|recs?|recommendations?|walkthrough|rundown|steps|feedback|input|support)"
    r"(?:\s+(?:with|on|about|for|re)\s+(?:[a-z'-]+\s*){1,6}?)?"
    r"(?:\s+(?:yesterday|earlier|last\s+time|the\s+other\s+day|last\s+night|this\s+morning))?$",
    re.IGNORECASE,
)
"""What the assistant gave, thanked for ("the help with the cover letter yesterday", "the liniment tip"): the
talk's help, with what it was about and when, at most six words of its matter."""


_BORNE = re.compile(
    r"^(?:putting\s+up\s+with|listening\s+to|bearing\s+with|helping|humouring|humoring|indulging)\s+"
    r"(?:me|my\s+(?:rambling|ramblings|questions|moaning|ranting))(?:\s+(?:out|today|again|earlier))?$",
    re.IGNORECASE,
)
"""The assistant's patience with the user, thanked for ("Thanks for putting up with me.", "Cheers for listening to
my rambling")."""


def _thanks_for(sentence: str) -> bool:
    found = _THANKS_FOR.match(sentence.strip())
    if found is None:
        return False
    rest = found.group("rest")
    words = _WORD.findall(rest)
    if not any(c.isdigit() for c in rest) and not any(w[:1].isupper() for w in words) and _TALK_HELP.match(rest):
        return True
    if _BORNE.match(rest):
        return True
    return (
        0 < len(words) <= 5
        and not any(c.isdigit() for c in rest)
        and not _USER.search(rest)
        and not re.search(r"\bmy\b", rest, re.IGNORECASE)
        and not any(w[:1].isupper() for w in words)
    )


_OF_THE_REPLY = re.compile(
    r"^(?:(?:honestly|oh|ah|wow|ha+|ooh|god|gosh|see|now)[,!.\s]+)*i\s+(?:(?:really|just|absolutely|do|totally)\s+)?"
    r"(?:love|like|loved|liked|appreciate|appreciated|enjoyed|adore|dig|admire)\s+(?:how|the\s+way|what)\s+you(?:'ve)?\s+"
    r"(?:(?:just|have|really)\s+)?(?:put|said|phrased|worded|explained|framed|described|wrote|written|handled|"
    r"laid|broke|broken|summed|spelled|spelt|explained|answered|did|done)\s+(?:that|this|it|them)"
    r"(?:\s+(?:up|out|down|there|for\s+me))?[\s.!]*$",
    re.IGNORECASE,
)
"""The user's liking of how the assistant just said something ("I love how you put that.", "Honestly, I like the
way you explained it"): the reply is pointed at ("that", "it"), so it is a reaction to it, not a standing wish ("I
like how you use bullet points" names no reply and is read as usual)."""


def is_reaction(sentence: str) -> bool:
    """Whether ``sentence`` only reacts to the assistant ("Sweet as, ta.", "Beauty, thanks eh.", "Y'all are quick.")
    or closes a letter ("Kind regards, Margaret.")."""
    sentence = squeeze(sentence.strip())  # "Ohhh, that makes sense now": a drawn-out word is the word
    if SIGN_OFF.fullmatch(re.sub(r"^(?i:with)\s+", "with ", sentence[:1].lower() + sentence[1:])):
        return True
    if _thanks_for(sentence.replace("\u2019", "'")) or _OF_THE_REPLY.match(sentence.replace("\u2019", "'")):
        return True
    sentence = _FOR_ME.sub("", sentence.replace("\u2019", "'"))  # "that is very helpful for me"
    sentence = _I_REACT.sub("understood", sentence)
    if any(c.isdigit() for c in sentence) or _USER.search(sentence):
        return False
    words = _WORD.findall(sentence.replace("\u2019", "'"))
    if not words or len(words) > MAX_WORDS:
        return False
    return _reacts(sentence.replace("\u2019", "'")) or _judged(sentence)


PAUSE = re.compile(
    r"^(?:one\s+(?:moment|sec(?:ond)?|mo|minute|tick)|just\s+a\s+(?:sec(?:ond)?|moment|minute|tick|mo)|hold\s+on|"
    r"hang\s+on|bear\s+with\s+me|give\s+me\s+(?:a|one)\s+(?:sec(?:ond)?|moment|minute|mo)|wait\s+a\s+(?:sec(?:ond)?|"
    r"moment|minute)|brb|be\s+right\s+back|back\s+in\s+a\s+(?:sec(?:ond)?|bit|minute|moment|mo|tick|jiffy)|gtg|g2g|"
    r"got\s+to\s+go|gotta\s+go|ttyl|afk|excuse\s+me|(?:(?:right|ok(?:ay)?|well|anyway)[,\s]+)?(?:i'm\s+)?off\s+to\s+"
    r"(?:bed|sleep)|(?:i'm\s+|i\s+am\s+)?off\s+now|night\s+night)\b[\s,.!:;\u2014-]*(?P<rest>.*)$",
    re.IGNORECASE,
)
MAX_PAUSE_WORDS = 7
"""A pause is at most this many words after its opener ("the telephone is ringing", "someone's at the door")."""


def is_pause(sentence: str) -> bool:
    """Whether ``sentence`` only steps away from the conversation ("One moment, the telephone is ringing.", "Hang on,
    kettle's boiling", "brb, door"): a pause opener and at most :data:`MAX_PAUSE_WORDS` words of what interrupts,
    none of the user (I, my, we ...), no digit, no name or date (a capital after the first word) and no verb in the
    past: "Hold on, the meeting moved to Friday", "Hang on, the password changed" say something and are read as
    usual."""
    rest = _aside(PAUSE, sentence)
    if rest is None:
        return False
    words = _WORD.findall(rest)
    return (
        not _USER.search(rest)
        and not re.search(r"\b(?:my|mine)\b", rest, re.IGNORECASE)
        and not any(len(w) > 4 and w.lower().endswith("ed") for w in words)  # "the password changed" is news
    )


def _aside(pattern: re.Pattern[str], sentence: str) -> str | None:
    """What ``pattern`` (a pause or an interruption) leaves of ``sentence`` when it is a short aside: at most
    :data:`MAX_PAUSE_WORDS` words, no digit and no name or date (a capital after the first word); else None."""
    found = pattern.match(sentence.strip().replace("\u2019", "'"))
    if found is None:
        return None
    rest = found.group("rest").strip(" .!?")
    words = _WORD.findall(rest)
    if len(words) > MAX_PAUSE_WORDS or any(c.isdigit() for c in rest) or any(w[:1].isupper() for w in words[1:]):
        return None
    return rest


INTERRUPTION = re.compile(
    r"^(?:(?:sorry|soz|sry|oops|argh|ugh|omg|oh|ah|ack|wait|hold\s+on|hang\s+on|one\s+sec)\b[\s,.!:;\u2014-]*)?"
    r"(?P<rest>.*?(?:(?:\bis|\bare|'s|'re)\s+(?:\w+\s+)?(?:yelling|screaming|crying|shouting|howling|wailing|"
    r"bawling|barking|ringing|boiling|knocking|kicking\s+off|calling(?:\s+me)?|at\s+the\s+door)|"
    r"\bjust\s+(?:walked|came|got|turned|popped)\s+(?:in|up|here|round|back)|\bjust\s+woke\s+up)"
    r"(?:\s+(?:again|now|lol|haha|sigh|ugh))?)[\s.!]*$",
    re.IGNORECASE,
)
"""What interrupts the talk for a moment, said and done with ("sorry, one of them is screaming", "Hold on, my kid's
yelling.", "Sorry, customer just walked in."): the commotion ends the sentence, nothing is said after it."""


MISDIRECTED = re.compile(
    r"^(?:(?:haha+|lol|oops|whoops|sorry|soz|sry|ignore\s+(?:that|this|me))\b[\s,.!:;\u2014-]*)+"
    r"(?P<rest>(?:i\s+was|i'm|i\s+am)\s+(?:just\s+)?(?:talking|speaking|chatting|texting)\s+to\s+(?:my\s+[a-z]+|"
    r"someone|somebody)(?:\s+else)?|(?:that\s+)?(?:wasn't|was\s+not)\s+(?:meant\s+)?for\s+you|wrong\s+(?:chat|window|"
    r"tab|person))[\s.!]*$",
    re.IGNORECASE,
)
"""Words meant for someone else, owned up to ("Haha sorry, I was talking to my husband.", "Oops, that wasn't for
you"): an apology or a laugh first, nothing said after."""


def is_interruption(sentence: str) -> bool:
    """Whether ``sentence`` only says something is interrupting the user right now: a commotion that ends it
    (:data:`INTERRUPTION`), at most :data:`MAX_PAUSE_WORDS` words, no digit and no name past the first word.
    "My son is crying every night since the move" and "Sorry, my sister is here for the week" say more and are read
    as usual."""
    rest = _aside(INTERRUPTION, sentence)
    return bool(rest and _WORD.search(rest)) or _aside(MISDIRECTED, sentence) is not None


__all__ = [
    "FRAME",
    "GRATITUDE",
    "INTERJECTIONS",
    "INTERRUPTION",
    "MAX_WORDS",
    "MISDIRECTED",
    "PAUSE",
    "PRAISE",
    "is_interruption",
    "is_pause",
    "is_reaction",
]
