"""A change said only through the new state: a marked conflict with the nearest older memory of the user.

"Since I went onto the night rota it's a swim straight after my shift" changes "I run 5k every morning before
work", yet shares no word with it nor with the question ("What exercise do I do?"): no slot rule of
:mod:`.slots` pairs them, the new memory is never found and the old one is shown as current. When a statement
of the user's carries a change cue (:data:`CHANGE`: "now", "these days", "since ...", "from this spring", "in
the end", "instead", "went with", "took over", "switched" ...) and no additive one (:data:`.slot_additions.ADDITIVE`: "also",
"too", "another", "as well", "second", "both"), and no rule paired anything of the turn, its nearest older
memory is chosen by rank:

- the *pool* is the user's current memories of the kinds that hold a value (:data:`.slot_marks.VALUE_KINDS`),
  stated by the user (a kind the user owns, a text in the first person or about "User", or one the router kept of
  the user's turn with no subject of its own), not a goal (an
  event is progress on a goal, not its new value) and not one joining two statements (a conflict would take
  both out of the context);
- each is scored by the cosine of its vector with the new statement's, from the layer's embedder when it is
  a semantic one (all-MiniLM-L6-v2, the default where the ``semantic`` extra is installed); the lexical
  embedder has no vector that relates words the two statements do not share, and with it nothing is chosen;
- the best is chosen when its cosine reaches :data:`FLOOR` and leads the second best by :data:`MARGIN`.

The choice is never sure: the two are put in a marked conflict (``conflicts_with`` / ``conflicted_by``, as
:mod:`.slot_marks` does for an unsure slot), so the context shows the new one with "(was: ...)" where the old
one was found, and the old one stays in the store. Of several memories the turn keeps, the one whose own words
carry the cue is marked (widened to its sentence by :func:`.slots.resolve`); when the router kept nothing, the turn
is stored as the kind of the memory it changes, unless its cued sentence is a reaction ("now I get it").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from kioko_core.embedding.embedders import embed_many, relates_unshared_words
from kioko_core.kinds import Goals, Instructions, Procedures, Profile, Strategies
from kioko_core.kinds.registry import KINDS
from kioko_core.recall.sections import CLAUSES
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.asides import is_aside
from kioko_intelligence.holders import held_records
from kioko_intelligence.language import about_user, is_request
from kioko_intelligence.moments import is_passing_state
from kioko_intelligence.ops import SKIPPED, MemoryOp
from kioko_intelligence.reactions import is_interruption, is_pause, is_reaction
from kioko_intelligence.slot_additions import ADDITIVE, added, two_named_kinds
from kioko_intelligence.slot_marks import VALUE_KINDS, current
from kioko_intelligence.slot_reading import TITLE_DOT, text_terms
from kioko_intelligence.slot_subjects import different_subjects, someone_elses

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

CHANGE = re.compile(
    r"\b(?:(?<!right\s)(?<!just\s)now|nowadays|these days|any ?more|no longer|instead|in the end|from here on|from now on|"
    r"lately|"
    r"since (?:I|I'?ve|we|we'?ve|my|our|the|last|this|[a-z]+ (?:started|went|moved|joined|got)|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|spring|summer|autumn|winter|christmas|easter)|"
    r"from (?:this|next|the start of|the new) \w+|as of \w+|"
    r"switch(?:ed|ing)?|swapp?(?:ed|ing)?|shifted|converted|reassigned|moved|moving|changed|changing|replaced|ditched|gave up|given up|"
    r"took over|taken over|went with|gone with|going with|settled on|went for|gone for|ended up|"
    r"(?:not|no) (?:more|longer)|used to|"
    r"(?:shrunk|shrank|shrinks|grown|grew|grows|dropped|drops|fallen|fell|falls|risen|rose|rises|climbed|jumped|"
    r"slipped|crept up|gone up|went up|goes up|gone down|went down|goes down|cut|raised|bumped up|pushed up) to)\b",
    re.IGNORECASE,
)
"""Words that say a statement is a change of something the user had (a lexicon of cues, not of phrasings)."""
START = re.compile(
    r"\b(?:start(?:ed|ing)|join(?:ed|ing)|migrat(?:ed|ing)|port(?:ed|ing)|henceforth|going forward|"
    r"first (?:day|week|month|shift|term) (?:at|with|in|on|of)|"
    r"(?:got|bought|picked up) (?:a|an) (?:new|used|second-hand|secondhand))\b",
    re.IGNORECASE,
)
"""Words of a start: the user took up a new value ("Starting with Lincs & Notts Air Ambulance on Monday", "First week
at the hospital trust done", "went and got a used Prius", "porting my dotfiles to fish"), so the one it replaces
ended. A cue only in a clause of the user's own (:func:`_starts`): "The film started late" starts nothing of theirs."""
_OWN_START = re.compile(r"\W*(?:(?:I|we)(?:'\w+)?(?:\s+\w+){0,3}\s+)?", re.IGNORECASE)
"""What may come before a start in its clause: nothing, or "I" / "we" and up to three words ("I went and got",
"we've just started"); a subject of its own ("The film started", "Work started", "our new manager started") is
someone else's start."""
_CLAUSE_BREAK = re.compile(r"[,;:.!?]\s+|\s+(?:and|but|so|while|because)\s+", re.IGNORECASE)
_ABOUT_USER = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Ww]e|[Ww]e're|[Ww]e've|[Oo]ur|[Uu]s|User|User's)\b")
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our|User's)\s+(?:\w+\s+)?(?:wife|husband|partner|son|daughter|kids?|children|mum|mom|dad|father|mother|"
    r"brother|sister|friend|colleague|boss|neighbou?r|cat|dog|parents?)(?:'s)?\b|^\W*(?:he|she|they|his|her|their)\b",
    re.IGNORECASE,
)
"""A statement about someone else's things ("my sister's cat sleeps on the radiator these days"): not a new value of
the user's own."""
_STATED = frozenset(info.name for info in KINDS if info.users_own)
_QUESTION = re.compile(r"\?\s*$")

FLOOR = 0.15
"""The least cosine the chosen memory has with the new statement (all-MiniLM-L6-v2: a change said in other
words scores 0.17-0.36 with what it changes)."""
MARGIN = 0.1
"""How far the chosen memory leads the second best: two close candidates name no one slot."""
NEIGHBOURS = 50
"""How many of the store's nearest memories (of the kinds that hold a value) the pool is read from."""


def _semantic(memory: MemoryLayer) -> Any | None:
    """The layer's embedder when it relates two statements that share no word (not the lexical one), else None."""
    embedder = getattr(memory, "embedder", None)
    return embedder if relates_unshared_words(embedder) else None


def _starts(text: str) -> bool:
    """Does a clause of ``text`` say the user started something (:data:`START`), with nothing before it but the
    user (:data:`_OWN_START`: "Started sixth form at Hillcrest", "I went and got a used Prius"), not someone else or a
    thing ("The new manager started on Monday", "my son started at Riverside")?"""
    for clause in _CLAUSE_BREAK.split(text):
        found = START.search(clause)
        if found and _OWN_START.fullmatch(clause[: found.start()]):
            return True
    return False


def has_cue(text: str) -> bool:
    """A change word (:data:`CHANGE`) or a start of the user's own (:func:`_starts`)."""
    return bool(CHANGE.search(text)) or _starts(text)


def _statement(turn_text: str) -> bool:
    """Does a sentence of the turn that carries the change cue say something (not a reaction, a pause, an
    interruption, an aside, a passing state of the moment, nor a follow-up order whose only cue is the "now" it opens
    with)?"""
    sentences = [t for t in re.split(r"(?<=[.!?])\s+", turn_text.strip()) if has_cue(t)]
    return any(
        not (
            is_reaction(t)
            or is_pause(t)
            or is_interruption(t)
            or is_aside(t)
            or is_passing_state(t)
            or _follow_up_order(t)
        )
        for t in sentences
    )


_NOW_OPENING = re.compile(r"^(?:(?:ok(?:ay)?|right|alright|so)[,\s]+)*now[,\s]+", re.IGNORECASE)


def _follow_up_order(sentence: str) -> bool:
    """An order to the assistant opened by "now", the next step of the talk ("Now make it rhyme.", "OK now translate
    it"): its "now" is a word of sequence, not a change; a cue after it ("Now make it oat milk instead") still is."""
    opened = _NOW_OPENING.match(sentence.strip())
    return bool(opened and is_request(sentence) and not has_cue(sentence.strip()[opened.end() :]))


def _cued_sentences(turn_text: str) -> str:
    """The sentences of the turn that carry the change cue: what the cue dates ("A young couple have her now. I
    potter about in a dinghy named Puffin": the dinghy is not what is dated)."""
    return " ".join(t for t in re.split(r"(?<=[.!?])\s+", turn_text.strip()) if CHANGE.search(t))


def cued(text: str) -> bool:
    """A statement of a change with no word of addition, not a question."""
    return has_cue(text) and not ADDITIVE.search(text) and not _QUESTION.search(text)


_THIRD = re.compile(r"^\W*(?:the|a|an|this|that|these|those|he|she|they|it|his|her|their|its|there)\b", re.IGNORECASE)


def _said_bare(record: Record) -> bool:
    """A statement the router kept of the user's own turn with no subject of its own ("Talk radio all the way up the
    M6", "Aboard RV Celtic Explorer till end of month"): the user's, as a first-person one is."""
    return bool(record.metadata.get("managed_by")) and not _THIRD.search(record.content)


def _in_pool(record: Record | None) -> bool:
    if record is None or not current(record) or record.kind == Goals.kind or CLAUSES.search(record.content):
        return False  # a memory joining two statements ("I live in Austin and work at Dell") is one the slot rules
        # split; a conflict would take both out of the context
    return record.kind in _STATED or bool(_ABOUT_USER.search(record.content)) or _said_bare(record)


def nearest(memory: MemoryLayer, scope: Scope, text: str) -> Record | None:
    """The one older memory of the user ``text`` most likely gives a new value of, or None (see the module): the
    store's nearest :data:`NEIGHBOURS` of the kinds that hold a value (one vector search, whatever the user's
    number of memories), those of the pool ranked by cosine."""
    embedder = _semantic(memory)
    if embedder is None:
        return None
    vector = np.asarray(embedder.embed(text), dtype=np.float32)
    found = memory.store.knn(scope, vector, NEIGHBOURS, Filter(kinds=VALUE_KINDS))
    records = held_records(memory, scope, [n.id for n in found])
    ranked = [(n.score, r) for n, r in zip(found, records) if r is not None and _in_pool(r)]
    if not ranked:
        return None
    ranked.sort(key=lambda pair: -pair[0])
    best = ranked[0][0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    if best < FLOOR or best - second < MARGIN:
        return None
    return ranked[0][1]


def nearest_changes(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str, text_of: Any
) -> MemoryOp | None:
    """After the slot rules: when none paired anything of the turn, a change-cued statement of the user's is put
    in a marked conflict with its nearest older memory (``fields["conflicts_with"]``). Of several memories the
    turn keeps, the one whose own words carry the cue; when the router kept nothing, the turn is stored as the
    kind of the memory it changes. Returns the op marked when the turn kept other statements beside it (the caller
    widens it to its whole sentence: "I have shifted to those now" says nothing without "Brooks Ghost")."""
    if any(op.target or any(op.fields.get(k) for k in ("supersedes", "conflicts_with", "rewrites")) for op in ops):
        return None
    if any(op.status == "planned" and op.action == "delete" for op in ops):
        return None  # a forget said it all
    if any(op.status == "planned" and op.kind == Profile.kind for op in ops):
        # a slot the turn sets by its key ("we moved to Bristol": the location) said its clause; another clause of
        # the turn may change something else ("... and now I teach chemistry at a cégep")
        _beside_a_profile_slot(memory, ops, scope, turn_text, text_of)
        return None
    if not cued(turn_text):
        return None
    planned = [op for op in ops if op.status == "planned"]
    adds = [op for op in planned if op.action == "add" and op.kind in VALUE_KIND_OPS]
    if planned and not adds:
        return None
    chosen = [op for op in adds if has_cue(text_of(op)) or _cue_cut(text_of(op), turn_text)]
    dropped = None if chosen or not planned else dropped_change(turn_text, [text_of(op) for op in planned])
    if dropped is not None and _SOMEONE_ELSES.search(dropped):
        dropped = None  # someone else's change
    found = None if dropped is None else nearest(memory, scope, dropped)
    if dropped is not None and found is not None:  # the router kept the turn's other clauses, not the changed one
        ops.append(
            MemoryOp(
                f"{_OP_OF.get(found.kind, 'fact')}.add",
                fields={"text": about_user(dropped), "conflicts_with": [found.id]},
                reason="a change of the nearest older memory, said in a clause the router kept nothing of",
                importance=0.6,
                confidence=0.6,
            )
        )
        return None
    if len(chosen) != 1 and len(adds) != 1 and planned:
        return None  # several statements and not one of them the change: not sure which
    op = chosen[0] if len(chosen) == 1 else adds[0] if adds else None
    if op is None and not _statement(turn_text):
        return None  # "Right, gotcha, now I get it.": a reaction, which the router rightly kept nothing of
    # whose change it is is read in the statement that says it: "my partner was livid" elsewhere in a long turn
    # does not make "we're on Community Fibre now" someone else's
    said = text_of(op) if op is not None and len(adds) > 1 else turn_text
    if _SOMEONE_ELSES.search(said):
        return None  # someone else's change ("my sister switched to oat milk")
    found = nearest(memory, scope, turn_text)
    if found is None or added(turn_text, found.content) or two_named_kinds(_cued_sentences(turn_text), found.content):
        return None  # "I go to a bridge club on Fridays now" beside "I go to Mass on Sundays"; a cat beside a dog
    if different_subjects(turn_text, found.content) or someone_elses(said, found.content):
        return None  # "The little one, Zofia, started at Rainbow nursery" beside "Our eldest, Tomasz, goes to ..."
    if op is None:  # the router kept nothing of the turn ("Now we've changed, it's Oland instead")
        ops.append(
            MemoryOp(
                f"{_OP_OF.get(found.kind, 'fact')}.add",
                fields={"text": about_user(turn_text.strip())},
                reason="a change of the nearest older memory the router kept nothing of",
                importance=0.6,
                confidence=0.6,
            )
        )
        op = ops[-1]
    op.fields["conflicts_with"] = [found.id]
    op.reason = (op.reason + "; " if op.reason else "") + "a change of the nearest older memory"
    return op if len(adds) > 1 else None


_CUE_WORD = re.compile(rf"{CHANGE.pattern}|{START.pattern}", re.IGNORECASE)
_CUT_WORDS = 3


def _cue_cut(kept: str, turn_text: str) -> bool:
    """Did the router keep ``kept`` out of a sentence of the turn whose only other words are a change cue it cut
    ("Golf's back with the customer. Now the Transit, rear brakes seized solid." keeps "The Transit, rear brakes
    seized solid.")? That memory is the one the cue dates, as when the cue stays in its words."""
    said = kept.strip().rstrip(".!").strip().lower()
    if not said:
        return False
    for sentence in _SENTENCE_END.split(turn_text.strip()):
        at = sentence.lower().find(said)
        if at < 0:
            continue
        rest = (sentence[:at] + " " + sentence[at + len(said) :]).strip(" ,.!;:")
        if rest and len(rest.split()) <= _CUT_WORDS and has_cue(rest) and not ADDITIVE.search(rest):
            return True
    return False


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


_JOINED = re.compile(r";\s+|,\s+(?:and|but|so|while|though|although|whereas)\s+|\s+(?:but|while|whereas)\s+", re.I)
"""Where a sentence joins two statements (a comma alone does not: "These days, I drink cocoa")."""


def _words(text: str) -> set[str]:
    return {t for t in text_terms(_CUE_WORD.sub(" ", text)) if t.startswith("t:")}


def dropped_change(turn_text: str, kept: list[str]) -> str | None:
    """The one clause of the turn that says a change (a cue, no additive word, not a question, a reaction, a pause
    or an interruption) with a value of its own (two words of the index besides the cue's) when none of the texts
    the router ``kept`` of the turn holds half its words: "Doctor had a word about the old ticker. It's a mug of
    cocoa at eight bells for me these days, and I don't mind as much as I thought" kept the first sentence and
    "User doesn't mind as much as they thought", not the cocoa. None when no such clause or two."""
    held = [_words(text) for text in kept]
    found = []
    for sentence in _SENTENCE_END.split(TITLE_DOT.sub(r"\1", turn_text.strip())):
        for clause in _JOINED.split(sentence):
            clause = clause.strip()
            words = _words(clause)
            if len(words) < 2 or not cued(clause) or is_reaction(clause) or is_pause(clause):
                continue
            if is_interruption(clause) or is_aside(clause) or _SOMEONE_ELSES.search(clause):
                continue
            if not any(len(words & mine) * 2 >= len(words) for mine in held):
                found.append(clause)
    return found[0] if len(found) == 1 else None


def with_its_value(sentence: str, turn_text: str) -> str:
    """The change ``sentence`` of the turn, with the next sentence when it says no value of its own: "The wife's
    converted me. Oat flat white, every morning" is one change, whose value ("oat flat white") is the second sentence;
    the first alone, marked, would hide the old value behind a note that names no new one. No value: at most one
    word of the index's left when the cue words are taken out ("wife"; "I've switched."). The next sentence must be
    a statement (not a question) of the same turn; else ``sentence`` as it is."""
    if len([t for t in text_terms(_CUE_WORD.sub(" ", sentence)) if t.startswith("t:")]) > 1:
        return sentence
    said = [part for part in _SENTENCE_END.split(TITLE_DOT.sub(r"\1", turn_text)) if part.strip()]
    at = next((i for i, part in enumerate(said) if part.strip() == sentence.strip()), None)
    if at is None or at + 1 >= len(said) or _QUESTION.search(said[at + 1]):
        return sentence
    return f"{sentence.strip()} {said[at + 1].strip()}"


_BACK_TO = (
    r"\b(?:go|goes|going|went|gone|switch|switching|switched|change|changing|changed|revert|reverting|reverted|swap|swapping|swapped)\s+(?:it\s+|things\s+)?back\s+"
    r"to\b(?!\s+(?:the\s+|my\s+|your\s+)?(?:first|second|third|previous|last|earlier|top|start|beginning|original|"
    r"other|that|this|it|what|where|before|question|example|point|draft|version|step|list|page|paragraph|section)\b)"
)
RETURN = re.compile(_BACK_TO, re.IGNORECASE)
"""A return to an earlier way said to the assistant ("Please go back to Celsius for temperatures")."""
STANDING = re.compile(
    r"\b(?:always|never|everywhere|every time|any(?:thing|where|time| time)|whenever|henceforth|"
    r"from (?:now|here) on|going forward|in future|in the future)\b|" + _BACK_TO,
    re.IGNORECASE,
)
"""Words that make a request to the assistant a standing rule ("so dnf everywhere please", "initials only in
anything you draft"), not a task for now ("Please give me the command to restart nginx"); a return to an earlier
way ("Switch back to English for your replies", "I'd rather you went back to Margaret") is one too, not a step
back in the talk ("go back to the previous example", "switch back to that draft")."""
_TO_YOU = re.compile(r"\b(?:you(?!\s+(?:know|see|guess|never know)\b)|your|please)\b", re.IGNORECASE)
_ASKING = re.compile(r"^\W*(?:could|can|would|will|do|did|are|have)\s+you\b", re.IGNORECASE)
"""A request asked as a question, its mark left off ("Could you please check anything odd in this"): a task."""


def nearest_instruction(memory: MemoryLayer, scope: Scope, text: str) -> Record | None:
    """The one instruction in force that ``text`` most likely changes, by the cosine of their vectors (the floor and
    margin of :func:`nearest`, among the user's instructions only), or None."""
    embedder = _semantic(memory)
    if embedder is None:
        return None
    held = [r for r in memory.store.scan(scope, Filter(kinds=frozenset({Instructions.kind}))) if current(r)]
    if not held:
        return None
    vectors = embed_many(embedder, [text, *(r.content for r in held)])
    new = np.asarray(vectors[0], dtype=np.float32)
    ranked = sorted(
        ((float(np.dot(new, np.asarray(v, dtype=np.float32))), r) for v, r in zip(vectors[1:], held)),
        key=lambda pair: -pair[0],
    )
    best = ranked[0][0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    return ranked[0][1] if best >= FLOOR and best - second >= MARGIN else None


def standing_requests(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> bool:
    """A standing request to the assistant the router did not keep as an instruction ("Whole fleet got rebuilt on
    Rocky Linux over the summer, so dnf everywhere please" after "When you give me commands, assume Ubuntu and apt"):
    said to it ("you", "your", "please"), with a word of a standing rule (:data:`STANDING`), not a question, not
    additive, no instruction or profile slot among the turn's ops and nothing else paired: stored as an instruction in
    a marked conflict with the nearest instruction in force (:func:`nearest_instruction`); the turn's other adds of
    the same words give way. True when it did.

    When the turn's one add of another kind already marks an instruction ("Switch back to English for your replies,
    I've paused the language practice" kept as the event "User has paused the language practice", in conflict with
    "From now on please reply in Portuguese"), that add is the request: stored as an instruction of the whole turn,
    with its marks."""
    marking = [
        op for op in ops if op.target or any(op.fields.get(k) for k in ("supersedes", "conflicts_with", "rewrites"))
    ]
    if marking and _marks_an_instruction(memory, scope, marking) is None:
        return False
    if any(op.status == "planned" and op.kind in (Instructions.kind, Profile.kind) for op in ops):
        return _a_return(memory, ops, scope, turn_text)
    if any(op.status == "planned" and op.action == "delete" for op in ops):
        return False
    text = turn_text.strip()
    if not (_TO_YOU.search(text) and STANDING.search(text)) or _QUESTION.search(text) or _ASKING.search(text):
        return False
    if ADDITIVE.search(text):
        return False
    if is_reaction(text) or is_pause(text) or is_interruption(text) or is_aside(text):
        return False
    marked = _marks_an_instruction(memory, scope, marking) if marking else None
    if marked is not None:
        marked.op, marked.fields["text"] = "instruction.add", text
        marked.reason = (marked.reason + "; " if marked.reason else "") + "a standing request to the assistant"
        for op in ops:
            if op is not marked and op.status == "planned" and op.action == "add":
                op.status, op.error = SKIPPED, "part of an instruction the turn changes"
        return True
    found = nearest_instruction(memory, scope, text)
    if found is None:
        return False
    for op in ops:
        if op.status == "planned" and op.action == "add":
            op.status, op.error = SKIPPED, "part of an instruction the turn changes"
    if own_case(text, found.content):  # "Anything you draft for my clients has to be in English though"
        fields: dict[str, Any] = {"text": text}
        reason = "a standing request to the assistant, for a case of its own beside the nearest instruction"
    else:
        fields = {"text": text, "conflicts_with": [found.id]}
        reason = "a standing request to the assistant, a change of the nearest instruction"
    ops.append(MemoryOp("instruction.add", fields=fields, reason=reason, importance=0.7, confidence=0.6))
    return True


_FOR_CASE = re.compile(
    r"\b(?:for|to|with)\s+(?:my|our|the|all|any|your)\s+(?:\w+\s+)?(?P<case>[a-z][\w'-]*s)\b", re.IGNORECASE
)
"""What a request is for, said as a plural of the user's ("for my clients", "to the kids", "with all the juniors")."""


def own_case(text: str, older: str) -> bool:
    """Does the standing request ``text`` name a case of its own that the instruction in force ``older`` does not ("Chat
    with me in Spanish", then "Anything you draft for my clients has to be in English though"): then it is a rule for
    that case beside the older one, not its change, unless it says a change (:data:`CHANGE`: "now", "instead")."""
    if CHANGE.search(text):
        return False
    cases = {m.group("case").lower() for m in _FOR_CASE.finditer(text)}
    theirs = {w.lower() for w in re.findall(r"[\w'-]+", older)}
    return bool(cases) and not any(c in theirs or c[:-1] in theirs for c in cases)


def _a_return(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> bool:
    """The router's one instruction of the turn, unmarked, says a return to an earlier way ("Please go back to Celsius
    for temperatures, the Fahrenheit ones confuse my kids"): it is marked against the nearest instruction in force, as a
    standing request the router kept nothing of would be. True when it was."""
    planned = [op for op in ops if op.status == "planned" and op.kind in (Instructions.kind, Profile.kind)]
    if len(planned) != 1 or planned[0].kind != Instructions.kind or not RETURN.search(turn_text):
        return False
    op = planned[0]
    if op.target or any(op.fields.get(k) for k in ("supersedes", "conflicts_with", "rewrites")):
        return False
    found = nearest_instruction(memory, scope, turn_text)
    if found is None or own_case(turn_text, found.content):
        return False
    op.fields["conflicts_with"] = [found.id]
    op.reason = (
        op.reason + "; " if op.reason else ""
    ) + "a return to an earlier way, a change of the nearest instruction"
    return True


def _marks_an_instruction(memory: MemoryLayer, scope: Scope, marking: list[MemoryOp]) -> MemoryOp | None:
    """The one planned add of another kind than an instruction among ``marking`` that supersedes or conflicts with
    instructions only (no target, no rewrite), or None."""
    if len(marking) != 1:
        return None
    op = marking[0]
    if op.status != "planned" or op.action != "add" or op.target or op.fields.get("rewrites"):
        return None
    if op.kind in (Instructions.kind, Profile.kind, Goals.kind, Procedures.kind):
        return None
    ids = [i for key in ("supersedes", "conflicts_with") for i in op.fields.get(key) or []]
    records = held_records(memory, scope, ids)
    if not records or any(r is None or r.kind != Instructions.kind for r in records):
        return None
    return op


_OP_OF = {
    info.name: info.op
    for info in KINDS
    if info.op and "add" in info.actions and info.name not in (Goals.kind, Procedures.kind, Strategies.kind)
}
"""Stored kind -> the op a turn the router kept nothing of is stored as (steps and lessons have shapes of their own: a
fact instead)."""
VALUE_KIND_OPS = frozenset(info.op for info in KINDS if info.holds_value and info.op and info.name != Goals.kind)


_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def _clauses(turn_text: str) -> list[str]:
    """The turn's clauses: its sentences cut where they join two statements, and at a plain "and"."""
    return [
        part.strip()
        for sentence in _SENTENCE_END.split(TITLE_DOT.sub(r"\1", turn_text.strip()))
        for clause in _JOINED.split(sentence)
        for part in _AND.split(clause)
        if part.strip()
    ]


def _beside_a_profile_slot(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str, text_of: Any
) -> None:
    """A compound turn that sets a profile slot in one clause and changes something else in another: "Me, I moved
    to Montréal this summer and now I teach chemistry at a cégep" after "I live in Sherbrooke and I work at the
    hospital as a lab tech". The location is the profile's; "User teaches chemistry at a cégep" named nothing of
    "User works at the hospital as a lab tech" and both were shown. The one add of the turn that names no value the
    profile ops set, whose own clause carries a change cue (:func:`cued`), is marked against the nearest older
    memory of that clause (:func:`nearest`), as a turn of that clause alone would be."""
    set_values = [str(op.fields.get("value") or "") for op in ops if op.status == "planned" and op.kind == Profile.kind]
    set_values = [v.lower() for v in set_values if v.strip()]
    clauses = _clauses(turn_text)
    picked: list[tuple[MemoryOp, str]] = []
    for op in ops:
        if op.status != "planned" or op.action != "add" or op.kind not in VALUE_KIND_OPS:
            continue
        text = text_of(op)
        if any(value in text.lower() for value in set_values):
            continue  # the profile's own clause ("User moved to Montréal this summer")
        words = _words(text)
        clause = max(clauses, key=lambda c: len(words & _words(c)), default="")
        if not (words & _words(clause)) or any(value in clause.lower() for value in set_values):
            continue
        if cued(clause) and not _SOMEONE_ELSES.search(clause):
            picked.append((op, clause))
    if len(picked) != 1:
        return
    op, clause = picked[0]
    found = nearest(memory, scope, clause)
    if found is None or added(clause, found.content) or two_named_kinds(clause, found.content):
        return
    op.fields["conflicts_with"] = [found.id]
    op.reason = (op.reason + "; " if op.reason else "") + "a change of the nearest older memory, beside a profile slot"
