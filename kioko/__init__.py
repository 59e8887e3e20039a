"""Kioko: a memory layer for AI agents. ``kioko.connect(url)`` is where to start."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, cast, overload

from kioko.protocol import Memory

if TYPE_CHECKING:  # the names below are loaded on first use (see __getattr__): `import kioko` stays quick
    from kioko.reembedding import reembed
    from kioko_core.errors import (
        ConflictError,
        ConnectionLostError,
        IdTaken,
        IntelligenceNeeded,
        InvalidRecordError,
        KindMismatch,
        KiokoError,
        LinkConflict,
        MemoryNotFound,
        MissingExtraError,
        SecretDropped,
        StoreError,
        UnknownStoreError,
    )
    from kioko_core.privacy.limits import Limits, TooLargeError
    from kioko_core.recall.options import RecallOptions
    from kioko_core.store import Capabilities, Delete, Filter, Record, Scope, Store, Upsert
    from kioko_core.store.format_mark import EmbedderMismatchError, FormatTooNewError
    from kioko_core.store.registry import known_schemes, open_store, register_store
    from kioko_core.store.url import StoreURL
    from kioko_intelligence import (
        OPERATIONS,
        ChatModel,
        HeuristicRouter,
        Intelligence,
        LLMPlanner,
        LLMRouter,
        MaintenanceScheduler,
        ManageReport,
        MemoryOp,
        QueryPlanner,
        RecallPlan,
        RuleBasedExtractor,
        StablePrefix,
    )
    from kioko_intelligence.providers import (
        MissingAPIKeyError,
        ProviderConfigError,
        ProviderError,
        UnknownProviderError,
        chat_model,
    )
    from kioko_intelligence.surface import IntelligentMemory
    from kioko_intelligence.surface import IntelligentMemory as MemoryLayer

# Where each public name lives. A CLI call, a serverless worker or `kioko --version` pays only for what it
# touches: numpy, pydantic, the intelligence and the drivers load when a name that needs them is first used.
_LAZY = {
    **dict.fromkeys(
        (
            "ConflictError",
            "ConnectionLostError",
            "IdTaken",
            "IntelligenceNeeded",
            "InvalidRecordError",
            "KindMismatch",
            "KiokoError",
            "LinkConflict",
            "MemoryNotFound",
            "MissingExtraError",
            "SecretDropped",
            "StoreError",
            "UnknownStoreError",
        ),
        "kioko_core.errors",
    ),
    **dict.fromkeys(("EmbedderMismatchError", "FormatTooNewError"), "kioko_core.store.format_mark"),
    **dict.fromkeys(
        (
            "OPERATIONS",
            "ChatModel",
            "HeuristicRouter",
            "Intelligence",
            "LLMPlanner",
            "LLMRouter",
            "MaintenanceScheduler",
            "ManageReport",
            "MemoryOp",
            "QueryPlanner",
            "RecallPlan",
            "RuleBasedExtractor",
            "StablePrefix",
        ),
        "kioko_intelligence",
    ),
    **dict.fromkeys(
        ("MissingAPIKeyError", "ProviderConfigError", "ProviderError", "UnknownProviderError", "chat_model"),
        "kioko_intelligence.providers",
    ),
    "MemoryLayer": "kioko_intelligence.surface",
    "IntelligentMemory": "kioko_intelligence.surface",
    "Limits": "kioko_core.privacy.limits",
    "TooLargeError": "kioko_core.privacy.limits",
    **dict.fromkeys(("known_schemes", "open_store", "register_store"), "kioko_core.store.registry"),
    "reembed": "kioko.reembedding",
    **dict.fromkeys(("Capabilities", "Delete", "Filter", "Record", "Scope", "Store", "Upsert"), "kioko_core.store"),
    "StoreURL": "kioko_core.store.url",
    "RecallOptions": "kioko_core.recall.options",
    "RemoteMemory": "kioko.remote.client",
    "AsyncRemoteMemory": "kioko.remote.async_client",
}

_NAMED = {"MemoryLayer": "IntelligentMemory"}
"""Public names that are another name in their module: kioko.MemoryLayer is the layer with the intelligence's
calls (the core's own class, kioko_core.layer.memory_layer.MemoryLayer, has none of them)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kioko' has no attribute {name!r}")
    import importlib

    if name == "MemoryLayer":
        _with_intelligence()  # a layer's export_lines / import_lines need the export format
    value = getattr(importlib.import_module(module), _NAMED.get(name, name))
    globals()[name] = value  # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def _with_intelligence() -> None:
    """Register the export format every layer's ``export_lines`` / ``import_lines`` use (the intelligence's calls
    are methods of the layer Kioko's API builds, :class:`kioko.MemoryLayer`)."""
    from kioko import layer_exchange  # noqa: F401


__all__ = [
    "connect",
    "attach",
    "detach",
    "intelligent",
    "default_url",
    "register_store",
    "known_schemes",
    "open_store",
    "reembed",
    "Memory",
    "MemoryLayer",
    "IntelligentMemory",
    "RecallOptions",
    "Store",
    "StoreURL",
    "Record",
    "Scope",
    "Filter",
    "Upsert",
    "Delete",
    "Capabilities",
    "KiokoError",
    "StoreError",
    "ConflictError",
    "IdTaken",
    "IntelligenceNeeded",
    "InvalidRecordError",
    "ConnectionLostError",
    "UnknownStoreError",
    "MissingExtraError",
    "Limits",
    "TooLargeError",
    "Intelligence",
    "HeuristicRouter",
    "LLMRouter",
    "RuleBasedExtractor",
    "MemoryOp",
    "ManageReport",
    "OPERATIONS",
    "QueryPlanner",
    "LLMPlanner",
    "RecallPlan",
    "MaintenanceScheduler",
    "StablePrefix",
    "ChatModel",
    "chat_model",
    "ProviderError",
    "ProviderConfigError",
    "UnknownProviderError",
    "MissingAPIKeyError",
    "MemoryNotFound",
    "KindMismatch",
    "LinkConflict",
    "SecretDropped",
    "EmbedderMismatchError",
    "FormatTooNewError",
    "RemoteMemory",
    "AsyncRemoteMemory",
]
__version__ = "0.1.0"


def default_url() -> str:
    """``KIOKO_URL`` if set, else a SQLite file in the user's data directory."""
    if os.environ.get("KIOKO_URL"):
        return os.environ["KIOKO_URL"]
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("kioko", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'kioko.db'}"


def intelligent(
    target: str | StoreURL | Mapping[str, Any] | MemoryLayer | None = None,
    *,
    llm: Any = None,
    router: Any = None,
    **options: Any,
) -> MemoryLayer:
    """A layer that decides its own memory operations: anything :func:`connect` takes, plus ``llm``.

    Linking and the entity graph are on; ``learn`` and ``record_turn`` route each turn, offline or, with
    ``llm``, with one model call: a provider string (``"openai:gpt-4o-mini"``, ``"azure:<deployment>"``,
    ``"ollama:llama3.1"``, ``"openai-compatible:http://127.0.0.1:8000/v1#model"``; keys from the usual
    environment variables, see :func:`chat_model`), a prompt -> text callable, or an object with
    ``.invoke`` / ``.run``. A model that fails leaves the turn to the offline router. ``router="semantic"``
    reads the clauses no rule recognises by meaning with the shipped MiniLM model (the ``semantic`` extra).
    Given a MemoryLayer, returns a new layer over the same store with all of that on (see
    :meth:`MemoryLayer.with_linking`); the layer given is not changed.
    """
    from kioko_core.errors import UnknownStoreError
    from kioko_core.layer.memory_layer import MemoryLayer as CoreLayer
    from kioko_intelligence import Intelligence

    if isinstance(target, str) and target.split(":", 1)[0].lower() in ("http", "https"):
        raise UnknownStoreError(
            "a Kioko service runs its own intelligence (kioko serve --intelligence); "
            "kioko.intelligent() takes a store URL such as sqlite:///memory.db"
        )
    brain = options.pop("intelligence", None) or Intelligence(router, llm=llm)
    if isinstance(target, CoreLayer):
        from kioko_intelligence.surface import enable, with_calls

        # a new layer over the same store (the layer given is left as it was), routing on, managed turns feeding
        # the entity graph
        return enable(with_calls(target).with_linking(), brain)
    options.setdefault("auto_link", True)
    options.setdefault("auto_graph", True)
    return _connect_layer(target, intelligence=brain, **options)


def attach(agent: Any, memory: Any, *, user_id: str, session_id: str | None = None, links: int = 3) -> Any:
    """Give an agent Kioko's memory of ``user_id``: each turn recalls context into its instructions before the
    model runs and hands the turn to ``record_turn`` after. Works on an OpenAI Agents SDK ``Agent``, an Agno
    ``Agent`` and any object with ``run``/``invoke``; see :mod:`kioko.integrations.attach`. Returns the agent.
    """
    from kioko.integrations.attach import attach as attach_agent

    return attach_agent(agent, memory, user_id=user_id, session_id=session_id, links=links)


def detach(agent: Any) -> bool:
    """Undo :func:`attach`; False if the agent was not attached."""
    from kioko.integrations.attach import detach as detach_agent

    return detach_agent(agent)


@overload
def connect(target: MemoryLayer | StoreURL | Mapping[str, Any], **options: Any) -> MemoryLayer:
    """A layer on a store (a MemoryLayer, a parsed URL or a config mapping): the local library."""


@overload
def connect(target: str | None = None, **options: Any) -> Memory:
    """The memory a URL names: a local layer on a store, or a Kioko service's client for kioko+http(s)."""


def connect(target: str | StoreURL | Mapping[str, Any] | MemoryLayer | None = None, **options: Any) -> Memory:
    """A :class:`kioko.Memory` on the store ``target`` names: a :class:`MemoryLayer`, or a service's client.

    ``target`` is a URL (``"sqlite:///kioko.db"``, ``"memory://"``, ``"postgresql://..."``,
    ``"qdrant+local:///path"``, a bare ``*.db`` path), a dict ``{"url": ..., **options}``, an existing
    MemoryLayer (returned as it is), or None for :func:`default_url`. An ``http(s)://`` or
    ``kioko+http(s)://`` URL names a Kioko service: the result is a :class:`kioko.remote.client.RemoteMemory`
    with the same calls (options: ``api_key``, ``timeout``, ``retries``).

    Every new memory is linked at write time (``auto_link=True`` by default); a bulk loader that links
    afterwards passes ``auto_link=False`` and runs ``memory.graph.connect()`` (or ``kioko connect``) when
    it is done: the links are the same.

    ``embedder`` (an :class:`~kioko_core.embedding.embedders.Embedder` or a name: ``"semantic"``, all-MiniLM-L6-v2
    from the ``kioko[semantic]`` extra, or ``"offline"``, lexical) may also be given in the URL as
    ``?embedder=offline``. The store's ``dim`` is then the embedder's unless ``dim`` is given; a ``dim``
    that differs from the embedder's is an :class:`InvalidRecordError`. Named nowhere, the embedder is
    ``$KIOKO_EMBEDDER`` if set, else the semantic one when its extra is installed, else the offline one;
    a default semantic embedder gives way to the offline one for a ``dim`` other than 384 and for a store
    already made with other vectors (one made by the offline embedder keeps working as it was).
    """
    from kioko.remote.url import is_remote_url
    from kioko_core.layer.memory_layer import MemoryLayer as CoreLayer

    if isinstance(target, CoreLayer):
        # returned as it is; the core's own layer (not kioko.MemoryLayer) answers the intelligence's calls with
        # IntelligenceNeeded
        return cast(Memory, target)
    if is_remote_url(target):
        from kioko.remote.client import RemoteMemory

        options.pop("auto_link", None)  # linking is the server's setting
        return RemoteMemory(str(target), **options)
    options.setdefault("auto_link", True)  # links at write time, as the README promises
    return _connect_layer(target, **options)


def _connect_layer(target: str | StoreURL | Mapping[str, Any] | None, **options: Any) -> MemoryLayer:
    """:func:`connect` for a store URL (not a service's): always a MemoryLayer."""
    from kioko_core.embedding.embedders import EMBEDDER_NAMES
    from kioko_core.errors import InvalidRecordError, UnknownStoreError
    from kioko_core.store.driver import positive_int
    from kioko_core.store.format_mark import EmbedderMismatchError
    from kioko_core.store.registry import open_store
    from kioko_core.store.url import StoreURL
    from kioko_intelligence.surface import IntelligentMemory

    _with_intelligence()
    if isinstance(target, Mapping):
        config = dict(target)
        if "url" not in config:
            raise UnknownStoreError("a config dict needs a 'url' key, e.g. {'url': 'sqlite:///kioko.db'}")
        target = config.pop("url")
        options = {**config, **options}
    layer_options = {
        k: options.pop(k)
        for k in list(options)
        if k
        in {"auto_link", "linker", "embedder", "limits", "recall_config", "intelligence", "auto_graph", "mark_store"}
    }
    # a MemoryLayer was returned and a Mapping replaced by its url above
    url = StoreURL.parse(target if target is not None else default_url())  # type: ignore[arg-type]
    embedder, url, by_default = _take_embedder(layer_options.get("embedder"), url)
    given = options.get("dim", url.query.get("dim"))
    if by_default and embedder is not None and given is not None and positive_int(given, "dim") != embedder.dim:
        embedder = None  # a dim of its own without an embedder named: the offline embedder at that dim
    if embedder is not None:
        # the embedder fixes the vector length: the store follows it unless dim is given (then they must agree)
        if given is None:
            options["dim"] = embedder.dim
        elif positive_int(given, "dim") != embedder.dim:
            raise InvalidRecordError(
                f"dim={given} does not match the embedder, which makes {embedder.dim}-number vectors ({embedder!r})"
            )
    try:
        store = open_store(url, **options)
    except InvalidRecordError:
        if not by_default and embedder is not None and given is None:
            _refuse_other_embedder(url, options, embedder)
        if not (by_default and embedder is not None and given is None):
            raise
        # the default embedder's dim was refused: a store made with the offline embedder keeps it
        options.pop("dim")
        store = open_store(url, **options)
        if store.dim == embedder.dim:
            store.close()
            raise
        embedder = None
    if embedder is not None:
        layer_options["embedder"] = embedder
    try:
        try:
            return IntelligentMemory(store, **layer_options)
        except EmbedderMismatchError as mismatch:
            if not by_default or mismatch.stored[1] != store.dim or mismatch.stored[0] not in EMBEDDER_NAMES:
                raise EmbedderMismatchError(mismatch.stored, mismatch.given, url.render()) from None
            # no embedder named: the one that wrote the store (two machines with different extras agree)
            layer_options["embedder"] = mismatch.stored[0]
            return IntelligentMemory(store, **layer_options)
    except BaseException:
        store.close()
        raise


def _refuse_other_embedder(url: StoreURL, options: dict[str, Any], embedder: Any) -> None:
    """A store that refused the named embedder's vector length: when its mark names the embedder that wrote it,
    say so (and how to move the store) instead of the driver's bare dimension error; else return."""
    from kioko_core.store.format_mark import EmbedderMismatchError, embedder_name, read_mark
    from kioko_core.store.registry import open_store

    store = open_store(url, **{k: v for k, v in options.items() if k != "dim"})
    try:
        mark, _ = read_mark(store)
    finally:
        store.close()
    if mark is not None:
        given = (embedder_name(embedder), int(embedder.dim))
        raise EmbedderMismatchError((mark.embedder, mark.dim), given, url.render()) from None


def _take_embedder(given: Any, url: StoreURL) -> tuple[Any, StoreURL, bool]:
    """The embedder object (from the keyword, else ``?embedder=``, else the default), the URL without that
    option, and whether the embedder is the default (no embedder named).

    ``?embedder=`` belongs to the layer, not the store, so it is taken out before the driver reads its
    options (drivers refuse options they do not know). None means: the offline embedder at the store's dim.
    The default is :func:`kioko_core.embedding.embedders.default_embedder_name`: ``$KIOKO_EMBEDDER``, else the semantic
    embedder when its extra is installed, else offline.
    """
    from kioko_core.embedding.embedders import default_embedder_name, load_embedder

    from_url = url.query.get("embedder")
    if from_url is not None:
        url = dataclasses.replace(url, query=MappingProxyType({k: v for k, v in url.query.items() if k != "embedder"}))
    name = given if given is not None else from_url
    by_default = name is None
    if name is None:
        name = default_embedder_name()
    if isinstance(name, str) and name.strip().lower() == "offline":
        return None, url, by_default
    return (load_embedder(name) if isinstance(name, str) else name), url, by_default
