"""URL -> driver. Built-ins are a lazy table; third parties register by entry point or at run time."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.store import MissingExtraError, Store, UnknownStoreError
from kioko_core.store.driver import missing_extra
from kioko_core.store.url import StoreURL

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "kioko.stores"

# scheme -> (dotted "module:Class", the extra that brings its libraries or None)
BUILTIN_STORES: dict[str, tuple[str, str | None]] = {
    "memory": ("kioko_backends.memory:MemoryStore", None),
    "sqlite": ("kioko_backends.sqlite:SQLiteStore", None),
    "postgresql": ("kioko_backends.postgresql:PostgresStore", "postgres"),
    "postgres": ("kioko_backends.postgresql:PostgresStore", "postgres"),
    "postgresql+psycopg": ("kioko_backends.postgresql:PostgresStore", "postgres"),
    "qdrant": ("kioko_backends.qdrant.store:QdrantStore", "qdrant"),
    "qdrant+local": ("kioko_backends.qdrant.store:QdrantStore", "qdrant"),
    "qdrant+edge": ("kioko_backends.qdrant.edge:QdrantEdgeStore", "qdrant-edge"),
}

_registered: dict[str, str | type | Callable[..., Store]] = {}


def register_store(scheme: str, target: str | type | Callable[..., Store], *, clobber: bool = False) -> None:
    """Make ``scheme://`` open ``target`` (a class, a factory, or ``"package.module:Class"``).

    The target is called as ``target.from_url(url, **options)`` when it has that method, else
    ``target(url, **options)``; ``url`` is a :class:`StoreURL`.
    """
    scheme = scheme.lower()
    if not clobber and (scheme in _registered or scheme in BUILTIN_STORES):
        raise ValueError(f"scheme {scheme!r} is already registered; pass clobber=True to replace it")
    _registered[scheme] = target


def _entry_points() -> tuple[EntryPoint, ...]:
    # importlib.metadata (with email, socket ...) loads only when a plugin is looked for: opening a built-in
    # scheme never needs it
    from importlib.metadata import entry_points

    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def known_schemes() -> list[str]:
    plugins = {ep.name.lower() for ep in _entry_points()}
    return sorted(set(BUILTIN_STORES) | set(_registered) | plugins)


def _load(target: str) -> Any:
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


def _resolve(scheme: str) -> Any:
    """Run-time registrations first, then the built-ins, then entry points: a plugin cannot silently
    take over a built-in scheme (``register_store(..., clobber=True)`` does that on purpose)."""
    if scheme in _registered:
        target = _registered[scheme]
        return _load(target) if isinstance(target, str) else target
    if scheme not in BUILTIN_STORES:
        for entry in _entry_points():
            if entry.name.lower() == scheme:
                try:
                    return entry.load()
                except MissingExtraError:
                    raise  # the driver's own hint (kioko_core.store.driver.missing_extra(..., install=...))
                except ImportError as error:
                    package = entry.dist.name if entry.dist is not None else entry.value.split(":")[0]
                    install = f"pip install '{package}' with its dependencies"
                    raise missing_extra(scheme, None, error, install=install) from error
    if scheme in BUILTIN_STORES:
        target, extra = BUILTIN_STORES[scheme]
        try:
            return _load(target)
        except MissingExtraError:
            raise
        except ImportError as error:
            raise missing_extra(scheme, extra, error) from error
    raise UnknownStoreError(
        f"no store is registered for {scheme}://; known schemes: {', '.join(known_schemes())}. "
        "A third-party driver registers with the 'kioko.stores' entry point or kioko.register_store()."
    )


def open_store(url: str | StoreURL, **options: Any) -> Store:
    """Open the store a URL names. ``options`` (e.g. ``dim``) go to the driver."""
    parsed = StoreURL.parse(url)
    factory = _resolve(parsed.scheme)
    opener = getattr(factory, "from_url", factory)
    store: Store = opener(parsed, **options)
    return store
