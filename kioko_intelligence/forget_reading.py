"""The offline router's forget builders: a kind, an item or a subject the user asks to forget (the rows are
:mod:`~kioko_intelligence.rules`' ``FORGET``), matched to the memories that hold it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import kioko_intelligence.rules as rules
from kioko_core.reading.analysis import stem
from kioko_core.store import InvalidRecordError
from kioko_intelligence.language import (
    about_user,
    bare,
    content_words,
)
from kioko_intelligence.ops import SKIPPED
from kioko_intelligence.turn_reading import TurnReading

if TYPE_CHECKING:
    pass


class ForgetReading(TurnReading):
    """The builders of a turn's forget requests: each returns True when it used the sentence up."""

    def forget_kind(self, text: str) -> bool:
        """ "Forget all my preferences", "clear every goal from your memory": every memory of that kind goes."""
        found = rules.FORGET_KIND.match(_forget_request(text))
        if found is None:
            return False
        kind = rules.FORGET_KINDS[found.group("kind").lower()]
        records = list(self.memory.memories(kinds={kind}, **self.who))
        for record in records:
            self.add("memory.delete", target=record.id, reason=f"the user asked to forget every {kind} memory")
        if not records:
            op = self.add("memory.delete", reason=f"the user asked to forget every {kind} memory")
            op.status, op.error = SKIPPED, f"the user has no {kind} memories"
        return True

    def forget(self, text: str) -> bool:
        request = _forget_request(text)
        found = rules.first(rules.FORGET, request)
        if found is None:
            if not rules.FORGET_THAT.match(request):
                return False
            op = self.add("memory.delete", reason="a request to erase what was just named")
            op.status, op.error = SKIPPED, "what to erase is named by the sentence before (read there)"
            return True
        phrase = found[1].group("phrase")
        phrase = rules.FORGET_FRAME.sub("", rules.CUT.split(bare(phrase), maxsplit=1)[0], count=1)
        phrase = rules.FORGET_TAIL.sub("", phrase).strip()
        if phrase.lower() in rules.EVERYTHING or not content_words(phrase):
            op = self.add("memory.delete", reason="a request to forget everything")
            op.status, op.error = (
                SKIPPED,
                "forgetting everything is never done from a conversation; use memory.forget_user(...) explicitly",
            )
            return True
        if (rules.FORGET_SUBJECT.search(request) or _proper_name(phrase)) and self.forget_subject(phrase):
            return True
        slot = rules.SLOT_MENTION.match(phrase)
        words = tuple(w for w in content_words(about_user(phrase)) if w != "user" and w not in FORGET_FILLERS)
        if slot and slot.group(1).lower() in rules.SLOTS:
            key = rules.SLOTS[slot.group(1).lower()]
            record = self.memory.profile.record(key, **self.who)
            if record is not None:
                self.add("memory.delete", target=record.id, reason=f"the user asked to forget their {key}")
                return True
            # a slot kept as a plain memory ("User's work email is ..."): the slot's own words name it
            words = content_words(key.replace("_", " "))
        aliases = {w: _aliases(w) for w in words}
        query = " ".join([phrase, *(a for found in aliases.values() for a in found)])
        hits = [
            r for r in self.related(query, limit=50) if _loose_coverage(words, r.content, aliases) >= FORGET_COVERAGE
        ]
        for record in hits:
            self.add("memory.delete", target=record.id, reason=f"the user asked to forget {phrase!r}")
        if not hits:
            op = self.add("memory.delete", reason=f"the user asked to forget {phrase!r}")
            op.status, op.error = SKIPPED, "nothing in the user's memories matched"
        return True

    def forget_subject(self, subject: str) -> bool:
        """ "Forget everything about P": a ``memory.delete`` for each memory naming P (``fields.subject``; the
        executor then sweeps P's triples, summary points and session turns with ``memory.forget_about``).
        False when P names nothing (only common words) or nothing of the user's names it: the sentence is then
        read as a forget of one item ("forget what I told you about my weight" finds "User weighs 70 kilos")."""
        try:
            found = self.memory.forget_about(subject, dry_run=True, **self.who)
        except InvalidRecordError:
            return False
        reason = f"the user asked to forget everything about {subject!r}"
        for item in found["memories"]:
            self.add("memory.delete", target=item["id"], subject=subject, reason=reason)
        if not found["memories"]:
            if not (found["relations"] or found["traces"]):
                return False  # "forget what I told you about my weight": read as one item ("User weighs ...")
            self.add("memory.delete", subject=subject, reason=reason)
        return True


FORGET_COVERAGE = 0.75


FORGET_FILLERS = frozenset({"thing", "things", "stuff", "bit", "info", "information", "details", "detail", "part"})
"""Words that only frame what to forget ("the metformin thing"): they need not be in the memory."""


def _loose_coverage(words: tuple[str, ...], text: str, aliases: dict[str, tuple[str, ...]] | None = None) -> float:
    """Like :func:`coverage`, a word also counting when it shares its first five letters ("allergy", "allergic")
    or when one of its ``aliases`` is in the text ("salary" for "User earns 85k")."""
    if not words:
        return 0.0
    have = set(content_words(text))

    def held(word: str) -> bool:
        return word in have or (len(word) >= 5 and any(h[:5] == word[:5] for h in have))

    hits = sum(1 for w in words if held(w) or any(held(a) for a in (aliases or {}).get(w, ())))
    return hits / len(words)


def _forget_request(text: str) -> str:
    """A sentence as the forget rules read it: without "Could you please" and "Actually, ..." before it."""
    said = bare(text)
    for _ in range(2):
        said = rules.ASK_TO.sub("", rules.FORGET_LEAD.sub("", said, count=1), count=1)
    return said


def _aliases(word: str) -> tuple[str, ...]:
    """The stems of the words a memory may name ``word``'s thing by (:data:`~kioko_intelligence.rules.FORGET_ALIASES`)."""
    for name, others in rules.FORGET_ALIASES.items():
        if stem(name) == word:
            return tuple(stem(o) for o in others)
    return ()


def _proper_name(phrase: str) -> bool:
    """ "Tom", "Dr. Okafor", "Northwind Traders": a name alone, forgotten as a subject ("forget Tom entirely")."""
    words = phrase.split()
    if not 1 <= len(words) <= 3 or words[0].lower() in ("my", "the", "our", "your"):
        return False
    return all(w[:1].isupper() and w.rstrip(".").replace("-", "").replace("'", "").isalpha() for w in words)
