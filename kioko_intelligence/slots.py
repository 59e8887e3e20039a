"""Supersede by slot: a newer value of the same slot replaces the older memory, whatever kind either was routed to.

A *slot* is a subject and an attribute (the user's editor, the dog's name, the report's due date); its
*value* is what changes (Neovim, Rex, March 21). No model is needed to recognise one; two ways, in order:

1. **The turn names the old value.** "moved from X to Y", "replaced X with Y", "Y instead of X",
   "not X but Y", "Y, not X", "left / sold / ditched / skipping X", "X isn't ... anymore", "X retired",
   "don't ... X anymore", "no more X". Every current memory of the user whose words hold all of X's words
   (stemmed, through the term index) is the old value's memory: it is superseded (sure).
2. **Same frame, another value.** A memory's *frame* is its content words without its values (numbers,
   dates, weekdays, names, identifiers) and without change words ("now", "moved", "actually" ...); "due"
   and "deadline" count as one word. An older memory shares the slot when the frames share at least
   half of the smaller one (at least one word), each holds a value of the same type (a date, a number, a
   name or an identifier) and the old value is not in the new text. With a change cue in the turn ("now",
   "these days", "correction", "actually", "moved to", "pushed back" ...) or the same frame word for word,
   it is superseded; without one the router is not sure: both memories stay current, the new one carries
   the conflict (``metadata.conflicts_with``) and is shown first with "(was: ...)", the old one leaves the
   context.
   Plain words as the value ("toast with butter" -> "rice and miso soup" for breakfast) are one topic's
   old and new value under the rules of :mod:`.slot_topics` (a marked conflict).

Superseding marks the old memory ``metadata.superseded_by`` (the new one gets ``supersedes``), as
decisions always did: it stays in the history (``as_of`` reads, the console's "show superseded") and leaves
every context. An old memory that is a decision is replaced through ``decision.supersede``; a change-phrased
turn that the router took for an event ("I've moved on from X to Y") is stored as the kind of the memory
it replaces. An old memory holding other clauses beside the old value ("for notes I use Notion and for
tasks I use Todoist") is updated in place, the old value replaced by the new one, when the turn names both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kioko_core.kinds import (
    Decisions,
    Episodes,
    Facts,
    Goals,
    Instructions,
    Knowledge,
    Preferences,
    Procedures,
    Profile,
)
from kioko_core.kinds.registry import KINDS
from kioko_core.store import Record, Scope
from kioko_intelligence.called_off import all_off, called_off, commits, committed, one_step_of
from kioko_intelligence.categories import Category, Mention, mentions
from kioko_intelligence.categories import about as categories_about
from kioko_intelligence.forget_context import earlier_turns
from kioko_intelligence.holders import held_ids, held_kinds, held_records, held_terms
from kioko_intelligence.instruction_topics import aspects, instruction_changes
from kioko_intelligence.labels import different_things
from kioko_intelligence.language import about_user, due_date, sentences
from kioko_intelligence.ops import KIND_OF_MEMORY, SKIPPED, MemoryOp
from kioko_intelligence.plan_changes import attach as attach_rewrites
from kioko_intelligence.plan_changes import one_step
from kioko_intelligence.plan_changes import rewrites as item_rewrites
from kioko_intelligence.plan_order import reordered
from kioko_intelligence.profile_changes import profile_changes, relation_rewrites
from kioko_intelligence.safety_changes import narrowed
from kioko_intelligence.slot_additions import added, beside, only_times, two_named_kinds
from kioko_intelligence.slot_aims import replaced_aim
from kioko_intelligence.slot_continuations import carry_rewrites, continuation
from kioko_intelligence.slot_counts import counted_change, counts, emptied
from kioko_intelligence.slot_dates import dated_again
from kioko_intelligence.slot_howtos import ADDED_STEP, HOWTO_CHANGE, howto_changed, howto_title
from kioko_intelligence.slot_howtos import stepwise as stepwise
from kioko_intelligence.slot_keeps import only_kept
from kioko_intelligence.slot_marks import CANDIDATES, current

# marking what a turn replaced lives in slot_marks; brain.py and the tests reach it through slots as before
from kioko_intelligence.slot_marks import VALUE_KINDS as VALUE_KINDS
from kioko_intelligence.slot_marks import apply as apply
from kioko_intelligence.slot_marks import stale_summaries as stale_summaries
from kioko_intelligence.slot_nearest import nearest_changes, standing_requests, with_its_value
from kioko_intelligence.slot_reading import CUE, TITLE_DOT, Slot, new_value, old_values, read_slot, text_terms
from kioko_intelligence.slot_returns import returns
from kioko_intelligence.slot_roles import new_holders
from kioko_intelligence.slot_sequences import further_along
from kioko_intelligence.slot_subjects import (
    another_one,
    different_subjects,
    named_subjects,
    someone_elses,
    subject_words,
)
from kioko_intelligence.slot_tallies import running_tally
from kioko_intelligence.slot_topics import GENERIC as _GENERIC
from kioko_intelligence.slot_topics import LIKING_WORDS as _LIKING_WORDS
from kioko_intelligence.slot_topics import USERS_OWN as _USERS_OWN
from kioko_intelligence.slot_topics import named_topic, names_another, one_topic, replaces_loosely
from kioko_intelligence.slot_transitions import transitions
from kioko_intelligence.stances import reversals
from kioko_intelligence.task_moves import ended_activities, task_moves
from kioko_intelligence.working_changes import working_changes

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

# The supersede policy per kind is columns of the kinds registry (holds_value, users_own, gives_values, restated):
# the sets below are read from its rows; a kind treated specially is named by its manager class (Goals.kind).
ADDING = frozenset(info.op for info in KINDS if info.gives_values and info.op)
"""Operation kinds whose ``add`` may carry a newer value of a slot."""
_STATED_KINDS = frozenset(info.name for info in KINDS if info.users_own)
"""Kinds that state the user's own value: naming the old value is enough to find them."""
_ABOUT_USER = re.compile(r"\b(?:I|I'm|I've|[Mm]y|[Ww]e|[Ww]e're|[Oo]ur|User|User's)\b")
"""A memory in the user's own words (or rewritten about them), whatever kind it was routed to."""
UNINDEXED = frozenset(info.name for info in KINDS if info.holds_value and not info.links)
"""Kinds the term index does not keep (it keeps the linked ones): read by kind (the context reads them the same way)."""
_OP_OF = {info.name: info.op for info in KINDS if info.restated and info.op}
"""Stored kind -> the operation a correction of it is written as (a new memory of its own kind)."""
_COUNT_OPS = {
    **{kind: op for kind, op in _OP_OF.items() if kind in {Facts.kind, Knowledge.kind, Preferences.kind}},
    Episodes.kind: "episode",
}
"""The kinds a count is stated as ("Booked up with 12 clients this month" is an event; a goal's count is its
progress, see goal_reading; steps and rules are no counts); each takes its new total as its own kind."""
_GOALS = frozenset({Goals.kind})
_HELD_KINDS = frozenset(info.name for info in KINDS if info.restated and info.section == "memories")
"""What an event that replaces a memory is stored as instead: the kind of the memory it replaces, when that is a
plain memory (shown among the memories: not a goal, a procedure or a lesson, which have shapes of their own)."""


def _holding(memory: MemoryLayer, scope: Scope, terms: list[str], every: bool) -> list[Record]:
    """Current memories of the scope holding all (``every``) or any of ``terms``: the indexed kinds through the
    term index, instructions and profile slots (which the index does not keep; a user has few) read by kind."""
    if not terms:
        return []
    postings = held_ids(memory, scope, terms, CANDIDATES)  # each read once per turn (holders.read_once)
    sets = [set(postings.get(t, ())) for t in terms]
    ids = set.intersection(*sets) if every else set().union(*sets)
    found = [r for r in held_records(memory, scope, sorted(ids)) if r is not None and current(r)] if ids else []
    wanted = set(terms)
    for record in held_kinds(memory, scope, UNINDEXED):
        if not current(record) or record.id in ids:
            continue
        held = set(held_terms(memory, scope, record, text_terms))
        if (wanted <= held) if every else (wanted & held):
            found.append(record)
    # in the order they were said: ids are random, and a rule that takes the first of several must not depend on them
    found.sort(key=lambda r: (float(r.created_at or 0.0), r.content))
    return found


@dataclass
class Replaced:
    """An older memory a new one replaces: ``sure`` supersedes it, else the conflict is marked."""

    record: Record
    sure: bool
    old: str | None = None
    new: str | None = None
    sentence: str | None = None
    """The whole sentence, when only it names the slot ("I switched dentists, I see Dr. Okafor now")."""


def same_slot(
    memory: MemoryLayer,
    scope: Scope,
    text: str,
    turn_text: str,
    goal: bool = False,
    howto: bool = False,
    session_id: str | None = None,
) -> list[Replaced]:
    """The user's current memories that ``text`` (one op's text, from ``turn_text``) gives a newer value of
    (``goal``: the op states a goal; ``howto``: it states a procedure, which replaces only how-tos; ``session_id``:
    the turn's session, whose own memories a new state naming another thing does not replace)."""
    found: dict[str, Replaced] = {}
    newer = new_value(text) or new_value(turn_text)
    mine = read_slot(text)
    for old in old_values(text) or old_values(turn_text):
        # its words (an entity term would miss "ThinkPad" inside "ThinkPad X1"; the words do not)
        old_terms = [t for t in text_terms(old) if not t.startswith("e:")]
        if not old_terms:
            continue
        sentence_frame = mine.frame | read_slot(_sentence_of(text, turn_text)).frame
        for record in _holding(memory, scope, old_terms, every=True):
            about = read_slot(record.content).frame & sentence_frame
            if old.replace(".", "").isdigit() and not about:
                continue  # a bare number names a value only inside the same frame ("lose 8 kilos")
            if record.kind not in _STATED_KINDS and not about and not _ABOUT_USER.search(record.content):
                continue  # knowledge or an event that merely names X ("Siemens released a PLC") is no value of the user's
            if someone_elses(text, record.content):
                continue  # "Petra is my wife's team lead now" names no newer holder of the user's own team lead
            found.setdefault(record.id, Replaced(record, True, old, newer))
    for old in called_off(text) or called_off(turn_text):
        # "Crete's off", "Second van idea is dead", "Crumbs cancelled on us": a commitment held by a memory is over
        old_terms = [t for t in text_terms(old) if not t.startswith("e:")]
        for record in _holding(memory, scope, old_terms, every=True) if old_terms else []:
            if committed(record) and not one_step_of(record, set(old_terms), text_terms):
                found.setdefault(record.id, Replaced(record, True, old, None))
    said = all_off(turn_text)
    if said is not None and not found:
        # "Mum got wind of the surprise, so all that's off": the one commitment the sentence's other words name
        words = [t for t in text_terms(said) if t.startswith("t:") and t[2:] not in _GENERIC]
        pointed = [r for r in _holding(memory, scope, words, every=False) if committed(r)] if words else []
        if len(pointed) == 1:
            found[pointed[0].id] = Replaced(pointed[0], True)
    if found:
        # a value of a category of one at a time is replaced beside the named old values ("I went fully vegan in
        # January, so no eggs or dairy anymore": the vegetarian memory as well as "Eggs and cheese are fine")
        for replaced in same_category(memory, scope, text, _sentence_of(text, turn_text), turn_text):
            if replaced.sure:
                found.setdefault(replaced.record.id, replaced)
        return list(found.values())
    # the op's own words, with those of the sentence it came from ("I switched dentists, I see Dr. Okafor now")
    own, whole = set(mine.frame), _sentence_of(text, turn_text)
    # a category's values, then the frame rules for the op's other values ("a new work email, sam@newco.io,
    # and they gave me a Pixel": the phone by category, the email by frame)
    for replaced in same_category(memory, scope, text, whole, turn_text):
        found.setdefault(replaced.record.id, replaced)
    for record in reversals(lambda terms: _holding(memory, scope, terms, False), f"{text} {whole}"):
        found.setdefault(record.id, Replaced(record, True))  # "... is gross" after "... is the best"
    for record in transitions(lambda terms: _holding(memory, scope, terms, False), text):
        # "Made partner at Hart & Doyle" after "User is a senior associate at Hart & Doyle"
        found.setdefault(record.id, Replaced(record, True))
    said = f"{text} {whole}"
    for record in instruction_changes(lambda terms: _holding(memory, scope, terms, False), said, Instructions.kind):
        found.setdefault(record.id, Replaced(record, True, None, None, None if aspects(text) else whole))
    mine = Slot(mine.frame | read_slot(whole).frame, mine.values)
    cue = bool(CUE.search(turn_text))
    liking = bool(_LIKING.search(text))
    if not mine.frame or not (mine.values or cue or HOWTO_CHANGE.search(turn_text)):
        return list(found.values())
    lowered = (text + " " + whole).lower()
    names = [n for n in mine.values.get("name", ()) if n.split()]
    terms = ["t:" + w for w in sorted(mine.frame) if w != "due"] + _due_terms(mine)
    terms += ["t:" + w for n in names for w in _terms_of_name(n)]
    loose: list[Replaced] = []
    named: list[Replaced] = []  # one topic, another name, no change word: a marked conflict when alone
    for record in _holding(memory, scope, terms, False):
        if record.kind == Goals.kind and not (
            goal or (_DEADLINE.search(turn_text) and "date" in mine.values) or _AIM.search(text) or _progress(record)
        ):
            continue  # an event about a goal is progress on it, not a new value of it (a moved deadline is)
        if howto and howto_title(record) is None:
            continue  # steps for a task are no newer value of an event or a fact ("How to clear a jam on line 4")
        if not cue and not _ABOUT_USER.search(record.content) and different_things(lowered, record.content):
            continue  # "the line 2 conveyor jammed" is another conveyor than line 1's, not its newer state
        if another_one(text, record.content):
            continue  # "My other brother Kwame is at KPMG" beside "My brother Kofi works at Deloitte"
        if two_named_kinds(f"{text} {whole}", record.content):
            continue  # "We have a cat called Miso" beside "User's dog is called Biscuit": two pets, not a new name
        if not cue and different_subjects(text, record.content):
            continue  # "The Madrid team has 5 engineers" is another team than Berlin's, not its newer size
        if someone_elses(text, record.content):
            continue  # "my sister switched to soy milk these days": her change, whatever the change word
        theirs = read_slot(record.content)
        # a name both say is part of the slot, not its value ("Python 3.9" -> "Python 3.12", "Kofi ... Accra")
        both = {n for n in theirs.values.get("name", set()) if _says(lowered, n, plural=True)}
        shared = (mine.frame & theirs.frame) | both
        mine_values = {t: v - both for t, v in mine.values.items() if v - both}
        their_values = {t: v - both for t, v in theirs.values.items() if v - both}
        types = [t for t in mine_values if t in their_values]
        if howto_changed(record, mine.frame, turn_text):
            # "The descaling is different with the new machine: ..." after "To descale the coffee machine, ..."
            found.setdefault(record.id, Replaced(record, True, None, None, None if shared & own else whole))
            continue
        if cue and len(shared - _GENERIC) >= 2 and stepwise(record.content) and stepwise(f"{text} {whole}"):
            # "switched to no-knead: mix, rest overnight, bake at 250" after "bread method: knead 10 min, prove ..."
            found.setdefault(record.id, Replaced(record, True, None, None, whole))
            continue
        if howto_title(record) is not None and not types:
            continue  # a how-to is replaced by a turn saying it is done differently, not by one that uses it
        if shared and not types and cue:
            # plain words as the value: "I'd rather do the evening shift now" after "I prefer the morning shift"
            # (a liking), "my husband works as a nurse these days" after "... works as a teacher" (two shared words)
            # a name only the new text has is its own value too ("Ethiopian food" after "Thai food")
            mine_own, their_own = _own_words(mine, theirs, mine_values)
            liked = liking and _LIKING.search(record.content)
            close = len(shared) >= 2 and 2 * len(shared) >= min(len(mine.frame), len(theirs.frame))
            if mine_own and their_own and (liked or close):
                found.setdefault(record.id, Replaced(record, True, None, None, None if shared & own else whole))
            elif (
                mine_own
                and their_own
                and _one_topic(record, shared, lowered, mine.frame)
                and not added(turn_text, record.content)
            ):
                loose.append(Replaced(record, False, None, None, None if shared & own else whole))
            continue
        if not shared or not types or only_times(shared):
            continue  # "Mass on Sunday mornings" / "walks the dog every morning": only the time of day is shared
        # a date moved with a change cue ("taxes are due October 31 now") needs one shared word, else half
        if (
            2 * len(shared) < min(len(mine.frame), len(theirs.frame))
            and not (cue and "date" in types)
            and not dated_again(text, record.content, shared, types)  # "they put my defence to 23 June"
        ):
            if (
                cue
                and all(_own_words(mine, theirs, mine_values))
                and _one_topic(record, shared, lowered, mine.frame)
                and not added(turn_text, record.content)
            ):
                # too few shared words for the typed rule, one topic all the same ("I'm only the club treasurer
                # now" after "I'm commodore of the Looe sailing club"): the value is the words, not the name
                loose.append(Replaced(record, False, None, None, None if shared & own else whole))
            elif (
                names_another(mine_values, their_values, shared, lowered)
                and named_topic(shared - _GENERIC, record.content, text, subject_words(record.content))
                and not named_subjects(text, record.content)
                and not (session_id and record.session_id == session_id)
                and not beside(whole, text, record.content)
            ):
                # "DNS is on a Raspberry Pi in the comms cupboard" after "Office DNS runs on the old Dell tower"; in
                # one session two named things said turn after turn are more often a list than a change
                named.append(Replaced(record, False, None, None, None if shared & own else whole))
            continue
        # a type the new text only repeats part of ("... on Saturday" of a plan with Monday, Friday, Saturday)
        # changes nothing of that type: the stale values are of the types it says something new in
        changed = [t for t in types if mine_values[t] - their_values[t]] or types
        stale = [
            v for t in changed for v in sorted(their_values[t]) if v not in mine_values[t] and not _says(lowered, v)
        ]
        if record.kind == Goals.kind:
            stale.sort(key=lambda v: not _progress(record, v))  # a goal changes in its progress, not its aim
        if not stale and cue and any(mine_values[t] > their_values[t] for t in types):
            # the new statement restates the slot with more ("every Sunday" -> "Sunday and Wednesday now")
            found.setdefault(record.id, Replaced(record, True, None, None, None if shared & own else whole))
            continue
        if not stale:
            continue
        sure = cue or mine.frame == theirs.frame
        if not sure and beside(whole, text, record.content):
            continue  # "I also coach the under-14s on Sunday mornings" beside "... the under-11s on Saturdays"
        kind = next(t for t in types if stale[0] in their_values[t])
        fresh = sorted(mine_values[kind] - their_values[kind])
        # a date, number or id swapped in place of the old one (a name is too often a step's first word)
        newer_value = _original(text + " " + whole, fresh[0]) if len(fresh) == 1 and kind != "name" else None
        # steps are replaced by the whole sentence that gives them, not by the one clause the router cut out of it
        sentence = whole if stepwise(record.content) or not shared & own else None
        found.setdefault(record.id, Replaced(record, sure, stale[0], newer_value, sentence))
    if not found and replaces_loosely(turn_text, len(loose)):
        return loose  # one statement of the user's on the one topic, a plain change word: a marked conflict
    if not found and not loose and len(named) == 1 and not _QUESTION.search(turn_text):
        return named  # one older memory naming another thing on the topic: a marked conflict
    return list(found.values())


_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our|User's)\s+(?:wife|husband|partner|son|daughter|kids?|children|mum|mom|dad|father|mother|"
    r"brother|sister|friend|colleague|boss|manager|neighbou?r|team|company|client)('s)?\b|\b(?:he|she|they|his|her|their)\s+"
    r"(?:uses?|has|have|drives?|switched|prefers?|likes?)\b",
    re.IGNORECASE,
)
"""A sentence about someone else's things ("my son uses Chrome"): no value of the user's own."""
_NO_SUBJECT = re.compile(
    r"^\W*(?:(?:just|finally|recently|so|and|also|then)\s+)*(?:got|bought|switched|moved|went|started|picked up|ordered|"
    r"upgraded|installed|tried|traded|changed|swapped|using|use|drive|driving|run|running)\b",
    re.IGNORECASE,
)
"""A turn that leaves its subject out ("Just got the new iPhone 15", "Bought a MacBook ...") speaks of the user."""


def _own_words(mine: Slot, theirs: Slot, mine_values: dict[str, set[str]]) -> tuple[set[str], set[str]]:
    """The frame words (and the new text's names) each of two statements has that the other lacks."""
    mine_own = (mine.frame | mine_values.get("name", set())) - theirs.frame - _LIKING_WORDS
    return mine_own, theirs.frame - mine.frame - _LIKING_WORDS


def _one_topic(record: Record, shared: set[str], said: str, said_frame: set[str]) -> bool:
    stated = record.kind in _STATED_KINDS
    return one_topic(record.content, stated, shared, said, said_frame, record.kind == Instructions.kind)


def same_category(memory: MemoryLayer, scope: Scope, text: str, sentence: str, turn_text: str) -> list[Replaced]:
    """The user's current memories naming another value of a category ``text`` names (see :mod:`.categories`):
    "I switched to Brave" after "my browser of choice is Firefox". A category of one value at a time replaces
    on a change cue or a liking (else: unsure, the conflict is marked); one of several values only when the
    two statements also share a word of their own ("favourite language")."""
    said = f"{text} {sentence}"
    new = mentions(said)
    if not new or _SOMEONE_ELSES.search(said):
        return []
    if not (_USERS_OWN.search(said) or _NO_SUBJECT.search(text) or _NO_SUBJECT.search(sentence)):
        return []
    lowered = said.lower()
    sure = bool(CUE.search(turn_text) or CORRECTION.search(turn_text) or _LIKING.search(said))
    frame = read_slot(said).frame
    found: dict[str, Replaced] = {}
    for category in dict.fromkeys(m.category for m in new):
        values = {m.value for m in new if m.category is category}
        terms = sorted({"t:" + w for v in category.values if v not in values for w in _terms_of_name(v)})
        for record in _holding(memory, scope, terms, False):
            if record.id in found or _SOMEONE_ELSES.search(record.content):
                continue
            if not (_USERS_OWN.search(record.content) or record.kind in _STATED_KINDS):
                continue  # knowledge that merely names a browser is no value of the user's
            if record.kind == Profile.kind and record.metadata.get("slot") in _NOT_A_CATEGORY_SLOT:
                continue  # "I work at Google" is an employer, not a search engine
            theirs = [m for m in mentions(record.content) if m.category is category]
            if not theirs or any(m.value in values for m in theirs):
                continue  # names the new value too: a comparison or the same thing
            old = [m for m in theirs if not re.search(rf"(?<!\w){re.escape(m.value)}(?!\w)", lowered)]
            if not old:
                continue
            if not category.single:
                nouns = {w for noun in category.nouns for w in _terms_of_name(noun)}
                if not (read_slot(record.content).frame & frame) - nouns - {"use", "user"}:
                    continue
            if not sure and _paired_with_another(new, mentions(record.content), category):
                continue
            found[record.id] = Replaced(record, sure, old[0].said, new[0].said)
    return list(found.values())


def _paired_with_another(new: list[Mention], theirs: list[Mention], category: Category) -> bool:
    """Whether both statements tie their value of ``category`` to a value of another category, two different ones:
    "For the Kotlin side I stick with Android Studio" after "I write Rust in Helix" names an editor for another
    language, not a newer editor (with no change word; "switched to Kotlin in Android Studio" changes both)."""
    for other in {m.category for m in new} - {category}:
        mine = {m.value for m in new if m.category is other}
        before = {m.value for m in theirs if m.category is other}
        if mine and before and not mine & before:
            return True
    return False


_NOT_A_CATEGORY_SLOT = frozenset({"employer", "name", "team", "hometown", "location", "language"})
"""Profile slots whose value may be spelled like a product ("Google", "Rust", "Java") but is not one."""

_LIKING = re.compile(
    r"\b(?:prefer|prefers|preferred|rather|like|likes|love|loves|favou?rite|enjoy|enjoys|into|fan of|go-to|"
    r"usually|always|my thing)\b",
    re.IGNORECASE,
)
"""A statement of what the user likes or usually does: its slot's values are often plain words (tea, evening)."""


def _terms_of_name(name: str) -> list[str]:
    return [t[2:] for t in text_terms(name) if t.startswith("t:")]


_DEADLINE = re.compile(
    r"\b(?:due|deadline|extended|postponed|pushed|moved|slipped|rescheduled|brought forward|delayed)\b", re.IGNORECASE
)


def _move_goal(op: MemoryOp, replaced: Replaced, text: str) -> bool:
    """ "The audit deadline got extended to next Wednesday": the goal's date changes (``goal.update``)."""
    record, old = replaced.record, replaced.old or ""
    new = next(iter(read_slot(text).values.get("date", ())), None)
    found = re.search(re.escape(old), record.content, re.IGNORECASE) if old else None
    if new is None or found is None:
        return False
    title = record.content[: found.start()] + _original(text, new) + record.content[found.end() :]
    title = re.sub(r"^goal:\s*", "", title, flags=re.IGNORECASE).rstrip(".")
    due = due_date(title, datetime.now(UTC))
    op.op, op.target = "goal.update", record.id
    op.fields = {"title": title, **({"due": due[1]} if due else {})}
    op.reason = (op.reason + "; " if op.reason else "") + "the goal's date moved"
    return True


_AIM = re.compile(r"\b(?:goal|target|aim|aiming)\b", re.IGNORECASE)
"""A text that names a goal's target: a new number of it is the goal's, not progress on it."""


def _says(text: str, value: str, plural: bool = False) -> bool:
    """Is ``value`` a word (or words) of ``text``, not a part of one ("a" is not in "actually")? With ``plural``, a
    name said in the plural or possessive is said too ("the Harpers" says "Harper"; a weekday is another matter:
    "Fridays nobody shows up" does not keep "every other Friday")."""
    tail = r"(?:'?s|es)?" if plural else ""
    return re.search(rf"(?<!\w){re.escape(value)}{tail}(?!\w)", text) is not None


_PROGRESS = re.compile(r"[;,]\s*(?:and\s+)?(?:right now|currently|so far|at the moment|now)\b[^;]*$", re.IGNORECASE)


def _progress(record: Record, old: str | None = None) -> bool:
    """Does a goal carry its progress in a clause of its own ("...; right now I manage 400 m"), holding ``old``?"""
    found = _PROGRESS.search(record.content)
    return found is not None and (old is None or _says(found.group(0).lower(), old.lower()))


def _renumber_goal(op: MemoryOp, replaced: Replaced, text: str) -> bool:
    """ "I bumped my reading goal up to 30 books": the goal's number changes (``goal.update``)."""
    record, old, new = replaced.record, replaced.old or "", replaced.new
    if not new or not old or not _AIM.search(text):
        return False
    found = re.search(rf"(?<!\w){re.escape(old)}(?!\w)", record.content, re.IGNORECASE)
    if found is None:
        return False
    title = record.content[: found.start()] + new + record.content[found.end() :]
    op.op, op.target = "goal.update", record.id
    op.fields = {"title": re.sub(r"^goal:\s*", "", title, flags=re.IGNORECASE).rstrip(".")}
    op.reason = (op.reason + "; " if op.reason else "") + "the goal's target changed"
    return True


def _give_way(ops: list[MemoryOp], kept: MemoryOp, sentence: str) -> None:
    words = set(text_terms(sentence))
    for other in ops:
        if other is kept or other.status != "planned" or other.action != "add":
            continue
        mine = set(text_terms(_op_text(other)))
        if mine and mine <= words:
            other.status, other.error = SKIPPED, "part of a change the turn keeps whole"


def _names_old(op: MemoryOp, turn_text: str) -> bool:
    """Does ``op``'s own sentence name an old value? Such an op claims the memory it replaces first: "Oh gosh, sorry,
    me again. I've gone off Earl Grey, it's lapsang souchong for me these days" replaces the Earl Grey memory by the
    op of its second sentence, not by the apology the router kept of the first (every op of a turn may reach the
    turn's old values when its own words name none)."""
    text = _op_text(op)
    sentence = _sentence_of(text, turn_text)
    return bool(text.strip()) and bool(
        old_values(text) or old_values(sentence) or called_off(text) or called_off(sentence)
    )


def _new_commitment(op: MemoryOp, turn_text: str) -> bool:
    """Does ``op`` say a commitment in its words while the turn calls one off (:func:`.called_off.called_off`)?"""
    return bool(called_off(turn_text)) and commits(_op_text(op))


_THEN_SAID = re.compile(
    r"^\s*(?:,\s*(?:so\s+|and\s+|but\s+)?|\s+so\s+)(?:we|I|he|she|they|we're|I'm|it's|it is|we've|we'll|I'll)\b",
    re.IGNORECASE,
)
"""What a clause of the user's goes on with after the first ("..., so we went for a Nabertherm instead")."""


_GOAL_WORD = re.compile(r"\b(?:goal|target|aim|objective)s?\b", re.IGNORECASE)
_DATE_MOVED = re.compile(
    r"\b(?:push(?:ed|ing)?\b(?:\s+[\w'-]+){0,6}?\s+back|bring(?:ing)?\b(?:\s+[\w'-]+){0,6}?\s+forward|brought\b"
    r"(?:\s+[\w'-]+){0,6}?\s+forward|mov(?:e|ed|es|ing)|shift(?:ed|s|ing)?|extend(?:ed|s|ing)?|slip(?:ped|s|ping)?|"
    r"postpon(?:e|ed|es|ing)|delay(?:ed|s|ing)?|reschedul(?:e|ed|es|ing))\b",
    re.IGNORECASE,
)
"""A date said moved: "Pushing the sub-25 5k goal back to August", "Moving my 5k target to August"."""


def _goal_date_moved(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """A sentence that says an open goal's date moved ("Pushing the sub-25 5k goal back to August, my calf is still
    sore" after "I want to run a sub-25 5k by the end of May") updates that goal's date (``goal.update``), whatever
    the router made of it (a task of the session, a new goal titled "Pushed back to August", a piece of knowledge).
    The sentence must say a goal word ("goal", "target", "aim", "objective"), a verb of moving a date and one date;
    exactly one open goal holding one date must share a word of its own with it."""
    said = [s for s in sentences(turn_text) if _GOAL_WORD.search(s) and _DATE_MOVED.search(s)]
    goals = [r for r in held_kinds(memory, scope, _GOALS) if current(r)] if said else []  # read only when said
    for sentence in said if goals else []:
        dates = read_slot(sentence).values.get("date", set())
        words = set(text_terms(_GOAL_WORD.sub(" ", sentence)))
        ids = read_slot(sentence).values.get("id", set())
        named = [
            g
            for g in goals
            if words & set(text_terms(g.content)) - set(text_terms(" ".join(dates)))
            or ids & read_slot(g.content).values.get("id", set())
        ]
        if len(dates) != 1 or len(named) != 1:
            continue
        held = read_slot(named[0].content).values.get("date", set())
        old = next(iter(held)) if len(held) == 1 else None
        found = re.search(rf"(?<!\w){re.escape(old)}(?!\w)", named[0].content, re.IGNORECASE) if old else None
        new = _original(sentence, next(iter(dates)))
        if found is None or new.lower() == (old or "").lower():
            continue
        title = named[0].content[: found.start()] + new + named[0].content[found.end() :]
        title = re.sub(r"^goal:\s*", "", title, flags=re.IGNORECASE).rstrip(".")
        due = due_date(title, datetime.now(UTC))
        for op in ops:
            kept = str(op.fields.get("text") or op.fields.get("value") or op.fields.get("title") or "").rstrip(".")
            if op.status == "planned" and kept and kept.lower() in sentence.lower():
                op.status, op.error = SKIPPED, "the sentence moves a goal's date"
        ops.append(
            MemoryOp(
                "goal.update",
                target=named[0].id,
                fields={"title": title, **({"due": due[1]} if due else {})},
                reason="the goal's date moved",
                confidence=0.8,
            )
        )
        return


def _what_follows_the_reason(ops: list[MemoryOp], turn_text: str) -> None:
    """A change that opens its sentence with the reason ("The Skutt was backordered for months, so we went for a
    Nabertherm instead"; "Not renewing the Shoreditch lease, we're going fully remote"): the op that found the old
    memory by the reason's words carries the whole sentence, the new value with it, and the ops of the clause after
    it give way (it was kept on its own, named no old value and replaced nothing, or was dropped as unimportant)."""
    for op in ops:
        changing = op.fields.get("supersedes") or op.fields.get("conflicts_with") or op.op == "decision.supersede"
        text = _op_text(op).strip().rstrip(".!")
        if op.status != "planned" or not changing or "text" not in op.fields or len(text) < 8:
            continue
        sentence = next((s for s in sentences(turn_text) if s.lower().startswith(text.lower())), None)
        if sentence is None or not _THEN_SAID.match(sentence[len(text) :]):
            continue
        op.fields["text"] = about_user(sentence.strip())
        _give_way(ops, op, sentence)


def _one_step_of_a_plan(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """A plan the slot rules found replaced (or in conflict) whole by a change of one of its steps keeps its other
    steps: the step is rewritten in place (:func:`.plan_changes.one_step`) and the plan is neither superseded nor
    marked ("Swap the duck for venison on Saturday" after a tasting menu of three courses)."""
    for op in ops:
        if op.status != "planned" or op.action != "add" or _stored(op) == Procedures.kind:
            continue
        ids = [i for key in ("supersedes", "conflicts_with") for i in op.fields.get(key) or []]
        if not ids:
            continue
        change = _sentence_of(_op_text(op), turn_text) or _op_text(op)
        for record in memory.store.get(scope, ids):
            found = one_step(record, change) if record is not None else None
            if record is None or found is None:
                continue
            for key in ("supersedes", "conflicts_with"):
                kept = [i for i in op.fields.get(key) or [] if i != record.id]
                if kept:
                    op.fields[key] = kept
                else:
                    op.fields.pop(key, None)
            op.fields.setdefault("rewrites", []).append([record.id, found[0], found[1]])
            op.reason = (op.reason + "; " if op.reason else "") + "one step of a plan changed"


def _sentence_of(text: str, turn_text: str) -> str:
    """The sentence of the turn that ``text`` (an op's rewrite of part of it) shares most words with."""
    words = set(text_terms(text))
    said = [s for s in re.split(r"(?<=[.!?])\s+", TITLE_DOT.sub(r"\1", turn_text)) if s.strip()]
    return max(said, key=lambda s: len(words & set(text_terms(s))), default="")


def _due_terms(slot: Slot) -> list[str]:
    return ["t:due", "t:deadlin"] if "due" in slot.frame else []


def _stored(op: MemoryOp) -> str | None:
    """The stored kind ``op`` writes (``"fact.add"`` -> ``"factual"``), None for an operation on no kind."""
    return KIND_OF_MEMORY.get(op.kind)


def _op_text(op: MemoryOp) -> str:
    f = op.fields
    if _stored(op) == Procedures.kind:
        return f"{f.get('title') or ''}: " + " ".join(s for s in f.get("steps") or [] if isinstance(s, str))
    return str(f.get("text") or f.get("title") or f.get("chosen") or "")


CORRECTION = re.compile(
    r"\b(?:actually|correction|i meant|sorry|oops|my mistake|miscounted|misspoke|i was wrong|to be precise|"
    r"rather)\b",
    re.IGNORECASE,
)
"""A correction of something said before, which often names only the new value ("actually it's 45")."""


def corrections(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """A correction the router kept nothing of ("Actually it's 45 tomato plants, I miscounted"): when its
    frame and value type name exactly one current memory, that memory's text with the new value is added
    (and supersedes it)."""
    said = [_op_text(op) for op in ops if op.status == "planned"]
    if any(op.op == "memory.delete" and op.status == "planned" for op in ops):
        return  # a turn that forgets is no correction ("ok actually can u forget my snap"): nothing is restated
    for sentence_text in re.split(r"(?<=[.!?])\s+", TITLE_DOT.sub(r"\1", turn_text)):
        if not CORRECTION.search(sentence_text):
            continue
        if _category_correction(memory, ops, scope, sentence_text, turn_text, said):
            continue
        mine = read_slot(sentence_text)
        if not mine.values or any(_covers(text, sentence_text) for text in said):
            continue
        matches = []
        for record in _holding(memory, scope, ["t:" + w for w in sorted(mine.frame)], False):
            theirs = read_slot(record.content)
            types = [t for t in mine.values if len(mine.values[t]) == 1 and len(theirs.values.get(t, ())) == 1]
            shared = mine.frame & theirs.frame
            if types and shared and 2 * len(shared) >= min(len(mine.frame), len(theirs.frame)):
                matches.append((record, types[0]))
        if len(matches) != 1:
            continue  # none, or not sure which: nothing is guessed
        record, kind = matches[0]
        old = next(iter(read_slot(record.content).values[kind]))
        new = next(iter(mine.values[kind]))
        found = re.search(re.escape(old), record.content, re.IGNORECASE)
        if found is None or old == new or record.kind not in _OP_OF:
            continue
        shown = _original(sentence_text, new)
        text = record.content[: found.start()] + shown + record.content[found.end() :]
        ops.append(
            MemoryOp(
                f"{_OP_OF[record.kind]}.add",
                fields={"text": text, "supersedes": [record.id]},
                reason="a correction: the same slot with another value",
                importance=record.metadata.get("importance")
                if isinstance(record.metadata.get("importance"), float)
                else 0.6,
                confidence=0.7,
            )
        )


def _category_correction(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, sentence: str, turn_text: str, said: list[str]
) -> bool:
    """ "Actually it's a Pixel 8 I use": the one memory naming another value of the category gets the new value
    (the whole value: not "iPhone 8" from "iPhone 12" and a number)."""
    # the clause that makes the correction: "Actually it's a Pixel 8 I use, I gave the iPhone to my son"
    clause = next((c for c in re.split(r",\s*|;\s*|\s+-+\s+", sentence) if CORRECTION.search(c)), sentence)
    if any(_covers(text, clause) for text in said):
        return False
    found = [r for r in same_category(memory, scope, clause, clause, turn_text) if r.sure and r.old and r.new]
    if len(found) != 1:
        return False
    replaced = found[0]
    record, old, new = replaced.record, replaced.old or "", replaced.new or ""
    if record.kind == Profile.kind and isinstance(record.metadata.get("slot"), str):
        ops.append(
            MemoryOp(
                "profile.set",
                fields={"key": record.metadata["slot"], "value": new},
                reason="a correction: the same slot with another value",
                confidence=0.7,
            )
        )
        return True
    if record.kind not in _OP_OF:
        return False
    text = _swap(record.content, old, new)
    importance = record.metadata.get("importance")
    ops.append(
        MemoryOp(
            f"{_OP_OF[record.kind]}.add",
            fields={"text": text, "supersedes": [record.id]},
            reason="a correction: the same slot with another value",
            importance=importance if isinstance(importance, float) else 0.6,
            confidence=0.7,
        )
    )
    return True


def _swap(content: str, old: str, new: str) -> str:
    """``content`` with ``old`` replaced by ``new``, its article agreeing ("an iPhone" -> "a Pixel")."""
    found = re.search(rf"(?:\b(an?)\s+)?{re.escape(old)}", content, re.IGNORECASE)
    if found is None:
        return content
    article = ""
    if found.group(1):
        article = ("an " if new[:1].lower() in "aeiou" else "a ") if found.group(1).islower() else "A "
    return content[: found.start()] + article + new + content[found.end() :]


def _original(text: str, value: str) -> str:
    """``value`` as ``text`` spells it (the slot reading lowers case)."""
    found = re.search(re.escape(value), text, re.IGNORECASE)
    return found.group(0) if found else value


def _keep_forgotten_slots(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope) -> None:
    """A profile slot the turn forgets gets no new value from the same words ("About my address: delete." set the
    address to "delete")."""
    deleting = {op.target for op in ops if op.op == "memory.delete" and op.status == "planned" and op.target}
    for op in ops if deleting else []:
        key = op.fields.get("key")
        if op.op != "profile.set" or op.status != "planned" or not isinstance(key, str):
            continue
        held = memory.profile.record(key, user_id=scope.user_id, agent_id=scope.agent_id)
        if held is not None and held.id in deleting:
            op.status, op.error = SKIPPED, "the turn forgets this slot"


def _covers(stored: str, said: str) -> bool:
    words = set(text_terms(said))
    return bool(words) and 2 * len(words & set(text_terms(stored))) >= len(words)


def resolve(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str, session_id: str | None = None
) -> None:
    """Before the ops apply: find what each ``add`` replaces and say so in its fields (a dry run shows it too).

    ``fields["supersedes"]`` (sure) and ``fields["conflicts_with"]`` (unsure) list the old ids; an op whose
    old memory is a decision becomes ``decision.supersede``; an event that replaces a memory of another kind
    is stored as that kind.
    """
    corrections(memory, ops, scope, turn_text)
    profile_changes(memory, ops, scope, turn_text)
    _keep_forgotten_slots(memory, ops, scope)
    working_changes(memory, ops, scope, session_id, turn_text)
    task_moves(memory, ops, scope, session_id, turn_text)
    ended_activities(memory, ops, scope, session_id, turn_text)  # "Methadone's done. Doing the trays now"
    _goal_date_moved(memory, ops, scope, turn_text)
    for op in ops:
        if op.status == "planned" and op.action == "add" and op.kind in ADDING:
            about = categories_about(_op_text(op))
            if about:
                op.fields["about"] = about

    def holding(terms: list[str]) -> list[Record]:
        return _holding(memory, scope, terms, every=True)

    def words(text: str) -> list[str]:
        return [t for t in text_terms(text) if t.startswith("t:")]

    # one item of a plan or list changed: rewritten in place, the memory is not superseded whole
    def users_own(text: str) -> bool:
        return bool(_USERS_OWN.search(text)) and not _SOMEONE_ELSES.search(text)

    def any_of(terms: list[str]) -> list[Record]:
        return _holding(memory, scope, terms, every=False)

    # "billing jumps the queue": the plan's steps reordered (its steps' words said with a place, not a new value)
    moved = reordered(holding, words, turn_text)
    found_rewrites = relation_rewrites(any_of, users_own, turn_text) + item_rewrites(holding, words, turn_text)
    found_rewrites = moved + [r for r in found_rewrites if r[0].id not in {m[0].id for m in moved}]
    claimed = attach_rewrites(ops, found_rewrites)
    # "Oksana is QA manager now and Dmytro is become my team lead": the role's holder, whoever else the turn names
    claimed |= new_holders(any_of, ops, turn_text, _op_text)
    claimed |= narrowed(any_of, ops, turn_text, words)  # "crab is fine for me" after "allergy to shrimp and crab"
    # the op naming the old value claims it first; else one saying the new commitment ("Crete's off. My brother moved
    # his wedding into August, so we've rebooked for Lisbon": the Lisbon op, not the brother's wedding)
    for op in sorted(ops, key=lambda op: (not _names_old(op, turn_text), not _new_commitment(op, turn_text))):
        if op.status != "planned" or op.action != "add" or op.kind not in ADDING:
            continue
        text = _op_text(op)
        if not text.strip() or op.fields.get("supersedes"):
            continue
        stored = _stored(op)
        found = same_slot(memory, scope, text, turn_text, stored == Goals.kind, stored == Procedures.kind, session_id)
        if not found and stored == Goals.kind:  # "my objective is now to walk the 10 km": the one open goal
            aim = replaced_aim([r for r in held_kinds(memory, scope, _GOALS) if current(r)], turn_text)
            found = [Replaced(aim[0], aim[1])] if aim else []
        if not found:  # "Reached lesson 20 of the Spanish course!" after "User is at lesson 12"
            along = further_along(memory, scope, lambda t: _holding(memory, scope, t, False), text, turn_text)
            found = [Replaced(r, True) for r in along]
        if not found:  # "Fundraiser total is £3,450" after "The school fundraiser has raised £1,200 so far"
            tally = running_tally(lambda t: _holding(memory, scope, t, False), text, turn_text)
            found = [Replaced(r, False) for r in tally]
        # "switched to the Anytime Fitness, still Tues and Thurs": the days are said again as kept, not changed
        replaced = [r for r in found if r.record.id not in claimed and not only_kept(r.record.content, turn_text)]
        if not replaced:
            continue
        claimed.update(r.record.id for r in replaced)
        sure = [r for r in replaced if r.sure]
        decisions = [r.record for r in sure if r.record.kind == Decisions.kind]
        if decisions and _stored(op) != Decisions.kind:
            op.op, op.target = "decision.supersede", decisions[0].id
            op.fields = {"text": text}
            sure = [r for r in sure if r.record.id != decisions[0].id]
        elif decisions and _stored(op) == Decisions.kind:
            op.op, op.target = "decision.supersede", decisions[0].id
            sure = [r for r in sure if r.record.id != decisions[0].id]
        profiles = [r.record for r in sure if r.record.kind == Profile.kind]
        value = _slot_value(text, profiles[0]) if profiles and _stored(op) != Decisions.kind else None
        if value is not None:
            op.op, op.target = "profile.set", None
            op.fields = {"key": profiles[0].metadata.get("slot"), "value": value}
            continue
        # a goal whose progress clause holds the old value ("...; right now I manage 400 m") is rewritten there
        goals = [
            r
            for r in sure
            if r.record.kind == Goals.kind
            and _stored(op) != Goals.kind
            and not (r.new and r.old and _progress(r.record, r.old))
        ]
        if goals and (_move_goal(op, goals[0], text) or _renumber_goal(op, goals[0], text)):
            continue
        if goals:  # not a moved date: the goal is left to an op of the turn that names it
            claimed -= {r.record.id for r in goals}
            sure = [r for r in sure if r not in goals]
            replaced = [r for r in replaced if r not in goals]
            if not replaced:
                continue
        if _stored(op) == Episodes.kind and sure:
            kinds = [r.record.kind for r in sure if r.record.kind in _HELD_KINDS]
            if kinds:
                op.op = f"{_OP_OF[kinds[0]]}.add"
        rewrites = [r for r in sure if r.new and r.old and _compound(r.record.content, r.old)]
        if rewrites:
            op.fields.setdefault("rewrites", []).extend([r.record.id, r.old, r.new] for r in rewrites)
        widened = next((r.sentence for r in sure if r.sentence), None)
        if widened and "text" in op.fields:
            # the op alone does not name the slot: the sentence does, and the other ops of it give way
            op.fields["text"] = about_user(widened.strip())
            _give_way(ops, op, widened)
        changed = sorted({r.old for r in sure if r.old})
        if changed:
            op.fields["old_values"] = changed  # what a session summary may still say: dropped from it
        plain = [r.record.id for r in sure if r not in rewrites]
        if plain:
            op.fields["supersedes"] = plain
        unsure = [r.record.id for r in replaced if not r.sure]
        if unsure:
            op.fields["conflicts_with"] = unsure
        op.reason = (op.reason + "; " if op.reason else "") + "a newer value of the same slot"
    going_on = continuation(memory, ops, scope, turn_text, _OP_OF)
    changing = any(op.target or op.fields.get("supersedes") or op.fields.get("conflicts_with") for op in ops)
    if going_on is None and not changing:
        # "Seven new altos joined, which takes us to 39" after "We have 32 singers": 32 + 7 = 39 (a turn whose
        # ops already change a memory, "so now I have three cats" as fact.update, has said what it changes)
        going_on = counted_change(lambda terms: _holding(memory, scope, terms, False), turn_text, _COUNT_OPS)
        if going_on is None:  # "Three went over the weekend." then "so five left": the change said a turn before
            going_on = _counted_across(memory, scope, turn_text, session_id)
        if going_on is None:  # "The last vial went this morning, none left" after "We still have 4 vials ..."
            _count_emptied(memory, ops, scope, turn_text)
    if going_on is not None:
        carry_rewrites(ops, going_on)  # "... so we're at fifteen, and the showcase got pushed to 16 March"
        ops.append(going_on)  # "so two now" after "We own three bikes": "We own two bikes"
    unrouted(memory, ops, scope, turn_text)
    if returns(memory, ops, scope, turn_text):  # "I'd rather you went back to Margaret": the replacing value goes
        return
    if standing_requests(memory, ops, scope, turn_text):  # "so dnf everywhere please": a standing rule changed
        return
    # a change said only through the new state ("it's a swim after my shift these days"): its nearest memory
    marked = nearest_changes(memory, ops, scope, turn_text, _op_text)
    if marked is not None and "text" in marked.fields:  # the whole sentence, the turn's other ops of it give way
        whole = with_its_value(_sentence_of(_op_text(marked), turn_text), turn_text)
        if len(whole) > len(_op_text(marked)):
            marked.fields["text"] = about_user(whole.strip())
            _give_way(ops, marked, whole)
    _what_follows_the_reason(ops, turn_text)
    _one_step_of_a_plan(memory, ops, scope, turn_text)


_QUESTION = re.compile(r"\?\s*$")


def _counted_across(memory: MemoryLayer, scope: Scope, turn_text: str, session_id: str | None) -> MemoryOp | None:
    """A count's change said in the user's turn before this one and its total in this one, as the arithmetic of
    :func:`.slot_counts.counted_change` reads it in one turn: "Three went over the weekend." then "so five left" after
    "Got 8 barrels of the Doom Bar in the cellar" (8 - 3 = 5). Only a turn saying one count, not a question."""
    if _QUESTION.search(turn_text) or len(counts(turn_text)) != 1:
        return None
    before = earlier_turns(memory, scope, session_id)[:1]
    if not before or not counts(before[0]) or _QUESTION.search(before[0]):
        return None
    joined = f"{before[0].strip().rstrip('.!')}. {turn_text.strip()}"
    return counted_change(lambda terms: _holding(memory, scope, terms, False), joined, _COUNT_OPS)


def _count_emptied(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """A count come to nothing (:func:`.slot_counts.emptied`): the op of the sentence that says so supersedes the old
    count (the op holding most of that sentence's words; one of the count's kind when the router kept none)."""
    if _QUESTION.search(turn_text):
        return
    found = emptied(lambda terms: _holding(memory, scope, terms, False), turn_text)
    if found is None:
        return
    record, sentence = found
    said = set(text_terms(sentence))
    adds = [op for op in ops if op.status == "planned" and op.action == "add" and op.kind in ADDING]
    scored = sorted(((len(said & set(text_terms(_op_text(op)))), i) for i, op in enumerate(adds)), reverse=True)
    if scored and scored[0][0] * 2 >= len(said):
        op = adds[scored[0][1]]
    elif record.kind in _COUNT_OPS:
        op = MemoryOp(f"{_COUNT_OPS[record.kind]}.add", fields={"text": about_user(sentence.strip())}, importance=0.6)
        ops.append(op)
    else:
        return
    op.fields["supersedes"] = [*op.fields.get("supersedes", []), record.id]
    op.reason = (op.reason + "; " if op.reason else "") + "a count come to nothing"


def unrouted(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """A change the router kept nothing of ("We replaced Tunnelblick with WireGuard, you just toggle the office
    tunnel"): when the turn names exactly one current memory it changes (surely: it names the old value or has a
    change cue), the turn is stored as that memory's kind; the old one is rewritten in place when the turn names
    both values (a how-to keeps its other steps), else superseded."""
    if any(op.status == "planned" for op in ops) or _QUESTION.search(turn_text):
        return
    if not (CUE.search(turn_text) or HOWTO_CHANGE.search(turn_text) or old_values(turn_text) or called_off(turn_text)):
        return
    found = [r for r in same_slot(memory, scope, turn_text, turn_text) if r.sure and r.record.kind in _OP_OF]
    if len(found) != 1:
        return  # none, or not sure which: nothing is guessed
    replaced = found[0]
    kind = _OP_OF[Knowledge.kind] if replaced.record.kind == Procedures.kind else _OP_OF[replaced.record.kind]
    fields: dict[str, Any] = {"text": about_user(turn_text.strip())}
    if howto_title(replaced.record) is not None and ADDED_STEP.search(turn_text):
        # a step added ("Correction on the printer jam fix: you also need to press the feed button twice"): the
        # how-to keeps its steps and takes the new one
        added = turn_text.split(":", 1)[-1].strip()
        fields["text"] = f"{replaced.record.content.rstrip()} {added[:1].upper()}{added[1:]}"
    if replaced.old and replaced.new and _compound(replaced.record.content, replaced.old):
        fields["rewrites"] = [[replaced.record.id, replaced.old, replaced.new]]
    else:
        fields["supersedes"] = [replaced.record.id]
    if replaced.old:
        fields["old_values"] = [replaced.old]
    ops.append(
        MemoryOp(
            f"{kind}.add",
            fields=fields,
            reason="a change of a memory the router kept nothing of",
            importance=0.6,
            confidence=0.7,
        )
    )


def _compound(content: str, old: str) -> bool:
    """Does ``content`` hold other clauses beside the one naming ``old``?"""
    parts = [p for p in re.split(r",\s*|;\s*|\s+and\s+|\s+but\s+", content) if p.strip()]
    return len(parts) > 1 and any(old.lower() not in p.lower() and read_slot(p).values for p in parts)


def _slot_value(text: str, profile: Record) -> str | None:
    """The new value ``text`` gives a profile slot: "my new manager is Tomasz Nowak" -> "Tomasz Nowak"."""
    slot = profile.metadata.get("slot")
    if not isinstance(slot, str) or not slot:
        return None
    words = r"\s+".join(re.escape(w) for w in slot.split("_"))
    found = re.search(rf"\b{words}\s+(?:is|are|will be|=)\s+(?:now\s+)?([^,.;!?]+)", text, re.IGNORECASE)
    if found is None:
        return None
    value = found.group(1).strip()
    return value if 0 < len(value) <= 80 else None
