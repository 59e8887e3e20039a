"""OpExecutor: applies MemoryOps through the typed managers, one op at a time, each on its own.

Every op goes through the manager of its kind (``memory.goals.progress``, ``memory.profile.set`` ...),
so the secrets check, version history, de-duplication and linking run exactly as for a hand-written
write. A target is looked up again in the turn's own scope before anything changes, whichever router
named it. One op that fails is marked failed with its error; the others still run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from kioko_core.kinds import MANAGERS, Decisions, Episodes, Goals, Insights, Procedures, Strategies
from kioko_core.kinds.registry import KINDS
from kioko_core.linking import links
from kioko_core.privacy.secrets import SecretDropped, get_logger, redact, redact_value, secret_kinds
from kioko_core.reading.analysis import label
from kioko_core.store import InvalidRecordError, KiokoError, Record, Scope, check_scope
from kioko_intelligence.ops import APPLIED, FAILED, KIND_OF_MEMORY, PLANNED, SKIPPED, MemoryOp
from kioko_intelligence.turn import TURN_KEY

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")

MANAGER_OF = {info.op: info.manager for info in KINDS if info.op and not info.keyed}
"""Operation kind -> the layer attribute of its typed manager (from the kind registry; the kinds held by key,
profile and working, have operations of their own, ``set`` / ``remove``, applied before this table is read)."""
KEYED_OPS = frozenset(info.op for info in KINDS if info.op and info.keyed)
"""Operation kinds of the kinds held by key (``profile.set``, ``working.set``)."""


def manages(op_kind: str, manager_class: type) -> bool:
    """Whether ``op_kind``'s memories are managed by ``manager_class``: the manager class, from the kind's
    registry row, decides which fields an operation of that kind takes (a goal's title, a lesson's context)."""
    attribute = MANAGER_OF.get(op_kind)
    return attribute is not None and issubclass(MANAGERS[attribute], manager_class)


QUOTE_WIDTH = 70
"""How much of a memory's text a description quotes before cutting it with an ellipsis."""

# actions that need an existing memory of the turn's scope
TARGETED = frozenset(
    {"update", "delete", "verify", "progress", "complete", "drop", "supersede", "outcome", "pin", "unpin"}
)


class Skip(Exception):
    """An op that cannot apply for an expected reason (no such memory, nothing to remove): skipped, not failed."""


def quote(text: str, width: int = QUOTE_WIDTH) -> str:
    text = " ".join(str(text).split())
    return f'"{text}"' if len(text) <= width else f'"{text[: width - 1]}…"'


def _percent(value: Any) -> str:
    try:
        return f"{round(float(value) * 100)}%"
    except (TypeError, ValueError):
        return str(value)


class OpExecutor:
    """Applies ops for one scope of one layer; ``on_link`` hears about every new link (for events)."""

    def __init__(
        self, memory: MemoryLayer, *, on_link: Callable[[links.MemoryLink, Record], None] | None = None
    ) -> None:
        self.memory = memory
        self.on_link = on_link

    # -- the loop

    def apply(
        self,
        ops: list[MemoryOp],
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
        router: str = "",
        context: Any = None,
        turn: int | None = None,
    ) -> list[MemoryOp]:
        """Apply (or, with ``dry_run``, only check and describe) each op; returns the same ops, status filled in.

        ``context`` is the recall the agent was given: a worked outcome strengthens the links among it. ``turn``
        is the turn's number in its scope's sequence: each memory the ops add, update or set carries it
        (:data:`.turn.TURN_KEY`).
        """
        scope = check_scope((user_id, agent_id))
        self._context = context
        self._turn = turn
        for op in ops:
            if op.status in (SKIPPED, FAILED):
                op.description = op.description or describe(op, None)
                _redact(op)
                continue  # a router already decided against it (low importance, invalid)
            try:
                kinds = secret_kinds(op.fields)
                if kinds:  # refused before anything is read or written, in a dry run too
                    raise SecretDropped(kinds)
                target = self._target(op, scope)
                if not op.description:
                    op.description = describe(op, target)
                if dry_run:
                    op.status = PLANNED
                    continue
                self._apply_one(op, scope, session_id, target, router)
                op.status = APPLIED
            except Skip as reason:
                op.status, op.error = SKIPPED, str(reason)
            except SecretDropped as error:
                op.status, op.error = (
                    SKIPPED,
                    f"rejected by a processor (it looked like a secret: {', '.join(error.kinds)})",
                )
            except KiokoError as error:
                op.status, op.error = FAILED, f"{type(error).__name__}: {error}"
            except Exception as error:  # one op failing must not stop the others
                log.exception("applying %s failed", op.op)
                op.status, op.error = FAILED, f"{type(error).__name__}: {error}"
            if not op.description:
                op.description = describe(op, None)
            _redact(op)
        if not dry_run:
            self._forget_subjects(ops, scope)
        return ops

    def _forget_subjects(self, ops: list[MemoryOp], scope: Scope) -> None:
        """After a turn's ``memory.delete`` ops of a subject ("forget everything about P", ``fields.subject``)
        applied: ``forget_about(P)`` takes what they do not (the triples of P, summary points and waiting session
        turns naming P, and any memory naming P written since the router looked)."""
        subjects = [op.fields.get("subject") for op in ops if op.op == "memory.delete" and op.status == APPLIED]
        for subject in dict.fromkeys(s for s in subjects if isinstance(s, str)):
            try:
                self.memory.forget_about(subject, user_id=scope.user_id, agent_id=scope.agent_id)
            except KiokoError:  # the deletes themselves are done; a sweep that fails is logged, not raised
                log.exception("forgetting everything about a subject failed")
        categories = [op.fields.get("category") for op in ops if op.op == "memory.delete" and op.status == APPLIED]
        for category in dict.fromkeys(c for c in categories if isinstance(c, str)):
            try:
                self._forget_category(category, scope)
            except KiokoError:
                log.exception("forgetting a category's summary points failed")

    def _forget_category(self, category: str, scope: Scope) -> None:
        """After a forget of a whole category ("clear all my health info", ``fields.category``): the points of the
        scope's session summaries and the turns waiting in its session logs that say something of it go too
        (:func:`.forget_reading.says_category`): a turn that stored no memory ("Had my gallbladder out in 2019.")
        may still be a summary's point."""
        from kioko_core.store import Filter
        from kioko_intelligence.forget_reading import says_category

        summaries = [
            r
            for r in self.memory.store.scan(scope, Filter(kinds=frozenset({"summary"})))
            if r.metadata.get("session_summary")
            and any(isinstance(p, str) and says_category(p, category) for p in r.metadata.get("points", []))
        ]
        self.memory.hooks.forget_subject(
            self.memory, scope, lambda text: says_category(text, category), summaries, dry_run=False
        )

    def _target(self, op: MemoryOp, scope: Scope) -> Record | None:
        """The op's target, read again in the turn's scope: a router can never reach another user's memory."""
        if op.action not in TARGETED or op.kind in ("relation",):
            return None
        if op.op == "memory.delete" and not op.target and (op.fields.get("subject") or op.fields.get("category")):
            return None  # a subject or category with no memory of its own left: the sweep after the ops takes the rest
        if not isinstance(op.target, str) or not op.target:
            raise Skip(f"{op.op} needs a target memory")
        found = self.memory.store.get(scope, [op.target])[0]
        if found is None:
            raise Skip(f"no memory {op.target!r} in this user's memories")
        wanted = KIND_OF_MEMORY.get(op.kind)
        if op.kind != "memory" and wanted is not None and found.kind != wanted:
            raise Skip(f"memory {op.target!r} is a {found.kind} memory, not a {op.kind}")
        return found

    # -- one op

    def _apply_one(
        self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str
    ) -> None:
        handler = getattr(self, f"_{op.kind}", None) or self._typed
        before = {e["id"] for e in links.link_entries(target)} if target is not None else set()
        written = handler(op, scope, session_id, target, router)
        if isinstance(written, Record):
            op.memory_id = written.id
            self._report_links(op, written, before)
        elif target is not None:
            op.memory_id = target.id

    def _common(self, op: MemoryOp, scope: Scope, session_id: str | None, router: str) -> dict[str, Any]:
        metadata: dict[str, Any] = {"managed_by": router or "manage", **self._said()}
        if op.importance is not None:
            metadata["importance"] = round(float(op.importance), 3)
        about = op.fields.get("about")
        if isinstance(about, list) and all(isinstance(a, str) for a in about):
            metadata["about"] = about  # the categories the memory names a thing of (indexed under their words)
        return {"user_id": scope.user_id, "agent_id": scope.agent_id, "metadata": metadata}

    def _said(self) -> dict[str, Any]:
        """The metadata that says which turn wrote a memory (none when the turn has no number)."""
        turn = getattr(self, "_turn", None)
        return {TURN_KEY: turn} if turn is not None else {}

    def _typed(self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str) -> Any:
        """fact / preference / instruction / knowledge / episode / goal / decision / procedure / skill / strategy / insight."""
        manager = getattr(self.memory, MANAGER_OF[op.kind])
        f = op.fields
        who = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        if op.action == "add":
            common = self._common(op, scope, session_id, router)
            common["session_id"] = session_id
            if manages(op.kind, Goals):
                return manager.add(f.get("title") or f.get("text"), due=f.get("due"), parent=f.get("parent"), **common)
            if manages(op.kind, Decisions):
                return manager.add(
                    f.get("text") or f.get("chosen"),
                    title=f.get("title"),
                    chosen=f.get("chosen"),
                    options=f.get("options"),
                    rationale=f.get("rationale"),
                    **common,
                )
            if manages(op.kind, Procedures):
                return manager.add(f.get("title"), f.get("steps"), **common)
            if manages(op.kind, Strategies):
                return manager.add(f.get("text"), context=f.get("context"), **common)
            if manages(op.kind, Insights):
                return manager.add(f.get("text"), evidence=f.get("evidence"), **common)
            if manages(op.kind, Episodes) and f.get("created_at") is not None:
                common["created_at"] = f["created_at"]
            return manager.add(f.get("text"), **common)
        assert target is not None
        if op.action == "update":
            if manages(op.kind, Goals):
                return manager.update(
                    target.id,
                    title=f.get("title") or f.get("text"),
                    due=f.get("due"),
                    metadata=self._said() or None,
                    **who,
                )
            return manager.update(target.id, text=f.get("text"), metadata=self._said() or None, **who)
        if op.action == "delete":
            manager.delete(target.id, **who)
            return None
        if op.action == "verify":
            return manager.verify(target.id, **who)
        if op.action == "progress":
            return manager.progress(target.id, f.get("progress"), note=f.get("note"), **who)
        if op.action == "complete":
            return manager.complete(target.id, note=f.get("note"), **who)
        if op.action == "drop":
            return manager.drop(target.id, reason=f.get("reason"), **who)
        if op.action == "supersede":
            return manager.supersede(
                target.id,
                f.get("text") or f.get("chosen"),
                title=f.get("title"),
                chosen=f.get("chosen"),
                options=f.get("options"),
                rationale=f.get("rationale"),
                session_id=session_id,
                metadata=self._common(op, scope, session_id, router)["metadata"],
                **who,
            )
        if op.action == "outcome":
            worked = bool(f.get("worked", True))
            context = getattr(self, "_context", None)
            if context is not None and target.id not in {m.record.id for m in context.memories}:
                context = None  # strengthen only what was used together with the credited memory
            return manager.outcome(
                target.id,
                worked,
                note=f.get("note"),
                session_id=session_id if worked else None,
                context=context if worked else None,
                **who,
            )
        raise Skip(f"{op.op} is not supported")

    def _profile(self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str) -> Any:
        user_id, agent_id = scope.user_id, scope.agent_id
        key = _text_field(op, "key", "slot")
        if op.action == "set":
            metadata = self._common(op, scope, session_id, router)["metadata"]
            detail = op.fields.get("detail")
            if isinstance(detail, str) and detail.strip():
                metadata["detail"] = detail.strip()  # "at a vet practice in Truro": said with the value
            return self.memory.profile.set(
                key,
                _scalar_field(op, "value"),
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                metadata=metadata,
            )
        if not self.memory.profile.remove(key, user_id=user_id, agent_id=agent_id):
            raise Skip(f"the profile has no {key!r}")
        return None

    def _working(self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str) -> Any:
        if not session_id:
            raise Skip("working memory belongs to a session; this turn has no session_id")
        working, user_id, agent_id = self.memory.working, scope.user_id, scope.agent_id
        key = _text_field(op, "key")
        if op.action == "set":
            value = _scalar_field(op, "value")
            said = self._said() or None
            return working.set(key, value, user_id=user_id, agent_id=agent_id, session_id=session_id, metadata=said)
        if op.action == "promote":
            if working.get(key, user_id=user_id, agent_id=agent_id, session_id=session_id) is None:
                raise Skip(f"the scratchpad has no {key!r}")
            return working.promote(key, user_id=user_id, agent_id=agent_id, session_id=session_id)
        if not working.remove(key, user_id=user_id, agent_id=agent_id, session_id=session_id):
            raise Skip(f"the scratchpad has no {key!r}")
        return None

    def _relation(self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str) -> Any:
        f = op.fields
        subject = _text_field(op, "subject")
        if op.action == "add":
            relation_name, object_name = _text_field(op, "relation"), _text_field(op, "object")
            self.memory.graph.add(subject, relation_name, object_name, user_id=scope.user_id, source="manage")
            return None
        from kioko_core.graph.entities import relation_key
        from kioko_core.reading.analysis import entity_key

        relation, wanted = relation_key(str(f.get("relation", ""))), entity_key(str(f.get("object", "")))
        for triple in self.memory.graph.relations(subject, user_id=scope.user_id):
            if triple.relation == relation and triple.object_key == wanted:
                self.memory.entities.invalidate(triple.id, user_id=scope.user_id)
                return None
        raise Skip("no such relation in the user's graph")

    def _memory(self, op: MemoryOp, scope: Scope, session_id: str | None, target: Record | None, router: str) -> Any:
        who = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        if op.action == "delete" and target is None:
            return None  # a subject's traces only (fields.subject): see _forget_subjects
        assert target is not None
        if op.action == "delete":
            self.memory.delete(target.id, **who)
            for triple in [t for t in op.fields.get("triples", []) if isinstance(t, str)]:
                self.memory.graph.delete_triple(triple, user_id=scope.user_id)  # a relation the forgotten item stated
            return None
        if op.action == "update":
            text = op.fields.get("text")
            manager_name = next((m for k, m in MANAGER_OF.items() if KIND_OF_MEMORY[k] == target.kind), None)
            if manager_name is None:
                raise Skip(f"a {target.kind} memory is changed through its own calls (profile.set, working.set)")
            manager = getattr(self.memory, manager_name)
            if issubclass(type(manager), Goals):  # a goal's text is its title
                return manager.update(target.id, title=text, metadata=self._said() or None, **who)
            return manager.update(target.id, text=text, metadata=self._said() or None, **who)
        pinned = op.action == "pin"
        return self.memory.update(
            target.id, metadata={"pinned": pinned, "pinned_by": "manual" if pinned else None}, **who
        )

    # -- links

    def _report_links(self, op: MemoryOp, written: Record, before: set[str]) -> None:
        fresh = [e for e in links.link_entries(written) if e["id"] not in before]
        if not fresh:
            return
        others = links.fetch_others(self.memory.store, written, fresh)
        for entry, other in zip(fresh, others):
            if other is None:
                continue
            link = links.MemoryLink.from_entry(written, entry, other)
            op.linked.append(link.line())
            if self.on_link is not None:
                self.on_link(link, written)


def _redact(op: MemoryOp) -> None:
    """The op as reports, events, logs and terminals show it: a secret in its fields, its description (which
    may quote a stored memory) or its error stands as ``[redacted: kind]``. Its write, if any, is done."""
    op.fields = redact_value(op.fields)
    op.description = redact(op.description)
    op.error = redact(op.error) if op.error else op.error
    op.reason = redact(op.reason)
    op.linked = [redact(line) for line in op.linked]


def _text_field(op: MemoryOp, *names: str) -> str:
    """The first of ``names`` the op's fields give as text; a typed error (the op fails) when none does."""
    for name in names:
        value = op.fields.get(name)
        if isinstance(value, str) and value:
            return value
    raise InvalidRecordError(f"{op.op} needs {' or '.join(names)} as a non-empty string")


def _scalar_field(op: MemoryOp, name: str) -> str | int | float | bool:
    """A slot value from the op's fields: text, a number or true / false (what profile and working keep)."""
    value = op.fields.get(name)
    if isinstance(value, (str, int, float, bool)):
        return value
    raise InvalidRecordError(f"{op.op} needs {name} as a string, a number or true/false")


def describe(op: MemoryOp, target: Record | None) -> str:
    """A readable description: ``goal.progress`` -> ``"Stabilise line 3 by November 30" -> 60%``."""
    f = op.fields
    name = _target_label(target) if target is not None else None
    if op.kind in KEYED_OPS:
        key = f.get("key") or f.get("slot")
        return f"{key} = {f['value']}" if op.action == "set" and "value" in f else str(key)
    if op.kind == "relation":
        return f"({f.get('subject')}) -{f.get('relation')}-> ({f.get('object')})"
    if op.action == "add":
        return quote(_added_content(op))
    if name is None and op.op == "memory.delete" and f.get("subject"):
        return f"everything about {quote(str(f['subject']))}"
    if name is None:
        return quote(str(op.target)) if op.target else ""
    if op.action == "progress":
        return f"{quote(name)} -> {_percent(f['progress'])}" if f.get("progress") is not None else quote(name)
    if op.action == "supersede":
        return f"{quote(_without_rationale(name))} -> {f.get('chosen') or f.get('text')}"
    if op.action == "outcome":
        return f"{quote(name)} -> {'success' if f.get('worked', True) else 'failure'}"
    if op.action == "update" and f.get("text"):
        return f"{quote(name)} -> {quote(f['text'])}"
    return quote(name)


def _target_label(record: Record) -> str:
    title = record.metadata.get("title")
    return title if isinstance(title, str) and title else label(record.content, width=10_000)


def _without_rationale(text: str) -> str:
    cut = text.lower().find(" because ")
    return text[:cut] if cut > 0 else text


def _sentence(text: str) -> str:
    text = " ".join(str(text).split()).rstrip()
    return text if not text or text[-1] in ".!?" else text + "."


def _added_content(op: MemoryOp) -> str:
    """How the memory an ``add`` writes will read (the managers' content conventions, procedures numbered)."""
    f = op.fields
    if manages(op.kind, Goals):
        return f"Goal: {_sentence(f.get('title') or f.get('text') or '')}"
    if manages(op.kind, Decisions):
        text = str(f.get("text") or f.get("chosen") or "")
        return (
            _sentence(text)
            if text.lower().startswith(("decision:", "we decided", "i decided"))
            else f"Decision: {_sentence(text)}"
        )
    if manages(op.kind, Procedures):
        steps = f.get("steps") or []
        return f"{f.get('title')}: " + " ".join(
            f"{n}. {_sentence(s[:1].upper() + s[1:])}" for n, s in enumerate(steps, 1) if isinstance(s, str) and s
        )
    if manages(op.kind, Strategies) and f.get("context"):
        return f"For {f['context']}: {f.get('text')}"
    return str(f.get("text", ""))
