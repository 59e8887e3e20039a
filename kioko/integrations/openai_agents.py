"""Kioko in the OpenAI Agents SDK (``pip install 'kioko[openai-agents]'``).

- :class:`KiokoSession`: the SDK's ``Session`` protocol (a conversation's items) kept in Kioko, every
  text screened for credentials first (a secret is kept as ``[redacted: <kind>]``, never as itself).
- :func:`kioko_tools`: ``recall``, ``remember`` and ``forget`` as ``function_tool`` objects bound to one
  user: the model never names a user, so it can never reach another user's memories.
- :func:`kioko.attach` (see :mod:`kioko.integrations.attach`) puts recalled context into an ``Agent``'s
  instructions before each model call and records each turn after it.

Long-term memory is the tools' and the instructions' business, not the session's: ``get_items`` returns
the conversation as it was, nothing recalled.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from typing import Any

from kioko.integrations.memory import Memory
from kioko.integrations.tools import memory_tools
from kioko_core.errors import IdTaken, MemoryNotFound, MissingExtraError, SecretDropped
from kioko_core.privacy.secrets import REDACTED, DropSecrets, redact

try:
    from agents import FunctionTool, function_tool
except ImportError as error:  # pragma: no cover - depends on the environment
    raise MissingExtraError(f"this needs the OpenAI Agents SDK: pip install 'kioko[openai-agents]' ({error})") from None

__all__ = ["KiokoSession", "kioko_tools", "item_text", "screened"]

META = "openai_agents"
"""The metadata key holding a session item and its place in the session."""
SESSION_KIND = "working"
"""A session's items are working memory: never indexed, linked or recalled as the user's knowledge."""


_SCREEN = DropSecrets()


def screened(value: Any, key: str = "") -> Any:
    """``value`` (an item: dicts, lists, strings) with every credential in its strings redacted.

    A value is also read with its key (``{"password": "x"}`` as ``password: x``), and a string holding a
    JSON object (a tool call's arguments) is screened as that object, so a secret passed to a tool is found.
    """
    if isinstance(value, str):
        if key and _SCREEN.check(f"{key.replace('_', ' ')}: {value}") and not _SCREEN.check(value):
            return REDACTED  # a password-like field: its whole value goes
        stripped = value.strip()
        if stripped.startswith("{") and stripped.endswith("}"):
            try:
                parsed = json.loads(stripped)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                clean = screened(parsed)
                return value if clean == parsed else json.dumps(clean)
        return redact(value)
    if isinstance(value, dict):
        return {name: screened(inner, str(name)) for name, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [screened(inner) for inner in value]
    return value


KEPT_KEYS = frozenset({"role", "type", "status", "call_id", "id", "name"})


def _blank(value: Any, key: str = "") -> Any:
    """``value`` with every string but an item's structural fields (role, type, ids) replaced by ``[REDACTED]``."""
    if isinstance(value, str):
        return value if key in KEPT_KEYS and len(value) < 100 and not any(c.isspace() for c in value) else REDACTED
    if isinstance(value, dict):
        return {name: _blank(inner, str(name)) for name, inner in value.items()}
    if isinstance(value, list):
        return [_blank(inner) for inner in value]
    return value


def item_text(item: Any) -> str:
    """A readable line for an item: ``"user: ..."`` for a message, the call or output for a tool's item."""
    if not isinstance(item, dict):
        return str(item)
    content = item.get("content")
    if isinstance(content, list):
        content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict) and part.get("text"))
    if isinstance(content, str) and content.strip():
        return f"{item.get('role', item.get('type', 'item'))}: {content}"
    if item.get("type") == "function_call":
        return f"call {item.get('name')}({item.get('arguments', '')})"
    if item.get("type") == "function_call_output":
        return f"output: {item.get('output', '')}"
    return json.dumps(item, sort_keys=True, default=str)[:2000]


class KiokoSession:
    """One conversation's items for the SDK's ``Runner.run(..., session=...)``, kept in Kioko.

    Items are working-memory records of ``user_id``'s scope under the session ``session_id`` (as seen by
    Kioko, ``"openai-agents:<session_id>"``, so recalled contexts never show them as the session's
    scratchpad); forgetting the user removes them with the rest. Every string of an item passes Kioko's
    secret screen before it is stored: a credential is kept as ``[redacted: <kind>]``.
    """

    session_settings: Any = None

    def __init__(self, session_id: str, memory: Memory, *, user_id: str) -> None:
        self.session_id = session_id
        self.memory = memory
        self.user_id = user_id
        self._kioko_session = f"openai-agents:{session_id}"
        self._lock = threading.Lock()

    def _id(self, position: int) -> str:
        name = "\x1f".join([self.user_id, self._kioko_session, str(position)]).encode("utf-8")
        return "oa-" + hashlib.blake2b(name, digest_size=16).hexdigest()

    def _records(self) -> list[Any]:
        mine = [
            r
            for r in self.memory.memories(user_id=self.user_id, kinds={SESSION_KIND})
            if r.session_id == self._kioko_session and isinstance(r.metadata.get(META), dict)
        ]
        return sorted(mine, key=lambda r: r.metadata[META]["position"])

    def _get(self, limit: int | None) -> list[Any]:
        items = [r.metadata[META]["item"] for r in self._records()]
        return items if limit is None else items[-limit:] if limit > 0 else []

    def _add(self, items: list[Any]) -> None:
        with self._lock:
            records = self._records()
            position = records[-1].metadata[META]["position"] + 1 if records else 0
            for item in items:
                kept = screened(item)
                while True:
                    try:
                        self._store(kept, position)
                        break
                    except IdTaken:  # another writer took this place in the session: the next one
                        position += 1
                    except SecretDropped:
                        # the screen found a secret redaction alone did not remove (a value named by its
                        # key, such as {"password": ...}): the item's texts are dropped, its shape kept
                        kept = _blank(kept)
                position += 1

    def _store(self, item: Any, position: int) -> None:
        self.memory.add(
            redact(item_text(item)) or "item",
            user_id=self.user_id,
            session_id=self._kioko_session,
            memory_type=SESSION_KIND,
            metadata={META: {"item": item, "position": position}},
            id=self._id(position),
        )

    def _pop(self) -> Any:
        with self._lock:
            records = self._records()
            if not records:
                return None
            last = records[-1]
            try:
                self.memory.delete(last.id, user_id=self.user_id)
            except MemoryNotFound:
                return None
            return last.metadata[META]["item"]

    def _clear(self) -> None:
        with self._lock:
            for record in self._records():
                self.memory.delete(record.id, user_id=self.user_id)

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items, oldest first (the last ``limit`` of them)."""
        return await asyncio.to_thread(self._get, limit)

    async def add_items(self, items: list[Any]) -> None:
        """Add items to the session, credentials redacted."""
        await asyncio.to_thread(self._add, list(items))

    async def pop_item(self) -> Any:
        """Remove and return the session's newest item (None when there is none)."""
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Remove every item of the session."""
        await asyncio.to_thread(self._clear)

    def __repr__(self) -> str:
        return f"KiokoSession({self.session_id!r}, user_id={self.user_id!r})"


def kioko_tools(memory: Memory, user_id: str, *, links: int = 3, limit: int = 8) -> list[FunctionTool]:
    """``recall``, ``remember`` and ``forget`` as function tools acting for ``user_id`` only
    (see :func:`kioko.integrations.tools.memory_tools`)."""
    return [function_tool(tool) for tool in memory_tools(memory, user_id, links=links, limit=limit)]
