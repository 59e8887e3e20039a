"""The optional base class of a driver: the protocol's shared rules written once, around the driver's hooks.

A driver may implement :class:`~kioko_core.store.Store` from scratch; subclassing :class:`StoreBase`
instead gives it, for free and the same on every store:

- option parsing for ``from_url``: keyword options win over ``?key=`` query values, each is parsed by its
  :class:`Option`, and an unknown or misspelt one is refused with the list of known ones;
- the argument checks of ``get``, ``postings``, ``knn`` and ``scan`` (scope, limits, query vector,
  filter), so a bad argument is the same :class:`~kioko_core.store.InvalidRecordError` everywhere; a scope or
  a filter value holding a NUL or a lone surrogate never reaches a hook;
- id and term de-duplication and answer ordering, the knn order and tie rule, the empty-filter and
  empty-batch shortcuts, and :func:`~kioko_core.store.validate_ops` before any write;
- ``with store: ...`` support;
- :func:`keeps_text`, for a module-wide cache keyed by memory ids or texts (a point-id map, say): registered,
  it is emptied when a memory or a user is forgotten, so nothing forgotten stays in the process.

The driver then implements five hooks (``do_get``, ``do_postings``, ``do_knn``, ``do_scan``,
``do_update_many``), an ``open_url`` class method and ``close``. Each hook receives arguments that
already passed the checks; its docstring says what it must return.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from kioko_core.privacy.held_texts import keeps_text as keeps_text  # for drivers: see the module's docstring
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    Filter,
    InvalidRecordError,
    MissingExtraError,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    check_filter,
    check_limit,
    check_query_vector,
    check_scope,
    is_storable_text,
    validate_ops,
)
from kioko_core.store.url import StoreURL

S = TypeVar("S", bound="StoreBase")

# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Option:
    """One option a driver accepts, as a keyword of ``open_store``/``connect`` or as ``?name=`` in its URL."""

    parse: Callable[[Any, str], Any]
    """``parse(value, name)``: the typed value, or :class:`InvalidRecordError` saying what is wrong."""
    default: Any = None
    """The value when the option is given neither as a keyword nor in the URL."""


def positive_int(value: Any, name: str) -> int:
    """A whole number >= 1 (``"384"`` from a URL, ``384`` or ``384.0`` from code); never a bool."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if isinstance(value, bool) or number < 1 or (isinstance(value, float) and value != number):
        raise InvalidRecordError(f"{name} must be a positive integer, got {value!r}")
    return number


def positive_float(value: Any, name: str) -> float:
    """A finite number > 0."""
    number = _number(value)
    if isinstance(value, bool) or not 0 < number < float("inf"):
        raise InvalidRecordError(f"{name} must be a positive number, got {value!r}")
    return number


def non_negative_float(value: Any, name: str) -> float:
    """A finite number >= 0."""
    number = _number(value)
    if isinstance(value, bool) or not 0 <= number < float("inf"):
        raise InvalidRecordError(f"{name} must be a number >= 0, got {value!r}")
    return number


def flag(value: Any, name: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off, or an actual bool)."""
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("", "0", "false", "no", "off"):
        return False
    raise InvalidRecordError(f"{name} takes true or false, got {value!r}")


def text(value: Any, name: str) -> str:
    """Any non-empty string."""
    if not isinstance(value, str) or not value:
        raise InvalidRecordError(f"{name} must be a non-empty string, got {value!r}")
    return value


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


DIM = Option(positive_int, DEFAULT_DIM)
"""The vector length option every store takes: ``DEFAULT_DIM`` when not given."""

OPTIONAL_DIM = Option(positive_int, None)
"""The same option, None when not given: for a store that keeps its ``dim`` and, reopened without one, uses the
stored one (with :data:`DIM` a reopen without ``dim`` cannot be told from ``dim=256``). A new store then takes
``DEFAULT_DIM``; the built-in SQLite and PostgreSQL drivers do this."""


def read_options(
    url: StoreURL, given: Mapping[str, Any], known: Mapping[str, Option], *, other_query: bool = False
) -> dict[str, Any]:
    """Every option of ``known``, parsed: a keyword in ``given`` wins over ``?name=`` in ``url``, then the default.

    An unknown keyword is refused; so is an unknown query parameter, unless ``other_query`` says the
    driver hands those on (PostgreSQL gives them to libpq). A keyword given as None counts as not given.
    """
    names = ", ".join(sorted(known))
    unknown = sorted(name for name, value in given.items() if name not in known and value is not None)
    if not other_query:
        unknown += sorted(name for name in url.query if name not in known and name not in given)
    if unknown:
        raise InvalidRecordError(
            f"{url.scheme}:// does not know the option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(n) for n in unknown)}; its options are: {names}"
        )
    values: dict[str, Any] = {}
    for name, option in known.items():
        value = given.get(name)
        if value is None:
            value = url.query.get(name)
        values[name] = option.default if value is None else option.parse(value, name)
    return values


def missing_extra(
    scheme: str, extra: str | None, error: ImportError, *, install: str | None = None
) -> MissingExtraError:
    """The error for a driver whose library is not installed, naming what to install.

    ``install`` is the hint itself, for a driver outside Kioko (``"pip install 'kioko-duckdb'"``); without it,
    ``extra`` names one of Kioko's own extras (``pip install 'kioko[extra]'``).
    """
    hint = install or (f"pip install 'kioko[{extra}]'" if extra else "reinstall kioko")
    return MissingExtraError(f"the {scheme}:// store needs a library that is not installed ({error.name}): {hint}")


# --------------------------------------------------------------------------- the base class


class StoreBase:
    """Implements the Store protocol's public methods by checking arguments, then calling the hooks.

    A subclass sets ``capabilities``, ``dim`` (usually in ``__init__``) and, when it takes options
    besides ``dim``, ``options``; it implements ``open_url``, the ``do_*`` hooks and ``close``.
    """

    capabilities: Capabilities
    dim: int

    options: ClassVar[Mapping[str, Option]] = {"dim": DIM}
    """Options ``from_url`` accepts (keyword or ``?name=``); anything else is refused."""

    other_query_options: ClassVar[bool] = False
    """True when unknown ``?name=`` parameters are passed on by the driver rather than refused."""

    contract_version: ClassVar[int | None] = None
    """The store contract version (:data:`kioko_core.store.CONTRACT_VERSION`) the driver was written for, if it
    says: ``python -m contract_tests`` lists what changed since, and failing newer tests name it."""

    # -- opening

    @classmethod
    def from_url(cls: type[S], url: StoreURL | str, **options: Any) -> S:
        """What the registry calls: parse ``options`` and the URL's query, then :meth:`open_url`."""
        parsed = StoreURL.parse(url)
        return cls.open_url(parsed, read_options(parsed, options, cls.options, other_query=cls.other_query_options))

    @classmethod
    def open_url(cls: type[S], url: StoreURL, options: dict[str, Any]) -> S:
        """Open the store ``url`` names; ``options`` holds every declared option, parsed or defaulted."""
        raise NotImplementedError(f"{cls.__name__} must implement open_url(url, options)")

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Release connections and files. Closing twice is harmless."""
        raise NotImplementedError(f"{type(self).__name__} must implement close()")

    # -- the protocol

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        scope = check_scope(scope)
        asked, wanted = self._asked(ids)
        return self._in_order(asked, self.do_get(scope, wanted) if wanted else {})

    @staticmethod
    def _asked(ids: Sequence[str]) -> tuple[list[Any], list[str]]:
        """The ids as asked, and those a record can have, once each (what ``do_get`` is given)."""
        asked = _sequence(ids, "ids")
        return asked, list(dict.fromkeys(i for i in asked if is_storable_text(i)))

    @staticmethod
    def _in_order(asked: Sequence[Any], found: Mapping[str, Record]) -> list[Record | None]:
        """``get``'s answer from what ``do_get`` found: per asked id, in order, a record of its own or None."""
        answer: list[Record | None] = []
        handed_out: set[str] = set()
        for record_id in asked:
            record = found.get(record_id) if isinstance(record_id, str) else None
            if record is not None:
                if record_id in handed_out:  # every position gets an object of its own
                    record = record.model_copy(deep=True)
                handed_out.add(record_id)
            answer.append(record)
        return answer

    def postings(self, scope: Scope, terms: Sequence[str], limit: int) -> Postings:
        scope, limit = check_scope(scope), check_limit("limit", limit)
        asked = list(dict.fromkeys(_sequence(terms, "terms")))
        found = self.do_postings(scope, [t for t in asked if is_storable_text(t)], limit)
        # a term no record can hold (not text, a NUL, a lone surrogate) has no holders
        return Postings(
            n=found.n, df={t: found.df.get(t, 0) for t in asked}, ids={t: found.ids.get(t, []) for t in asked}
        )

    def knn(
        self, scope: Scope, vector: Sequence[float] | np.ndarray, k: int, filter: Filter | None = None
    ) -> list[Neighbor]:
        scope, k = check_scope(scope), check_limit("k", k)
        query, filter = check_query_vector(vector, self.dim), check_filter(filter)
        if k == 0 or _matches_nothing(filter):
            return []
        candidates = self.do_knn(scope, query, k, filter)
        # the tie rule of Store.knn: best score first, equal scores by id, cut at k
        return sorted(candidates, key=lambda n: (-n.score, n.id))[:k]

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        scope = check_scope(scope)
        if check_limit("batch", batch) == 0:
            raise InvalidRecordError("batch must be at least 1")
        filter = check_filter(filter)
        if _matches_nothing(filter):
            return iter(())
        return self.do_scan(scope, filter, batch)

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        checked = validate_ops(ops, self.dim)
        return self.do_update_many(checked) if checked else []

    # -- the hooks

    def do_get(self, scope: Scope, ids: list[str]) -> Mapping[str, Record]:
        """The records of ``scope`` among ``ids`` (distinct, all text), keyed by id; missing ids left out."""
        raise NotImplementedError

    def do_postings(self, scope: Scope, terms: list[str], limit: int) -> Postings:
        """:meth:`Store.postings` for ``terms`` (distinct, all text); dicts may leave out terms nobody holds."""
        raise NotImplementedError

    def do_knn(self, scope: Scope, query: np.ndarray, k: int, filter: Filter | None) -> Sequence[Neighbor]:
        """Candidates for the ``k`` nearest matching records, in any order.

        They must include the true top ``k`` and every record scoring the same as the k-th (an
        approximate store: as far as its index finds them); more is fine, the base orders and cuts.
        ``query`` is float32 of length ``dim``, finite and non-zero; ``k`` >= 1.
        """
        raise NotImplementedError

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        """:meth:`Store.scan` with ``batch`` >= 1."""
        raise NotImplementedError

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        """:meth:`Store.update_many` for a non-empty batch that :func:`validate_ops` accepted."""
        raise NotImplementedError


def _sequence(values: Any, name: str) -> list[Any]:
    """A list of the items asked for; a bare string would be read as its characters, so it is refused."""
    if (
        isinstance(values, (str, bytes))
        or not isinstance(values, (Sequence, set, frozenset))
        and not hasattr(values, "__iter__")
    ):
        raise InvalidRecordError(f"{name} must be a list of strings, got {type(values).__name__}")
    return list(values)


def _matches_nothing(filter: Filter | None) -> bool:
    """Whether a checked filter (:func:`~kioko_core.store.check_filter`) leaves no record to match."""
    return filter is not None and (filter.kinds == frozenset() or filter.ids == frozenset())
