"""LLMRouter: one model call per turn decides the operations; Kioko gates, validates and falls back.

The prompt shows the model refs, never ids: the user's related memories ``m1 ...``, open goals ``g1 ...``,
current decisions ``d1 ...``, what the agent was given ``p1 ...``. A target the model names must be one
of those refs, so it can only reach memories of this user that it was shown. Small talk and pure
questions never reach the model (the fallback router's gate). When the call raises, hangs past
``timeout`` or returns nothing parseable, the fallback router decides and the report says
``llm->heuristic`` with the error.
"""

from __future__ import annotations

import json
import re
import string
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.kinds import Decisions, Goals, Procedures
from kioko_core.reading.analysis import label
from kioko_core.store import Record
from kioko_intelligence.executor import KEYED_OPS, MANAGER_OF, manages
from kioko_intelligence.heuristic import QUERY_CHARS, HeuristicRouter
from kioko_intelligence.language import importance
from kioko_intelligence.ops import OPERATIONS, ROUTER_FALLBACK, ROUTER_LLM, SKIPPED, MemoryOp, RouteResult, split_op
from kioko_intelligence.turn import Turn

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

PLACEHOLDERS = ("related", "goals", "decisions", "served", "working", "today", "conversation")
MAX_RELATED = 10
MAX_LISTED = 20

DEFAULT_MANAGE_PROMPT = """\
You manage the long-term memory of an AI assistant for one user. Read the conversation turn and decide
which memory operations it calls for. Most turns need none, one or two.

Operations ("op": "kind.action") and their fields:
- profile.set {{key, value}}, profile.remove {{key}}: one value per slot (name, location, phone_number ...)
- fact.add {{text}}, fact.update {{target, text}}, fact.delete {{target}}, fact.verify {{target}}
- preference.add {{text}}, preference.update {{target, text}}, preference.delete {{target}}
- instruction.add {{text}}, instruction.update {{target, text}}, instruction.delete {{target}}: how to answer, every turn
- knowledge.add {{text}}, knowledge.update {{target, text}}, knowledge.delete {{target}}: general knowledge
- episode.add {{text}}, episode.delete {{target}}: something that happened
- goal.add {{title, due?}}, goal.update {{target, title?, due?}}, goal.progress {{target, progress (0..1), note?}},
  goal.complete {{target}}, goal.drop {{target, reason?}}, goal.delete {{target}}
- decision.add {{text, title?, chosen?, options?, rationale?}}, decision.supersede {{target, text, chosen?, rationale?}},
  decision.outcome {{target, worked}}, decision.delete {{target}}
- procedure.add {{title, steps: [..]}}, procedure.outcome {{target, worked, note?}}, procedure.delete {{target}}
- skill.outcome {{target, worked}}
- strategy.add {{text, context?}}, strategy.outcome {{target, worked}}, strategy.delete {{target}}: lessons
- relation.add {{subject, relation, object}}, relation.remove {{subject, relation, object}}
- working.set {{key, value}}, working.remove {{key}}, working.promote {{key}}: this session's scratchpad
- insight.add {{text}}
- memory.update {{target, text}}, memory.delete {{target}}, memory.pin {{target}}, memory.unpin {{target}}

A target is one of the refs below (m1, g1, d1, p1 ...), nothing else. Never store passwords, keys or
tokens. Write memories about the user in the third person ("User prefers ..."). Add "reason" to each op.

Related memories:
{related}

Open goals:
{goals}

Current decisions:
{decisions}

What the assistant was given for this turn (procedures, skills, lessons):
{served}

This session's working memory:
{working}

Today: {today}

The conversation turn:
{conversation}

Answer with JSON only, for example
{{"operations": [{{"op": "goal.progress", "target": "g1", "progress": 0.6, "reason": "..."}}]}}
or {{"operations": []}} when nothing is worth remembering.
"""

REQUIRED: dict[str, tuple[str, ...]] = {
    # the kinds held by key: a slot and, to set it, its value
    **{
        f"{kind}.{action}": ("key", "value") if action == "set" else ("key",)
        for kind in KEYED_OPS
        for action in OPERATIONS[kind]
    },
    # the text kinds (registry rows whose operations add, update or report an outcome)
    **{f"{kind}.add": ("text",) for kind in MANAGER_OF if "add" in OPERATIONS[kind]},
    **{f"{kind}.update": ("target", "text") for kind in MANAGER_OF if "update" in OPERATIONS[kind]},
    "memory.update": ("target", "text"),
    **{f"{kind}.outcome": ("target", "worked") for kind in MANAGER_OF if "outcome" in OPERATIONS[kind]},
    # what a manager class takes instead of a text (a goal's title, a procedure's steps, a decision's successor)
    **{f"{kind}.add": ("title",) for kind in MANAGER_OF if manages(kind, Goals)},
    **{f"{kind}.update": ("target",) for kind in MANAGER_OF if manages(kind, Goals)},
    **{f"{kind}.progress": ("target", "progress") for kind in MANAGER_OF if manages(kind, Goals)},
    **{f"{kind}.supersede": ("target", "text") for kind in MANAGER_OF if manages(kind, Decisions)},
    **{f"{kind}.add": ("title", "steps") for kind in MANAGER_OF if manages(kind, Procedures)},
    "relation.add": ("subject", "relation", "object"),
    "relation.remove": ("subject", "relation", "object"),
}
"""Fields an op must carry; every other action that is not an add needs just a ``target``."""

_ALIASES = {
    "content": "text",
    "memory": "text",
    "slot": "key",
    "success": "worked",
    "succeeded": "worked",
    "date": "due",
    "due_date": "due",
    "ref": "target",
    "id": "target",
}
_FIELDS = frozenset(
    {
        "text",
        "title",
        "due",
        "progress",
        "note",
        "reason_text",
        "chosen",
        "options",
        "rationale",
        "steps",
        "context",
        "key",
        "value",
        "subject",
        "relation",
        "object",
        "worked",
        "evidence",
    }
)


def as_ask(llm: Any) -> Callable[[str], str]:
    """A prompt -> text function from ``llm``: a callable, an Agno Agent (``.run``) or a LangChain model (``.invoke``)."""
    if hasattr(llm, "invoke") and callable(llm.invoke):
        return lambda prompt: _text_of(llm.invoke(prompt))
    if hasattr(llm, "run") and callable(llm.run):
        return lambda prompt: _text_of(llm.run(prompt))
    if callable(llm):
        return lambda prompt: _text_of(llm(prompt))
    raise TypeError("llm must be a prompt -> text callable, or an object with .invoke(prompt) or .run(prompt)")


def _text_of(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    content = getattr(answer, "content", None)
    if content is None and isinstance(answer, dict):
        content = answer.get("content")
    if isinstance(content, str):
        return content
    raise ValueError(f"the model returned a {type(answer).__name__}, not text")


def json_values(text: str, openers: str = "[{") -> Iterator[Any]:
    """Every JSON value in a model's answer that starts at one of ``openers``, in order.

    Models wrap their JSON in code fences or prose; the fences go and each bracket is tried as the start
    of a value, so the caller takes the first value of the shape it wants.
    """
    cleaned = re.sub(r"```(?:json)?", "", text)
    decoder = json.JSONDecoder()
    for start in [i for i, char in enumerate(cleaned) if char in openers]:
        try:
            value, _ = decoder.raw_decode(cleaned, start)
        except ValueError:
            continue
        yield value


def parse_operations(text: Any) -> list[Any]:
    """The list under ``"operations"`` in the model's answer (a code fence or prose around it is fine)."""
    if not isinstance(text, str):
        raise ValueError("no operations JSON found in the model output")
    for value in json_values(text):
        if isinstance(value, dict) and isinstance(value.get("operations"), list):
            operations: list[Any] = value["operations"]
            return operations
        if isinstance(value, list) and all(isinstance(v, dict) and ("op" in v or "kind" in v) for v in value):
            return value
    raise ValueError("no operations JSON found in the model output")


class LLMRouter:
    """``route(memory, turn)`` with one model call; ``fallback`` gates the turn and decides when the model fails.

    ``ask(prompt) -> text`` (or an object with ``.invoke`` / ``.run``); ``prompt_template`` must keep the
    placeholders {related}, {goals}, {decisions}, {served}, {working}, {today} and {conversation};
    ``timeout`` (seconds) bounds a model that hangs.
    """

    name = ROUTER_LLM

    def __init__(
        self,
        ask: Any,
        *,
        fallback: Any = None,
        prompt_template: str = DEFAULT_MANAGE_PROMPT,
        timeout: float | None = None,
    ) -> None:
        self.ask = as_ask(ask)
        self.fallback = fallback if fallback is not None else HeuristicRouter()
        if not isinstance(prompt_template, str):
            raise TypeError("prompt_template must be a string")
        named = {name for _, name, _, _ in string.Formatter().parse(prompt_template) if name}
        missing = [p for p in PLACEHOLDERS if p not in named]
        unknown = sorted(named - set(PLACEHOLDERS))
        if missing or unknown:
            raise ValueError(
                f"prompt_template must keep the placeholders {{{'}, {'.join(PLACEHOLDERS)}}}"
                + (f"; missing: {missing}" if missing else "")
                + (f"; unknown: {unknown} (write literal braces as {{{{ }}}})" if unknown else "")
            )
        self.prompt_template = prompt_template
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"LLMRouter(fallback={self.fallback!r}, timeout={self.timeout})"

    def gate(self, turn: Turn) -> str | None:
        gate = getattr(self.fallback, "gate", None)
        return gate(turn) if gate is not None else None

    def route(self, memory: MemoryLayer, turn: Turn) -> RouteResult:
        reason = self.gate(turn)
        if reason is not None:
            return RouteResult(skipped=reason, router=self.name, model_calls=0)
        prompt, refs = self.prompt(memory, turn)
        try:
            answer = self._call(prompt)
            proposed = parse_operations(answer)
        except Exception as error:  # the model failed: the offline router decides
            result = self.fallback.route(memory, turn)
            result.router, result.model_calls = ROUTER_FALLBACK, 1
            result.error = f"{type(error).__name__}: {error}"
            return result
        return RouteResult(
            ops=[op for op in (validate(p, refs) for p in proposed) if op is not None], router=self.name, model_calls=1
        )

    def _call(self, prompt: str) -> str:
        if self.timeout is None:
            return self.ask(prompt)
        box: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                box["answer"] = self.ask(prompt)
            except BaseException as error:  # handed to the caller's thread below
                box["error"] = error
            finally:
                done.set()

        # a daemon thread: a model that never answers must not keep the process alive
        threading.Thread(target=run, name="kioko-llm-call", daemon=True).start()
        if not done.wait(self.timeout):
            raise TimeoutError(f"the model did not answer within {self.timeout:g} s")
        if "error" in box:
            raise box["error"]
        answer: str = box["answer"]
        return answer

    # -- the prompt

    def prompt(self, memory: MemoryLayer, turn: Turn) -> tuple[str, dict[str, Record]]:
        """The prompt for ``turn`` and the refs it shows (``{"m1": record, "g1": record ...}``)."""
        who = {"user_id": turn.user_id, "agent_id": turn.agent_id}
        refs: dict[str, Record] = {}
        text = turn.text("user")
        goals = memory.goals.open(**who)[-MAX_LISTED:]
        decisions = memory.decisions.current(**who)[-MAX_LISTED:]
        shown = {r.id for r in goals + decisions + list(turn.served)}
        related = [
            r for r in memory.search(text[:QUERY_CHARS], limit=MAX_RELATED + len(shown), **who) if r.id not in shown
        ]
        sections = {
            "related": _listed("m", related[:MAX_RELATED], refs),
            "goals": _listed("g", goals, refs, _goal_line),
            "decisions": _listed("d", decisions, refs),
            "served": _listed("p", list(turn.served), refs),
            "working": _working(memory, turn),
            "today": turn.now.strftime("%A, %Y-%m-%d"),
            "conversation": "\n".join(f"{m['role']}: {m['content']}" for m in turn.messages),
        }
        return self.prompt_template.format(**sections), refs


def _listed(
    prefix: str, records: list[Record], refs: dict[str, Record], line: Callable[[Record], str] | None = None
) -> str:
    lines = []
    for number, record in enumerate(records, 1):
        ref = f"{prefix}{number}"
        refs[ref] = record
        lines.append(f"{ref}: [{record.kind}] {(line or _line)(record)}")
    return "\n".join(lines) or "(none)"


def _line(record: Record) -> str:
    return label(record.content, width=200)


def _goal_line(record: Record) -> str:
    meta = record.metadata
    extra = [f"{round(float(meta.get('progress') or 0) * 100)}% done"]
    if meta.get("due"):
        extra.append(f"due {meta['due']}")
    return f"{meta.get('title') or label(record.content, width=200)} ({', '.join(extra)})"


def _working(memory: MemoryLayer, turn: Turn) -> str:
    if not turn.session_id:
        return "(no session)"
    pad = memory.working.all(user_id=turn.user_id, agent_id=turn.agent_id, session_id=turn.session_id)
    return "\n".join(f"{k}: {v}" for k, v in pad.items()) or "(empty)"


# --------------------------------------------------------------------------- validation


def validate(proposed: Any, refs: dict[str, Record]) -> MemoryOp | None:
    """One proposed op as a MemoryOp: None when it names no known operation, skipped when it is incomplete.

    A target must be one of ``refs``; the op then carries the memory's real id. Anything else the model
    names (another user's id, an id it made up) is skipped and reaches nothing.
    """
    if not isinstance(proposed, dict):
        return None
    name = proposed.get("op") or (f"{proposed.get('kind')}.{proposed.get('action')}" if proposed.get("kind") else None)
    try:
        kind, action = split_op(str(name))
    except ValueError:
        return None
    raw = {_ALIASES.get(k, k): v for k, v in proposed.items()}
    fields = {k: v for k, v in raw.items() if k in _FIELDS and v is not None}
    if manages(kind, Decisions) and "text" not in fields and isinstance(fields.get("chosen"), str):
        fields["text"] = f"use {fields['chosen']}"
    if manages(kind, Goals) and action == "add" and "title" not in fields and isinstance(fields.get("text"), str):
        fields["title"] = fields.pop("text")
    if "progress" in fields:
        fields["progress"] = _fraction(fields["progress"])
    if "worked" in fields and not isinstance(fields["worked"], bool):
        fields["worked"] = str(fields["worked"]).strip().lower() in ("true", "yes", "1", "success", "worked")
    op = MemoryOp(
        op=f"{kind}.{action}",
        fields=fields,
        reason=str(proposed.get("reason") or "proposed by the model"),
        confidence=_unit(proposed.get("confidence"), 0.8),
        importance=_unit(proposed.get("importance"), None)
        if proposed.get("importance") is not None
        else importance(kind, str(fields.get("text") or fields.get("title") or "")),
    )
    needed = REQUIRED.get(op.op, ("target",) if action != "add" else ())
    missing = [f for f in needed if f != "target" and (f not in fields or fields[f] in ("", [], None))]
    target = raw.get("target")
    if "target" in needed or (target is not None and kind != "relation"):
        if not isinstance(target, str) or target not in refs:
            op.status, op.error = (
                SKIPPED,
                (
                    f"target {target!r} is not one of the memories shown to the model"
                    if target is not None
                    else "no target given"
                ),
            )
            op.target = None
            return op
        op.target = refs[target].id
    if missing:
        op.status, op.error = SKIPPED, f"missing field(s): {', '.join(missing)}"
    return op


def _fraction(value: Any) -> Any:
    try:
        number = float(str(value).rstrip("% "))
    except ValueError:
        return value
    return round(number / 100.0, 4) if number > 1.0 else number


def _unit(value: Any, default: Any) -> Any:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return min(1.0, max(0.0, number))


__all__ = ["DEFAULT_MANAGE_PROMPT", "LLMRouter", "OPERATIONS", "as_ask", "parse_operations", "validate"]
