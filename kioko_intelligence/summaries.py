"""Rolling session summaries: every ``summarize_every`` turns of a session, the turns seen since the last fold
become part of the session's one summary memory (MemGPT's recursive summary, offline or with a model).

Kioko does not keep a conversation's raw turns as memories, so the turns waiting to be folded are kept in
a small log per session in the user's own bookkeeping scope ``(user, "@sessions")`` (never recalled,
removed with the user). Noting a turn is one versioned write of that log; the write that makes a fold due
is seen by one process only, and taking the waiting turns out of the log is itself one versioned write, so
no turn is folded twice.

The summary is one ``summary`` memory per session, keyed by the session (``metadata.session_summary``),
updated in place. Offline it is extractive: the most informative statements of the user (small talk,
questions and requests left out), at most :data:`MAX_POINTS`, the oldest giving way. With a model, the
model rewrites the summary with the new turns; a failing model falls back to the offline summary.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.errors import ConflictError
from kioko_core.kinds import deterministic_id
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.privacy.secrets import redact
from kioko_core.reading.analysis import analyze
from kioko_core.store import Delete, Record, Scope, Upsert
from kioko_intelligence.forget_requests import read_requests
from kioko_intelligence.language import about_user, gate_reason, importance, points_back, sentences
from kioko_intelligence.rules import plain

if TYPE_CHECKING:
    from kioko_core.layer.bookkeeping import Bookkeeping
    from kioko_core.layer.memory_layer import MemoryLayer

LOG_KIND = "session_log"
MAX_TURN_CHARS = 1000
"""What the log keeps of one turn: the start of the user's words and of the reply."""
MAX_WAITING = 100
"""At most this many turns wait in a log (a fold long overdue drops the oldest)."""
NEW_POINTS = 3
"""Statements one offline fold adds to the summary."""
MAX_POINTS = 12
MAX_POINT_CHARS = 240
RETRIES = 8

SUMMARY_PROMPT = """\
You keep a running summary of a conversation between a user and an assistant.
Rewrite the summary so that it also covers the new turns. Keep names, numbers, identifiers, decisions,
results and open problems; leave out small talk, requests to forget something, and what the "stored:" lines
already keep as memories (say only what they do not). At most 120 words, plain prose, no preamble; answer
nothing at all when nothing is left to say.

Summary so far:
{summary}

New turns:
{turns}

Updated summary:"""


def note_turn(memory: MemoryLayer, scope: Scope, session_id: str, messages: list[dict[str, str]], every: int) -> bool:
    """Add the turn to the session's log; True when this turn makes a fold due (:func:`take_waiting` then)."""
    return bool(_change_log(memory, scope, session_id, _noting(messages, every)))


def turn_op(
    memory: MemoryLayer, scope: Scope, session_id: str, messages: list[dict[str, str]], every: int
) -> tuple[Upsert, bool]:
    """:func:`note_turn` not written yet: the log's versioned write, and whether it makes a fold due. The caller
    writes it in a batch of its own (the maintenance counters' write after a turn), read again on a conflict."""
    op, due = _log_op(memory, scope, session_id, _noting(messages, every))
    return op, bool(due)


def _noting(messages: list[dict[str, str]], every: int) -> Callable[[dict[str, Any]], tuple[dict[str, Any], bool]]:
    text = turn_text(messages)

    def change(state: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        state["turns"] += 1
        if text:
            state["waiting"] = (state["waiting"] + [text])[-MAX_WAITING:]
        if every and state["turns"] - state["folded_at"] >= every:
            state["folded_at"] = state["turns"]
            return state, True
        return state, False

    return change


def take_waiting(memory: MemoryLayer, scope: Scope, session_id: str) -> list[str]:
    """Take every turn waiting in the session's log (end of session): they are folded now."""

    def change(state: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        folded, state["waiting"] = state["waiting"], []
        return state, folded

    where = Scope(scope.user_id, SESSIONS_AGENT)
    if memory.store.get(where, [_log_id(scope, session_id)])[0] is None:
        return []
    taken: list[str] = _change_log(memory, scope, session_id, change)
    return taken


def summarize(
    memory: MemoryLayer, scope: Scope, session_id: str, ask: Callable[[str], str] | None = None
) -> Record | None:
    """Fold the session's waiting turns into its summary now; the summary (None when there is nothing to say)."""
    waiting = take_waiting(memory, scope, session_id)
    if not waiting:
        return memory.store.get(scope, [summary_id(scope, session_id)])[0]
    return fold(memory, scope, session_id, waiting, ask)


def waiting_sessions(memory: MemoryLayer, scope: Scope) -> list[str]:
    """The scope's sessions with turns waiting to be folded, oldest log first."""
    logs = [
        r
        for r in memory.store.scan(Scope(scope.user_id, SESSIONS_AGENT))
        if r.kind == LOG_KIND and r.metadata.get("agent_id") == scope.agent_id and r.metadata.get("waiting")
    ]
    return [str(r.metadata.get("session_id")) for r in sorted(logs, key=lambda r: (r.created_at, r.id))]


def session_log(memory: MemoryLayer, scope: Scope, session_id: str) -> dict[str, Any]:
    """The session's log: ``turns`` counted, ``folded_at`` (the turn of the last fold), ``waiting`` turns."""
    return _log_state(memory.store.get(Scope(scope.user_id, SESSIONS_AGENT), [_log_id(scope, session_id)])[0])


def forget_logs(store: Bookkeeping, scope: Scope) -> None:
    """Delete the session logs of an agent scope (the user's own scope goes with ``(user, "@sessions")``)."""
    where = Scope(scope.user_id, SESSIONS_AGENT)
    ids = [r.id for r in store.scan(where) if r.kind == LOG_KIND and r.metadata.get("agent_id") == scope.agent_id]
    if ids:
        store.update_many([Delete(id=i, scope=where) for i in ids])


def forget_memory(memory: MemoryLayer, scope: Scope, deleted: Record) -> tuple[Record | None, bool]:
    """Rewrite the session summary and log of a deleted memory's session without it (``delete``).

    A point of the summary and a turn waiting in the log *carry* the memory when they share half of its
    salient words, or any word no other memory of the scope holds (a name or an identifier only it had).
    Those are dropped: the summary is rewritten from its remaining points (a model's prose is replaced by
    them), and the turns leave the log. Returns the summary when it is left with no point at all (for the
    caller to delete, else None), and whether the session has managed turns (a log).
    """
    session_id = deleted.session_id
    if not session_id or deleted.id == summary_id(scope, session_id):
        return None, False  # a summary deleted by hand takes nothing else with it: its turns left the log when folded
    memory_id = summary_id(scope, session_id)
    log = memory.store.get(Scope(scope.user_id, SESSIONS_AGENT), [_log_id(scope, session_id)])[0]
    summary = memory.store.get(scope, [memory_id])[0]
    waiting = _log_state(log)["waiting"]
    points = [p for p in summary.metadata.get("points", []) if isinstance(p, str)] if summary is not None else []
    words = _salient(deleted.content)
    if not words or not (waiting or points or summary is not None):
        return None, log is not None
    # df of the words once the memory is gone; the summary's own holding does not count as another memory's
    df = memory.store.postings(scope, sorted(words), 0).df  # not the index cache: it would keep these words
    held = set(summary.terms) if summary is not None else set()
    only = {w for w in words if df.get(w, 0) - (w in held) <= 0}

    numbers = _long_numbers(deleted.content)

    def carries(text: str) -> bool:
        shared = words & _salient(text)
        return bool(shared & only) or 2 * len(shared) >= len(words) or bool(numbers & _long_numbers(text))

    if any(carries(turn) for turn in waiting):

        def drop_turns(state: dict[str, Any]) -> tuple[dict[str, Any], None]:
            state["waiting"] = [turn for turn in state["waiting"] if not carries(turn)]
            return state, None

        _change_log(memory, scope, session_id, drop_turns)
    if summary is None:
        return None, log is not None
    kept = [p for p in points if not carries(p)]
    if kept == points and not carries(str(summary.metadata.get("summary", ""))):
        return None, log is not None
    if not kept:
        return summary, log is not None

    def rewrite(current: Record) -> tuple[str | None, dict[str, Any] | None]:
        now_kept = [p for p in current.metadata.get("points", []) if isinstance(p, str) and not carries(p)]
        body = " ".join(now_kept or kept)
        return _content(session_id, body), {"points": now_kept or kept, "summary": body, "by": "offline"}

    memory._update(memory_id, scope, rewrite)
    return None, log is not None


_LONG_NUMBER = re.compile(r"(?<!\w)(?<!\d\.)\d(?:[\d\s-]*\d)?(?!\w|\.\d)")
LONG_NUMBER_DIGITS = 5
"""A number of at least this many digits (a phone number, an account, a sort code said "20-44-91") is the item a
memory holds: the words the index keeps leave digits out, so a summary point saying it in other words ("User's
mobile is 07700 900318" for "User's phone number is 07700 900318") carries the memory by its number; a year or a
count is shorter."""


def _long_numbers(text: str) -> set[str]:
    """The numbers of :data:`LONG_NUMBER_DIGITS` digits or more ``text`` says, as their digits."""
    found = {re.sub(r"\D", "", m.group(0)) for m in _LONG_NUMBER.finditer(text)}
    return {n for n in found if len(n) >= LONG_NUMBER_DIGITS}


def _salient(text: str) -> set[str]:
    """The words and entities a memory of ``text`` is indexed under, found in the text alone: asking the
    entity graph for its names once per point and waiting turn would cost a store call each."""
    return {t for t in analyze(text, []).terms if t.startswith(("t:", "e:"))}


def summary_id(scope: Scope, session_id: str) -> str:
    return deterministic_id("summary", scope, "session-summary", session_id)


def fold(
    memory: MemoryLayer, scope: Scope, session_id: str, turns: list[str], ask: Callable[[str], str] | None = None
) -> Record | None:
    """Fold ``turns`` into the session's summary memory (made on the first fold with something to say).

    The turns are redacted first: a log written before turns were redacted may still hold a secret, and the
    summary is a memory like any other (a secret would be refused, and the fold with it)."""
    turns = [redact(turn) for turn in turns]
    points = offline_points(turns)
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    memory_id = summary_id(scope, session_id)
    base = memory.store.get(scope, [memory_id])[0]
    modelled = _model_summary(ask, base.metadata.get("summary", "") if base else "", turns) if ask else None
    if base is None:
        if not points and not modelled:
            return None
        body = modelled or " ".join(points)
        try:
            return memory.add(
                _content(session_id, body),
                memory_type="summary",
                session_id=session_id,
                id=memory_id,
                metadata={
                    "session_summary": True,
                    "points": points,
                    "summary": body,
                    "turns_folded": len(turns),
                    "by": "llm" if modelled else "offline",
                },
                **who,
            )
        except ConflictError:  # another process made it just now: fold into theirs below
            pass
    if not points and not modelled:
        return base

    def change(current: Record) -> tuple[str | None, dict[str, Any] | None]:
        kept = [p for p in current.metadata.get("points", []) if isinstance(p, str)]
        merged = (kept + [p for p in points if p not in kept])[-MAX_POINTS:]
        # the model's text was written from the version read before; a fold in between keeps the offline merge
        body = modelled if modelled and base is not None and current.version == base.version else " ".join(merged)
        meta = {
            "points": merged,
            "summary": body,
            "turns_folded": int(current.metadata.get("turns_folded", 0) or 0) + len(turns),
            "by": "llm" if body == modelled else "offline",
        }
        return _content(session_id, body), meta

    return memory._update(memory_id, scope, change)


STORED_FIELDS = ("text", "title", "chosen", "value")
COVERED = 0.6
"""A statement is already kept when a memory the same turn stored holds this share of its salient words."""
FORGET_REQUEST = re.compile(
    r"\b(?:forget|don't remember|do not remember|stop remembering|unlearn)\b|"
    r"\b(?:remove|delete|erase|clear|wipe|drop)\b.*\b(?:memor(?:y|ies)|you know|you have|on record|about)\b",
    re.IGNORECASE,
)
"""A request to forget: never itself kept in a summary (it would keep what it asks to forget)."""
ABOUT_THE_REPLY = re.compile(
    r"^(?:that|this|your|the)\s+(?:last\s+)?(?:answer|reply|response|suggestion|explanation|idea|tip|advice|one)\b|"
    r"\b(?:well done|spot on|good job|great job|nice work|nailed it|you're right|you are right|let me think)\b",
    re.IGNORECASE,
)
"""A remark on the assistant's answer ("That answer was spot on, well done"): about the reply, not the user."""
_ADDRESSED = re.compile(r"\b(?:you|your|yours|you're|you've)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us)\b", re.IGNORECASE)


def to_the_assistant(said: str) -> bool:
    """A sentence said to the assistant about the assistant or the talk, with nothing of the user in it ("How very
    kind of you to say so.", "Splendid, thank you ever so much.", "YOU ARE VERY CLEVER."): the router stores
    nothing for it, and a summary does not keep it either. "As you know, I'm moving to Berlin" names the user."""
    return _ADDRESSED.search(said) is not None and _FIRST_PERSON.search(said) is None


def stored_lines(ops: Any) -> list[dict[str, str]]:
    """``stored`` lines for the session log: the text of each memory a turn's applied ops wrote."""
    lines = []
    for op in ops or []:
        if getattr(op, "status", None) != "applied" or str(getattr(op, "op", "")).startswith("working."):
            continue
        fields = getattr(op, "fields", {}) or {}
        said = " ".join(str(fields[k]) for k in STORED_FIELDS if isinstance(fields.get(k), (str, int, float)))
        if fields.get("key") and "value" in fields:
            said = f"{fields['key']} {said}"
        if said.strip():
            lines.append({"role": "stored", "content": said})
    return lines


def turn_text(messages: list[dict[str, str]]) -> str:
    """One line per message of the turn (user, assistant, and what the turn stored), each cut to
    :data:`MAX_TURN_CHARS`."""
    lines = []
    for message in messages or []:
        role, content = message.get("role"), " ".join(str(message.get("content", "")).split())
        if role in ("user", "assistant", "stored") and content:
            lines.append(f"{role}: {content[:MAX_TURN_CHARS]}")
    return "\n".join(lines)


def _kept(said: str, stored: list[set[str]]) -> bool:
    """Whether the turn's memories keep ``said`` already: one of them, or all of them together (a compound
    statement split into a profile slot and a fact), holds :data:`COVERED` of its salient words."""
    words = _salient(said)
    together = set().union(*stored) if stored else set()
    return bool(words) and len(words & together) >= COVERED * len(words)


def offline_points(turns: list[str]) -> list[str]:
    """The :data:`NEW_POINTS` most informative statements of the user in ``turns``, in the order said, leaving
    out what a memory of the same turn keeps already and requests to forget (a summary says only what the
    session's memories do not)."""
    found: list[tuple[float, int, str]] = []
    for turn in turns:
        lines = turn.splitlines()
        stored = [_salient(line[len("stored: ") :]) for line in lines if line.startswith("stored: ")]
        for line in lines:
            if not line.startswith("user: "):
                continue
            found += _points(line[len("user: ") :], stored, len(found), [p for _, _, p in found])
    best = sorted(found, key=lambda item: (-item[0], item[1]))[:NEW_POINTS]
    return [point for _, _, point in sorted(best, key=lambda item: item[1])]


def _points(text: str, stored: list[set[str]], start: int, seen: list[str]) -> list[tuple[float, int, str]]:
    found: list[tuple[float, int, str]] = []
    for said in sentences(text):
        if gate_reason(said) is not None or len(said.split()) < 4 or points_back(said):
            continue  # "Thanks, I'll try that" says nothing a summary could keep
        if (
            FORGET_REQUEST.search(said)
            or read_requests([said])
            or ABOUT_THE_REPLY.search(said)
            or to_the_assistant(said)
            or _kept(said, stored)
        ):
            continue
        point = about_user(plain(said.strip()))  # "Hi, I'm Maya, I work at X" -> "User is Maya, they work at X."
        point = point if len(point) <= MAX_POINT_CHARS else point[: MAX_POINT_CHARS - 1].rstrip() + "…"
        if point[-1] not in ".!?…":
            point += "."
        if point not in seen and all(point != p for _, _, p in found):
            found.append((importance("episodic", said), start + len(found), point))
    return found


def _model_summary(ask: Callable[[str], str], summary: str, turns: list[str]) -> str | None:
    """The model's updated summary, or None when it fails or answers nothing usable (offline takes over)."""
    try:
        answer = ask(SUMMARY_PROMPT.format(summary=summary or "(none yet)", turns="\n".join(turns)))
    except Exception:  # a failing model never breaks maintenance: the offline summary stands in
        return None
    if not isinstance(answer, str):
        return None
    text = redact(" ".join(answer.split()))
    return text[:2000] if len(text) >= 10 else None


def _content(session_id: str, body: str) -> str:
    return f"Summary of session {session_id}: {body}"


summary_content = _content
"""A session summary's text from its body (what :mod:`.slots` writes back after dropping a replaced value)."""


def _log_id(scope: Scope, session_id: str) -> str:
    return deterministic_id(LOG_KIND, scope, session_id)


def _log_state(record: Record | None) -> dict[str, Any]:
    found = record.metadata if record is not None else {}
    waiting = found.get("waiting")
    return {
        "turns": int(found.get("turns", 0)),
        "folded_at": int(found.get("folded_at", 0)),
        "waiting": [w for w in waiting if isinstance(w, str)] if isinstance(waiting, list) else [],
    }


def _change_log(
    memory: MemoryLayer,
    scope: Scope,
    session_id: str,
    change: Callable[[dict[str, Any]], tuple[dict[str, Any], Any]],
) -> Any:
    """Apply ``change`` to the session's log with a versioned write; what it returned for the state it wrote."""
    for _ in range(RETRIES):
        op, taken = _log_op(memory, scope, session_id, change)
        try:
            memory.bookkeeping.update_many([op])
        except ConflictError:
            continue  # another process noted a turn at the same time: read again
        return taken
    raise ConflictError(f"the log of session {session_id!r} kept changing under this write")


def _log_op(
    memory: MemoryLayer,
    scope: Scope,
    session_id: str,
    change: Callable[[dict[str, Any]], tuple[dict[str, Any], Any]],
) -> tuple[Upsert, Any]:
    """The versioned write of ``change`` applied to the session's log as read now, and what ``change`` returned."""
    where = Scope(scope.user_id, SESSIONS_AGENT)
    log_id = _log_id(scope, session_id)
    current = memory.store.get(where, [log_id])[0]
    state, taken = change(_log_state(current))
    now = time.time()
    record = Record(
        id=log_id,
        user_id=scope.user_id,
        agent_id=SESSIONS_AGENT,
        kind=LOG_KIND,
        content=f"turns of session {session_id} not yet summarised",
        metadata={**state, "agent_id": scope.agent_id, "session_id": session_id},
        session_id=session_id,
        created_at=current.created_at if current is not None else now,
        updated_at=now,
    )
    return Upsert(record=record, expected_version=current.version if current else 0), taken


__all__ = [
    "LOG_KIND",
    "SUMMARY_PROMPT",
    "fold",
    "forget_logs",
    "forget_memory",
    "note_turn",
    "offline_points",
    "session_log",
    "summarize",
    "summary_id",
    "take_waiting",
    "turn_op",
    "turn_text",
    "waiting_sessions",
]
