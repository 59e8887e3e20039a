"""``kioko.attach(agent, memory, user_id=...)``: an agent that remembers, in one line; ``kioko.detach`` undoes it.

Each turn of an attached agent:

1. before the model runs, Kioko recalls the context for the user's words (``memory.recall``) and puts it
   into the agent's instructions;
2. after the agent answers, the turn (the user's words and the reply) goes to ``memory.record_turn``, which
   routes it (a decision stated, a goal's progress ...) on a layer with intelligence, or keeps the user's
   words as an episode on one without.

Three kinds of agent:

- an **OpenAI Agents SDK** ``Agent``: its ``instructions`` become a function of the run's context (the
  turn's input is read there) and its ``hooks`` record the turn at ``on_end``; run it with ``Runner`` as before;
- an **Agno** ``Agent``: its ``run`` / ``arun`` are wrapped and its ``instructions`` become a function that
  adds the context recalled for the current call;
- **any other object with ``run`` or ``invoke``** taking the user's text first: the recalled context is put
  before the text (``"<context>\\n\\n<text>"``) and the result (its ``content``, ``output`` or ``final_output``
  if it has one, else ``str()``) is recorded as the reply.

The user is fixed when attaching: every recall and record of the agent is for that user, so the agent never
sees another user's memories. Attaching again changes the memory, user or session (it never wraps twice);
``detach`` puts back what attach replaced. Calls from several threads are safe: what a call recalled is
kept in a context variable of that call, never on the shared agent.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from dataclasses import dataclass
from typing import Any

from kioko.integrations._script import latest_user_text
from kioko.integrations.memory import Memory
from kioko_core.errors import InvalidRecordError

__all__ = ["attach", "detach", "attached"]

ATTRIBUTE = "_kioko_attachment"
HEADER = "What you remember about this user (Kioko memory; use it when it helps, never invent beyond it):"
_lock = threading.Lock()
_recalled: contextvars.ContextVar[str] = contextvars.ContextVar("kioko_recalled", default="")


@dataclass
class Attachment:
    """What attach changed on an agent, and for whom it acts."""

    memory: Memory
    user_id: str
    session_id: str | None
    links: int
    kind: str
    originals: dict[str, Any]

    def recall_text(self, text: str) -> str:
        """The context the memory recalls for ``text`` (empty for an empty text)."""
        if not text.strip():
            return ""
        context = self.memory.recall(text, user_id=self.user_id, session_id=self.session_id, links=self.links)
        return context.text.strip()

    def record(self, text: str, reply: Any) -> None:
        """Record one exchange (the user's ``text`` and the agent's reply) as a turn of the session."""
        if text.strip():
            self.memory.record_turn(text, _reply_text(reply) or None, user_id=self.user_id, session_id=self.session_id)


def attached(agent: Any) -> Attachment | None:
    """The attachment of an agent, or None."""
    found = agent.__dict__.get(ATTRIBUTE) if hasattr(agent, "__dict__") else None
    return found if isinstance(found, Attachment) else None


def attach(agent: Any, memory: Memory, *, user_id: str, session_id: str | None = None, links: int = 3) -> Any:
    """Give ``agent`` Kioko's memory of ``user_id`` (see the module's docstring); returns the agent itself."""
    if not isinstance(user_id, str) or not user_id:
        raise InvalidRecordError("attach needs the user's id (user_id='...'): an agent remembers for one user")
    with _lock:
        current = attached(agent)
        if current is not None:  # attached already: same wrapping, new settings
            current.memory, current.user_id, current.session_id, current.links = memory, user_id, session_id, links
            return agent
        kind = _kind_of(agent)
        attachment = Attachment(memory, user_id, session_id, links, kind, {})
        {"openai-agents": _attach_agents_sdk, "agno": _attach_agno, "generic": _attach_generic}[kind](agent, attachment)
        agent.__dict__[ATTRIBUTE] = attachment
        return agent


def detach(agent: Any) -> bool:
    """Undo :func:`attach`: the agent's instructions, hooks and methods are what they were. False if not attached."""
    with _lock:
        attachment = attached(agent)
        if attachment is None:
            return False
        for name, value in attachment.originals.items():
            if value is _ABSENT:
                agent.__dict__.pop(name, None)
            else:
                setattr(agent, name, value)
        del agent.__dict__[ATTRIBUTE]
        return True


_ABSENT = object()


def _kind_of(agent: Any) -> str:
    module = type(agent).__module__
    if module.startswith("agents.") and hasattr(agent, "instructions") and hasattr(agent, "hooks"):
        return "openai-agents"
    if module.startswith("agno.") and hasattr(agent, "instructions") and callable(getattr(agent, "run", None)):
        return "agno"
    if callable(getattr(agent, "run", None)) or callable(getattr(agent, "invoke", None)):
        return "generic"
    raise InvalidRecordError(
        f"kioko.attach works on an OpenAI Agents SDK Agent, an Agno Agent, or an object with run() or invoke(); "
        f"got {type(agent).__name__}"
    )


def _with_context(base: Any, recalled: str) -> Any:
    """The agent's own instructions with the recalled context after them (a list gets it as one more entry)."""
    if not recalled:
        return base
    block = f"{HEADER}\n{recalled}"
    if isinstance(base, list):
        return [*base, block]
    return f"{base}\n\n{block}" if base else block


def _reply_text(reply: Any) -> str:
    for name in ("final_output", "content", "output"):
        value = getattr(reply, name, None)
        if isinstance(value, str):
            return value
    return reply if isinstance(reply, str) else "" if reply is None else str(reply)


# -- the OpenAI Agents SDK


def _attach_agents_sdk(agent: Any, attachment: Attachment) -> None:
    from agents import AgentHooks

    original_instructions, original_hooks = agent.instructions, agent.hooks
    attachment.originals = {"instructions": original_instructions, "hooks": original_hooks}

    async def instructions(run_context: Any, this_agent: Any) -> Any:
        base = original_instructions
        if callable(base):
            base = base(run_context, this_agent)
            if inspect.isawaitable(base):
                base = await base
        text = latest_user_text(getattr(run_context, "turn_input", None) or [])
        recalled = await asyncio.to_thread(attachment.recall_text, text)
        return _with_context(base, recalled)

    class KiokoHooks(AgentHooks):  # type: ignore[misc]
        """The agent's own hooks, called as before, and the turn recorded when the agent answers."""

        def __getattribute__(self, name: str) -> Any:
            if name.startswith("on_") and name != "on_end" and original_hooks is not None:
                return getattr(original_hooks, name)
            return super().__getattribute__(name)

        async def on_end(self, context: Any, agent: Any, output: Any) -> None:
            if original_hooks is not None:
                await original_hooks.on_end(context, agent, output)
            text = latest_user_text(getattr(context, "turn_input", None) or [])
            await asyncio.to_thread(attachment.record, text, output)

    agent.instructions = instructions
    agent.hooks = KiokoHooks()


# -- Agno


def _attach_agno(agent: Any, attachment: Attachment) -> None:
    original_instructions = agent.instructions
    attachment.originals = {
        "instructions": original_instructions,
        "run": agent.__dict__.get("run", _ABSENT),
        "arun": agent.__dict__.get("arun", _ABSENT),
    }
    run, arun = agent.run, agent.arun

    def instructions(agent: Any = None, session_state: Any = None, run_context: Any = None) -> Any:
        base = original_instructions
        if callable(base):
            given = {"agent": agent, "session_state": session_state, "run_context": run_context}
            wanted = inspect.signature(base).parameters
            base = base(**{k: v for k, v in given.items() if k in wanted})
        return _with_context(base or "", _recalled.get())

    def attached_run(input: Any, *args: Any, **kwargs: Any) -> Any:
        text = latest_user_text([{"role": "user", "content": input}] if isinstance(input, str) else input)
        token = _recalled.set(attachment.recall_text(text))
        try:
            result = run(input, *args, **kwargs)
        finally:
            _recalled.reset(token)
        if not kwargs.get("stream"):
            attachment.record(text, result)
        return result

    async def attached_arun(input: Any, *args: Any, **kwargs: Any) -> Any:
        text = latest_user_text([{"role": "user", "content": input}] if isinstance(input, str) else input)
        token = _recalled.set(await asyncio.to_thread(attachment.recall_text, text))
        try:
            result = await arun(input, *args, **kwargs)
        finally:
            _recalled.reset(token)
        if not kwargs.get("stream"):
            await asyncio.to_thread(attachment.record, text, result)
        return result

    agent.instructions = instructions
    agent.__dict__["run"] = attached_run
    agent.__dict__["arun"] = attached_arun


# -- anything with run() or invoke()


def _attach_generic(agent: Any, attachment: Attachment) -> None:
    name = "run" if callable(getattr(agent, "run", None)) else "invoke"
    attachment.originals = {name: agent.__dict__.get(name, _ABSENT)}
    call = getattr(agent, name)

    def attached_call(input: Any, *args: Any, **kwargs: Any) -> Any:
        text = input if isinstance(input, str) else latest_user_text(input)
        recalled = attachment.recall_text(text)
        given = f"{HEADER}\n{recalled}\n\n{input}" if recalled and isinstance(input, str) else input
        result = call(given, *args, **kwargs)
        attachment.record(text, result)
        return result

    agent.__dict__[name] = attached_call
