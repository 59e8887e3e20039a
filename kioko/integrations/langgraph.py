"""``KiokoStore``: a LangGraph ``BaseStore`` whose items are Kioko memories (``pip install 'kioko[langgraph]'``).

Mapping (see docs/integrations.md):

- **Scope.** A store acts for one Kioko user, ``user_id`` (default ``"langgraph"``), or, with ``user_label=i``,
  for the user named by label ``i`` of each namespace (LangMem's ``("memories", "{user_id}")`` is
  ``user_label=1``). Then an operation must name its user: a search or listing whose prefix does not fix
  that label is refused, so one call never reads two users' memories.
- **Items.** ``(namespace, key)`` is one memory with an id derived from the scope, namespace and key; the
  value dict is kept in ``metadata["langgraph"]`` and comes back equal (JSON values only: anything JSON
  would change, such as a tuple or a non-string key, is refused on ``put``). The memory's text is the
  value's strings (or the index fields' texts), so Kioko's recall, linking and secret screen see it; a
  value holding a credential is refused (:class:`~kioko.SecretDropped`), as every Kioko write is.
- **Search.** ``search(query=...)`` is Kioko's recall (lexical, vector and links followed);
  ``SearchItem.score`` is recall's fused score (higher is better within one search). Items that match the
  filter but that recall did not find come after, with score 0.0 (indexed) or None (``index=False``).
  Filters compare the value's fields (``$eq $ne $gt $gte $lt $lte``). Without a query, the newest first.
- **index=False** stores a ``working`` memory without a session: kept and read back, never indexed,
  linked or shown in a recalled context.
- **TTL** is not supported (``supports_ttl`` is False): a ``ttl`` or a ``TTLConfig`` raises
  :class:`TTLNotSupported`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from kioko.integrations.memory import Memory
from kioko_core.errors import IdTaken, InvalidRecordError, KiokoError, MemoryNotFound, MissingExtraError

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        ensure_embeddings,
        get_text_at_path,
        validate_op_namespace,
    )
except ImportError as error:  # pragma: no cover - depends on the environment
    raise MissingExtraError(f"KiokoStore needs LangGraph: pip install 'kioko[langgraph]' ({error})") from None

__all__ = ["KiokoStore", "LangChainEmbedder", "TTLNotSupported"]

META = "langgraph"
"""The metadata key holding an item's namespace, key and value."""
UNINDEXED_KIND = "working"
SEARCH_POOL = 200
"""At most this many memories are asked of recall per search; what it did not rank comes from a scan."""


class TTLNotSupported(KiokoError, NotImplementedError):
    """A ``ttl`` (or a ``TTLConfig``) was given: Kioko memories do not expire by time."""


class LangChainEmbedder:
    """A LangChain ``Embeddings`` (or an embedding function) as a Kioko embedder, for ``index={"embed": ...}``."""

    lexical = False

    def __init__(self, embed: Any, dim: int) -> None:
        self._embeddings = ensure_embeddings(embed)
        self.dim = int(dim)

    def embed(self, text: str) -> np.ndarray:
        """The unit vector LangChain's embeddings give ``text`` (a query)."""
        return self._unit(self._embeddings.embed_query(text))

    def embed_many(self, texts: list[str]) -> list[np.ndarray]:
        """The unit vectors LangChain's embeddings give ``texts`` (documents)."""
        return [self._unit(v) for v in self._embeddings.embed_documents(texts)]

    def _unit(self, values: Sequence[float]) -> np.ndarray:
        vector = np.asarray(values, dtype=np.float32)
        if vector.shape != (self.dim,):
            raise InvalidRecordError(f"the embedding has {vector.size} numbers, index dims says {self.dim}")
        norm = float(np.linalg.norm(vector))
        if norm == 0.0 or not math.isfinite(norm):
            out = np.zeros(self.dim, dtype=np.float32)
            out[0] = 1.0  # an empty text still needs a valid vector
            return out
        return vector / norm

    def __repr__(self) -> str:
        return f"LangChainEmbedder(dim={self.dim})"


class KiokoStore(BaseStore):
    """A LangGraph store on a Kioko memory (a :class:`kioko.MemoryLayer` or a ``RemoteMemory``).

    ``KiokoStore(memory, user_id="kumar")`` keeps every namespace in Kumar's memories;
    ``KiokoStore(memory, user_label=1)`` takes the user from the namespace's second label.
    ``index`` is LangGraph's :class:`IndexConfig`: its ``fields`` choose the text recall searches; its
    ``embed`` is honoured by :meth:`connect`, which builds the layer with that embedder.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        user_id: str = "langgraph",
        user_label: int | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        links: int = 3,
        memory_type: str = "factual",
    ) -> None:
        if ttl:
            raise TTLNotSupported("Kioko memories do not expire by time: KiokoStore takes no TTLConfig")
        if user_label is not None and (isinstance(user_label, bool) or not isinstance(user_label, int)):
            raise InvalidRecordError(f"user_label must be a namespace position (an int), got {user_label!r}")
        self.memory = memory
        self.user_id = user_id
        self.user_label = user_label
        self.index_config = dict(index) if index else None
        self.links = links
        self.memory_type = memory_type
        fields = (index or {}).get("fields")
        self._fields: list[str] | None = None if fields is None or list(fields) == ["$"] else list(fields)
        self._lock = threading.RLock()  # a put reads then writes: one operation at a time per store

    @classmethod
    def connect(
        cls,
        url: str = "memory://",
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        user_id: str = "langgraph",
        user_label: int | None = None,
        **options: Any,
    ) -> KiokoStore:
        """A store on a new Kioko layer at ``url``, with linking on and ``index["embed"]`` as its embedder."""
        import kioko

        if ttl:
            raise TTLNotSupported("Kioko memories do not expire by time: KiokoStore takes no TTLConfig")
        if index and index.get("embed") is not None:
            options.setdefault("embedder", LangChainEmbedder(index["embed"], index["dims"]))
        options.setdefault("auto_link", True)
        layer = kioko.connect(url, **options)
        store = cls(layer, user_id=user_id, user_label=user_label, index=index)
        store._owned = layer
        return store

    _owned: Any = None

    def close(self) -> None:
        """Close the layer :meth:`connect` opened (a memory passed in belongs to the caller)."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    # -- the batch

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations (get, search, put, list namespaces) in order, one at a time."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)  # a label such as "a.b" never reaches the store
        with self._lock:
            return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            if op.ttl is not None:
                raise TTLNotSupported("Kioko memories do not expire by time: put without ttl")
            if op.value is None:
                self._delete(op.namespace, op.key)
            else:
                self._put(op.namespace, op.key, op.value, op.index)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidRecordError(f"unknown LangGraph operation {type(op).__name__}")

    # -- scope and identity

    def _user(self, namespace: tuple[str, ...], *, exact: bool = True) -> str:
        """The Kioko user a namespace belongs to; with ``user_label``, the label at that position."""
        if self.user_label is None:
            return self.user_id
        position = self.user_label
        if len(namespace) <= position or (not exact and namespace[position] == "*"):
            raise InvalidNamespaceError(
                f"namespace {namespace!r} does not name a user at label {position}: KiokoStore(user_label="
                f"{position}) reads one user's memories per call, never several users' at once"
            )
        return namespace[position]

    def _id(self, user: str, namespace: tuple[str, ...], key: str) -> str:
        name = "\x1f".join([user, *namespace, "", key]).encode("utf-8")
        return "lg-" + hashlib.blake2b(name, digest_size=16).hexdigest()

    # -- items

    def _record(self, user: str, namespace: tuple[str, ...], key: str) -> Any:
        try:
            found = self.memory.get(self._id(user, namespace, key), user_id=user)
        except MemoryNotFound:
            return None
        entry = found.metadata.get(META)
        if not isinstance(entry, dict) or tuple(entry.get("namespace", ())) != namespace or entry.get("key") != key:
            return None
        return found

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        found = self._record(self._user(namespace), namespace, key)
        return None if found is None else _item(found, Item)

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any) -> None:
        user = self._user(namespace)
        value = _exact_json(value)
        indexed = index is not False
        text = self._text(value, index if isinstance(index, list) else None)
        kind = self.memory_type if indexed else UNINDEXED_KIND
        metadata = {META: {"namespace": list(namespace), "key": key, "value": value}}
        current = self._record(user, namespace, key)
        memory_id = self._id(user, namespace, key)
        if current is not None and current.kind == kind:
            self.memory.update(
                memory_id, user_id=user, content=text if text != current.content else None, metadata=metadata
            )
            return
        if current is not None:  # indexed <-> not indexed: another kind, so another memory under the same id
            self.memory.delete(memory_id, user_id=user)
        try:
            self.memory.add(text, user_id=user, memory_type=kind, metadata=metadata, id=memory_id)
        except IdTaken:
            # added by another writer since we looked: this put is the later one
            self.memory.update(memory_id, user_id=user, content=text, metadata=metadata)

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        user = self._user(namespace)
        if self._record(user, namespace, key) is not None:
            self.memory.delete(self._id(user, namespace, key), user_id=user)

    def _text(self, value: dict[str, Any], fields: list[str] | None) -> str:
        """What Kioko reads of a value: the index fields' texts, else every string in it, else its JSON."""
        fields = fields if fields is not None else self._fields
        texts = [t for path in fields for t in get_text_at_path(value, path)] if fields else list(_strings(value))
        text = "\n".join(t for t in texts if t.strip())
        return text or json.dumps(value, sort_keys=True, ensure_ascii=False)

    # -- reading many

    def _scan(self, prefix: tuple[str, ...]) -> list[Any]:
        """Every item memory whose namespace starts with ``prefix`` (``"*"`` matches any one label)."""
        user = self._user(prefix, exact=False) if self.user_label is not None else self.user_id
        found = []
        for record in self.memory.memories(user_id=user, kinds={self.memory_type, UNINDEXED_KIND}):
            entry = record.metadata.get(META)
            if isinstance(entry, dict) and _starts_with(tuple(entry.get("namespace", ())), prefix):
                found.append(record)
        return found

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        wanted = op.offset + op.limit

        def keep(record: Any) -> bool:
            entry = record.metadata.get(META)
            return (
                isinstance(entry, dict)
                and _starts_with(tuple(entry.get("namespace", ())), prefix)
                and _matches(entry.get("value"), op.filter)
            )

        ranked: list[tuple[Any, float | None]] = []
        if op.query:
            user = self._user(prefix, exact=False) if self.user_label is not None else self.user_id
            pool = min(SEARCH_POOL, max(20, wanted * 4))
            context = self.memory.recall(
                op.query,
                user_id=user,
                links=self.links,
                limit=pool,
                plan=False,
                config={"candidates": pool, "goals": 0},
            )
            seen: set[str] = set()
            for recalled in context.memories:
                record = recalled.record
                if record.kind == self.memory_type and record.id not in seen and keep(record):
                    seen.add(record.id)
                    ranked.append((record, float(recalled.score)))
            if len(ranked) < wanted:  # the rest of what matches, after what recall ranked
                rest = [r for r in self._scan(prefix) if r.id not in seen and keep(r)]
                rest.sort(key=lambda r: (r.kind != self.memory_type, -r.updated_at, _sort_key(r)))
                ranked.extend((r, 0.0 if r.kind == self.memory_type else None) for r in rest)
        else:
            every = [r for r in self._scan(prefix) if keep(r)]
            every.sort(key=lambda r: (-r.updated_at, _sort_key(r)))
            ranked = [(r, None) for r in every]
        return [_item(record, SearchItem, score=score) for record, score in ranked[op.offset : wanted]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = list(op.match_conditions or ())
        prefix = next((tuple(c.path) for c in conditions if c.match_type == "prefix"), ())
        spaces: set[tuple[str, ...]] = set()
        for record in self._scan(prefix):
            namespace = tuple(record.metadata[META]["namespace"])
            if all(_condition(namespace, c) for c in conditions):
                spaces.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(spaces)[op.offset : op.offset + op.limit]


# -- helpers


def _item(record: Any, cls: Callable[..., Any], **extra: Any) -> Any:
    entry = record.metadata[META]
    return cls(
        value=entry["value"],
        key=entry["key"],
        namespace=tuple(entry["namespace"]),
        created_at=datetime.fromtimestamp(record.created_at, tz=UTC),
        updated_at=datetime.fromtimestamp(record.updated_at, tz=UTC),
        **extra,
    )


def _sort_key(record: Any) -> tuple[tuple[str, ...], str]:
    entry = record.metadata[META]
    return tuple(entry["namespace"]), entry["key"]


def _exact_json(value: Mapping[str, Any]) -> dict[str, Any]:
    """``value`` as a plain dict, or an error when storing it as JSON would not give it back equal."""
    if not isinstance(value, Mapping):
        raise InvalidRecordError(f"a LangGraph value must be a dict, got {type(value).__name__}")
    try:
        copy = json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError) as error:
        raise InvalidRecordError(f"KiokoStore keeps JSON values only: {error}") from None
    if copy != dict(value) or not _same_types(copy, value):
        raise InvalidRecordError(
            "KiokoStore keeps JSON values only, so a value comes back equal: this one holds a tuple, a "
            "non-string key or another type JSON would change"
        )
    return dict(copy)


def _same_types(copy: Any, value: Any) -> bool:
    if isinstance(value, Mapping):
        return isinstance(copy, dict) and all(_same_types(copy[str(k)], v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value) is list and all(_same_types(c, v) for c, v in zip(copy, value))
    return type(copy) is type(value)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def _starts_with(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return len(namespace) >= len(prefix) and all(p in ("*", n) for p, n in zip(prefix, namespace))


def _condition(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if condition.match_type == "prefix":
        return _starts_with(namespace, path)
    if condition.match_type == "suffix":
        return _starts_with(namespace[::-1], path[::-1])
    raise InvalidRecordError(f"unknown namespace match type {condition.match_type!r}")


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _matches(value: Any, filter: dict[str, Any] | None) -> bool:
    """LangGraph's filter: each key equal to the value's field, or ``{"$gt": 3}`` style comparisons."""
    if not filter:
        return True
    if not isinstance(value, dict):
        return False
    for key, wanted in filter.items():
        actual = value.get(key)
        if isinstance(wanted, dict) and wanted and all(k.startswith("$") for k in wanted):
            for name, operand in wanted.items():
                compare = _OPERATORS.get(name)
                if compare is None:
                    raise InvalidRecordError(f"unknown filter operator {name!r}; known: {sorted(_OPERATORS)}")
                try:
                    if not compare(actual, operand):
                        return False
                except TypeError:  # None or another type than the operand's: not a match
                    return False
        elif isinstance(wanted, dict):
            if not _matches(actual, wanted):
                return False
        elif actual != wanted:
            return False
    return True
