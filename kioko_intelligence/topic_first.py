"""A topic said first and then taken up by "it": "Controlled drugs register, I check it every Friday".

Speakers often name what they talk about, pause, and go on with a pronoun. Read clause by clause, the topic
("Controlled drugs register") is too short to keep and the rest ("I check it every Friday") keeps a memory
about nothing: a later change of the same topic ("Controlled drug check, now it is every day at close") then
shares no word with it and cannot replace it. The sentence is read as if the topic stood where "it" is:
"I check the controlled drugs register every Friday".

Only a plain noun phrase counts as a topic (two to six words, no verb, pronoun or conjunction among them, not
a greeting or a lead-in), and the "it" must come within the first few words after the comma, so that "Last
week, it rained" or "Honestly, I love it" are left as said.
"""

from __future__ import annotations

import re

_TOPIC = re.compile(r"^(?P<topic>[^\W\d_][\w'’&/-]*(?:\s+[\w'’&/-]+){1,5}),\s+(?P<rest>.+)$")
_PRONOUN = re.compile(r"\b(?:it|them)\b(?!')", re.IGNORECASE)
_NOT_IN_A_TOPIC = frozenset(
    """i i'm i've we we're you he she they it it's this that these those there here is are was were am be been
    being have has had do does did will would can could should may might must if when whenever because since as
    after before while so but and or then than though although just also really honestly actually anyway well
    oh ok okay yes no not never always sometimes usually today yesterday tomorrow tonight week month year last
    next ago every hi hello hey thanks sorry please""".split()
)
_DETERMINER = frozenset("the a an my our your his her their this that these those".split())
NEAR = 4
"""How many words after the comma may come before the pronoun that takes the topic up."""


def topic_first(text: str) -> str:
    """``text`` with a topic said first put in the place of the "it" that takes it up, or ``text`` as it was."""
    found = _TOPIC.match(text.strip())
    if found is None:
        return text
    topic, rest = found.group("topic"), found.group("rest")
    words = [w.lower().strip("'’") for w in topic.split()]
    if any(w in _NOT_IN_A_TOPIC for w in words):
        return text
    pronoun = _PRONOUN.search(rest)
    if pronoun is None or len(rest[: pronoun.start()].split()) > NEAR or "," in rest[: pronoun.start()]:
        return text
    first, _, others = topic.partition(" ")
    if first[1:].islower():  # "Controlled drugs register" -> "controlled drugs register"; "Big Steve", "CD" kept
        if not any(w[:1].isupper() for w in others.split()):
            first = first.lower()
    said = f"{first} {others}"
    if words[0] not in _DETERMINER and said[:1].islower():
        said = "the " + said
    return rest[: pronoun.start()] + said + rest[pronoun.end() :]
