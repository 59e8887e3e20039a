"""MemoryLayer: what a developer holds. Bound to one Store; writes memories and links them."""

from __future__ import annotations

import copy
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Self, Sequence

from kioko_core.embedding.embedders import Embedder, OfflineEmbedder, embed_ahead, load_embedder
from kioko_core.errors import IntelligenceNeeded, InvalidRecordError, MemoryNotFound
from kioko_core.graph.entities import GRAPH_AGENT, EntityGraph
from kioko_core.graph.facade import Graph
from kioko_core.kinds import managers_for
from kioko_core.kinds.registry import canonical_kind
from kioko_core.layer.bookkeeping import Bookkeeping
from kioko_core.layer.bulk import BatchAdd
from kioko_core.layer.declared_managers import KindManagers
from kioko_core.layer.hooks import INTELLIGENCE_CALLS, LayerHooks, exchange
from kioko_core.layer.migrate import move_legacy_layouts
from kioko_core.layer.records import LayerStore
from kioko_core.layer.scoped import USER_OWNED_AGENTS, resolve
from kioko_core.layer.values import check_id, timestamp
from kioko_core.layer.writing import WritePath
from kioko_core.linking.index import INDEX_SWEEP_SECONDS, IndexCache, one_read, read_ahead
from kioko_core.linking.linker import (
    LinkerConfig,
    MemoryLinker,
)
from kioko_core.linking.links import (
    MemoryLink,
    upgraded,
)
from kioko_core.privacy.held_texts import forget_texts
from kioko_core.privacy.limits import Limits
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.reading.query_and_draft import Query, reads_analysis
from kioko_core.recall.hybrid import Context, RecallConfig, RecalledMemory, recall
from kioko_core.recall.options import RecallOptions
from kioko_core.store import Delete, Filter, Record, Scope, Store
from kioko_core.store.format_mark import FORMAT_VERSION, check_store
from kioko_core.store.retry import retry_conflicts
from kioko_core.telemetry import count, snapshot, stage, timed


def _build_embedder(embedder: Embedder | str | None, store: Store) -> Embedder:
    """The layer's embedder: the one given, the one a name stands for, or the offline one at the store's dim."""
    store_dim = getattr(store, "dim", None)
    if embedder is None or (isinstance(embedder, str) and embedder.strip().lower() == "offline"):
        return OfflineEmbedder(store_dim or 256)
    if isinstance(embedder, str):
        embedder = load_embedder(embedder)
    if store_dim is not None and embedder.dim != store_dim:
        raise InvalidRecordError(
            f"the embedder makes {embedder.dim}-number vectors but the store holds {store_dim}: "
            f"open the store with dim={embedder.dim} (or leave dim out and kioko.connect takes the embedder's)"
        )
    return embedder


class MemoryLayer(KindManagers, WritePath):
    """A memory layer over one store. Use :func:`kioko.connect` to build one from a URL.

    ``auto_link`` links every new memory at write time (spec section 3); ``linker`` overrides the
    linker's constants (``{"threshold": 0.35, "max_new": 5, "max_degree": 12, ...}``); ``limits`` the
    largest content and query accepted (``{"content_bytes": 262144, "query_bytes": 32768}``, see
    :mod:`kioko_core.privacy.limits`); a larger one raises :class:`~kioko_core.privacy.limits.TooLargeError`;
    ``recall_config`` how recall retrieves and ranks (:class:`~kioko_core.recall.hybrid.RecallConfig`).
    ``embedder`` an :class:`~kioko_core.embedding.embedders.Embedder` or a name (``"offline"``, ``"semantic"``);
    its ``dim`` must be the store's.
    The typed managers (``memory.goals`` ...) are declared by :class:`KindManagers`.

    This is the core's layer: it has no intelligence calls (``manage``, ``record_turn``, ``plan`` ... of
    :data:`~kioko_core.layer.hooks.INTELLIGENCE_CALLS`); asked for one, it raises
    :class:`~kioko_core.errors.IntelligenceNeeded`. Its subclass
    :class:`kioko_intelligence.surface.IntelligentMemory` (``kioko.MemoryLayer``, what ``kioko.connect()`` and
    ``kioko.intelligent()`` build) declares them, takes ``intelligence`` and ``auto_graph`` and brings its
    :class:`~kioko_core.layer.hooks.LayerHooks`; the core itself never imports it.
    """

    _screened: bool = False
    """True on the view add_many writes its batches through: every item passed the secret screen before."""

    # What the intelligence's subclass sets (kioko_intelligence.surface); the core only calls ``hooks`` and reads
    # whether an intelligence is attached.
    hooks: LayerHooks = LayerHooks()
    intelligence: Any = None
    """The :class:`~kioko_intelligence.Intelligence` routing this layer's turns, or None."""
    auto_graph: bool = False

    if not TYPE_CHECKING:  # run time only: for mypy, a name KindManagers does not declare stays an error

        def __getattr__(self, name: str) -> Any:
            # a kind added to the registry whose property is not rendered yet (tests/managers_source.py --write)
            held = self.__dict__.get("_managers")
            if held is not None and name in held:
                return held[name]
            if name in INTELLIGENCE_CALLS:
                raise IntelligenceNeeded(
                    f"memory.{name} is a call of Kioko's intelligence, which this layer (the core's MemoryLayer) does "
                    "not have: build the layer with kioko.intelligent(...), kioko.connect(...) or kioko.MemoryLayer(...)"
                )
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __init__(
        self,
        store: Store,
        *,
        auto_link: bool = False,
        linker: dict[str, Any] | None = None,
        embedder: Embedder | str | None = None,
        limits: Limits | dict[str, Any] | None = None,
        recall_config: RecallConfig | dict[str, Any] | None = None,
        intelligence: Any = None,
        auto_graph: bool = False,
        mark_store: bool = True,
    ) -> None:
        if (intelligence is not None and intelligence is not False) or auto_graph:
            raise InvalidRecordError(
                "intelligence and auto_graph need Kioko's intelligence, which the core's MemoryLayer does not have: "
                "build the layer with kioko.intelligent(...) or kioko.MemoryLayer(store, intelligence=...)"
            )
        # the store as the layer uses it: each record's bookkeeping (links, entities) in Record.system, kept
        # where this store keeps it (kioko_core.layer.records)
        self.store: LayerStore = store if isinstance(store, LayerStore) else LayerStore(store)
        store = self.store
        self.limits = Limits.build(limits)
        self.auto_link = auto_link
        self.embedder = _build_embedder(embedder, store)
        # read once here: a newer format or another embedder's vectors are refused before anything is read
        self.store_mark = check_store(
            store, self.embedder, write=mark_store, upgrade=lambda: move_legacy_layouts(self.store)
        )
        # a store of the current format holds no record in the layout before the bookkeeping key: reads skip the check
        store.legacy = not mark_store or self.store_mark.format < FORMAT_VERSION
        """The store's format and embedder (:mod:`kioko_core.store.format_mark`); ``mark_store=False`` checks an
        unmarked store without marking it (``kioko doctor`` writes nothing)."""
        self.entities = EntityGraph(store)
        # sweeps: a memory another process deleted leaves this process's cache within a second of its next
        # lookup of any scope, not only at that scope's (docs/privacy.md)
        self.index = IndexCache(store, sweep_every=INDEX_SWEEP_SECONDS)
        self.linker = MemoryLinker(
            store, embedder=self.embedder, graph=self.entities, index=self.index, config=LinkerConfig.build(linker)
        )
        self.graph = Graph(self)
        self.recall_config = RecallConfig.build(recall_config)
        self.secrets = DropSecrets()
        self.bookkeeping = Bookkeeping(store, self.secrets)
        """Where the intelligence writes its own records and link edits, checked (:mod:`kioko_core.layer.bookkeeping`)."""
        self._managers = managers_for(self)
        """The typed managers (``self.goals`` ...: :class:`KindManagers` declares them), bound to this layer."""
        self._bound: Scope | None = None
        self._owns_store = True
        self._deferred = threading.local()
        """Per thread: how deep in :meth:`_purging_once`, and whether a delete inside owes a purge."""

    # -- views

    def _scope(self, user_id: str | None, agent_id: str | None) -> Scope:
        """The scope of a call: this view's, or the one named (reserved names refused, see :mod:`.scoped`)."""
        return resolve(self._bound, user_id, agent_id)

    def _view(self, *, bound: Scope | None, auto_link: bool, owns_store: bool) -> Self:
        """A layer sharing this one's store, index, linker and embedder, with its own managers and graph."""
        view = copy.copy(self)
        view._bound, view.auto_link, view._owns_store = bound, auto_link, owns_store
        view.graph = Graph(view)
        view._managers = managers_for(view)
        self.hooks.on_view(view)
        return view

    @property
    def scope(self) -> Scope | None:
        """The scope this view is bound to (:meth:`scoped`); None for a layer that serves every user."""
        return self._bound

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> Self:
        """This layer with ``user_id`` (and ``agent_id``) bound: a full view, managers and graph included.

        ``memory.scoped(user_id="kumar").goals.add("Ship Kioko")`` stores Kumar's goal; every call of the
        view acts for that scope, and naming another user or agent in it raises InvalidRecordError. The view
        shares the store: closing it leaves the store open (close the layer it came from).
        """
        return self._view(bound=self._scope(user_id, agent_id), auto_link=self.auto_link, owns_store=False)

    def with_linking(self) -> Self:
        """This layer with write-time linking on, as a new layer over the same store; this one is unchanged.

        Closing the new layer closes the shared store. :func:`kioko.intelligent` uses this.
        """
        return self._view(bound=self._bound, auto_link=True, owns_store=self._owns_store)

    def reembed(
        self,
        embedder: Embedder | str,
        *,
        users: list[str] | None = None,
        batch: int = 200,
        progress: Callable[[int], None] | None = None,
    ) -> Any:
        """Make every memory's vector again with ``embedder`` (of this store's vector length), in place, and use
        it from now on; links, history and metadata are untouched. Resumable after a kill (the store's mark
        keeps the scopes done). ``users``: only these users' scopes, for a driver that cannot list its scopes.
        A store of another vector length moves with :func:`kioko.reembed` (``kioko reembed``). Returns a
        :class:`~kioko_core.layer.reembed.ReembedReport`."""
        from kioko_core.layer.reembed import reembed_in_place, scopes_to_reembed

        model = load_embedder(embedder) if isinstance(embedder, str) else embedder
        scopes = scopes_to_reembed(self.store, users, moving=model.dim != self.store.dim)
        report = reembed_in_place(self.store, model, scopes, batch=batch, progress=progress)
        self.embedder = self.linker.embedder = model
        self.store_mark = check_store(self.store, model)
        return report

    # -- writing

    @timed("add")
    def add(
        self,
        content: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | datetime | None = None,
        id: str | None = None,
        embedding: Any = None,
    ) -> Record:
        """Store a memory and (with ``auto_link``) link it; returns the stored record.

        Adding a memory again (same scope, kind, session and text, whitespace aside, and no other
        ``created_at``) stores no copy: the memory already stored is returned, with the ``metadata`` given
        merged into it key by key as :meth:`update` would (a key given wins over the stored one; nothing is
        written when every key given is already stored with that value). A duplicate is checked like a
        first add (content, kind, metadata that is not JSON, secrets, size) before it is recognised, so it
        raises what the first add would. The same text given another ``created_at`` is another event
        ("ran 5 km" on two days) and is stored.

        ``memory_type`` is a kind or one of its aliases (``"fact"`` for ``"factual"``, see
        :mod:`kioko_core.kinds.registry`). ``created_at`` is Unix seconds or a datetime (an aware one in its own
        zone, a naive one in the machine's local time); default now.

        ``id`` names the new memory (default: a random one); an id a memory already has, in any scope,
        is raised at once as :class:`~kioko_core.errors.IdTaken` (a ``ConflictError`` that no retry can
        resolve): ``add`` never replaces a memory (use :meth:`update`).
        """
        if id is not None:
            check_id(id)
        return self._add(
            content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=memory_type,
            metadata=metadata,
            created_at=created_at,
            id=id,
            embedding=embedding,
            replace=False,
        )

    @timed("add_many")
    def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]:
        """Store many memories in order, as ``add`` would one by one; for imports.

        Each item is a content string or a dict of ``add``'s arguments (``content``, ``memory_type``,
        ``session_id``, ``metadata``, ``created_at``, ``id``); ``session_id`` and ``memory_type`` given
        here are the defaults. Every item is checked before anything is written (a secret in any of them too:
        :class:`~kioko_core.privacy.secrets.SecretDropped`, and no text of the batch is embedded), so a bad item stores nothing
        (the offline embedder, which cannot fail, embeds each memory from the one reading of its text its add
        makes). A model embedder embeds in batches, ahead of the writes in a thread of its own
        (:func:`~kioko_core.embedding.embedders.embed_ahead`): its first batch before anything is written, so a missing
        model stores nothing. Linking runs in order: each memory can link to the ones before it, and makes the
        links its ``add`` would have made.

        The memories are stored a batch at a time (a few hundred: one ``update_many``, one transaction each, see
        :mod:`kioko_core.layer.bulk`); if an item fails when it is written (an ``id`` already taken), the items before
        it are stored, as one by one, and the error is raised. The records returned are as stored once their
        batch was written (a memory's links to later memories of its batch included).
        """
        prepared: list[dict[str, Any]] = []
        for position, item in enumerate(items):
            fields: dict[str, Any] | None = (
                {"content": item} if isinstance(item, str) else dict(item) if isinstance(item, Mapping) else None
            )
            if fields is None:
                raise InvalidRecordError(f"item {position}: expected a string or a dict, got {type(item).__name__}")
            unknown = set(fields) - {"content", "memory_type", "session_id", "metadata", "created_at", "id"}
            if unknown:
                raise InvalidRecordError(f"item {position}: unknown fields {sorted(unknown)}")
            if fields.get("id") is not None:
                check_id(fields["id"], f"item {position}: id")
            fields.setdefault("session_id", session_id)
            fields.setdefault("memory_type", memory_type)
            self._check_new(
                fields.get("content"), fields["memory_type"], fields.get("metadata"), where=f"item {position}: "
            )
            self.limits.check_content(fields["content"])
            timestamp(fields.get("created_at"), f"item {position}: created_at")
            # before any text is embedded: a model embedder keeps the vectors of the texts it saw, by text
            self.secrets.enforce(
                fields["content"], fields.get("metadata"), user_id, agent_id, fields["session_id"], fields.get("id")
            )
            prepared.append(fields)
        # an embedder that reads the analysis (the offline one) is handed the one reading each add makes (after
        # that memory's secret check, as the linker's was); any other embeds the batch first, as one call
        texts = [f["content"] for f in prepared]
        # (a model embedder runs ahead in a thread: memory i is linked while the next ones are embedded)
        vectors = [None] * len(texts) if reads_analysis(self.embedder) else embed_ahead(self.embedder, texts)
        # stored a batch at a time (one write each), every memory planned as its add would plan it (kioko_core.layer.bulk)
        return BatchAdd(self, user_id, agent_id).run(zip(prepared, vectors))

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """The memory, or :class:`MemoryNotFound` if it is not in this scope."""
        scope = self._scope(user_id, agent_id)
        found = self.store.get(scope, [memory_id])[0]
        if found is None:
            raise MemoryNotFound(memory_id, scope.user_id)
        return upgraded(found)

    @timed("update")
    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        """Change content (links are re-derived) and/or merge metadata (structural links are checked).

        ``metadata`` is merged key by key over the stored metadata. The layer's bookkeeping key
        (``metadata["_kioko"]``: links, entities) is not the caller's to change: a value passed under it is
        ignored and the stored one kept, so ``update(id, metadata={**record.metadata, "x": 1})`` is safe.

        Applied to the memory as stored when the write happens: a concurrent writer's change is kept, never
        overwritten (see :mod:`kioko_core.store.retry`); :class:`ConflictError` if the race was lost every time.
        """
        return self._update(memory_id, self._scope(user_id, agent_id), lambda current: (content, metadata))

    @timed("delete")
    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Delete a memory and every trace of it; False if it did not exist.

        Its neighbours forget their links to it; the entity triples it brought (``source`` its id), its
        words in its session's summary and waiting turns, its heat and what this process holds about it
        go too, and the store's files are purged of its bytes where the store can (see docs/privacy.md).
        """
        scope = self._scope(user_id, agent_id)
        deleted = self._delete(scope, memory_id)
        if deleted is None:
            return False
        derived = not getattr(self._deferred, "maintaining", False)
        if derived:
            self.entities.forget_source(deleted.id, user_id=scope.user_id)  # the triples it asserted
        self.hooks.on_delete(self, scope, deleted, derived=derived)
        if derived:
            count("memories_forgotten_total")
        if derived:  # a housekeeping delete's words live on in the fold or the survivor: the caches may keep them
            forget_texts()
        self._purge()
        return True

    def _purge(self, scopes: list[Scope] | None = None) -> None:
        """Ask the store to wipe what deleted records left in its files (a store that cannot has no ``purge``);
        inside :meth:`_purging_once`, once at its end."""
        if getattr(self._deferred, "depth", 0):
            self._deferred.owed = True
            return
        purge = getattr(self.store, "purge", None)
        if callable(purge):
            purge(scopes or [])

    @contextmanager
    def _purging_once(self, maintaining: bool = False) -> Iterator[None]:
        """Many deletes, one purge at the end (SQLite's is a checkpoint: mostly its fsync).

        ``maintaining``: the deletes are Kioko's housekeeping (consolidation folding, merging, fading;
        a scratchpad cleared), not a forget: what was derived from the memories (summary points, triples)
        stays, since their content lives on in the fold, the survivor or the session's episode.
        """
        deferred = self._deferred
        outer = (getattr(deferred, "depth", 0), getattr(deferred, "maintaining", False))
        deferred.depth, deferred.maintaining = outer[0] + 1, outer[1] or maintaining
        try:
            yield
        finally:
            deferred.depth, deferred.maintaining = outer
            if not deferred.depth and getattr(deferred, "owed", False):
                deferred.owed = False
                self._purge()

    # -- reading

    @timed("recall")
    def recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        include_shared: bool = False,
        config: RecallConfig | dict[str, Any] | None = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
        budget: int | None = None,
    ) -> Context:
        """The context for ``query``: the ``limit`` best memories (default 8), how they connect.

        ``links`` (default 3) is how many of them may be memories that only a link to a better match
        brought; ``links=0`` turns the graph off for this call. ``config`` overrides the layer's
        :class:`RecallConfig` for this call (a dict changes only the fields it names).
        ``include_shared`` adds the shared knowledge base. Open goals are shown in their own section,
        on top of ``limit``.

        ``plan``: ``"auto"`` plans the retrieval from the query's intents (the default when the layer has
        intelligence), ``False`` does not (the default without), or a :class:`RecallPlan` to follow;
        ``ctx.plan`` is the plan followed. ``section_limits`` (``{"procedures": 0}``) and ``fill_recent``
        (``["decisions"]``) given here win over the plan's, as do ``links`` and ``limit``.

        With intelligence the context also shows the profile and instructions (first), the entity graph's
        relations of what the query names and the session's working memory (``ctx.sections``).

        ``budget``: the tokens the text may take (default 2,000, ``RecallConfig.budget``); a memory too long
        for it is cut with a marker, and what does not fit gives way in the order of
        :data:`~kioko_core.recall.budget.PRIORITY` (``ctx.tokens``, ``ctx.cut``, ``ctx.dropped``).

        ``options`` (a :class:`~kioko_core.recall.options.RecallOptions`) holds the same knobs as one value; a
        keyword given beside it wins.
        """
        knobs = RecallOptions.merge(
            options,
            links=links,
            limit=limit,
            include_shared=include_shared,
            config=config,
            plan=plan,
            section_limits=section_limits,
            fill_recent=fill_recent,
            budget=budget,
        )
        links, limit, include_shared, config = (
            knobs.links,
            knobs.limit,
            knobs.include_shared,
            knobs.keywords()["config"],
        )
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        self.limits.check_query(query)
        if isinstance(config, dict):
            config = RecallConfig.build(self.recall_config, **config)
        scope = self._scope(user_id, agent_id)
        # one generation read per scope for the whole recall (a round trip each on PostgreSQL), see one_read
        with one_read():
            # the user's scope and their entity graph's (read by the question's reading), in one read
            read_ahead(self.store, [scope, Scope(scope.user_id, GRAPH_AGENT)])
            # read once: the planner, retrieval and the sections take this reading of the question
            with stage("recall.read"):
                read = Query.of(query, scope.user_id, self.entities)
            followed = self.hooks.plan_recall(self, read, scope, session_id, knobs)
            section_limits, fill_recent = knobs.keywords()["section_limits"], knobs.keywords()["fill_recent"]
            if followed is not None:
                links, limit = followed.links, followed.limit
                section_limits, fill_recent = followed.section_limits, followed.fill_recent
            context = recall(
                self,
                read,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                session_id=session_id,
                links=links,
                limit=limit,
                include_shared=include_shared,
                config=config or self.recall_config,
                section_limits=section_limits,
                fill_recent=fill_recent or (),
                sections=self.intelligence is not None,
                budget=knobs.budget,
                changes=self._changes if self.intelligence is not None else None,
                turn_mates=self._turn_mates if self.intelligence is not None else None,
            )
        context.plan = followed
        self.hooks.after_recall(self, context, scope, session_id)  # what "that worked" will credit
        return context

    def _changes(self, query: str, memories: Sequence[RecalledMemory]) -> dict[str, str]:
        """The hooks' pairs of a context's memories to show as a change (see :meth:`LayerHooks.shown_changes`)."""
        return self.hooks.shown_changes(self, query, memories)

    def _turn_mates(self, scope: Scope, records: Sequence[Record]) -> dict[str, list[Record]]:
        """The hooks' turn-mates of ``records`` (see :meth:`LayerHooks.turn_mates`)."""
        return self.hooks.turn_mates(self, scope, records)

    @timed("context")
    def context(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
        budget: int | None = None,
    ) -> Context:
        """Like :meth:`recall`, but follows links only when asked (``links`` defaults to 0, here or in ``options``)."""
        if links is None and (options is None or options.links is None):
            links = 0
        return self.recall(
            query,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            options=options,
            links=links,
            limit=limit,
            plan=plan,
            section_limits=section_limits,
            fill_recent=fill_recent,
            budget=budget,
        )

    @timed("search")
    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, limit: int = 10
    ) -> list[Record]:
        """The memories that best match ``query`` (hybrid retrieval, no link expansion)."""
        # a search returns records, not a text: the context's budget must not thin its results
        ctx = self.recall(
            query, user_id=user_id, agent_id=agent_id, links=0, limit=limit, plan=False, config={"budget": None}
        )
        return [m.record for m in ctx.memories if "rrf" in m.signals]

    def feedback(
        self,
        worked: bool = True,
        *,
        user_id: str | None = None,
        credited: str | None = None,
        session_id: str | None = None,
        context: Context | None = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> list[MemoryLink]:
        """ "That worked": link the credited fix to its session's problems, strengthen the links used together.

        The credited procedure / skill / lesson / fix gets a ``resolves`` link (weight 0.8, by feedback) to
        each problem episode or fact of ``session_id`` from the last 6 hours and each problem episode in
        ``context``; the links among ``context``'s memories are strengthened: w <- w + 0.2 (1 - w).
        Returns the links made or strengthened. ``worked=False`` changes nothing.
        """
        from kioko_core.linking.learning import apply_feedback

        if not worked:
            return []
        scope, moment = self._scope(user_id, agent_id), time.time() if now is None else now
        return retry_conflicts("feedback", lambda: apply_feedback(self, scope, credited, session_id, context, moment))

    def forget_about(
        self, subject: str, *, user_id: str | None = None, agent_id: str | None = None, dry_run: bool = False
    ) -> dict[str, Any]:
        """Forget everything about ``subject`` ("Krutika", "the Lisbon project"): every memory of the scope
        that names it, deleted as :meth:`delete` deletes (links, triples, what was derived, caches), the
        profile, instruction and scratchpad slots that name it, the entity graph's triples of what it names
        (history included), the points of session summaries and the turns waiting in session logs that name
        it. ``dry_run`` only lists what would go. Returns ``{"subject", "dry_run", "memories": [{"id", "kind",
        "content"}], "relations": [lines], "traces": [lines], "deleted"}`` (see
        :mod:`kioko_core.privacy.subject_forget` for what "names" means)."""
        from kioko_core.privacy.subject_forget import forget_about

        if not isinstance(dry_run, bool):
            raise InvalidRecordError(f"dry_run must be True or False, got {dry_run!r}")
        return forget_about(self, self._scope(user_id, agent_id), subject, dry_run=dry_run).to_dict()

    @timed("forget_user")
    def forget_user(self, *, user_id: str | None = None, agent_id: str | None = None) -> int:
        """Delete every memory of a scope (and, for the user's own scope, their entity graph and what else of
        Kioko's belongs to them, such as webhook registrations). Returns the count."""
        scopes = [self._scope(user_id, agent_id)]
        if scopes[0].agent_id is None:
            scopes.extend(Scope(scopes[0].user_id, owned) for owned in USER_OWNED_AGENTS)
        removed = 0
        for scope in scopes:
            ids = [r.id for r in self.store.scan(scope)]
            for start in range(0, len(ids), 500):
                self.store.update_many([Delete(id=i, scope=scope) for i in ids[start : start + 500]])
            removed += len(ids)
            self.index.invalidate(scope)
        if scopes[0].agent_id is None:
            self.entities.forget_cached(scopes[0].user_id)
        self.hooks.on_forget(self, scopes[0])
        forget_texts()
        self._purge(scopes)
        count("memories_forgotten_total", removed)
        return removed

    def stats(self) -> dict[str, Any]:
        """What this process has done, as plain numbers (:func:`kioko_core.telemetry.snapshot`): operations by
        outcome and their timings, memories written, linked, superseded and forgotten, the index cache's hits and
        rebuilds, maintenance runs, webhook deliveries, refused secrets. Process-wide, like the Prometheus
        series ``kioko serve`` exposes at ``/metrics`` (docs/operations.md)."""
        return snapshot()

    def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> Iterator[Record]:
        """Every memory of a scope (a scan: for maintenance and exports, not for the hot path)."""
        kinds_filter = Filter(kinds=frozenset(canonical_kind(k) for k in kinds)) if kinds else None
        yield from map(upgraded, self.store.scan(self._scope(user_id, agent_id), kinds_filter))

    # -- export and import (the format lives above the core: ``kioko`` registers it, see hooks.exchange)

    def export_lines(self, user_id: str | None = None, agent_ids: Iterable[str] = ()) -> Iterator[str]:
        """Every memory of ``user_id`` (their entity graph and session turns too, and each agent of
        ``agent_ids``) as JSON lines, ``kioko export``'s format; a bound view exports its own user."""
        return exchange().export_lines(self, self._scope(user_id, None).user_id, agent_ids)

    def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
        """Restore an export (``{"records", "written", "unchanged"}``): the whole stream is checked before anything
        is written, and what the store already holds unchanged is skipped. A bound view imports its own user only."""
        bound = self._bound

        def allowed(user_id: str, agent_id: str | None) -> None:
            if bound is not None and user_id != bound.user_id:
                raise InvalidRecordError(f"this view is bound to user {bound.user_id!r}; it cannot act for {user_id!r}")

        return exchange().import_lines(self, lines, allowed=allowed)

    def close(self) -> None:
        """Close the store (a :meth:`scoped` view leaves it open: it belongs to the layer the view came from)."""
        if self._owns_store:
            self.hooks.on_close(self)  # e.g. the uses recall noted for heat, before the store goes
            self.store.close()

    def __enter__(self) -> MemoryLayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        bound = f", scope={tuple(self._bound)!r}" if self._bound is not None else ""
        return f"MemoryLayer(store={self.store!r}, auto_link={self.auto_link}{bound})"
