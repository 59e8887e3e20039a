"""The offline router's goal builders: a new goal, a goal done or given up, progress by a figure or an amount
(the rows are :mod:`~kioko_intelligence.rules`' ``GOAL``, ``COMPLETE`` and ``DROP``)."""

from __future__ import annotations

import re

import kioko_intelligence.rules as rules
from kioko_core.linking.linker import KIND_TERM
from kioko_core.reading.analysis import stem
from kioko_core.store import Filter, Record
from kioko_intelligence.language import (
    about_user,
    bare,
    capitalise,
    content_words,
    due_date,
    mention_matches,
    names_itself,
    sentence,
    when,
)
from kioko_intelligence.ops import KIND_OF_MEMORY, SKIPPED
from kioko_intelligence.turn import same_turn
from kioko_intelligence.turn_reading import TurnReading

_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_GOAL_CHANGE = re.compile(
    r"^(?:i\s+|we\s+)?(?:have\s+|'ve\s+)?(?:change|changed|changing|switch|switched|update|updated|revise|revised)\s+"
    r"(?:my\s+|our\s+|the\s+)?(?:goal|target|aim|objective)s?\s*(?::|-|\u2013|to\b)\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
"""A goal said as a change of goal ("I change goal: ...", "switched my target to ...")."""
_AIM_LEAD = re.compile(
    r"^(?:(?:i|we)\s+(?:now\s+|really\s+)?(?:want|need|aim|plan|hope|would like|'d like)\s+(?:to\s+)?)", re.IGNORECASE
)
_NAMED_AIM = re.compile(
    r"[,;]\s*(?:so\s+|and\s+|but\s+)?(?P<aim>(?:the|my|our)\s+(?:[\w'-]+\s+){0,2}?(?:goal|aim|objective|target|"
    r"priority|plan|focus)\s+(?:now\s+|this\s+\w+\s+)?(?:is|will be)\b)",
    re.IGNORECASE,
)
"""A goal named after a comma, in a sentence that opens with something else ("The depot's closing, so the priority
now is landing a job in rail control"): the goal rows read from its goal word on."""
_NEXT = re.compile(r"^\W*(?:next|now)\b", re.IGNORECASE)
"""A goal said as the next one, after the goal it replaces."""
_NEW_AIM = re.compile(r"\bnew\s+(?:goal|target|aim)\b", re.IGNORECASE)
"""A goal said as the new one ("so that's the new target"): it replaces an open goal it shares a word or unit with (a
new aim that shares none is the slot rules' to pair, with the session's other memories of the old one)."""
_FEW_GOALS = 50
"""Up to this many goals of the user, the one open goal is the one a next goal comes after (read by kind)."""
_SAME_TURN_SECONDS = 2.0
_PROGRESS_KINDS = frozenset({"factual", "episodic", "semantic"})
"""The kinds a progress said beside a goal is stored as (a fact, an event, knowledge)."""
_COUNTED = re.compile(r"\b(?P<n>\d[\d,]*)(?P<joint>\s+|-)(?P<unit>[A-Za-z][a-z]+(?:-[a-z]+)*)\b")
"""A count and the word it counts ("27 deals", "12 books"), also joined as one word ("an 80,000-word draft")."""


def count_note(goal: Record, done: float, total: float) -> str:
    """A count of progress as the goal's line shows it, in the goal's unit when its title has one number and a
    word after it: "7 kg of 10" for "Lose 10 kg before the wedding", "27 deals of 40", else "12 of 24"."""
    counted = list(_COUNTED.finditer(goal.metadata.get("title") or goal.content))
    unit = f" {_counts_in(counted[0])}" if len(counted) == 1 and len(_NUMBER.findall(goal.content)) == 1 else ""
    return f"{done:,g}{unit} of {total:,g}"


def _counts_in(found: re.Match[str]) -> str:
    """The word a goal's count is in, as a count of it reads: "80,000-word" counts in "words"."""
    unit = found.group("unit")
    return unit + "s" if found.group("joint") == "-" and not unit.endswith("s") else unit


_GOALS_LISTED = re.compile(
    r"^(?:(?:my|our|the)\s+)?(?:(?:two|three|four|five|\d|main|big|new|few)\s+)*(?:goals|targets|aims|objectives|"
    r"resolutions)(?:\s+for\s+(?:the\s+|this\s+|next\s+)?[\w']+|\s+this\s+\w+)?\s*(?::|\bare\b|\bwill be\b)\s+"
    r"(?P<items>.+)$",
    re.IGNORECASE,
)
"""Several goals under one heading ("Two goals this year: read 24 books and swim 100 km")."""
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s*;\s*|\s+and\s+")


class GoalReading(TurnReading):
    """The builders of a turn's goals: each returns True when it used the clause up."""

    def goals_listed(self, said: str) -> bool:
        """ "Two goals this year: read 24 books and swim 100 km": a goal for each item of two or more, each item two
        words or more (else the sentence is left to the other rules: "My goals are simple: health and family")."""
        found = _GOALS_LISTED.match(said)
        if found is None:
            return False
        items = [bare(i) for i in _ITEM_SPLIT.split(found.group("items")) if bare(i)]
        if len(items) < 2 or any(len(i.split()) < 2 for i in items):
            return False
        for item in items:
            title = capitalise(rules.TAIL.sub("", bare(re.sub(r"^to\s+", "", item, flags=re.IGNORECASE))))
            due = due_date(title, self.turn.now)
            self.add(
                "goal.add",
                title=title,
                due=due[1] if due else None,
                reason="one of the goals listed under one heading",
                text_for_importance=said,
            )
        return True

    def goal(self, text: str, whole: str) -> bool:
        if self.goal_changed(text, whole):
            return True
        found = rules.first(rules.GOAL, text)
        if not found and _NEXT.match(whole):  # "Next thing: ...", "Now I go for ...": the lead word read off the clause
            found = rules.first(rules.GOAL, whole.strip().rstrip(".!"))
        if not found:  # "The depot's closing, so the priority now is landing a job in rail control"
            named = _NAMED_AIM.search(text)
            found = rules.first(rules.GOAL, text[named.start("aim") :]) if named else None
        if not found:
            return False
        title = capitalise(rules.TAIL.sub("", bare(found[1].group("title"))))
        if len(title.split()) < 2 or rules.NO_AIM.match(title):
            return False
        due = due_date(title, self.turn.now)
        core = title[: title.lower().rfind(" " + due[0].lower().split()[0])] if due else title
        for goal in self.open_goals(core, every=True):
            name = goal.metadata.get("title") or goal.content
            if names_itself(core, name):
                if due and due[1] != goal.metadata.get("due"):
                    self.add(
                        "goal.update",
                        target=goal.id,
                        due=due[1],
                        reason="a restated goal with a new date",
                        text_for_importance=whole,
                    )
                else:
                    op = self.add("goal.add", title=title, reason="a goal was stated", text_for_importance=whole)
                    op.status, op.error = SKIPPED, f"already an open goal: {name!r}"
                return True
        if _NEXT.search(text) or _NEXT.match(whole):
            before = self.goal_before(title)
        else:
            before = self.goal_before(title, shared_only=True) if _NEW_AIM.search(text) else []
        self.add(
            "goal.add",
            title=title,
            due=due[1] if due else None,
            supersedes=[g.id for g in before] or None,
            reason="a goal was stated" + (", the next one after the goal it replaces" if before else ""),
            text_for_importance=whole,
        )
        return True

    def goal_before(self, title: str, shared_only: bool = False) -> list[Record]:
        """The open goal a goal said as the next one ("Next thing: a sub-50 10k", "Now I go for C1", "... so that's the
        new target") comes after: the open goals sharing a word or the counted unit with it, else (not ``shared_only``)
        the one open goal."""
        shared = self.open_goals(" ".join([title, *(m.group("unit") for m in _COUNTED.finditer(title))]))
        if shared or shared_only:
            return shared
        kind_term = KIND_TERM + KIND_OF_MEMORY["goal"]
        ids = self.memory.store.postings(self.scope, [kind_term], _FEW_GOALS).ids.get(kind_term, [])
        goals = [r for r in self.memory.store.get(self.scope, list(ids)) if r is not None] if ids else []
        open_goals = [
            g for g in goals if g.kind == KIND_OF_MEMORY["goal"] and g.metadata.get("status", "open") == "open"
        ]
        return open_goals if len(ids) < _FEW_GOALS and len(open_goals) == 1 else []

    def goal_changed(self, text: str, whole: str) -> bool:
        """ "I change goal: I want the IELTS 6.5 for study in Melbourne, TOEIC is not necessary": a goal said with
        words of change; the new goal replaces each open goal the turn names by a word of its own (TOEIC)."""
        changed = _GOAL_CHANGE.match(text)
        if changed is None:
            return False
        title = capitalise(rules.TAIL.sub("", bare(_AIM_LEAD.sub("", changed.group("rest")).split(",")[0])))
        if len(title.split()) < 2:
            return False
        named = set(content_words(whole, keep_generic=False)) - set(content_words(title))
        old = [
            g.id
            for g in self.open_goals(" ".join(named))
            if named & set(content_words(g.metadata.get("title") or g.content, keep_generic=False))
        ]
        self.add(
            "goal.add",
            title=title,
            supersedes=old or None,
            reason="a changed goal" + (", replacing the one the turn names" if old else ""),
            text_for_importance=whole,
        )
        return True

    def goal_state(self, text: str) -> bool:
        """Progress ("60% done with X", "12 of the 24 books"), completion and giving up, on an open goal."""
        if self.progress(text):
            return True
        for rows, action in ((rules.COMPLETE, "complete"), (rules.DROP, "drop")):
            found = rules.first(rows, text)
            if found and self.goal_done(text, _mention(found[1]), action):
                return True
        own = rules.OWN_VERB.match(text)
        if own:
            mention = _mention_text(own.group("rest"))
            goal = self.find_goal(mention)
            if goal is not None and _did_goal_verb(own.group("verb"), goal.metadata.get("title") or goal.content):
                return self.goal_done(text, mention, "complete")
        return False

    def goal_done(self, text: str, mention: str, action: str) -> bool:
        goal = self.find_goal(mention)
        if goal is None:
            return False
        name = goal.metadata.get("title") or goal.content
        if names_itself(_without_goal_words(mention), name):
            op = self.add(
                f"goal.{action}",
                target=goal.id,
                text_for_importance=text,
                reason="the goal itself was " + ("reached" if action == "complete" else "given up"),
            )
            if action == "drop":  # the user's own words of it stay with the goal ("Not doing the Level 4 after all")
                op.fields["reason"] = sentence(capitalise(text))
        else:
            moment = when(text, self.turn.now)
            self.add(
                "episode.add",
                text=about_user(text),
                created_at=moment[1].timestamp() if moment else None,
                reason=f"a step towards the goal {name!r}, which stays open",
                text_for_importance=text,
            )
        return True

    def progress(self, text: str) -> bool:
        count = rules.COUNT_OF.search(text)
        fraction: float | None = None
        mentions: list[str] = []
        counted: tuple[float, float] | None = None
        if count:
            done, total = (float(count.group(g).replace(",", "")) for g in ("done", "total"))
            if 0 < total and done <= total:
                fraction = done / total
                mentions = [text[: count.start()] + " " + text[count.end() :]]
                counted = (done, total)
        if fraction is None:
            figure = _progress_figure(text)
            if figure is not None:
                fraction, before, after = figure
                mentions = [after, before] if after else [before]
            else:
                return self.progress_by_amount(text)
        for mention in mentions:
            goal = self.find_goal(mention)
            if goal is None:
                continue
            if fraction >= 1.0:
                self.add("goal.complete", target=goal.id, reason="reported 100% done", text_for_importance=text)
            else:
                self.add(
                    "goal.progress",
                    target=goal.id,
                    progress=round(fraction, 4),
                    note=count_note(goal, *counted) if counted else None,
                    reason=f"reported {round(fraction * 100)}% done",
                    text_for_importance=text,
                )
            return True
        return False

    def progress_by_amount(self, text: str) -> bool:
        """ "I've saved about 7000 so far towards the house deposit": the share of the goal's own number."""
        amount = rules.SO_FAR.search(text)
        if amount is None:
            return self.progress_by_unit(text)
        said = amount.group("amount") or amount.group("amount2")
        done = float(said.replace(",", ""))
        goal = self.find_goal(rules.NUMBERS.sub(" ", rules.HEDGES.sub(" ", text)))
        if goal is None:
            return self.progress_by_unit(text)
        totals = [float(n.replace(",", "")) for n in _NUMBER.findall(goal.metadata.get("title") or "")]
        if len(totals) != 1 or not 0 < done < totals[0]:
            return False
        return self.progress_of(goal, done, totals[0], f"{said} of the goal's {totals[0]:g}", text)

    def progress_of(self, goal: Record, done: float, total: float, reason: str, text: str) -> bool:
        """A ``goal.progress`` of ``done`` out of the goal's ``total``, the count kept as the progress note."""
        self.add(
            "goal.progress",
            target=goal.id,
            progress=round(done / total, 4),
            note=count_note(goal, done, total),
            reason=reason,
            text_for_importance=text,
            supersedes=self.progress_said_with(goal, total) or None,
        )
        return True

    def progress_said_with(self, goal: Record, total: float) -> list[str]:
        """The progress the user gave with the goal itself, stored on its own ("Goal: 50 push-ups in a row. Right
        now I can do 20." -> "User can do 20 right now"): a newer count replaces it. A memory of the goal's own
        turn (same session, within seconds, and the goal's turn number when both have one) that is short and holds one number, below the target."""
        window = Filter(
            session_id=goal.session_id,
            created_after=goal.created_at - _SAME_TURN_SECONDS,
            created_before=goal.created_at + _SAME_TURN_SECONDS,
        )
        found = []
        for record in self.memory.store.scan(self.scope, window):
            if record.id == goal.id or record.kind not in _PROGRESS_KINDS or record.metadata.get("superseded_by"):
                continue
            if same_turn(record, goal) is False:
                continue  # the next turn, a second later
            numbers = _NUMBER.findall(record.content)
            if (
                len(record.content.split()) <= 12
                and len(numbers) == 1
                and 0 < float(numbers[0].replace(",", "")) < total
            ):
                found.append(record.id)
        return found

    def progress_by_unit(self, text: str) -> bool:
        """ "Up to 27 deals closed" for the goal "40 deals": a turn saying one number, followed by the word the
        goal counts in (its one number's next word), smaller than the goal's, and no goal word of its own ("my
        target is 30 deals now" changes the goal, it is no progress)."""
        numbers = list(_COUNTED.finditer(text))
        if len(numbers) != 1 or any(w.lower() in rules.GOAL_WORDS for w in re.findall(r"[A-Za-z]+", text)):
            return False
        done, unit = float(numbers[0].group("n").replace(",", "")), stem(numbers[0].group("unit"))
        for goal in self.open_goals(f"{numbers[0].group('unit')} {text}"):  # "push-ups" is two terms
            counted = list(_COUNTED.finditer(goal.metadata.get("title") or goal.content))
            if len(counted) == 1 and stem(counted[0].group("unit")) == unit:
                total = float(counted[0].group("n").replace(",", ""))
                if 0 < done < total:
                    reason = f"{done:g} {_counts_in(counted[0])} of {total:g}"
                    return self.progress_of(goal, done, total, reason, text)
        return False

    def find_goal(self, mention: str) -> Record | None:
        mention = _without_goal_words(mention)
        for goal in self.open_goals(mention):
            if mention_matches(mention, goal.metadata.get("title") or goal.content):
                return goal
        return None


def _mention_text(text: str) -> str:
    return rules.TIME_TAIL.sub("", bare(rules.CUT.split(bare(text), maxsplit=1)[0]))


def _mention(match: re.Match[str]) -> str:
    groups = match.groupdict()
    return _mention_text(groups.get("mention") or groups.get("mention2") or "")


def _without_goal_words(mention: str) -> str:
    return " ".join(w for w in mention.split() if w.lower().strip(".,!?") not in rules.GOAL_WORDS)


def _did_goal_verb(verb: str, title: str) -> bool:
    """Is ``verb`` the past of the goal's own verb ("ran" for "Run the Berlin marathon")?"""
    words = re.sub(r"^goal\s*:\s*", "", title, flags=re.IGNORECASE).split()
    if not words:
        return False
    base, verb = words[0].lower(), verb.lower()
    return verb in (rules.PAST_OF.get(base), base + "ed", base + "d", base[:-1] + "ied" if base.endswith("y") else None)


def _progress_figure(text: str) -> tuple[float, str, str] | None:
    """A progress figure next to a progress word: (fraction, the text before it, the phrase after the word)."""
    best = None
    for figure in rules.PROGRESS_FIGURE.finditer(text):
        word = rules.PROGRESS_WORD.search(text, figure.end())
        near_after = word is not None and word.start() - figure.end() <= 12
        word_before = None
        for candidate in rules.PROGRESS_WORD.finditer(text[max(0, figure.start() - 40) : figure.start()]):
            word_before = candidate
        if re.search(r"\bat\s+(?:about\s+|roughly\s+|around\s+)?$", text[: figure.start()], re.IGNORECASE):
            near_after, word_before = True, None
        if not (near_after or word_before is not None):
            continue
        if figure.group("number"):
            fraction = min(1.0, float(figure.group("number")) / 100.0)
        else:
            fraction = rules.FRACTIONS[figure.group("fraction").lower()]
        after = text[word.end() :] if near_after and word is not None else text[figure.end() :]
        if not near_after and word_before is not None:
            offset = max(0, figure.start() - 40) + word_before.end()
            after = text[offset : figure.start()]
        after = re.sub(r"^\s*(?:done|complete|there|of the way)?\s*(?:with|on|in|through|into|of|for)?\s+", " ", after)
        before = rules.HEDGES.sub(" ", text[: figure.start()])
        best = (fraction, before, bare(rules.CUT.split(rules.HEDGES.sub(" ", after).strip(), maxsplit=1)[0]))
        if near_after:
            break
    return best
