"""HeuristicRouter: the offline write path. Rules and algorithms decide; no model, no network, deterministic.

For each turn, in the spec's order: the gate (small talk, questions, requests), feedback on what the
agent was given, state changes per clause (goal progress / completion / giving up, a decision
replaced, a move, forgetting), extraction (profile, preferences, instructions, goals, decisions,
procedures, lessons, dated episodes), classification of the remaining informative clauses (fact,
episode or knowledge, kept when their importance reaches ``min_importance``), working memory (the
task and identifiers of a session) and, with the graph on, relations between named entities.

The English is in :mod:`~kioko_intelligence.rules`, as tables of rows (pattern, operation, example);
this module holds the builders. Each builder is a small method of :class:`_Reading` that reads the
first matching row of its table and returns True when it used the sentence or clause up; the order of
the calls in :meth:`_Reading.sentence` and :meth:`_Reading.clause` is the precedence. A new phrasing
is a row of a table; a new kind of statement is a table, a builder and its place in that order.
The goal builders (:mod:`~kioko_intelligence.goal_reading`), the forget builders (``forget_reading``) and the
lookups they all share (``turn_reading``) are classes :class:`_Reading` inherits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import kioko_intelligence.rules as rules
from kioko_core.reading.analysis import STOP_WORDS, stem
from kioko_core.store import Record
from kioko_intelligence.activities import activity
from kioko_intelligence.asides import is_aside
from kioko_intelligence.choices import choice_of, decision_body, held_choice, named_choice, names_in, replace_choice
from kioko_intelligence.commitments import committed_name, newest_decision, old_choice, says_over
from kioko_intelligence.forget_reading import ForgetReading
from kioko_intelligence.forget_requests import asks_to_forget, news_after
from kioko_intelligence.fragments import joined_fragments, joined_values
from kioko_intelligence.goal_reading import GoalReading
from kioko_intelligence.instruction_cases import older_for_case, stopped, taken_back
from kioko_intelligence.instruction_topics import permits
from kioko_intelligence.language import (
    _IRREGULAR_PAST,
    about_user,
    bare,
    capitalise,
    clauses,
    content_words,
    coverage,
    gate,
    gate_reason,
    has_time_cue,
    is_chatter,
    is_question,
    is_request,
    says_nothing,
    sentence,
    sentences,
    statements_before_question,
    when,
)
from kioko_intelligence.moments import is_passing_state
from kioko_intelligence.ops import ROUTER_HEURISTIC, SKIPPED, MemoryOp, RouteResult
from kioko_intelligence.topic_first import topic_first
from kioko_intelligence.turn import Turn
from kioko_intelligence.turn_reading import POSTINGS_LIMIT as POSTINGS_LIMIT  # read here by llm and tests
from kioko_intelligence.turn_reading import QUERY_CHARS as QUERY_CHARS

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

# Kinds are named here by design: the rule router reads English, and its rules' labels ("goal", "lesson", "fact",
# "episode" ...) are the operations it writes (kioko_intelligence.ops.OPERATIONS, the registry's op column).
CAPTURES = ("rules", "selective", "all")
SERVED_KINDS = {"procedural": "procedure", "skill": "skill", "strategy": "strategy"}

Rule = Callable[[str, Turn], "Sequence[MemoryOp] | None"]

# --------------------------------------------------------------------------- helpers of the classification


def _place_like(name: str) -> bool:
    """Could this be a place? Capitalised plain words, not a tool or platform ("pgvector", "PostgreSQL", "AWS")."""
    words = name.replace(",", " ").split()
    if not words or len(words) > 4:
        return False
    for word in words:
        letters = word.replace("-", "").replace("'", "").replace(".", "")
        if not letters.isalpha() or not word[0].isupper() or word.lower() in rules.TOOLISH:
            return False
        if len(letters) > 1 and (letters.isupper() or any(c.isupper() for c in letters[1:])):
            return False
    return True


def _is_past(text: str) -> bool:
    if rules.PAST_AUX.search(text):
        return True
    without_passive = rules.PASSIVE.sub(" ", text)
    for word in re.findall(r"[a-z']+", without_passive.lower()):
        if word in _IRREGULAR_PAST and word not in ("read", "put", "set", "cut", "let", "hit", "quit", "shut"):
            return True
        if len(word) > 4 and word.endswith("ed") and word not in rules.NOT_PAST:
            return True
    return False


# --------------------------------------------------------------------------- the router


@dataclass
class RuleBasedExtractor:
    """The extraction step; ``extra_rules`` run first, each ``rule(sentence, turn) -> ops or None``."""

    extra_rules: list[Rule] = field(default_factory=list)


class HeuristicRouter:
    """The offline router: ``route(memory, turn) -> RouteResult``.

    ``capture``: ``"rules"`` keeps only what rules and detectors recognise, ``"selective"`` (default)
    adds the classification of the remaining clauses, kept when their importance reaches
    ``min_importance``; ``"all"`` keeps every informative statement. ``working`` (a session's task and
    identifiers), ``feedback`` ("that worked") and ``graph`` (relations; None follows the layer's
    ``auto_graph``) turn those steps on or off.
    """

    name = ROUTER_HEURISTIC

    def __init__(
        self,
        *,
        capture: str = "selective",
        min_importance: float = 0.4,
        working: bool = True,
        feedback: bool = True,
        graph: bool | None = None,
        extractor: RuleBasedExtractor | None = None,
    ) -> None:
        if capture not in CAPTURES:
            raise ValueError(f"capture must be one of {CAPTURES}, got {capture!r}")
        if (
            isinstance(min_importance, bool)
            or not isinstance(min_importance, (int, float))
            or not 0.0 <= min_importance <= 1.0
        ):
            raise ValueError(f"min_importance must be a number in [0, 1], got {min_importance!r}")
        self.capture = capture
        self.min_importance = float(min_importance)
        self.working = working
        self.feedback = feedback
        self.graph = graph
        self.extractor = extractor or RuleBasedExtractor()

    def __repr__(self) -> str:
        return f"HeuristicRouter(capture={self.capture!r}, min_importance={self.min_importance})"

    def kind_of_clause(self, text: str) -> str | None:
        """A class for a clause no rule recognised, overruling the grammar (goal, preference, instruction,
        lesson, decision, nothing); None keeps the rules' fact / episode / knowledge. The rules have no
        such opinion: :class:`~kioko_intelligence.semantic_router.SemanticRouter` does."""
        return None

    def gate(self, turn: Turn) -> str | None:
        """Why the turn has nothing to remember (small talk, questions, requests), or None."""
        return gate(turn.text("user"))

    def route(self, memory: MemoryLayer, turn: Turn) -> RouteResult:
        reason = self.gate(turn)
        if reason is not None:
            return RouteResult(skipped=reason, router=self.name)
        reading = _Reading(self, memory, turn)
        texts = joined_fragments(sentences(turn.text("user")), _plain)  # "Tea. Two sugars."
        texts = joined_values(texts, _plain)  # "Down to the last 20. That's 100 across."
        marks = [t for t in texts if rules.GOOD_TO_KNOW.match(rules.plain(bare(t)))]
        if marks and len(marks) < len(texts):  # "Turns out X. Good to know for next time."
            reading.lesson_of([t for t in texts if t not in marks], turn.text("user"))
        else:
            for text in texts:
                reading.sentence(text)
        reading.finish()
        return RouteResult(ops=reading.ops, router=self.name)


def _plain(sentence: str) -> bool:
    """A plain statement: no small talk, question, request or forget (a fragment of it may join the next one)."""
    return gate_reason(sentence) is None and not asks_to_forget(sentence) and not is_request(sentence)


class _Reading(GoalReading, ForgetReading):
    """One turn being read: the ops so far and what was looked up (open goals, decisions) for it."""

    def __init__(self, router: HeuristicRouter, memory: MemoryLayer, turn: Turn) -> None:
        graph = router.graph if router.graph is not None else getattr(memory, "auto_graph", False)
        super().__init__(memory, turn, bool(graph))
        self.router = router

    # -- a sentence

    def sentence(self, text: str) -> None:
        if self.router.feedback and self.feedback(text):
            return
        if self.forget_kind(text) or self.forget(text):
            news = news_after(text)
            if news is not None:  # "... forget about her, and by the way I've been promoted to team lead!"
                self.sentence(news)
            return
        if gate_reason(text) is not None:
            return
        said = rules.plain(bare(text))
        if is_chatter(said) or says_nothing(said):
            return
        for rule in self.router.extractor.extra_rules:
            found = rule(text, self.turn)
            if found:
                self.ops.extend(found)
                return
        if self.goals_listed(said) or self.procedure(said) or self.lesson(said) or self.instruction(said):
            return
        if is_question(text):
            for part in statements_before_question(text):
                self.clause(part, text)
            return
        remembered = rules.REMEMBER_PREFIX.match(said)
        explicit = remembered is not None and remembered.end() > 0
        body = rules.plain(rules.REMEMBER_PREFIX.sub("", said, count=1))
        changed = rules.CHANGE_LEAD.match(body)
        if changed:
            body = rules.plain(body[changed.end() :])
        body = topic_first(body)  # "Controlled drugs register, I check it every Friday"
        if self.switch(body, changed is not None):
            return
        if self.working_memory(body):
            return
        for part in clauses(body):
            self.clause(part, text, explicit)

    def clause(self, text: str, whole: str, explicit: bool = False) -> None:
        text = rules.plain(bare(text))
        if not text or is_aside(text) or is_passing_state(text):  # "God I'm such a muppet, I left my keys ...": the
            # aside is not kept, nor a state of the moment ("I work nights, so I'm knackered today")
            return
        consequence = rules.DEICTIC_REASON.match(text)
        if consequence:  # "It was peaking too early so the starter's on a bedtime feed": the "it" is the talk's
            text = rules.plain(consequence.group("rest"))
        if self.profile(text) or self.goal_state(text) or self.decision(text, whole):
            return
        if self.task(text) or self.goal(text, whole) or self.preference(text, whole):
            return
        if self.relation(text) or self.activity(text, whole):
            return
        self.classify(text, whole, explicit)

    # -- feedback

    def feedback(self, text: str) -> bool:
        worked = rules.FEEDBACK_OK.search(text) is not None
        failed = rules.FEEDBACK_BAD.search(text) is not None
        if not (worked or failed):
            return False
        served = [r for r in self.turn.served if r.kind in SERVED_KINDS]
        if not served:
            return True  # feedback with nothing to credit: nothing else in the sentence to keep
        # the answer that used the suggestion is usually the previous turn's reply; this turn's counts too
        reply = set(content_words(" ".join([self.turn.previous_reply, *self.turn.texts("assistant")])))
        best = max(served, key=lambda r: (sum(1 for w in content_words(r.content) if w in reply), -served.index(r)))
        self.add(
            f"{SERVED_KINDS[best.kind]}.outcome",
            target=best.id,
            worked=worked and not failed,
            reason="the user said the suggestion " + ("worked" if worked and not failed else "did not work"),
            confidence=0.8,
        )
        return True

    # -- forgetting

    # -- extraction: procedures, lessons, instructions

    def procedure(self, text: str) -> bool:
        found = rules.first(rules.PROCEDURE, text)
        if not found:
            return False
        row, match = found
        groups = match.groupdict()
        rest = match.group("steps").strip()
        steps = [
            capitalise(rules.STEP_START.sub("", s.strip(" ,;"), count=1)) for s in rules.STEP_SPLIT.split(rest) if s
        ]
        steps = [s for s in steps if s and len(s.split()) <= 25]
        loose = "loose" in row.options
        if len(steps) < 2 or (loose and len(steps) < 3 and not rules.SEQUENCE.search(rest)):
            return False
        if groups.get("task"):
            title = "How to " + groups["task"].strip()
        elif groups.get("head"):
            title = capitalise(groups["head"].strip())
        else:
            title = "Steps"
        self.add(
            "procedure.add",
            title=title,
            steps=steps,
            reason="steps for a task (to ..., then ...)",
            text_for_importance=text,
        )
        return True

    def lesson(self, text: str) -> bool:
        found = rules.first(rules.LESSON, text)
        if not found:
            return False
        row, match = found
        body = match.group("lesson").strip()
        if row.template:  # "In hindsight, we should have ..." as said, "Never again will I ..." as "Never ..."
            body = row.template.format(text=text, lesson=body)
        context = match.groupdict().get("context")
        split = None if context else rules.LESSON_CONTEXT.match(body)
        if split:
            context, body = split.group(1).strip(), split.group(2)
        self.add(
            "strategy.add",
            text=sentence(body) if split else sentence(capitalise(body)),
            context=context.strip() if context else None,
            reason="a lesson learned",
            text_for_importance=text,
        )
        return True

    def lesson_of(self, texts: list[str], whole: str) -> None:
        """ "Turns out X. Good to know for next time.": the other sentences are the lesson."""
        body = " ".join(sentence(capitalise(rules.plain(bare(t)))) for t in texts)
        self.add("strategy.add", text=body, reason="a lesson learned", text_for_importance=whole)

    def instruction(self, text: str) -> bool:
        rule = rules.instruction_rule(text)
        if rule is None:
            return False
        rule = re.sub(r"^(?:please|pls|just)\s+", "", bare(rule), flags=re.IGNORECASE)
        rule = re.sub(r"\s*,?\s+(?:please|pls|thanks|thank you)$", "", rule, flags=re.IGNORECASE)
        said = about_user(rule) if rules.FIRST_PERSON.match(rule) else sentence(capitalise(rule))
        fields: dict[str, Any] = {"text": said}
        older = older_for_case(self.memory, self.scope, said) or stopped(self.memory, self.scope, said)
        if older:  # "For pairings just give me ..." after "When I ask for a pairing, give me ..."
            fields["supersedes"] = older
        self.add(
            "instruction.add",
            reason="a standing instruction for every answer" + (", for the case an older one was for" if older else ""),
            text_for_importance=text,
            **fields,
        )
        return True

    # -- decisions and moves

    def switch(self, text: str, changed: bool = False) -> bool:
        """A choice replaced: a row of ``rules.SWITCH``, or a change cue naming a decision in force."""
        found = rules.first(rules.SWITCH, text)
        if found:
            row, match = found
            groups = match.groupdict()
            new = choice_of(groups["new"])
            why = groups.get("why")
            old = choice_of(groups["old"]) if groups.get("old") else None
            if "may_be_a_move" in row.options and old and text.lower().startswith("i") and not groups.get("topic0"):
                a_move = rules.first(rules.MOVED, text) is not None or re.search(r"\b(?:moved|relocated)\b", text, re.I)
                if a_move and self.move(text, old, new):
                    return True
            if old is None:
                decision = self.decision_about(groups.get("topic") or "", new)
                if decision is None or not new:
                    return False
                old = str(decision.metadata.get("chosen") or "") or held_choice(decision, new, groups["topic"])
                if old is None:
                    return False
            if not new:
                return False
            needs_decision = "needs_decision" in row.options or (
                "needs_decision_unless_chosen" in row.options and not rules.CHOOSING.search(groups["new"])
            )
            if needs_decision and not self.replaced(old):
                return False
            return self.replace_decision(text, old, new, why)
        moved = rules.first(rules.MOVED, text)
        if moved and self.move(text, None, rules.TIME_TAIL.sub("", bare(moved[1].group("place")))):
            return True
        return self.switch_by_cue(text, changed) or self.switch_by_commitment(text)

    def switch_by_commitment(self, text: str) -> bool:
        """ "Signed with Moorcroft Lettings" after "going with Brightwater as the letting agent": a choice made for another
        name replaces the decision it shares a word with, or, said as over ("after all"), the newest (:mod:`.commitments`)."""
        new = committed_name(text)
        if new is None:
            return False
        candidates = list(reversed(self.current_decisions(text)))
        newest = newest_decision(self.memory, self.scope) if says_over(text) else None
        if newest is not None and all(d.id != newest.id for d in candidates):
            candidates.append(newest)
        for decision in candidates:
            old = old_choice(decision, new, text)
            if old is not None:
                why = rules.RATIONALE.split(text, maxsplit=1)
                return self.replace_decision(text, old, new, bare(why[1]) if len(why) > 1 else None)
        return False

    def switch_by_cue(self, text: str, changed: bool) -> bool:
        """ "Airflow is out, we're on Dagster now": a current decision's choice named with a change cue and another name."""
        if not (changed or rules.CHANGE_CUE.search(text)):
            return False
        names = names_in(text)
        if len(names) < 2:
            return False
        for decision in self.current_decisions(" ".join(names)):
            old = named_choice(decision, names, text)
            if old is None:
                continue
            content = decision.content.lower()
            new = next((n for n in names if n.lower() != old.lower() and n.lower() not in content), None)
            if new is None:
                continue
            why = rules.RATIONALE.split(text, maxsplit=1)
            return self.replace_decision(text, old, new, bare(why[1]) if len(why) > 1 else None)
        return False

    def decision_about(self, topic: str, new: str = "") -> Record | None:
        """The decision in force about ``topic`` ("the user database" -> "use MySQL for the user database"): one
        that keeps its choice, or one said as a statement that holds a value in the place of ``new``."""
        words = content_words(topic, keep_generic=False)
        if not words:
            return None
        for decision in self.current_decisions(topic):
            if coverage(words, decision.content) >= 0.5 and (
                decision.metadata.get("chosen") or (new and held_choice(decision, new, topic))
            ):
                return decision
        return None

    def replaced(self, old: str) -> bool:
        old_words = content_words(old)
        return any(
            str(d.metadata.get("chosen", "")).lower() == old.lower()
            or (old_words and coverage(old_words, d.content) == 1)
            for d in self.current_decisions(old)
        )

    def move(self, text: str, old: str | None, new: str) -> bool:
        new = rules.TIME_TAIL.sub("", new)
        if not _place_like(new) or (old is not None and not _place_like(old)):
            return False
        known = self.memory.profile.get("location", **self.who)
        choices = {str(d.metadata.get("chosen", "")).lower() for d in self.current_decisions(f"{old or ''} {new}")}
        if old is not None:
            if known is not None and str(known).lower() != old.lower():
                return False
            if known is None and old.lower() in choices:
                return False
        elif new.lower() in choices:
            return False
        self.add("profile.set", key="location", value=new, reason="the user moved", text_for_importance=text)
        moment = when(text, self.turn.now)
        self.add(
            "episode.add",
            text=about_user(text),
            created_at=moment[1].timestamp() if moment else None,
            reason="a move, dated" if moment else "a move",
            text_for_importance=text,
        )
        if self.graph:
            self.add("relation.add", subject="user", relation="lives_in", object=new, reason="the user's location")
        return True

    def replace_decision(self, text: str, old: str, new: str, why: str | None) -> bool:
        old_words = content_words(old)
        for decision in self.current_decisions(old):
            chosen = str(decision.metadata.get("chosen", ""))
            if (chosen and chosen.lower() == old.lower()) or (old_words and coverage(old_words, decision.content) == 1):
                body = decision_body(decision.content)
                base = rules.RATIONALE.split(body, maxsplit=1)[0]
                replaced = (
                    replace_choice(base, old, new) if old.lower() in base.lower() else f"use {new} instead of {old}"
                )
                if why:
                    replaced += f" because {bare(why)}"
                self.add(
                    "decision.supersede",
                    target=decision.id,
                    text=replaced,
                    chosen=new,
                    rationale=bare(why) if why else None,
                    options=[old, new],
                    reason=f"switched from {old} to {new}",
                    text_for_importance=text,
                )
                return True
        body = f"use {new} instead of {old}" + (f" because {bare(why)}" if why else "")
        self.add(
            "decision.add",
            text=body,
            chosen=new,
            options=[old, new],
            rationale=bare(why) if why else None,
            reason=f"switched from {old} to {new} (no current decision named {old})",
            text_for_importance=text,
        )
        return True

    def decision(self, text: str, whole: str) -> bool:
        found = rules.first(rules.DECISION, text)
        if not found:
            return False
        row, match = found
        groups = match.groupdict()
        verb = (groups.get("verb") or "").lower()
        if groups.get("choice"):
            body = f"go with {bare(groups['choice'])} for {bare(groups['topic'])}"
        else:
            body = bare(groups["body"])
        if verb in ("use", "using", "be using") and not body.lower().startswith("use "):
            body = f"use {body}"
        elif (
            verb
            and verb not in rules.STATED_DECISION_VERBS
            and not re.match(r"^(?:to\s|use\s|go\s|stick\s|not\s|against\s)", body, re.IGNORECASE)
        ):
            body = f"{'stick with' if 'stick' in verb else 'go with'} {body}"
        parts = rules.RATIONALE.split(body, maxsplit=1)
        chosen = rules.CHOSEN.search(parts[0])
        self.add(
            "decision.add",
            text=body,
            chosen=chosen.group(1).rstrip(".,") if chosen else None,
            rationale=bare(parts[1]) if len(parts) > 1 else None,
            reason="a decision was stated",
            text_for_importance=whole,
        )
        return True

    # -- goals

    # -- working memory

    def working_memory(self, text: str) -> bool:
        """The session's identifiers (tickets, error codes, links, files); a sentence that only points at one is used up."""
        if not (self.router.working and self.turn.session_id):
            return False
        found = False
        for identifier in rules.IDENTIFIERS:
            key, match = identifier.slot, identifier.pattern.search(text)
            if match:
                value = next(g for g in match.groups() if g)
                if key == "ticket" and re.search(
                    rf"\b(?:error|fault|alarm|code)\s+#?\s*{re.escape(value)}", text, re.I
                ):
                    continue
                found = True
                self.add("working.set", key=key, value=value, reason=f"a {key.replace('_', ' ')} of this session")
        return found and rules.POINTER.match(text) is not None

    def task(self, text: str) -> bool:
        if not (self.router.working and self.turn.session_id):
            return False
        found = rules.first(rules.TASK, text)
        if not found:
            return False
        self.add(
            "working.set",
            key="task",
            value=capitalise(found[1].group("task")),
            reason="the current task of this session",
        )
        return True

    def activity(self, text: str, whole: str) -> bool:
        """A clause saying what the user is doing now with no verb of work (:mod:`.activities`): the task."""
        if not (self.router.working and self.turn.session_id):
            return False
        task = activity(text, whole, self.turn.text("user"))
        if task is None:
            return False
        self.add("working.set", key="task", value=capitalise(task), reason="what the user is doing now")
        return True

    # -- profile, preferences, relations

    def profile(self, text: str) -> bool:
        slots, detail = self.slots(rules.TAIL.sub("", rules.NOT_TAIL.sub("", text)))
        # where or for whom the user holds a job the row does not read as a slot ("at a vet practice in Truro",
        # "in Dubai"): said with the job, it goes with the job's slot, and leaves with it when the job changes
        detail = detail if slots and len(slots) == 1 and slots[0][0] == "job_title" else ""
        if slots is None and "," in text:
            parts = [rules.TAIL.sub("", p.strip()) for p in text.split(",") if p.strip()]
            read = [self.slots(p)[0] if not re.fullmatch(r"\d{1,3}", p) else [("age", p, None)] for p in parts]
            if len(parts) > 1 and all(r for r in read):
                slots = [slot for r in read for slot in (r or [])]
        if not slots:
            return False
        relations = []
        for key, value, relation in slots:
            held = self.memory.profile.record(key, **self.who)
            if (
                held is None
                or str(held.metadata.get("value")) != value
                or (detail and held.metadata.get("detail") != detail)
            ):
                op = self.add(
                    "profile.set",
                    key=key,
                    value=value,
                    reason=f"the user's {key.replace('_', ' ')}",
                    text_for_importance=text,
                )
                if detail:
                    op.fields["detail"] = detail
            if relation and self.graph:
                relations.append((relation, value))
        self._relations.extend(relations)
        return True

    def slots(self, text: str) -> tuple[list[tuple[str, str, str | None]] | None, str]:
        """The profile slots a clause states: (slot, value, relation for the graph), or None; and the detail said
        with them (the tail of a profile row, rules.PROFILE's "detail" group: "at a vet practice in Truro"), or ""."""
        text = bare(text)
        found = rules.first(rules.PROFILE, text)
        if found:
            groups = {k: v for k, v in found[1].groupdict().items() if v}
            groups.pop("when", None)
            detail = bare(groups.pop("detail", "") or "")
            if "team2" in groups:
                groups["team"] = groups.pop("team2")
            read = [
                (_SLOT_OF_GROUP[key], bare(value), _RELATION_OF_SLOT.get(_SLOT_OF_GROUP[key]))
                for key, value in groups.items()
            ]
            return read, detail
        lower = rules.LOWER_LOCATION.match(text) if text == text.lower() else None
        if lower:
            return [("location", lower.group("location"), "lives_in")], ""
        slot = rules.SLOT.match(text)
        if slot:
            key = rules.SLOTS[slot.group(1).lower()]
            value = re.sub(r"^(?:called|named)\s+", "", bare(slot.group(2)), flags=re.IGNORECASE)
            if key == "phone_number" and len(re.findall(r"\d", value)) < 5:
                return None, ""  # "my phone is a Galaxy S21" names the handset, not a number to call
            return [(key, value, _RELATION_OF_SLOT.get(key))], ""
        return None, ""

    def preference(self, text: str, whole: str) -> bool:
        found = rules.first(rules.PREFERENCE, text)
        if not found:
            return False
        statement = about_user(text) if rules.FIRST_PERSON.match(text) else sentence(capitalise(text))
        if rules.ANSWERING.search(found[1].group("what") or ""):
            self.add(
                "instruction.add",
                text=statement,
                reason="a preference about how to answer applies to every turn",
                text_for_importance=whole,
            )
        else:
            self.add("preference.add", text=statement, reason="a preference", text_for_importance=whole)
        return True

    def relation(self, text: str) -> bool:
        if not self.graph:
            return False
        found = rules.first(rules.RELATION, text)
        if not found:
            return False
        match = found[1]
        if match.group("subject").lower() in rules.PRONOUN_SUBJECTS:
            return False  # "She reports to Maria": no entity "She" (rules.PRONOUN_SUBJECTS)
        self.add(
            "relation.add",
            subject=match.group("subject"),
            relation=match.group("relation").replace(" ", "_"),
            object=match.group("object"),
            reason="a relation between named entities",
        )
        return False  # the statement is also classified (a fact or knowledge in its own right)

    # -- classification of the rest

    def classify(self, text: str, whole: str, explicit: bool = False) -> None:
        if self.router.capture == "rules" or gate_reason(text) is not None:
            return
        if len(text.split()) < 3 and self.router.capture != "all" and not rules.ATTRIBUTE.match(text):
            return
        said_to_you = rules.addressed(text) or permits(text)  # "Longer is fine" after "Short, one line answers"
        if said_to_you and not explicit and (older := taken_back(self.memory, self.scope, text)):
            said = sentence(capitalise(bare(whole)))  # "You do not need to fix my sentences more": a rule taken back
            self.add("instruction.add", text=said, supersedes=[older], reason="an instruction changed", confidence=0.7)
            return
        if is_chatter(text) or (rules.addressed(text) and not explicit) or rules.DEICTIC.match(text):
            return  # about the conversation or the assistant, or a "that" only the conversation explains
        label = self.router.kind_of_clause(text)
        if label is not None:
            self.by_meaning(label, text, whole)
            return
        kind = _kind_of(text)
        if kind is None:
            return
        if (
            rules.NUMBERS.search(text)
            and (kind == "fact" or rules.NUMBER_CHANGE.search(text))
            and self.number_update(text, whole)
        ):
            return
        content = about_user(text) if rules.FIRST_PERSON.match(text) else sentence(capitalise(text))
        fields: dict[str, Any] = {"text": content}
        if kind == "episode":
            moment = when(text, self.turn.now)
            if moment:
                fields["created_at"] = moment[1].timestamp()
        op = self.add(
            f"{kind}.add",
            reason=_WHY[kind],
            text_for_importance=whole if len(whole) < 2 * len(text) else text,
            confidence=0.6,
            **fields,
        )
        if self.router.capture == "selective" and (op.importance or 0.0) < self.router.min_importance:
            op.status = SKIPPED
            op.error = f"importance {op.importance:.2f} < {self.router.min_importance:g}"

    def by_meaning(self, label: str, text: str, whole: str) -> None:
        """The op of a clause the router classified by meaning (``kind_of_clause``)."""
        said = about_user(text) if rules.FIRST_PERSON.match(text) else sentence(capitalise(text))
        reason = f"nearest to the {label} prototypes"
        if label == "goal":
            self.add("goal.add", title=capitalise(rules.TAIL.sub("", text)), reason=reason, text_for_importance=whole)
        elif label == "decision":
            self.add("decision.add", text=bare(text), reason=reason, text_for_importance=whole)
        elif label == "lesson":
            self.add("strategy.add", text=sentence(capitalise(text)), reason=reason, text_for_importance=whole)
        elif label in ("preference", "instruction"):
            self.add(f"{label}.add", text=said, reason=reason, text_for_importance=whole)

    def number_update(self, text: str, whole: str) -> bool:
        """ "I have three kids" after "I have two kids": the same fact with another number is an update.

        The same words once numbers are masked, or the same counted thing ("35 km a week" after "20 km a
        week", "1 cat" after "2 cats") with another word in common or a thing that is not a unit of time.
        """
        content = about_user(text) if rules.FIRST_PERSON.match(text) else sentence(capitalise(text))
        masked = _masked(content)
        counted = _quantities(content)
        words = set(content_words(content)) - {"user"}
        for record in self.by_words("fact", rules.NUMBERS.sub(" ", content), every=not counted):
            if record.content == content:
                continue
            same = _masked(record.content) == masked
            if not same and counted:
                before = _quantities(record.content)
                things = [t for t in counted if t in before and counted[t] != before[t]]
                shared = words & (set(content_words(record.content)) - {"user"}) - set(things)
                same = bool(things) and (
                    bool(shared - rules.NUMBER_STEMS) or any(t not in rules.TIME_UNITS for t in things)
                )
            if same:
                self.add(
                    "fact.update",
                    target=record.id,
                    text=content,
                    text_for_importance=whole,
                    reason="the same fact with a new number; the old value stays in history",
                )
                return True
        return False

    def finish(self) -> None:
        self.drop_said_of_forgotten()
        for relation, value in self._relations:
            self.add(
                "relation.add",
                subject="user",
                relation=relation,
                object=value,
                reason="with the graph on, the profile is also a relation",
            )


_WHY = {
    "fact": "a first-person statement in the present",
    "episode": "something that happened (past, dated or ongoing)",
    "knowledge": "a general statement",
}


def _kind_of(text: str) -> str | None:
    """fact (first-person present), episode (past, a time cue, ongoing) or knowledge (impersonal)."""
    if rules.STANDING.match(text) and not has_time_cue(text):
        return "fact"  # "I'm a retired magistrate", "I'm training for a triathlon"
    if rules.ONGOING.search(text) or has_time_cue(text) or _is_past(text):
        return "episode"
    if rules.FIRST_PERSON.match(text):
        return "fact"
    if rules.addressed(text):
        return None  # about the assistant or the conversation, not the user's world
    return "knowledge"


def _masked(text: str) -> tuple[str, ...]:
    return content_words(rules.NUMBERS.sub(" 0 ", text.lower()))


_SLOT_OF_GROUP = {
    "name": "name",
    "location": "location",
    "age": "age",
    "employer": "employer",
    "job": "job_title",
    "team": "team",
    "hometown": "hometown",
    "language": "language",
}
_RELATION_OF_SLOT = {"name": "named", "location": "lives_in", "employer": "works_at"}


def _quantities(text: str) -> dict[str, str]:
    """The counted things of a text and their numbers: "User has 3 cats" -> {"cat": "3"}."""
    found: dict[str, str] = {}
    for number, thing in rules.QUANTITY.findall(text):
        key = stem(thing.lower())
        if key not in STOP_WORDS and thing.lower() not in rules.NUMBER_WORDS:
            found.setdefault(key, number.lower())
    return found
