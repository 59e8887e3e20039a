"""The Store protocol: the only thing Kioko's core knows about storage.

Everything Kioko keeps is a :class:`Record` (memories of every kind, entity triples, bookkeeping).
A store implements five methods. Each docstring below is the contract; ``contract_tests`` checks it.

Scope
    Every record belongs to exactly one scope ``(user_id, agent_id)``; ``agent_id`` may be None,
    which is a scope of its own (not a wildcard). No method ever returns, changes or counts a record
    of a scope other than the one it was asked about. Record ids are unique across the whole store.

Versions
    A store stamps ``version`` on every write: 1 for a new record, previous + 1 after that. An
    :class:`Upsert` or :class:`Delete` may carry ``expected_version`` (0 = "must not exist yet");
    if any op's expectation fails, :meth:`Store.update_many` raises :class:`ConflictError` and
    applies nothing of the batch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator
from pydantic_core import PydanticUndefined

# The protocol's errors live in errors.py beside the layer's own; they are part of this module's
# interface, so a driver imports them from here (`X as X` marks each as re-exported).
from kioko_core.errors import ConflictError as ConflictError
from kioko_core.errors import ConnectionLostError as ConnectionLostError
from kioko_core.errors import IdTaken as IdTaken
from kioko_core.errors import InvalidRecordError as InvalidRecordError
from kioko_core.errors import KiokoError as KiokoError
from kioko_core.errors import MissingExtraError as MissingExtraError
from kioko_core.errors import StoreError as StoreError
from kioko_core.errors import UnknownStoreError as UnknownStoreError

DEFAULT_DIM = 256
"""Vector length a store accepts unless opened with another ``dim`` (the offline embedder's)."""

CONTRACT_VERSION = 7
"""The version of the store contract this Kioko holds drivers to; it grows when the contract suite gains a
test a driver written before may fail (or an optional capability). A driver may say which version it was
written for with a ``contract_version`` class attribute; ``python -m contract_tests`` then lists what
changed since. What each version added: ``contract_tests/versions.py`` and docs/drivers-changes.md."""


# --------------------------------------------------------------------------- values


class Scope(NamedTuple):
    """Whose records: one user, and optionally one of that user's agents (None is its own scope)."""

    user_id: str
    agent_id: str | None = None


def check_scope(scope: Scope | tuple[object, ...]) -> Scope:
    """Return ``scope`` as a :class:`Scope`, or raise :class:`InvalidRecordError` if it is malformed.

    A user or agent id holding a NUL or a lone surrogate is malformed too: no record can be in such a scope
    (:data:`INPUT_RULE`), and PostgreSQL or UTF-8 would fail on it in the driver instead, each its own way.
    """
    if not isinstance(scope, tuple) or len(scope) != 2:
        raise InvalidRecordError(f"scope must be (user_id, agent_id), got {scope!r}")
    user_id, agent_id = scope
    if not isinstance(user_id, str) or not user_id:
        raise InvalidRecordError("user_id must be a non-empty string")
    if agent_id is not None and (not isinstance(agent_id, str) or not agent_id):
        raise InvalidRecordError("agent_id must be None or a non-empty string")
    if not is_storable_text(user_id) or agent_id is not None and not is_storable_text(agent_id):
        raise InvalidRecordError("a scope's user_id and agent_id are text without NUL characters or lone surrogates")
    return Scope(user_id, agent_id)


class Record(BaseModel):
    """One stored item. Stores keep every field exactly as given, except ``version``, which they stamp."""

    # defer_build (here and below): pydantic builds a model's validator on its first use, not at import; a
    # process that only reads (a CLI recall: records come back through model_construct) skips most of it
    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=False, defer_build=True)

    id: str = Field(min_length=1, max_length=200)
    user_id: str = Field(min_length=1)
    agent_id: str | None = None
    kind: str = Field(min_length=1)
    content: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    terms: list[str] = Field(default_factory=list)
    """Salient terms the core derived; what :meth:`Store.postings` indexes (duplicates are ignored)."""
    embedding: np.ndarray | None = None
    """float32 vector of the store's ``dim``, finite; None when the record has no vector."""
    session_id: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    version: int = 0
    system: dict[str, Any] | None = None
    """The memory layer's bookkeeping of a memory, apart from the caller's ``metadata``: ``links`` (its adjacency
    entries), ``entities``, ``linked_at``, ``unlinked`` (see :mod:`kioko_core.linking.links`). None on a record the layer
    did not read or build. Not a driver's concern: the layer folds it into what it hands a store (the metadata
    key ``_kioko``, and the link entries of a :class:`~kioko_core.store.link_store.LinkStore`) and a driver never
    stores or returns it (:class:`~kioko_core.layer.records.LayerStore`)."""

    _read: Any = PrivateAttr(default=None)
    # what the layer's store read this record as (kioko_core.layer.records): a change of its links alone is then
    # written as link entries, without rewriting the record (model_copy keeps it)
    _side: Any = PrivateAttr(default=None)
    # the linker's view of this record as a candidate (kioko_core.linking.scoring.Side.of_stored), made once

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)

    @field_validator("agent_id")
    @classmethod
    def _agent_not_empty(cls, value: str | None) -> str | None:
        if value == "":
            raise ValueError("agent_id must be None or a non-empty string")
        return value

    @field_validator("terms")
    @classmethod
    def _unique_terms(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("embedding", mode="before")
    @classmethod
    def _as_float32(cls, value: Any) -> np.ndarray | None:
        if value is None:
            return None
        vector = np.asarray(value, dtype=np.float32)
        if vector.ndim != 1 or vector.size == 0:
            raise ValueError("embedding must be a non-empty 1-d vector")
        if not np.isfinite(vector).all():  # the array's methods: numpy.all / numpy.any's dispatch cost more
            raise ValueError("embedding contains NaN or infinity")
        if not vector.any():
            raise ValueError("embedding is all zeros; cosine similarity is undefined for it")
        return vector

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        mine, theirs = self.model_dump(exclude={"embedding"}), other.model_dump(exclude={"embedding"})
        if mine != theirs:
            return False
        if self.embedding is None or other.embedding is None:
            return self.embedding is None and other.embedding is None
        return bool(np.array_equal(self.embedding, other.embedding))

    __hash__ = None  # type: ignore[assignment]

    def __repr_args__(
        self,
    ) -> Iterator[tuple[str | None, Any]]:  # a 256-float vector drowns every other field in a repr
        for name, value in super().__repr_args__():
            if name == "embedding" and value is not None:
                value = f"<float32[{value.shape[0]}]>"
            yield name, value


_set_attribute = object.__setattr__


def record_copy(record: Record, update: Mapping[str, Any]) -> Record:
    """``record.model_copy(update=update)``, made directly: the same copy (fields, fields set and private
    attributes kept, ``update``'s fields replaced without validation) in about half the time. A linked write
    copies a dozen records (each new link changes two), which made pydantic's generic copy a visible part of it."""
    copied = type(record).__new__(type(record))
    values = record.__dict__.copy()
    values.update(update)
    _set_attribute(copied, "__dict__", values)
    extra = record.__pydantic_extra__
    _set_attribute(copied, "__pydantic_extra__", None if extra is None else dict(extra))
    fields_set = set(record.__pydantic_fields_set__)
    fields_set.update(update)
    _set_attribute(copied, "__pydantic_fields_set__", fields_set)
    private = record.__pydantic_private__
    _set_attribute(
        copied,
        "__pydantic_private__",
        None if private is None else {k: v for k, v in private.items() if v is not PydanticUndefined},
    )
    return copied


class Upsert(BaseModel):
    """Insert ``record`` or replace the record with its id (which must be in the same scope)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)
    record: Record
    expected_version: int | None = None


class Delete(BaseModel):
    """Delete record ``id`` of ``scope``; deleting a missing id is not an error (unless a version is expected)."""

    model_config = ConfigDict(defer_build=True)

    id: str
    scope: Scope
    expected_version: int | None = None


Op = Upsert | Delete


class Filter(BaseModel):
    """Narrows :meth:`Store.knn` and :meth:`Store.scan`. Every field that is set must hold."""

    model_config = ConfigDict(defer_build=True)

    kinds: frozenset[str] | None = None
    session_id: str | None = None
    created_after: float | None = None
    """Inclusive lower bound on ``created_at``."""
    created_before: float | None = None
    """Exclusive upper bound on ``created_at``."""
    ids: frozenset[str] | None = None

    def matches(self, record: Record) -> bool:
        """Reference semantics every driver must reproduce."""
        return (
            (self.kinds is None or record.kind in self.kinds)
            and (self.session_id is None or record.session_id == self.session_id)
            and (self.created_after is None or record.created_at >= self.created_after)
            and (self.created_before is None or record.created_at < self.created_before)
            and (self.ids is None or record.id in self.ids)
        )


def check_filter(filter: Filter | None) -> Filter | None:
    """``filter`` if every value it sets is one a record can hold, else :class:`InvalidRecordError`.

    The same rule as a scope's: ``kinds``, ``session_id`` and ``ids`` are text without a NUL or a lone surrogate
    (a database would fail on them, each its own way), and a ``created_*`` bound is a number that is not NaN
    (NaN compares differently in SQL, numpy and Python). A :class:`Filter` built with ``model_construct`` or
    changed in place skips pydantic's checks, so the types are checked here too.
    """
    if filter is None:
        return None
    if not isinstance(filter, Filter):
        raise InvalidRecordError(f"filter must be a Filter or None, got {type(filter).__name__}")
    for name in ("kinds", "ids"):
        values = getattr(filter, name)
        if values is not None and (
            not isinstance(values, frozenset) or not all(is_storable_text(value) for value in values)
        ):
            raise InvalidRecordError(
                f"Filter.{name} must be a set of strings without NUL characters or lone surrogates, got {values!r}"
            )
    if filter.session_id is not None and not is_storable_text(filter.session_id):
        raise InvalidRecordError(
            f"Filter.session_id must be a string without NUL characters or lone surrogates, got {filter.session_id!r}"
        )
    for name in ("created_after", "created_before"):
        bound = getattr(filter, name)
        if bound is not None and (type(bound) not in (int, float) or math.isnan(bound)):
            raise InvalidRecordError(f"Filter.{name} must be None or a number (not NaN), got {bound!r}")
    return filter


class Postings(NamedTuple):
    """What :meth:`Store.postings` returns."""

    n: int
    """Records of the scope that have at least one term."""
    df: dict[str, int]
    """Per asked term, how many records of the scope have it (0 when none)."""
    ids: dict[str, list[str]]
    """Per asked term, up to ``limit`` ids holding it, newest ``created_at`` first (ties: id)."""


class Neighbor(NamedTuple):
    id: str
    score: float
    """Cosine similarity in [-1, 1]."""


@dataclass(frozen=True)
class Capabilities:
    """What a store promises. Tests and the core read these; nothing branches on a driver's name."""

    transactions: bool
    """update_many is all or nothing, including when the process dies mid-batch."""
    native_knn: bool
    """The database runs the nearest-neighbour search (an ANN index), not Python."""
    persistent: bool
    """Records survive closing and reopening the same URL."""
    multi_process: bool
    """Several processes may open the same URL at once, and version checks hold across them."""
    approximate_knn: bool = False
    """knn may miss a true neighbour (ANN); recall is still expected to be high."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Human-readable caveats, shown in docs and by ``python -m contract_tests``."""


# --------------------------------------------------------------------------- the protocol


@runtime_checkable
class Store(Protocol):
    """The five methods (plus ``close``) every driver implements."""

    capabilities: Capabilities
    dim: int
    """Length every embedding must have."""

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        """Records with these ids, in the order asked; None for an id that is missing or in another scope.

        Example: ``store.get(Scope("kumar"), ["a", "zz"]) -> [Record(id="a", ...), None]``.
        """
        ...

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        """Apply upserts and deletes in order, as one unit; return the stored record per upsert, None per delete.

        Validates every op before writing anything (:func:`validate_ops`, whose rule is :data:`INPUT_RULE`):
        a record that breaks it (wrong vector length, non-finite vector, malformed scope, metadata that
        is not JSON, text with NUL ...) raises :class:`InvalidRecordError`; an upsert of an id that lives in
        another scope, or an ``expected_version`` that does not match (0 = must not exist), raises
        :class:`ConflictError` (its subclass :class:`IdTaken` where the id itself is taken: another scope's,
        or an existing one where 0 was expected, which no retry can resolve). In both cases nothing of the
        batch is applied. An empty batch is a no-op.
        """
        ...

    def postings(self, scope: Scope, terms: Sequence[str], limit: int) -> Postings:
        """For each term: its document frequency in ``scope`` and up to ``limit`` ids; plus n.

        The database answers from an index (postings table, GIN, payload index), never a scan.
        """
        ...

    def knn(
        self, scope: Scope, vector: Sequence[float] | np.ndarray, k: int, filter: Filter | None = None
    ) -> list[Neighbor]:
        """Up to ``k`` records of ``scope`` that match ``filter`` and have an embedding, most similar first.

        A selective filter still yields ``k`` results when ``k`` records match.

        Ties: records with equal scores come in ascending id order, and when several tie at the k-th
        score, the ones with the smallest ids are returned. So every store gives the same answer for
        the same records (an approximate store: among the candidates its index finds).
        """
        ...

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        """Every matching record of ``scope``, fetched ``batch`` at a time in id order.

        A record that existed when the scan started and still exists is yielded exactly once,
        even while other records are written.
        """
        ...

    def close(self) -> None:
        """Release connections and files. Closing twice is harmless."""
        ...


@runtime_checkable
class ScopeGenerations(Protocol):
    """Optional, for a store several processes share: a cheap way to tell that a scope has changed.

    The core caches term statistics per scope (:class:`kioko_core.linking.index.IndexCache`); a store that
    implements this lets the cache see another process's writes at once instead of after its ttl.
    """

    def generation(self, scope: Scope) -> int:
        """A number that advances by exactly one with every committed ``update_many`` touching ``scope``.

        Every process and connection sees the same number; it never goes back. One cheap read (no scan).
        """
        ...


@runtime_checkable
class ManyGenerations(Protocol):
    """Optional, beside :class:`ScopeGenerations`: several scopes' generations in one read.

    A recall reads the generation of the user's scope and of their entity graph's; on a store across a network
    each read is a round trip, and this makes them one (:func:`kioko_core.linking.index.read_ahead`).
    """

    def generations(self, scopes: Sequence[Scope]) -> list[int]:
        """``[generation(scope) for scope in scopes]``, read together (one statement, one snapshot)."""
        ...


@dataclass(frozen=True)
class ScopeChangeSet:
    """What :meth:`ScopeChanges.changes_since` answers: the records written into a scope since a generation."""

    generation: int
    """The scope's generation the answer is complete up to (its current one when it was read)."""
    ids: frozenset[str]
    """Every record written into the scope by the batches after the asked generation, up to ``generation``."""


@runtime_checkable
class ScopeChanges(Protocol):
    """Optional, beside :class:`ScopeGenerations`: which records the batches after a generation wrote.

    An index cache that finds the scope's generation moved reads only those records (and the terms they
    hold) instead of starting the scope afresh. A store keeps this for a bounded number of recent batches.
    """

    def changes_since(self, scope: Scope, generation: int) -> ScopeChangeSet | None:
        """The ids written into ``scope`` by every committed batch after ``generation``, or None.

        None when the store cannot give them exactly: ``generation`` is older than what it keeps, one of
        those batches removed a record from the scope (a delete, or a move to another scope), or a batch
        was written by something that does not record its changes. The caller then rebuilds. Never an
        answer that misses a batch; one read, consistent with the generation it reports.
        """
        ...


# --------------------------------------------------------------------------- helpers for drivers


INPUT_RULE = """\
What every store accepts, checked by :func:`validate_ops` before any store sees a record:

- ``id`` (1-200 characters), ``user_id`` and ``kind`` are non-empty strings; ``agent_id`` and
  ``session_id`` are None or a string (``agent_id`` non-empty); ``content`` is a string; ``terms`` is a
  list of strings (repeats are dropped);
- every string, metadata keys and values included, is text without a NUL character or a lone surrogate
  half (what UTF-8, PostgreSQL and SQLite can all hold);
- ``metadata`` is JSON: a dict with string keys whose values are dicts of the same kind, lists or
  tuples (read back as lists), strings, ints, finite floats, bools or None; no bytes, datetime, set,
  NaN, infinity or other objects;
- ``created_at`` and ``updated_at`` are finite numbers of seconds;
- ``embedding`` is None or a 1-d numpy vector of the store's ``dim``, finite and not all zeros
  (stored as float32).
"""


def is_storable_text(value: Any) -> bool:
    """Whether ``value`` is a string every store can hold: no NUL character, no lone surrogate half."""
    if type(value) is not str or "\x00" in value:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate_ops(ops: Sequence[Op], dim: int) -> list[Op]:
    """Check every op up front (:data:`INPUT_RULE`) so a store refuses a bad batch before touching anything.

    The whole record is checked, not only what its constructor validated: ``model_copy(update=...)``
    and in-place edits skip pydantic. Returns the ops, an upsert's record normalised where the rule
    allows (terms de-duplicated, the vector as float32).
    """
    if isinstance(ops, (str, bytes, Upsert, Delete)) or not isinstance(ops, Sequence):
        raise InvalidRecordError(f"update_many takes a list of Upsert and Delete ops, got {type(ops).__name__}")
    checked: list[Op] = []
    for op in ops:
        if isinstance(op, Upsert):
            if not isinstance(op.record, Record):
                raise InvalidRecordError(f"an Upsert must carry a Record, got {type(op.record).__name__}")
            record = check_record(op.record, dim)
            if record is not op.record:
                op = op.model_copy(update={"record": record})
        elif isinstance(op, Delete):
            check_scope(op.scope)
            if not is_storable_text(op.id) or not op.id:
                raise InvalidRecordError(f"Delete.id must be a non-empty string without NUL, got {op.id!r}")
        else:
            raise InvalidRecordError(f"update_many takes Upsert and Delete ops, got {type(op).__name__}")
        expected = op.expected_version
        if expected is not None and (type(expected) is not int or expected < 0):
            raise InvalidRecordError(f"expected_version must be None or an integer >= 0, got {expected!r}")
        checked.append(op)
    return checked


def check_record(record: Record, dim: int) -> Record:
    """``record`` if it follows :data:`INPUT_RULE`, or a normalised copy; else :class:`InvalidRecordError`."""
    name = record.id if isinstance(record.id, str) else "?"

    def refuse(problem: str) -> InvalidRecordError:
        return InvalidRecordError(f"record {name!r}: {problem}; nothing was written")

    if not is_storable_text(record.id) or not 1 <= len(record.id) <= 200:
        raise refuse("id must be 1-200 characters of text without NUL or lone surrogates")
    try:
        check_scope(record.scope)
    except InvalidRecordError as error:
        raise refuse(str(error)) from None
    for field_name in ("user_id", "kind", "content"):
        value = getattr(record, field_name)
        if not is_storable_text(value) or (field_name != "content" and not value):
            raise refuse(
                f"{field_name} must be {'a' if field_name == 'content' else 'a non-empty'} string "
                "without NUL characters or lone surrogates"
            )
    for field_name in ("agent_id", "session_id"):
        value = getattr(record, field_name)
        if value is not None and not is_storable_text(value):
            raise refuse(f"{field_name} must be None or a string without NUL characters or lone surrogates")
    terms = record.terms
    if (
        type(terms) is not list or not all(type(term) is str for term in terms) or not is_storable_text("".join(terms))
    ):  # one check of the joined text: a surrogate is refused paired or not
        raise refuse("terms must be a list of strings without NUL characters or lone surrogates")
    for field_name in ("created_at", "updated_at"):
        value = getattr(record, field_name)
        if type(value) not in (int, float) or not math.isfinite(value):
            raise refuse(f"{field_name} must be a finite number of seconds, got {value!r}")
    problem = metadata_problem(record.metadata)
    if problem:
        raise refuse(problem)
    update: dict[str, Any] = {}
    if len(set(terms)) != len(terms):
        update["terms"] = list(dict.fromkeys(terms))
    vector = record.embedding
    if vector is not None:
        if not isinstance(vector, np.ndarray) or vector.ndim != 1 or vector.dtype.kind not in "fiu":
            raise refuse("embedding must be a 1-d numpy vector of numbers")
        if vector.shape[0] != dim:
            raise refuse(
                f"embedding has {vector.shape[0]} dimensions, this store holds {dim}; open the "
                f"store with ?dim={vector.shape[0]} or use a matching embedder"
            )
        if vector.dtype != np.float32:
            with np.errstate(over="ignore"):  # a value beyond float32 becomes infinity, refused just below
                vector = update["embedding"] = vector.astype(np.float32)
        # the arrays' own methods: numpy.all / numpy.any answer the same through a Python dispatch that cost more
        # than the test (every record is checked when it is held and again when it is written)
        if not np.isfinite(vector).all():
            raise refuse("embedding contains NaN or infinity (as float32)")
        if not vector.any():
            raise refuse("embedding is all zeros; cosine similarity is undefined for it")
    return record.model_copy(update=update) if update else record


_JSON_LEAVES = (int, bool, type(None))
_MAX_JSON_DEPTH = 100


def metadata_problem(metadata: Any) -> str | None:
    """What keeps ``metadata`` from being stored (:data:`INPUT_RULE`), or None: for callers that must refuse
    bad metadata before any store sees it (a duplicate add that is never written, say)."""
    if type(metadata) is not dict:
        return f"metadata must be a dict, got {type(metadata).__name__}"
    return _json_problem(metadata, "metadata")


def _json_problem(value: Any, path: str) -> str | None:
    """What keeps ``value`` from being JSON every store round-trips, or None when it is."""
    found = _not_json(value, 0)
    return None if found is None else f"{path}{found[0]} {found[1]}"


def _not_json(item: Any, depth: int) -> tuple[str, str] | None:
    """None for JSON, else (where below ``item``, what is wrong); the path is only built for a failure."""
    kind = type(item)
    if kind is str:
        return None if is_storable_text(item) else ("", "contains a NUL character or a lone surrogate")
    if kind is float:
        return None if math.isfinite(item) else ("", f"is {item!r}, which JSON cannot hold")
    if kind in _JSON_LEAVES:
        return None
    if depth > _MAX_JSON_DEPTH:
        return ("", f"is nested more than {_MAX_JSON_DEPTH} levels deep")
    if kind is dict:
        for key, inner in item.items():
            if type(key) is not str:
                return ("", f"has a key that is not a string ({key!r}); JSON keys are strings")
            if "\x00" in key or not key.isascii() and not is_storable_text(key):
                return ("", "has a key with a NUL character or a lone surrogate")
            inner_kind = type(inner)
            # plain ASCII strings, ints and finite floats (a link's weight and times) are most of metadata:
            # settled here, without a call
            if (
                inner_kind is str
                and "\x00" not in inner
                and inner.isascii()
                or inner_kind is int
                or inner_kind is float
                and math.isfinite(inner)
            ):
                continue
            found = _not_json(inner, depth + 1)
            if found is not None:
                return (f"[{key!r}]{found[0]}", found[1])
        return None
    if kind is list or kind is tuple:
        for position, inner in enumerate(item):
            found = _not_json(inner, depth + 1)
            if found is not None:
                return (f"[{position}]{found[0]}", found[1])
        return None
    return (
        "",
        f"is a {kind.__name__}, which is not JSON (use str, int, float, bool, None, lists and dicts with string keys)",
    )


def check_query_vector(vector: Sequence[float] | np.ndarray, dim: int) -> np.ndarray:
    """A knn query vector as float32, or :class:`InvalidRecordError` if its length or values are wrong."""
    query = np.asarray(vector, dtype=np.float32)
    if query.ndim != 1 or query.shape[0] != dim:
        raise InvalidRecordError(f"query vector must have {dim} dimensions, got shape {query.shape}")
    if not np.all(np.isfinite(query)) or not np.any(query):
        raise InvalidRecordError("query vector must be finite and not all zeros")
    return query


def check_limit(name: str, value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidRecordError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def plan_batch(ops: Sequence[Op], current: Mapping[str, tuple[Scope, int]]) -> list[tuple[Op, Record | None, bool]]:
    """Check a batch against the stored state, in order, the way every driver must; raise before any write.

    ``current`` maps each touched id that exists to its (scope, version). Returns per op the op, the record
    to store with its new version (None for a delete) and whether the id exists for that op. Later ops see
    earlier ones; another scope's id is a conflict for an upsert and looks missing to a delete.
    """
    versions: dict[str, tuple[Scope, int] | None] = {}
    planned: list[tuple[Op, Record | None, bool]] = []
    for op in ops:
        key = op.id if isinstance(op, Delete) else op.record.id
        if key not in versions:
            versions[key] = current.get(key)
        state = versions[key]
        scope = op.scope if isinstance(op, Delete) else op.record.scope
        if state is not None and state[0] != scope:
            if isinstance(op, Delete):
                state = None  # another scope's record looks missing, and stays untouched
            else:
                raise IdTaken(f"record id {key!r} already belongs to another scope")
        version = state[1] if state else 0
        if op.expected_version == 0 and version != 0:
            raise IdTaken(f"record id {key!r} already exists (expected_version=0 means it must not)")
        if op.expected_version is not None and op.expected_version != version:
            raise ConflictError(f"record {key!r} is at version {version}, expected {op.expected_version}")
        if isinstance(op, Delete):
            planned.append((op, None, state is not None))
            if state is not None:
                versions[key] = None
        else:
            stored = stamped(op.record, version)
            versions[key] = (scope, stored.version)
            planned.append((op, stored, True))
    return planned


def stamped(record: Record, previous_version: int) -> Record:
    """The record as the store keeps it: version bumped (:func:`record_copy`: every held write of a batch is one)."""
    return record_copy(record, {"version": previous_version + 1})


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 0.0 if denominator == 0 or math.isnan(denominator) else float(np.dot(a, b) / denominator)


def reference_cosines(query: np.ndarray, vectors: Sequence[np.ndarray]) -> list[float]:
    """The cosine of ``query`` with each of ``vectors``, computed as the reference store (memory://) computes it:
    each vector scaled to unit length on its own, in float32, then one ``einsum`` with the unit query.

    For a driver re-scoring its database's candidates: identical vectors always get identical scores, so ties
    are exact and the knn tie rule (equal scores in id order) applies as on memory://. :func:`cosines` (a BLAS
    matrix product) and a database's own distances do not promise that: the rounding of a row may depend on its
    position, and two copies of one vector can differ in the last bit (see docs/drivers.md).
    """
    if not vectors:
        return []
    rows = [np.asarray(vector, dtype=np.float32) for vector in vectors]
    unit_rows = np.stack([row / np.linalg.norm(row) for row in rows])
    unit_query = np.asarray(query, dtype=np.float32)
    unit_query = unit_query / np.linalg.norm(unit_query)
    return [float(value) for value in np.einsum("ij,j->i", unit_rows, unit_query)]


def cosines(query: np.ndarray, vectors: Sequence[np.ndarray]) -> list[float]:
    """:func:`cosine` of ``query`` with each of ``vectors`` (all of its length), in one matrix product."""
    if not vectors:
        return []
    # np.array builds the same matrix as np.stack, in a quarter of the time for the two dozen rows of a linked write
    matrix = np.asarray(np.array(vectors), dtype=np.float32)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # numpy.linalg.norm's own arithmetic for these shapes (rows: the square root of each row's sum of squares;
        # a vector: of its dot product with itself), without its checks and dispatch, which cost more than the sums
        # for the two dozen rows of a linked write; the same floats
        flat = np.asarray(query)
        if not issubclass(flat.dtype.type, np.inexact):
            flat = flat.astype(float)
        flat = flat.ravel(order="K")
        denominators = np.sqrt(np.add.reduce(matrix * matrix, axis=1)) * np.float32(np.sqrt(flat.dot(flat)))
        values = (matrix @ np.asarray(query, dtype=np.float32)) / denominators
    return [0.0 if not (d > 0) else float(v) for v, d in zip(values.tolist(), denominators.tolist())]
