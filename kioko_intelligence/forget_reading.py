"""The offline router's forget builders: a kind, an item or a subject the user asks to forget (the rows are
:mod:`~kioko_intelligence.rules`' ``FORGET``), matched to the memories that hold it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import kioko_intelligence.change_pairs as change_pairs
import kioko_intelligence.forget_context as context
import kioko_intelligence.forget_requests as shapes
import kioko_intelligence.rules as rules
from kioko_core.errors import KiokoError
from kioko_core.reading.analysis import NAME_FRAMING, stem
from kioko_core.recall.safety import TOPICS, classes_of, topics_of
from kioko_core.store import Filter, InvalidRecordError, Record
from kioko_intelligence.forget_items import REWRITTEN_KINDS, holds, without_item
from kioko_intelligence.language import (
    about_user,
    bare,
    content_words,
    sentences,
)
from kioko_intelligence.ops import SKIPPED
from kioko_intelligence.turn_reading import TurnReading


class ForgetReading(TurnReading):
    """The builders of a turn's forget requests: each returns True when it used the sentence up."""

    def forget_kind(self, text: str) -> bool:
        """ "Forget all my preferences", "clear every goal from your memory": every memory of that kind goes."""
        found = rules.FORGET_KIND.match(_forget_request(text))
        if found is None:
            return self.forget_category(text)
        kind = rules.FORGET_KINDS[found.group("kind").lower()]
        records = list(self.memory.memories(kinds={kind}, **self.who))
        self.delete_all(records, f"the user asked to forget every {kind} memory", f"the user has no {kind} memories")
        return True

    def forget_category(self, text: str) -> bool:
        """ "Forget all my food preferences", "clear all the deadlines you have for me", "forget all the people I've
        told you about": every memory of the user in that category (:func:`in_category`) goes; a category named
        but holding nothing is a skipped op, never read as an item to forget."""
        found = FORGET_CATEGORY.match(_forget_request(text))
        if found is None:
            return False
        category = found.group("category").lower()
        if WORK_CATEGORY.match(category):
            category = "work"  # "the work things", "anything job-related": one category
        qualifier = (found.group("qualifier") or found.group("after") or "").lower()
        if category in PREFERENCE_WORDS and not qualifier:
            return False  # the whole kind: rules.FORGET_KIND's (it names it with "my" / "all")
        wanted = CATEGORY_KINDS.get(category)
        held = list(self.memory.memories(kinds=wanted, **self.who))
        records = [r for r in held if in_category(r, category, qualifier)]
        if category == "work":  # "Our warehouse ships for three chains" after "... at a distribution warehouse"
            places = workplaces([r.content for r in records])
            records += [
                r for r in held if r not in records and r.kind not in UNSCANNED and names_place(r.content, places)
            ]
        label = f"{qualifier} {category}".strip()
        since = len(self.ops)
        group = CATEGORY_GROUPS.get(category)
        if group is not None and records:
            # every memory of the people the category's memories name by their relation goes with them ("Her little
            # brother Ollie has just started Beavers" after "User's eldest, Freya, is in Year 9"): each a subject
            self.delete_all(records, f"the user asked to forget all their {label}", "")
            self._take_relations(records, since)
            for name in group_names([r.content for r in records], group):
                self.forget_subject(name, expand=False)
            return True
        if category in SWEPT_CATEGORIES:  # no qualifier narrows these ("anything health-wise")
            # what the session summaries and logs say of it goes too (the executor's sweep, fields.category), also
            # when no memory holds it: "Had my gallbladder out" may be only a summary's point
            reason = f"the user asked to forget all their {category}"
            for record in records:
                self.add("memory.delete", target=record.id, category=category, reason=reason)
            if not records:
                self.add("memory.delete", category=category, reason=reason)
            self._take_relations(records, since)
            return True
        self.delete_all(records, f"the user asked to forget all their {label}", f"the user has no memories of {label}")
        self._take_relations(records, since)
        return True

    def _take_relations(self, records: list[Record], since: int) -> None:
        """The user's entity-graph relations whose object one of ``records`` states, and no memory the forget leaves,
        go with the first delete made since op ``since`` ("User's employer is Rotherham" takes (user) -works_at->
        (Rotherham): a delete keeps the router's relations, and the triple stayed after "forget all my work stuff";
        with "User lives in Rotherham" kept, a relation to Rotherham stays)."""
        first = next((op for op in self.ops[since:] if op.op == "memory.delete" and op.target), None)
        if first is None or not records or self.scope.agent_id is not None:
            return
        try:
            triples = [
                t for t in self.memory.graph.relations("user", user_id=self.scope.user_id) if t.subject_key == "user"
            ]
        except KiokoError:
            return
        stated = [t for t in triples if any(_says(r.content, t.object) for r in records)]
        if not stated:
            return
        gone = {r.id for r in records}
        kept = [r.content for r in self.memory.memories(kinds=None, **self.who) if r.id not in gone]
        taken = [t.id for t in stated if not any(_says(text, t.object) for text in kept)]
        if taken:
            first.fields["triples"] = taken

    def delete_all(self, records: list[Record], reason: str, none_held: str) -> None:
        """A ``memory.delete`` for each of ``records``; for none, one skipped op saying why (``none_held``), so the
        report shows the request was read."""
        for record in records:
            self.add("memory.delete", target=record.id, reason=reason)
        if not records:
            op = self.add("memory.delete", reason=reason)
            op.status, op.error = SKIPPED, none_held

    def forget(self, text: str) -> bool:
        if self.forget_by_shape(text):
            return True
        request = _forget_request(text)
        found = rules.first(rules.FORGET, request)
        if found is None:
            # "We broke up, please forget Marcus": the request is the sentence's last clause
            tail = TRAILING_REQUEST.search(request)
            if tail is not None:
                request = _forget_request(tail.group("request"))
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
        along = shapes.WITH_ITS.match(phrase)
        if along is not None:  # "Forget Halden and everything that goes with it": everything naming Halden
            phrase = along.group("thing").strip()
            if self.forget_subject(phrase):
                return True
        named = [word for pattern, words in context.WH_SLOTS if pattern.search(phrase) for word in words]
        if named:  # "forget where I live", "the info about how much I earn": the slots that say it
            for word in named:
                self.forget(f"forget my {word}")
            return True
        related = RELATED_FRAME.match(phrase)
        if related is not None:  # "everything related to Bluefin": a subject
            phrase = phrase[related.end() :].strip()
        if PRONOUN.fullmatch(phrase):  # "Jordan's out of my life, forget him": the one name the sentence says
            named = self.known_names(_names_in(text))
            if not named:  # "Gary Holt has paid up and gone. Wipe everything you've got on him": the turn's
                named = self.known_names(_full_names(self.turn.text("user").replace(text, " ")))
            if len(named) == 1 and self.forget_subject(named[0]):
                return True
        if related is not None and content_words(phrase) and self.forget_subject(phrase):
            return True
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
        former = [w for w in words if w in FORMER] if len(words) > 1 else []
        if slot and slot.group(1).lower() in rules.SLOTS:
            key = rules.SLOTS[slot.group(1).lower()]
            record = self.memory.profile.record(key, **self.who)
            if record is not None:
                triples = self.stated_relations(words or (key,), [record])[1] or None
                self.add(
                    "memory.delete", target=record.id, reason=f"the user asked to forget their {key}", triples=triples
                )
                return True
            # a slot kept as a plain memory ("User's work email is ..."): the slot's own words name it
            words = content_words(key.replace("_", " "))
        words = tuple(w for w in words if w not in former)  # "my old address": the address, not the newest one
        aliases = {w: _aliases(w) for w in words}
        query = " ".join([phrase, *(a for found in aliases.values() for a in found)])
        hits = [
            r for r in self.related(query, limit=50) if _loose_coverage(words, r.content, aliases) >= FORGET_COVERAGE
        ]
        scanned: list[Record] = []
        if not hits and words:
            # the search matches whole stems ("pregnancy" does not find "pregnant"); a forget is rare, so the
            # user's memories are read once (at most SCANNED) with the looser coverage before giving up
            scanned = [r for r in _first(self.memory.store.scan(self.scope), SCANNED) if r.kind not in UNSCANNED]
            hits = [r for r in scanned if _loose_coverage(words, r.content, aliases) >= FORGET_COVERAGE]
        if not hits and len(words) > 1:
            hits = self.meant(phrase, words, aliases, scanned)
        every = hits + self.replaced_by(hits) if former else []
        if len(every) > 1:  # "my old address": the newest value in force stays, the ones it replaced go
            newest = max(every, key=lambda r: (not _replaced(r), r.created_at))
            hits = [r for r in every if r.id != newest.id]
        by_relation, triples = self.stated_relations(words, hits)
        hits += by_relation
        for index, record in enumerate(hits + self.replaced_by(hits)):
            op = self.add("memory.delete", target=record.id, reason=f"the user asked to forget {phrase!r}")
            if index == 0 and triples:
                op.fields["triples"] = triples  # the first delete takes the relations with it
            if index < len(hits):
                self.keep_the_rest(record, words)
        self.forget_given_names([r.content for r in hits], phrase)
        if not hits and not (words and self.forget_subject(" ".join(words), expand=False)):
            # nothing held it: what a summary point or a turn waiting in a session log says of it still goes (the
            # subject sweep above), else the request is reported as read
            op = self.add("memory.delete", reason=f"the user asked to forget {phrase!r}")
            op.status, op.error = SKIPPED, "nothing in the user's memories matched"
        return True

    def meant(
        self, phrase: str, words: tuple[str, ...], aliases: dict[str, tuple[str, ...]], scanned: list[Record]
    ) -> list[Record]:
        """The memories a thing named in other words means ("my number plates" for "User's van's reg is KX19 BRV",
        "my son's school name" for "User's son studies at St Paul's Co-ed"): among those holding part of its words
        (:data:`MEANT_COVERAGE`), the ones the layer's semantic embedder finds nearest the request (within
        :data:`MEANT_MARGIN` of the nearest, at least :data:`MEANT_FLOOR`). None with a lexical embedder: it relates
        no texts that share no word."""
        near = change_pairs.cosine_of(self.memory)
        if near is None:
            return []
        held = [r for r in scanned if _loose_coverage(words, r.content, aliases) >= MEANT_COVERAGE]
        scored = [(near(phrase, r.content), r) for r in held]
        best = max((score for score, _ in scored), default=0.0)
        return [r for score, r in scored if score >= max(MEANT_FLOOR, best - MEANT_MARGIN)]

    def keep_the_rest(self, record: Record, words: tuple[str, ...]) -> None:
        """What a memory said besides the item the user asked to forget, written again as a new memory of its kind
        (:func:`.forget_items.without_item`): "drop Ana's number" keeps "User's sister Ana lives in Lisbon"."""
        op_kind = REWRITTEN_KINDS.get(record.kind)
        rest = without_item(record.content, words) if op_kind and not record.metadata.get("superseded_by") else None
        if rest is None:
            return
        importance = record.metadata.get("importance")
        op = self.add(
            f"{op_kind}.add",
            text=rest,
            reason="what the memory said besides the item the user asked to forget",
            text_for_importance=rest,
        )
        if isinstance(importance, float):
            op.importance = importance

    def forget_by_shape(self, text: str) -> bool:
        """A sentence of a request to forget read by its shape (:mod:`.forget_requests`): the request's own sentence
        does what it asks; a sentence that only named its thing before a pronoun ("Right, that overdraft figure.
        ... Bin it."), or that names a person the turn asks to forget everything about ("Brayden's chucked it in.
        Don't want anything about him hanging round"), is used up and stores nothing."""
        plan: tuple[dict[str, list[tuple[str, str]]], set[str]] | None = self.__dict__.get("_shape_plan")
        if plan is None:
            self.__dict__["_shape_plan"] = ({}, set())  # the canonical requests planning tries read no shapes
            plan = self.__dict__["_shape_plan"] = self._plan_shapes()
        actions, used = plan
        if text in actions:
            for what, value in actions.pop(text):
                self._forget_as(what, value)
            return True
        return text in used

    def _plan_shapes(self) -> tuple[dict[str, list[tuple[str, str]]], set[str]]:
        texts = sentences(self.turn.text("user"))
        actions: dict[str, list[tuple[str, str]]] = {}
        used: set[str] = set()
        earlier: set[int] = set()
        requests = shapes.read_requests(texts)
        for request in requests:
            said = texts[request.at]
            # the rows read "remove it from your notes" as "forget everything": a sentence whose every request is a
            # pronoun with a thing said before it is ours
            referring = all(
                _pronoun(r.thing) and any(at >= r.at - 1 for at, _ in r.antecedents)
                for r in requests
                if r.at == request.at and not r.added
            )
            by_rows = _rows_read(said) and shapes.kind_named(request.thing) is None and not referring
            # the rows read one thing, and a pronoun only through a name in its own turn: several things, and a
            # pronoun resolved here, are ours
            pronoun = _pronoun(request.thing) or shapes.PERSON_PRONOUN.match(request.thing) is not None
            several = len(shapes.items_of(request.thing)) > 1
            last_talk = shapes.LAST_TALK.match(request.thing.strip(" .!?")) is not None  # the rows read one item
            if by_rows and not (request.subject or pronoun or several or request.added or last_talk):
                continue
            resolved = [] if request.at in earlier and _pronoun(request.thing) else self._resolve(request, texts)
            earlier.add(request.at)
            if not request.firm and not by_rows and resolved != [("hold", "", None)]:
                if not self._would_forget(resolved, numbered=request.numbered):
                    continue  # "Ditch that old sofa": nothing held is pointed at, the sentence is read as usual
                request.firm = True
            for what, value, source in resolved:
                if what == "subject":
                    used.update(t for t in texts if _names(t, value))
                if source is not None and len(texts[source].split()) <= 6 and request.firm:
                    used.add(texts[source])
            if (by_rows and not ((pronoun or several or last_talk) and resolved)) or not resolved:
                continue
            actions.setdefault(said, []).extend((what, value) for what, value, _ in resolved)
        # a request's own sentence is read by what reads it (the rows or the actions above), never only used up
        used -= {texts[request.at] for request in requests}
        return actions, used

    def _would_forget(
        self, resolved: list[tuple[str, str, int | None]], besides: list[str] | None = None, numbered: bool = False
    ) -> bool:
        """Whether forgetting ``resolved`` would take a memory (not only ones that merely repeat one of the turns
        ``besides``): the ops are made and taken back (ops are applied only after the turn is read)."""
        before = len(self.ops)
        for what, value, _ in resolved:
            self._forget_as(what, value)
        made = self.ops[before:]
        del self.ops[before:]
        taken = [op for op in made if op.status != SKIPPED and op.op == "memory.delete"]
        if numbered:  # "Just scrap the parking spot": only a memory giving it a number ("... is number 38")
            targets = [op.target for op in taken if isinstance(op.target, str)]
            records = [r for r in self.memory.store.get(self.scope, targets) if r is not None] if targets else []
            return any(shapes.NUMBERED.search(r.content) for r in records)
        if not besides:
            return bool(taken) or any(op.status != SKIPPED for op in made)
        targets = [op.target for op in taken if isinstance(op.target, str)]
        records = [r for r in self.memory.store.get(self.scope, targets) if r is not None] if targets else []
        return any(not context.echoes(r.content, besides) for r in records)

    def _resolve(self, request: shapes.Request, texts: list[str]) -> list[tuple[str, str, int | None]]:
        """What a request asks to forget, as (``"kind"`` / ``"subject"`` / ``"item"``, what, the sentence its
        pronoun stood for)."""
        thing = request.thing.strip()
        said_last = [thing] if not _pronoun(thing) else [c for at, c in request.antecedents if at >= request.at - 1][:1]
        if any(shapes.LAST_TALK.match(c.strip(" .!?")) for c in said_last):
            return [("session", "last", None)]  # "Everything I told you last time we talked, can you forget it?"
        person = bool(shapes.PERSON_PRONOUN.match(thing))
        if not (person or _pronoun(thing)):
            kind = shapes.kind_named(thing)
            if kind is not None:
                return [("kind", kind, None)]
            if request.subject:
                names = self._known(_full_names_of(thing))
                return [("subject", n, None) for n in names] or [("item", f"everything about {thing}", None)]
            return [("item", part, None) for part in shapes.items_of(thing)]  # "my address and my salary"
        if thing.lower() in ("this", "that") and ":" in texts[request.at]:
            return [("hold", "", None)]  # "don't you dare save this: my real name is ...": nothing of it is read
        collective = request.subject or person or not re.fullmatch(r"it|this|that", thing, re.IGNORECASE)
        nearest = [(at, c) for at, c in request.antecedents if at >= request.at - 1]
        for at, clause in nearest if collective else []:
            framed = shapes.SUBJECT_FRAME.match(clause.strip().rstrip(".!?"))
            them = thing.lower() == "them"  # people or things: a kind named before decides
            kind = None if (person and not them) or framed else shapes.kind_mentioned(clause)
            if kind is not None:
                return [("kind", kind, at)]
            names = self._known(_full_names_of(clause))
            if len(names) > 1 and _ONE_PERSON.match(thing):
                return []  # "Jordan and Sam fell out, forget him": not sure who, nobody is forgotten
            if names:
                return [("subject", n, at) for n in names]
            role = re.search(r"\bmy\s+(ex|[a-z]+(?:-in-law)?)\b", clause, re.IGNORECASE)
            if person and role:
                return [("item", f"everything about my {role.group(1)}", at)]
        guess: Resolved = []
        for at, clause in [] if person else request.antecedents:
            if shapes.SUBJECT_FRAME.match(clause.strip().rstrip(".!?")):
                continue
            kind = shapes.kind_mentioned(clause)
            if kind is not None:
                return [("kind", kind, at)]
            named_kind = next((k for t in context.topics(clause) if (k := shapes.kind_named(t))), None)
            if named_kind is not None:  # "My finances are private, please remove all of that": the money
                return [("kind", named_kind, at)]
            topics: Resolved = [("item", context.mine(t), at) for t in context.topics(clause)]
            # the clause's topic, else the first thing it names that a memory holds ("I shared the Aadhaar number
            # by mistake, kindly delete it"); a clause naming nothing held ("On second thoughts") is passed over
            held = next(([t] for t in topics if self._would_forget([t])), [])
            if held:
                return held
            guess = guess or topics[:1]
        # "it" after nothing is often "never mind" ("oh forget it"): the turn before only with a pointer at memory;
        # "any of that", "all of this" point as "that" does
        core = _PART_OF.sub("", thing)
        just = core.lower() in ("this", "that") or shapes.points_at_memory(texts[request.at])
        found = self._said_earlier(core, person, collective, just) or guess
        if core != thing and just and not person:  # "any of that": the turn before's memories as well
            found = found + [("memory", i, None) for i in self.just_stored() if ("memory", i, None) not in found]
        return found

    def _said_earlier(self, thing: str, person: bool, collective: bool, just: bool) -> Resolved:
        """What a pronoun with nothing before it in its turn stands for, from the session's earlier turns (newest
        first: "You know the alarm code for the shop?" / "We've had the system replaced." / "So get rid of it"):
        a name a memory holds for a person, else a kind or a thing a memory holds; with ``just`` ("forget that",
        "strike it from the record"), else what the turn before stored. Nothing is guessed: a thing no memory
        holds is not taken."""
        earlier = self.earlier_turns()
        for said in earlier:
            for clause in reversed([c for text in sentences(said) for c in shapes.clauses_of(shapes.standard(text))]):
                names = _full_names_of(clause) if person or collective else []
                held: Resolved = [
                    ("subject", n, None) for n in names if self._would_forget([("subject", n, None)], earlier)
                ]
                if len(held) > 1 and _ONE_PERSON.match(thing):
                    return []
                if held:
                    return held
                role = _PERSON_ROLE.search(clause) if person else None
                if role and self._would_forget([("item", f"everything about my {role.group(1)}", None)], earlier):
                    # "You know the neighbour I mentioned?" / ... / "anything else about her": the neighbour
                    return [("item", f"everything about my {role.group(1)}", None)]
                if person:
                    continue
                kind = shapes.kind_mentioned(clause) if collective else None
                if kind is not None:
                    return [("kind", kind, None)]
                for topic in context.topics(clause):
                    if self._would_forget([("item", context.mine(topic), None)], earlier):
                        return [("item", context.mine(topic), None)]
        if just and not person and re.fullmatch(r"it|this|that", thing, re.IGNORECASE):
            # "My salary is 52k." / "Hmm, on second thoughts, don't remember that.": what the turn before stored
            return [("memory", i, None) for i in self.just_stored()]
        return []

    def just_stored(self) -> list[str]:
        """The memories the session's previous turn wrote (:func:`.forget_context.just_stored`)."""
        return context.just_stored(self.memory, self.scope, self.turn.session_id)

    def earlier_turns(self) -> list[str]:
        """The session's earlier turns, newest first (:func:`.forget_context.earlier_turns`)."""
        return context.earlier_turns(self.memory, self.scope, self.turn.session_id)

    def _known(self, names: list[str]) -> list[str]:
        known = []
        for name in names:
            try:
                if self.memory.forget_about(name, dry_run=True, **self.who)["memories"]:
                    known.append(name)
            except InvalidRecordError:
                continue
        return known

    def _forget_as(self, what: str, value: str) -> None:
        if what == "hold":
            return
        if what == "memory":
            self.add("memory.delete", target=value, reason="the user asked to forget what they had just said")
            return
        if what == "session":
            self.forget_last_session()
        elif what == "subject":
            self.forget_subject(value)
        elif what == "kind" and value == "plans":
            records = [r for r in self.memory.memories(kinds={"procedural"}, **self.who) if _PLAN.search(r.content)]
            self.delete_all(records, "the user asked to forget all their plans", "the user has no plans")
        elif what == "kind":
            self.forget_kind(f"forget all my {value}")
        else:
            self.forget(f"forget {value}")

    def forget_last_session(self) -> None:
        """ "Everything I told you last time we talked": every memory written in the user's last conversation before
        this one (the session whose newest memory is the newest outside this session); a profile slot set then goes
        too. Memories of other sessions stay, whatever they say."""
        current = self.turn.session_id
        newest: dict[str, float] = {}
        held = [r for r in self.memory.memories(kinds=None, **self.who) if r.kind not in UNSCANNED]
        for record in held:
            if record.session_id and record.session_id != current:
                newest[record.session_id] = max(newest.get(record.session_id, 0.0), record.created_at)
        last = max(newest, key=lambda s: newest[s]) if newest else None
        records = [r for r in held if last is not None and r.session_id == last]
        reason = "the user asked to forget what they said in their last conversation"
        self.delete_all(records, reason, "no memory of an earlier conversation is held")

    def known_names(self, names: list[str]) -> list[str]:
        """The ``names`` some memory of the user holds: "Engagement with Halvorsen ended, purge everything about
        them" says two capitalised words, and only Halvorsen is one the memories know."""
        return names if len(names) < 2 else self._known(names)

    def stated_relations(self, words: tuple[str, ...], hits: list[Record]) -> tuple[list[Record], list[str]]:
        """The user's entity-graph relations a forget of one item takes, and the profile slots it finds through
        them. "Forget my employer" deletes "User's employer is Deloitte": the relation (user) -works_at->
        (Deloitte) a managed turn wrote beside it goes too (a delete keeps the router's relations). "Forget where
        I work" names no slot but the relation's verb: the slot holding its object ("User's employer is Asda")
        is the item. Returns (the slots found through a relation, the ids of the relations to delete)."""
        if self.scope.agent_id is not None or not words:
            return [], []
        try:
            triples = [
                t for t in self.memory.graph.relations("user", user_id=self.scope.user_id) if t.subject_key == "user"
            ]
        except KiokoError:
            return [], []
        named = [t for t in triples if set(words) & {stem(w) for w in t.relation.split("_")}] if not hits else []
        slots: list[Record] = []
        if named:
            profile = list(self.memory.store.scan(self.scope, Filter(kinds=frozenset({"profile"}))))
            slots = [r for r in profile if any(_says(r.content, t.object) for t in named)]
        stated = hits + slots
        return slots, [t.id for t in triples if t in named or any(_says(r.content, t.object) for r in stated)]

    def forget_given_names(self, contents: list[str], phrase: str) -> None:
        """A thing asked for by its role alone ("forget about the dog", "everything about my ex") goes with the name
        the memories give it ("Our dog is called Biscuit", "User's ex, Jordan, ..."): everything about that name
        goes too ("Biscuit hates the vet"). Only for a role of one word: "my sister's address" is the address."""
        roles = [w for w in re.findall(r"[A-Za-z][\w'-]*", phrase) if w.lower() not in _ROLE_FRAMING]
        if len(roles) != 1:
            return
        for name in given_names(contents, roles[0]):
            if not any(op.fields.get("subject") == name for op in self.ops):
                self.forget_subject(name, expand=False)

    def replaced_by(self, records: list[Record]) -> list[Record]:
        """The older values the ``records`` replaced (``supersedes`` / ``conflicts_with``, followed back up to
        :data:`REPLACED_BACK` steps), not among them: a forget of an item takes its history too ("forget my locker
        number" after "my locker changed, it's 412 now" takes 318 as well)."""
        seen = {r.id for r in records}
        found: list[Record] = []
        current = records
        for _ in range(REPLACED_BACK):
            ids = [
                i
                for r in current
                for key in ("supersedes", "conflicts_with")
                for i in _ids(r.metadata.get(key))
                if i not in seen
            ]
            if not ids:
                break
            seen.update(ids)
            current = [r for r in self.memory.store.get(self.scope, ids) if r is not None]
            found += current
        return found

    def forget_subject(self, subject: str, expand: bool = True) -> bool:
        """ "Forget everything about P": a ``memory.delete`` for each memory naming P (``fields.subject``; the
        executor then sweeps P's triples, summary points and session turns with ``memory.forget_about``).
        False when P names nothing (only common words) or nothing of the user's names it: the sentence is then
        read as a forget of one item ("forget what I told you about my weight" finds "User weighs 70 kilos")."""
        try:
            found = self.memory.forget_about(subject, dry_run=True, **self.who)
        except InvalidRecordError:
            return False
        reason = f"the user asked to forget everything about {subject!r}"
        slot = self.slot_holder(subject) if expand else None
        for item in found["memories"]:
            self.add("memory.delete", target=item["id"], subject=subject, reason=reason)
        if slot is not None:  # "everything about my boss": the manager slot, and the person it names
            self.add("memory.delete", target=slot.id, subject=subject, reason=reason)
        if not found["memories"]:
            if not (found["relations"] or found["traces"] or slot):
                return False  # "forget what I told you about my weight": read as one item ("User weighs ...")
            self.add("memory.delete", subject=subject, reason=reason)
        if expand:
            self.forget_given_names([item["content"] for item in found["memories"]], subject)
            if slot is not None and _proper_name(str(slot.metadata.get("value", ""))):
                self.forget_subject(str(slot.metadata["value"]), expand=False)
        given = self.given_name_alone(subject)
        if given is not None and not any(op.fields.get("subject") == given for op in self.ops):
            self.forget_subject(given, expand=False)
        return True

    def given_name_alone(self, subject: str) -> str | None:
        """The given name of a person forgotten by their full name, when the memories say it alone of them too
        ("a cellist called Benedikt Aurel" ... "Benedikt is paying 28,000 euros for it"): None for a name of one
        word, a title ("Mrs Adeyemi", "Dr Hale"), or a given name a memory says with another surname (two people)."""
        words = subject.split()
        if len(words) != 2 or not all(_GIVEN_WORD.fullmatch(w) for w in words) or words[0].lower() in _TITLES:
            return None
        given, surname = words
        try:
            said = self.memory.forget_about(given, dry_run=True, **self.who)["memories"]
        except InvalidRecordError:
            return None
        others = [
            m.group(1)
            for item in said
            for m in re.finditer(rf"\b{re.escape(given)}\s+([A-Z][a-z][\w'-]*)", item["content"])
            if m.group(1) != surname
        ]
        return given if said and not others else None

    def drop_said_of_forgotten(self) -> None:
        """What a turn writes of a person it also asks to forget everything about goes unwritten: "Benedikt has
        changed his mind about having any of this written down. Remove the cellist from your records" stored the
        first sentence before the second forgot Benedikt, so it outlived the forget."""
        gone = {str(op.fields["subject"]) for op in self.ops if op.op == "memory.delete" and op.fields.get("subject")}
        names = [g for g in gone if _proper_name(g)]
        if not names:
            return
        self.ops[:] = [
            op
            for op in self.ops
            if not (
                op.op.endswith(".add")
                and any(_names(str(op.fields.get(key, "")), name) for key in ("text", "object") for name in names)
            )
        ]

    def slot_holder(self, subject: str) -> Record | None:
        """The profile slot a subject names by its role ("my boss" -> manager), when it is set."""
        slot = rules.SLOT_MENTION.match(subject.strip())
        key = rules.SLOTS.get(slot.group(1).lower()) if slot else None
        return self.memory.profile.record(key, **self.who) if key else None


_ROLE_FRAMING = frozenset("my the our your about all everything anything of on at please thanks cheers ta".split())
"""Words around a role in a request that are not the role ("everything about my tutor, thanks")."""
_GIVEN = r"[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?"
_GIVEN_WORD = re.compile(r"[A-Z][a-z][\w'-]*")
_TITLES = frozenset(
    "mr mrs ms miss mx dr doctor prof professor sir lady lord dame rev father sister brother uncle aunt".split()
)
"""Words before a surname that are no given name ("Mrs Adeyemi", "Dr Hale")."""


_PLAN = re.compile(r"\bplan\b", re.IGNORECASE)
_PART_OF = re.compile(r"^(?:all|any|every\s+bit)\s+of\s+(?=(?:it|this|that)$)", re.IGNORECASE)
"""A share of what a pronoun stands for ("any of that", "all of this"): read as the pronoun."""


Resolved = list[tuple[str, str, int | None]]
"""What a request asks to forget: (``"kind"`` / ``"subject"`` / ``"item"`` / ``"hold"`` / ``"session"``, what, the sentence its
pronoun stood for, None for one of the session's earlier turns)."""
_ONE_PERSON = re.compile(r"^(?:him|her|the\s+(?:man|woman|guy|lad|lass|bloke|girl|boy))$", re.IGNORECASE)
"""A pronoun for one person: with two names before it, whom it means is not known."""


def _rows_read(sentence_text: str) -> bool:
    """Whether the rows of :data:`~kioko_intelligence.rules.FORGET` (or a kind's) read ``sentence_text`` already."""
    request = _forget_request(sentence_text)
    tail = TRAILING_REQUEST.search(request)
    return bool(
        rules.FORGET_KIND.match(request)
        or FORGET_CATEGORY.match(request)
        or rules.first(rules.FORGET, request)
        or (tail is not None and rules.first(rules.FORGET, _forget_request(tail.group("request"))))
    )


def _pronoun(thing: str) -> bool:
    return bool(shapes.THING_PRONOUN.match(thing.strip()))


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def _full_names_of(text: str) -> list[str]:
    """The names a clause says (a run of capitalised words, framing words cut; "Mr", "Lady" ... kept off)."""
    found = []
    for name in _full_names(text):
        words = [w for w in name.split() if w.lower() not in _TITLES]
        if words:
            found.append(" ".join(words))
    return found


_TITLES = frozenset("mr mrs ms miss dr prof lady lord sir dame deacon sister brother father pastor rev".split())


def _says(text: str, value: str) -> bool:
    return (
        bool(value.strip()) and re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text, re.IGNORECASE) is not None
    )


_WHERE_ROLE = r"(?:\s+(?i:at|on|in|from|for|of|with)\s+(?:(?i:the|my|our|his|her|their)\s+)?[\w'-]+(?:\s+[\w'-]+){0,2})"
"""Where a role is held, between the role and the name it is given ("User's supervisor at the depot is Sandeep",
"User's tutor for the Open University course is ...": three words at most after the determiner)."""
_A_PERSON_CALLED = r"\s+is\s+(?i:a|an)\s+(?:[\w'-]+\s+){0,2}?(?i:called|named)\s+"
"""The name given by way of a person described ("... is a fella called Des Murray", "is a woman named Bea")."""


def given_names(contents: list[str], role: str) -> list[str]:
    """The names ``contents`` give a role, right after it ("User's ex, Jordan", "Our dog is called Biscuit", "User's
    manager is Henrik", "my sister Dana"), after where it is held ("User's supervisor at the depot is Sandeep",
    "Site manager on the Vauxhall job is a fella called Des Murray") or right before it ("Jordan, my ex", "Henrik is
    my boss")."""
    word = re.escape(role)
    after = re.compile(
        rf"\b(?i:{word})s?\b(?:\s*,\s*|\s+(?i:is\s+)?(?i:called|named)\s+|\s+is\s+|\s+)(?P<name>{_GIVEN})"
    )
    held = re.compile(
        rf"\b(?i:{word})s?\b{_WHERE_ROLE}(?:\s*,\s*|\s+(?i:is\s+)?(?i:called|named)\s+|{_A_PERSON_CALLED}|\s+is\s+)"
        rf"(?P<name>{_GIVEN})"
    )
    described = re.compile(rf"\b(?i:{word})s?\b{_A_PERSON_CALLED}(?P<name>{_GIVEN})")
    before = re.compile(rf"(?P<name>{_GIVEN}),?\s+(?i:is\s+)?(?i:user's|my|our|his|her|their|the)\s+(?i:{word})\b")
    patterns = (after, held, described, before)
    found = [m.group("name") for text in contents for pattern in patterns for m in pattern.finditer(text)]
    return list(dict.fromkeys(n for n in found if n.split()[0].lower() not in NAME_FRAMING))


FORGET_COVERAGE = 0.75
MEANT_COVERAGE = 0.5
"""Share of a request's words a memory must hold to be matched by meaning (:meth:`ForgetReading.meant`)."""
MEANT_FLOOR = 0.15
MEANT_MARGIN = 0.05
"""A memory matched by meaning is at least this near the request (cosine) and this near the nearest one."""
FORMER = frozenset({"old", "previous", "previou", "former", "earlier"})
"""Words (stems) that ask for the older of the values held ("my old address"): the newest one stays."""
SCANNED = 20_000
"""At most this many of the user's memories are read when the search found nothing to forget."""
UNSCANNED = frozenset({"summary", "working"})
"""Kinds a forget of one item never takes whole (a summary loses the item's words when the memory goes)."""


REPLACED_BACK = 8


def _replaced(record: Record) -> bool:
    """Whether a newer memory replaced ``record`` (superseded, or the older side of a marked conflict)."""
    return bool(record.metadata.get("superseded_by") or record.metadata.get("conflicted_by"))


def _ids(value: object) -> list[str]:
    if isinstance(value, str) and value:
        return [value]
    return [i for i in value if isinstance(i, str) and i] if isinstance(value, list) else []


def _first(records: Iterable[Record], count: int) -> Iterator[Record]:
    for index, record in enumerate(records):
        if index >= count:
            return
        yield record


PREFERENCE_WORDS = frozenset({"preferences", "likes", "dislikes", "tastes"})
PEOPLE_WORDS = {
    "family": r"wife|husband|partner|spouse|fianc[eé]e?|son|daughter|kids?|children|child|mum|mom|mother|dad|father|"
    r"parents?|brother|sister|siblings?|aunt|uncle|cousin|nephew|niece|grand(?:ma|pa|mother|father|son|daughter)|"
    r"in-laws?|(?:mother|father|brother|sister|son|daughter)-in-law|stepmum|stepdad|twin",
    "children": r"son|daughter|kids?|children|child|eldest|youngest|oldest|middle\s+one|little\s+one|twins?|"
    r"step-?son|step-?daughter",
    "friends": r"friend|best friend|bestie|mate|buddy|pal|girlfriend|boyfriend|flatmate|roommate|housemate|neighbou?r",
    "colleagues": r"colleague|co-?worker|boss|manager|team ?lead|mentor|mentee|client|assistant|intern|report|"
    r"supervisor|landlord|lawyer|doctor|dentist|therapist|accountant|trainer|tutor|teacher|coach|babysitter|nanny",
    "love": r"boyfriend|girlfriend|date|crush|fling|lover|guy|girl|man|woman|bloke|lad|lass",
}
"""The words a memory names a person by, per group ("User's neighbour Bill", "my aunt Rosa")."""
_EVERYONE = "|".join(words for group, words in PEOPLE_WORDS.items() if group != "love")
"""The words of every group of people but the love life's ("a guy", "my date" name a person only there)."""
_PERSON_ROLE = re.compile(
    rf"\b(?:the|my|our)\s+({PEOPLE_WORDS['friends']}|{PEOPLE_WORDS['colleagues']}|{PEOPLE_WORDS['family']})\b", re.I
)
"""A person named by their role in an earlier turn ("You know the neighbour I mentioned?"): whom "her" may mean."""
_PERSON = {
    group: re.compile(
        rf"\b(?:user's|my|our|his|her|their)\s+(?:\w+\s+)?(?:{words})s?\b|\b(?:{words})s?,?\s+[A-Z][a-z]+",
        re.IGNORECASE,
    )
    for group, words in {**PEOPLE_WORDS, "people": _EVERYONE}.items()
}
FULL_NAME_GIVEN = re.compile(
    r"\b(?:is|was|are|called|named)\s+(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][a-z]+\s+[A-Z][a-z]+\b"
    r"(?!\s+(?:Street|Road|Avenue|Lane|Park|Square|Hall|House|Centre|Center|Court|Station|Airport|Bridge|City))"
)
"""A memory giving someone's full name ("User's deputy is Harriet Okoro", "The conservator we use is Tomasz Wrona"):
it names a person whatever the role is called."""
_NAMED_AFTER = re.compile(r"^[A-Z][a-z]+\b")
CATEGORY_GROUPS = {
    "people": "people",
    "persons": "people",
    "contacts": "people",
    "family": "family",
    "relatives": "family",
    "children": "children",
    "kids": "children",
    "love life": "love",
    "friends": "friends",
    "colleagues": "colleagues",
    "coworkers": "colleagues",
    "co-workers": "colleagues",
}


def group_names(contents: list[str], group: str) -> list[str]:
    """The names ``contents`` give the people of a group by their relation ("User's eldest, Freya" -> Freya, "my
    aunt Rosa" -> Rosa; :func:`given_names`), for a forget of the whole group."""
    words = PEOPLE_WORDS.get(group) or _EVERYONE
    roles = {m.group(0).lower() for text in contents for m in re.finditer(rf"\b(?:{words})\b", text, re.IGNORECASE)}
    return list(dict.fromkeys(name for role in sorted(roles) for name in given_names(contents, role)))


BY_DATE = re.compile(
    r"\bby\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|end\s+of\b|"
    r"(?:next|this)\s+(?:week|month|year|mon|tue|wed|thu|fri)|tomorrow\b|tonight\b|noon\b|midnight\b|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec))",
    re.IGNORECASE,
)
"""Something to be done by a date ("has to go in by the 20th"): a deadline, unless it is a goal (a goal's own date
is its ``due``)."""
DEADLINE = re.compile(
    r"\bdue\b|\bdeadlines?\b|\b(?:submit|hand(?:ed)? in|deliver|file|finish|send)\w*\b[^.]{0,40}\bby\b|"
    r"\b(?:must|have to|has to|need to|needs to)\s+(?:submit|hand in|deliver|file|finish|send|complete|return)\b",
    re.IGNORECASE,
)
"""A memory that states a deadline ("The design review is due on the 9th", "submit the form by Friday", "The thesis I
must deliver on 1 June")."""
CATEGORY_KINDS: dict[str, set[str] | None] = {word: {"preference"} for word in PREFERENCE_WORDS}
FORGET_CATEGORY = re.compile(
    r"^(?:please\s+)?(?:forget|delete|remove|erase|clear|wipe|drop|scratch|purge)\s+(?:out\s+)?"
    r"(?:(?:all|every|any)\s+(?:of\s+)?)?(?:my|the|your)?\s*(?:(?P<qualifier>[a-z]+)\s+)?"
    r"(?P<category>preferences|likes|dislikes|tastes|deadlines|due dates|people|persons|contacts|family|relatives|"
    r"friends|colleagues|co-?workers|children|kids|health|medical|money|finances|financial|phone numbers|appointments|"
    r"love life|"
    r"(?:work|job|career)(?:[- ]related|\s+(?:info|stuff|details|things|bits|matters|side)))\b"
    r"(?:\s+(?:about|on|for|regarding)\s+(?P<after>[a-z]+))?",
    re.IGNORECASE,
)
"""A request to forget a category of the user's memories, not one kind: a kind narrowed to a topic ("all my food
preferences", "my preferences about travel"), the deadlines, the people (or family, friends, colleagues)."""


SWEPT_CATEGORIES = frozenset({"health", "medical", "money", "finances", "financial", "phone numbers", "work"})
"""The categories a said text (a point of a session's summary, a turn waiting in a session log) is read for when
they are forgotten (:func:`says_category`): their words say them, whatever kind of memory the text would be."""


def says_category(text: str, category: str) -> bool:
    """Whether a said text (not a memory: a summary point, a waiting turn) belongs to a category of
    :data:`SWEPT_CATEGORIES`: "Had my gallbladder out in 2019." is health though no memory of it was written."""
    if category not in SWEPT_CATEGORIES:
        return False
    return in_category(Record(id="said", user_id="said", kind="episodic", content=text), category)


def in_category(record: Record, category: str, qualifier: str = "") -> bool:
    """Whether ``record`` belongs to the category a forget names (see :data:`FORGET_CATEGORY`): a preference on
    the qualifier's topic (:data:`~kioko_core.recall.safety.TOPICS` when it names one, else its words), a
    memory stating a deadline (or a goal with a due date), a memory naming a person of the group."""
    text = record.content
    if category in PREFERENCE_WORDS:
        if qualifier in TOPICS:
            return qualifier in topics_of(text)
        words = tuple(w for w in content_words(qualifier) if w not in FORGET_FILLERS)
        return bool(words) and _loose_coverage(words, text) >= FORGET_COVERAGE
    if category in ("deadlines", "due dates"):
        if record.kind == "goal":
            return bool(DEADLINE.search(text)) or bool(record.metadata.get("due"))
        return bool(DEADLINE.search(text) or BY_DATE.search(text))
    if category in ("health", "medical"):
        return record.kind not in ("working", "summary") and is_health_fact(text)
    if category == "appointments":
        return record.kind not in ("working", "summary") and is_appointment(text)
    if category == "love life":
        return record.kind not in ("working", "summary") and ROMANCE.search(text) is not None
    if category in ("money", "finances", "financial"):
        return record.kind not in ("working", "summary") and MONEY.search(text) is not None
    if category == "work":
        return is_work_fact(record)
    if category == "phone numbers":
        return record.kind not in ("working", "summary") and any(
            sum(c.isdigit() for c in m.group(0)) >= PHONE_DIGITS for m in _DIGIT_RUN.finditer(text)
        )
    group = CATEGORY_GROUPS.get(category)
    if group is None or record.kind in ("working", "summary"):
        return False
    return bool(_PERSON[group].search(text)) or (group == "people" and FULL_NAME_GIVEN.search(text) is not None)


WORK_CATEGORY = re.compile(r"(?:work|job|career)\b", re.IGNORECASE)
WORK_SLOTS = frozenset({"job_title", "employer", "team", "manager"})
"""The profile slots that say where and as what the user works."""
WORK = re.compile(
    r"\b(?:work(?:s|ed|ing)?\s+(?:as|at|for|in|on|nights|days|lates|earlies|shifts?|from\s+home)|jobs?|employer|"
    r"employed|boss|manager|supervisor|line\s+manager|team\s+lead|colleagues?|co-?workers?|shifts?|rota|overtime|"
    r"payroll|payslip|promot(?:ed|ion)|appraisal|career|notice\s+period|handed\s+(?:in\s+)?(?:my|their)\s+notice|"
    r"clients?|contract(?:or)?|office|workplace|depot|on\s+call|work\s+(?:e-?mail|phone|mobile|laptop|badge|van))\b|"
    r"^User is an?\s+(?:[\w-]+\s+){1,3}(?:at|for)\s+(?-i:[A-Z])",
    re.IGNORECASE,
)
"""A memory about the user's work, for "forget all the work things": the job, the employer, the people and the
hours of it ("User is a flight dispatcher at Stansted", "User's manager there is Gráinne", "Shift pattern is four on,
four off"); "User is running the Brighton Marathon" and "User works out at the gym" are not."""


_WORKPLACE = re.compile(
    r"\b(?:at|for|in)\s+(?:a|an|the|my|our|their)\s+(?:[\w-]+\s+){0,2}?(?P<place>[a-z][\w-]+)"
    r"(?=\s+(?:in|on|at|near|outside|by|off|up|down)\b|\s*[.,;]|\s*$)"
)
"""Where a work memory says the user works, by its common noun ("... at a distribution warehouse in Swindon" ->
warehouse, "... at the depot" -> depot)."""


def workplaces(contents: list[str]) -> set[str]:
    """The common nouns the work memories ``contents`` name the workplace by (:data:`_WORKPLACE`)."""
    return {m.group("place").lower() for text in contents for m in _WORKPLACE.finditer(text)} - _NOT_PLACES


_NOT_PLACES = frozenset("time moment while week month year day night weekend".split())


def names_place(text: str, places: set[str]) -> bool:
    """Whether ``text`` speaks of one of the workplaces ``places`` as a known one ("Our warehouse ships ...", "The
    depot closes at ten"), not as some place ("a warehouse fire on the news")."""
    return any(
        re.search(rf"\b(?:our|the|my|that)\s+(?:[\w-]+\s+)?{re.escape(place)}s?\b", text, re.IGNORECASE)
        for place in places
    )


def is_work_fact(record: Record) -> bool:
    """Whether ``record`` is about the user's work (:data:`WORK`, or a profile slot of :data:`WORK_SLOTS`)."""
    if record.kind == "profile":
        return record.metadata.get("slot") in WORK_SLOTS
    return record.kind not in ("working", "summary") and WORK.search(record.content) is not None


MONEY = re.compile(
    r"\b(?:salary|salaries|savings?|saved\s+up|put\s+away|mortgage|rent|debts?|loans?|overdraft|pension|bank(?:s|ed|ing)?\s+"
    r"(?:with|account|balance|details)|banking|credit\s+cards?|income|earns?|earning|wages?|pay\s+rise|bonus|"
    r"invest(?:s|ed|ing|ments?)?|ISA|budget|tax|owes?|owed|quid|bucks|net\s+worth|inheritance|pocket\s+money)\b|"
    r"[£$€]\s?\d|"
    r"\b(?:make|makes|made|making|take\s+home|takes\s+home|clear|clears|pull\s+in|pulls\s+in|(?:get|gets|got|getting)\s+"
    r"paid)\s+(?:about\s+|around\s+|"
    r"roughly\s+|maybe\s+|up\s+to\s+|over\s+)?\d[\d,.]*\s*(?:k|grand|thousand|million|m)\b|"
    r"\b\d[\d,.]*\s*(?:k\s+)?(?:naira|rupees?|euros?|dollars?|francs|yen|pesos|rand|shillings|cedis|dirhams?|"
    r"ringgit|baht|zloty|kron(?:er|or|a))\b",
    re.IGNORECASE,
)
"""A memory about the user's money, for "forget everything money-related": pay, savings, a mortgage or rent, debts,
a bank or a card, an amount in a currency ("User has got about 14k put away", "Our mortgage is with Halifax, 1,100 a
month"); "User runs 10k on Sundays", "Bill shares a flat with us" are not."""
_DIGIT_RUN = re.compile(r"(?<![\w£$€.,])\+?\d[\d ()-]{5,}\d(?![\w%])")
PHONE_DIGITS = 8
"""A phone number, for "get rid of all the phone numbers": a run of at least this many digits (spaces, dashes and
brackets between them), not an amount ("07700 900461", "+44 (0)20 7946 0018"; "£1,100" and "2021" are not)."""


_TAKES_MEDICINE = re.compile(
    r"\b(?:takes?|taking|on)\s+(?:[\w-]+\s+){1,3}?(?:once|twice|three times|daily|every|a day|at night|in the morning|"
    r"\d+\s*(?:mg|mcg|ml|units?)\b)|\b(?:prescri\w+|tablets?|pills?|dose|dosage|diagnos\w+|GP|consultant|surgery|"
    r"operation|therapy|therapist|physio\w*|medication|meds|inhaler|antidepressants?|insulin)\b|\b\d+\s*(?:mg|mcg)\b",
    re.IGNORECASE,
)
"""A memory of treatment (a medicine taken on a schedule or in a dose, a prescription, a diagnosis, a therapy) that
the safety classes do not name: "User takes metformin twice a day", "User is on sertraline, 50mg in the mornings"."""


_CONDITION = re.compile(
    r"\b(?:[a-z]+(?:itis|osis|iasis|aemia|emia|pathy|algia)|(?:carcin|melan|lymph|myel|glauc|fibr|aden|sarc)omas?|"
    r"pre-?diabet\w*|sickle[- ]cell|eczema|IBS|ADHD|OCD|PTSD|autis\w*|dyslexi\w*|depress(?:ion|ed)|anxiety|cancer|"
    r"tumou?rs?|cysts?|fractur\w*|sprain\w*|injur(?:y|ies|ed)|concussion|gout|lupus|hernia|stroke|"
    r"HbA1c|cholesterol|blood\s+(?:sugar|tests?|results?|count|type|work)|BMI|MRI|CT\s+scan|x-?rays?|biops(?:y|ies)|"
    r"smear\s+test|mammogram|ECG|symptoms?|(?:in|into|to|out\s+of)\s+hospital|hospital\s+(?:appointment|stay|visit)|A&E|waiting\s+list|sick\s+note|"
    r"(?:steroid|hydrocortisone)\s+(?:cream|ointment)|(?:back|knee|hip|chest|joint)\s+pain)\b|"
    r"\b(?:had|have|having|get|getting)\s+(?:my|their|his|her)\s+(?:left\s+|right\s+|wisdom\s+)?(?:appendix|"
    r"gallbladder|tonsils|teeth|tooth|kidney|spleen|ovar(?:y|ies)|womb|uterus|thyroid|cataracts?|hip|knee|mole|"
    r"stitches)\s+(?:out|removed|replaced|taken\s+out)\b|"
    r"\b(?:the|my|user's|their)\s+(?:nurse|doctor|consultant|specialist|surgeon|midwife)\s+"
    r"(?:said|says|told|thinks|reckons|wants|put|found|diagnosed|referred|prescribed)\b",
    re.IGNORECASE,
)
"""A memory of a health condition the safety classes do not name, by its shape: a condition's ending ("psoriasis",
"arthritis", "anaemia", "neuropathy"), a test or a measurement ("HbA1c came back at 44", "blood sugar"), an operation
("Had my gallbladder out"), a treatment ("steroid cream"), what a clinician said of the user ("The nurse said I'm
prediabetic"); not a clinician by trade ("User is a nurse at St James's", "User works as a health visitor")."""


_BOOKED = re.compile(
    r"\b(?:appointments?|appts?|booked|booking|bookings|dentist|hygienist|doctor'?s|GP|opticians?|optician's|physio|"
    r"check-?ups?|(?:hearing|eye|blood|smear|driving|MOT)\s+tests?|scans?|vaccinations?|jabs?|boosters?|consultations?|"
    r"hairdresser'?s?|barber'?s?|haircut|vet'?s|MOT|interview|viewing|clinic)\b",
    re.IGNORECASE,
)
_WHEN_BOOKED = re.compile(
    r"\b(?:on\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b|at\s+\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?|"
    r"\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)|tomorrow|next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)|(?:on\s+|this\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+week)?|"
    r"(?:on|in)\s+(?:january|february|march|april|may|june|july|august|september|october|november|december))\b",
    re.IGNORECASE,
)
_EVERY_WEEK = re.compile(
    r"\b(?:every|each)\s+\w+|\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b", re.I
)


ROMANCE = re.compile(
    r"\b(?:(?:a|first|second|third|blind|another)\s+dates?|dating|went\s+out\s+with|going\s+out\s+with|seeing\s+(?:someone|"
    r"a\s+guy|a\s+girl|a\s+man|a\s+woman)|boyfriend|girlfriend|crush|fling|hinge|tinder|bumble|grindr|kissed|snogged|"
    r"fancy|fancies|romance|romantic|love\s+life)\b",
    re.IGNORECASE,
)
"""A memory of the user's love life, for "forget all the stuff about my love life": a date, a dating app, someone
the user is seeing or fancies ("Went on a date with a guy called Jules I met on Hinge"); the people it names by how
it names them ("a guy called Jules") go with it as subjects ("Jules is a sous chef in Falmouth")."""


def is_appointment(text: str) -> bool:
    """Whether a memory is one of the user's appointments, for "forget every appointment I have mentioned": a visit or
    a test booked (:data:`_BOOKED`: the dentist, a hearing test, the GP, an interview ...) on a day or at a time
    ("User has the dentist on the 14th at 10am", "There is a hearing test at the opticians on Thursday week"); not a
    habit ("User volunteers at the bookshop every Monday"), nor a trade ("User is a dentist in Leeds")."""
    return _BOOKED.search(text) is not None and _WHEN_BOOKED.search(text) is not None and not _EVERY_WEEK.search(text)


def is_health_fact(text: str) -> bool:
    """Whether a memory is about the user's health, for "clear out all my health info": a medical condition or an
    allergy (:data:`~kioko_core.recall.safety.CLASSES`), a treatment (:data:`_TAKES_MEDICINE`), or a condition, a
    test or an operation said in other words (:data:`_CONDITION`)."""
    return (
        bool(classes_of(text) & {"medical", "allergy"})
        or _TAKES_MEDICINE.search(text) is not None
        or _CONDITION.search(text) is not None
    )


FORGET_FILLERS = frozenset(
    {
        "thing",
        "things",
        "stuff",
        "bit",
        "info",
        "information",
        "inform",
        "details",
        "detail",
        "part",
        "news",
        "updat",
        "store",
        "matter",
        "remark",
        "issu",
        "topic",
    }
)
"""Words (stems) that only frame what to forget ("the metformin thing", "the pregnancy news stored"): they need
not be in the memory."""


def _loose_coverage(words: tuple[str, ...], text: str, aliases: dict[str, tuple[str, ...]] | None = None) -> float:
    """Like :func:`coverage`, a word also counting when it shares its first five letters ("allergy", "allergic"),
    when it names a value the text gives in digits or as a street address (:func:`.forget_items.holds`), or when
    one of its ``aliases`` is in the text ("salary" for "User earns 85k")."""
    if not words:
        return 0.0
    have = set(content_words(text))
    hits = sum(
        1 for w in words if holds(w, text, have) or any(holds(a, text, have) for a in (aliases or {}).get(w, ()))
    )
    return hits / len(words)


def _forget_request(text: str) -> str:
    """A sentence as the forget rules read it: without "Could you please" and "Actually, ..." before it, and
    "erase what I said about X" read as "forget what I said about X"."""
    said = bare(text)
    for _ in range(2):
        said = rules.ASK_TO.sub("", rules.FORGET_LEAD.sub("", said, count=1), count=1)
    said = _SAME_VERB.sub(lambda m: _SAME_VERBS[m.group(0).lower().split()[0]], said, count=1)
    return ERASE_WHAT.sub("forget ", said, count=1)


_SAME_VERBS = {**{verb: "delete" for verb in shapes.BINNING}, "hang": "hold on to", "hold": "hold on to"}
_SAME_VERB = re.compile(
    r"(?<=^)(?:" + "|".join(sorted(shapes.BINNING)) + r")\b|"
    r"(?<=\bnot )(?:hang|hold)\s+on(?:to|\s+to)\b|(?<=n't )(?:hang|hold)\s+on(?:to|\s+to)\b",
    re.IGNORECASE,
)
"""Verbs said for the ones the rows read: "scrub that number" is "delete that number", "don't hang on to my badge
number" is "don't hold on to ..."."""


TRAILING_REQUEST = re.compile(
    r"[,;:\u2014-]\s*(?:so\s+|and\s+|just\s+)?(?P<request>(?:(?:can|could|would) you\s+|you (?:can|may|could)\s+)?"
    r"(?:please\s+)?"
    r"(?:forget|erase|delete|remove|scratch|wipe|purge|unlearn|stop remembering)\b[^,;]*)$",
    re.IGNORECASE,
)
"""A request to forget that ends a sentence after its reason ("We broke up, please forget Marcus")."""
ERASE_WHAT = re.compile(
    r"^(?:erase|delete|remove|scratch|wipe|drop)\s+(?=(?:everything|anything|all)\s+(?:related to|to do with|"
    r"connected (?:to|with)|concerning)\b)|" + rules.DISMISS_SAID,
    re.IGNORECASE,
)
"""An erase verb before "everything related to X", or a verb dismissing what was said before a pointer at it
("scrap what I said about X", "never mind the Lisbon thing", :data:`~kioko_intelligence.rules.DISMISS_SAID`): the
same request as "forget ..."."""
RELATED_FRAME = re.compile(
    r"^(?:everything|anything|all)\s+(?:(?:that's|that is)\s+)?(?:related to|to do with|connected (?:to|with)|"
    r"concerning|involving)\s+",
    re.IGNORECASE,
)
PRONOUN = re.compile(
    r"him|her|them|he|she|they|(?:all of|the whole of)\s+(?:it|them|that)|(?:that|this)\s+(?:family|lot|couple|lad|guy)",
    re.IGNORECASE,
)
"""What stands for the one name the request's sentence (or its turn) says: "forget him", "forget all of it" after
"The Bruges tour is off", "everything about that family" after "The Draper boy has moved schools"."""
_NAME = re.compile(r"\b[A-Z][a-z][\w'-]*")


def _names_in(text: str) -> list[str]:
    """The capitalised names a sentence says ("Jordan's out of my life" -> Jordan), framing words left out."""
    found = [m.group(0).removesuffix("'s") for m in _NAME.finditer(text)]
    return list(dict.fromkeys(w for w in found if w.lower() not in NAME_FRAMING and w.lower() not in _REQUEST_WORDS))


_REQUEST_WORDS = frozenset(
    "please forget erase delete remove scratch wipe actually we i drop purge clear scrub ditch bin scrap ignore "
    "disregard never pretend let's can could would you just so and".split()
)
_FULL_NAME = re.compile(r"\b[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)*")


def _full_names(text: str) -> list[str]:
    """The names ``text`` says, a run of capitalised words as one ("Gary Holt has paid up" -> "Gary Holt"); a
    sentence's first word only when it is no framing or request word ("The Draper boy" -> "Draper")."""
    found = []
    for match in _FULL_NAME.finditer(text):
        words = [w.removesuffix("'s") for w in match.group(0).split()]
        while words and (words[0].lower() in NAME_FRAMING or words[0].lower() in _REQUEST_WORDS):
            words = words[1:]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


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
