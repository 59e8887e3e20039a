"""Know-how with outcome counts: ``memory.procedures`` (steps), ``memory.strategies`` (lessons) and
``memory.skills``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kioko_core.errors import InvalidRecordError
from kioko_core.kinds.base import KindManager, _metadata, _OutcomeMixin, _text, _TextManager
from kioko_core.store import Record

_STEP_NUMBER = re.compile(r"^\s*(?:step\s*)?\d+\s*[.):]\s*", re.IGNORECASE)


# --------------------------------------------------------------------------- procedures, lessons, skills


class Procedures(_OutcomeMixin, KindManager):
    """``memory.procedures``: how to do something, step by step, with how often it worked."""

    def add(
        self,
        title: str,
        steps: Sequence[str],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a procedure; content ``"<title>: 1) step; 2) step"``, metadata title, steps, successes, failures."""
        title, steps = _procedure_title(title), _steps(steps)
        fields = {"title": title, "steps": steps, "successes": 0, "failures": 0}
        return self._add(
            _procedure_content(title, steps),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        title: str | None = None,
        steps: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        text: str | None = None,
    ) -> Record:
        """Change the title and/or the steps (the content is rebuilt), or merge metadata."""
        if text is not None:
            raise InvalidRecordError("a procedure's text is built from its title and steps; pass title= or steps=")
        changes = _metadata(metadata)
        if title is None and steps is None:
            return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=changes)
        new_title = _procedure_title(title) if title is not None else None
        new_steps = _steps(steps) if steps is not None else None

        def rebuilt(current: Record) -> tuple[str, list[str]]:
            # the part not given is taken from the memory as stored now, never from an earlier read: a
            # concurrent change of the steps survives a change of the title, and the other way round
            kept_steps = current.metadata.get("steps")
            return (
                new_title if new_title is not None else str(current.metadata.get("title", "")),
                new_steps if new_steps is not None else list(kept_steps) if isinstance(kept_steps, list) else [],
            )

        def fields(current: Record) -> dict[str, Any]:
            title_now, steps_now = rebuilt(current)
            return {**changes, "title": title_now, "steps": steps_now}

        return self._change(
            memory_id,
            user_id=user_id,
            agent_id=agent_id,
            content=lambda current: _procedure_content(*rebuilt(current)),
            metadata=fields,
        )


def _procedure_title(title: Any) -> str:
    text = _text(title, "title").rstrip(" .:")
    if not text:
        raise InvalidRecordError("title must say what the procedure does")
    return text


def _steps(steps: Any) -> list[str]:
    if isinstance(steps, str) or not isinstance(steps, Sequence):
        raise InvalidRecordError("steps must be a list of strings, one per step")
    cleaned = [_STEP_NUMBER.sub("", _text(step, "step"), count=1).rstrip(" .;") for step in steps]
    if not cleaned or not all(cleaned):
        raise InvalidRecordError("a procedure needs at least one step, and every step needs words")
    return cleaned


def _procedure_content(title: str, steps: list[str]) -> str:
    return f"{title}: " + "; ".join(f"{number}) {step}" for number, step in enumerate(steps, 1))


class Strategies(_OutcomeMixin, KindManager):
    """``memory.strategies`` (also ``memory.lessons``): what was learned, optionally for which situation."""

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        context: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a lesson; with ``context`` the content reads ``"For <context>: <text>"``."""
        body = _text(text)
        fields: dict[str, Any] = {"successes": 0, "failures": 0}
        if context is not None:
            fields["context"] = _text(context, "context").rstrip(" .:")
            body = f"For {fields['context']}: {body}"
        return self._add(
            body,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )


class Skills(_OutcomeMixin, _TextManager):
    """``memory.skills``: something the agent can do (a prompt template, a tool recipe), with its track record."""

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a skill; ``title`` (optional) becomes its label in link lines."""
        fields: dict[str, Any] = {"successes": 0, "failures": 0}
        if title is not None:
            fields["title"] = _text(title, "title").rstrip(" .")
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )
