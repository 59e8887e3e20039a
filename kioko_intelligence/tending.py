"""The tend task: link upkeep after turns, a page of a scope at a time. A pass pages through the scope's
memories, prunes faded links (and, after a memory left the scope, links whose other end is gone), and offers
links to memories never linked, a few a run; what the store's change log reports is linked without a pass.

:class:`Tending` holds :class:`~kioko_intelligence.maintenance.MaintenanceScheduler`'s tend methods; the
scheduler is the only class that mixes it in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from itertools import islice
from typing import TYPE_CHECKING, Any

from kioko_core.errors import ConflictError
from kioko_core.linking import links
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import Record, Scope, ScopeChanges, ScopeGenerations, check_scope
from kioko_intelligence.link_review import review_links

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")

LINK_BATCH = 200
TEND_LINKS = 5
"""Memories a tend after a turn links (the rest waits for the next turn's step)."""

PRUNE_PAGE = 100
"""Memories whose links a tend after a turn checks (the next page of a scan of the user it moves on)."""

DANGLING_PAGE = 25
"""The same when their links' other ends must be read too (each has about 7): a smaller page, as dear."""

MAX_SWEEPS = 256
"""Scopes whose prune pass (and last tended generation) a process keeps, each pass holding a page of records;
beyond, the scope whose pass started longest ago is forgotten: its next tend starts afresh (a whole-scope
connect, a new pass)."""


class Sweep:
    """A pass of the tends after a turn over one scope: the scan they page through, and whether a page's
    links must be checked for other ends that are gone. A link only dangles after a memory left the scope,
    which the store's change log reports (:meth:`~kioko_core.store.ScopeChanges.changes_since` answers None);
    so a pass checks them from such a tend on, the next pass checks all (pages before it were checked
    without), and a first pass in a process, which knows nothing of what happened before, checks all."""

    def __init__(self, store: Any, scan: Any) -> None:
        self.store = store
        self.scan = scan
        self.dangling = True
        self.removed = False
        self.linking: int | None = None
        """Set while the pass also offers links to the never-linked memories of its pages (the store could not
        say what was written): the generation it began at (-1: the store keeps none)."""
        self.unlinked: list[str] = []
        """Never-linked memories the pass has read and not linked yet (``TEND_LINKS`` a run)."""
        self.partial = False
        """It began offering links after its first pages were read."""
        self.read = 0


class Tending:
    """MaintenanceScheduler's tend: a step after a turn (:meth:`tend_step`) or a whole run (:meth:`tend`)."""

    clock: Callable[[], float]
    llm: Any
    ask: Any
    _change: Callable[..., Any]
    counters: Callable[..., dict[str, Any]]
    note_uses: Callable[..., None]
    _tend_lock: threading.Lock
    _tended: dict[tuple[int, Scope], tuple[Any, int]]
    _sweeps: dict[tuple[int, Scope], Sweep]
    _recalled: Any
    _recalled_lock: Any

    def tend(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Link up to 200 memories never linked; remove faded and dangling links; with ``llm``, review the
        most recent automatic links (a failing model is logged and counted, never raised)."""
        report = memory.graph.connect(user_id=user_id, agent_id=agent_id, limit=LINK_BATCH)
        pruned = memory.graph.prune(user_id=user_id, agent_id=agent_id)
        done = {"linked_memories": report.memories, "links": report.links, "pruned": pruned}
        if self.llm is not None:
            done.update(review_links(memory, self.ask, check_scope((user_id, agent_id)), now=self.clock()))
        return done

    def tend_step(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """:meth:`tend` bounded for a turn: link among the memories written since the scope was last tended (at
        most ``TEND_LINKS`` of them; ``"more"`` when some are left), and prune the next page of a scan of the
        user. When the store cannot say what was written (no change log, it no longer reaches back, or a
        memory left the scope), the scan's pages are offered links too, a page per run, until a pass over
        the user is done. Run often enough, it leaves the graph as :meth:`tend` does."""
        scope = check_scope((user_id, agent_id))
        key = (id(memory.store), scope)
        store = memory.store
        generation = store.generation(scope) if isinstance(store, ScopeGenerations) else None
        changed = None
        with self._tend_lock:
            last = self._tended.get(key)
        since = last[1] if last is not None and last[0] is store else None
        if since is None and generation is not None:
            # a process's first tend of the scope: from where the last tend of any process left off
            since = self.counters(memory, user_id=user_id, agent_id=agent_id)["tended_generation"]
        if since is not None and isinstance(store, ScopeChanges):
            # None also when a memory left the scope since: then a link may point to nothing (below)
            found = store.changes_since(scope, since)
            changed = found.ids if found is not None else None
        unknown = (generation if generation is not None else -1) if changed is None else None
        page, dangling, sweep, ended, todo, waiting = self._next_page(
            memory, scope, removed=changed is None, link_from=unknown
        )
        linked = made = 0
        more = False
        if unknown is not None and unknown >= 0:
            # what was written up to now is offered links by this pass or the next; what comes later, by the
            # change log
            self._tended_up_to(memory, scope, unknown, keep=False)
        if changed is not None:
            report = memory.graph.connect(user_id=user_id, agent_id=agent_id, limit=TEND_LINKS, ids=changed)
            linked, made, more = report.memories, report.links, bool(report.remaining)
            if generation is not None and not more:  # during a pass offering links, kept in this process only
                self._tended_up_to(memory, scope, generation, keep=sweep.linking is None)
        if todo:  # the never-linked memories the pass found, a few a run
            report = memory.graph.connect(user_id=user_id, agent_id=agent_id, ids=todo)
            linked, made = linked + report.memories, made + report.links
        more = more or waiting
        if ended is not None and ended.linking is not None and ended.linking >= 0:
            self._tended_up_to(memory, scope, ended.linking)  # every memory of the pass was offered a link
        pruned = memory.graph.prune_records(page, user_id=user_id, agent_id=agent_id, dangling=dangling)
        done = {
            "linked_memories": linked,
            "links": made,
            "pruned": pruned,
            "checked": len(page),
            "more": more,
        }
        if self.llm is not None:
            done.update(review_links(memory, self.ask, scope, now=self.clock()))
        return done

    def _tended_up_to(self, memory: MemoryLayer, scope: Scope, generation: int, *, keep: bool = True) -> None:
        """Every memory written up to ``generation`` has been offered a link: the next tend reads what changed
        since. ``keep``: also in the scope's counters, for the next process (not while a pass offering
        links to what the store could not name is under way: that process would not continue it)."""
        key = (id(memory.store), scope)
        with self._tend_lock:
            last = self._tended.get(key)
            if last is None or last[0] is not memory.store or last[1] < generation:
                self._tended.pop(key, None)
                self._tended[key] = (memory.store, generation)
                while len(self._tended) > MAX_SWEEPS:
                    del self._tended[next(iter(self._tended))]
        if keep:
            self._note_tended(memory, scope, generation)

    def _note_tended(self, memory: MemoryLayer, scope: Scope, generation: int) -> None:
        """Keep, in the scope's counters, the generation up to which every memory has been offered a link, so
        the next process's first tend reads what changed since instead of the whole scope (a hint: a
        counter that keeps changing under the write is left as it was)."""

        def later(state: dict[str, Any]) -> dict[str, Any]:
            state["tended_generation"] = max(generation, state["tended_generation"] or 0)
            return state

        try:
            self._change(memory, scope, later)
        except ConflictError:
            log.info("the tended generation of %r was not kept: its counters kept changing", scope.user_id)

    def _next_page(
        self, memory: MemoryLayer, scope: Scope, *, removed: bool, link_from: int | None
    ) -> tuple[list[Record], bool, Sweep, Sweep | None, list[str], bool]:
        """The next page of the scan this process moves through the scope (a new scan once one ends: a memory
        that exists throughout is read once per pass, as the store's scan promises); whether their links'
        other ends must be read (see :class:`Sweep`); the pass the page belongs to; and that pass again when
        this page ended it having offered every memory a link (else None); the never-linked memories to link
        now (``TEND_LINKS``) and whether more wait. ``removed``: a memory may have left the scope since the last tend
        (the store's change log says so, or cannot say). ``link_from``: the store's generation now when it
        cannot say what was written since the last tend (-1: it keeps none): the pass offers its pages'
        memories links from now on, and the next pass, which reads them all, says when every one was."""
        key = (id(memory.store), scope)
        with self._tend_lock:
            sweep = self._sweeps.get(key)
            if sweep is None or sweep.store is not memory.store:
                sweep = self._sweeps[key] = Sweep(memory.store, iter(memory.store.scan(scope, batch=DANGLING_PAGE)))
                while len(self._sweeps) > MAX_SWEEPS:
                    del self._sweeps[next(iter(self._sweeps))]
            elif link_from is not None and sweep.read:
                # what was written since the pass began may sit in pages read already: the next pass reads all
                sweep.partial = True
            if link_from is not None and sweep.linking is None:
                sweep.linking = link_from
            if removed:
                sweep.dangling = sweep.removed = True
            size = DANGLING_PAGE if sweep.dangling else PRUNE_PAGE
            page = list(islice(sweep.scan, size))
            sweep.read += len(page)
            if sweep.linking is not None:  # the pass offers links to the never-linked memories of its pages
                queued = set(sweep.unlinked)
                sweep.unlinked.extend(
                    r.id
                    for r in page
                    if r.kind in links.LINKABLE_KINDS and links.linked_at(r) is None and r.id not in queued
                )
            todo, sweep.unlinked = sweep.unlinked[:TEND_LINKS], sweep.unlinked[TEND_LINKS:]
            waiting = bool(sweep.unlinked)
            ended = None
            if len(page) < size:  # the pass is over: the next tend starts the next one
                # a removal during this pass may have left a dangling link on a page checked before it
                batch = DANGLING_PAGE if sweep.removed else PRUNE_PAGE
                following = Sweep(memory.store, iter(memory.store.scan(scope, batch=batch)))
                following.dangling = sweep.removed
                if sweep.linking is not None and (sweep.partial or sweep.unlinked):
                    # not every memory was offered a link in this pass: the next one goes on with it
                    generation = memory.store.generation(scope) if isinstance(memory.store, ScopeGenerations) else -1
                    following.linking = generation if sweep.partial else sweep.linking
                    following.unlinked = sweep.unlinked
                self._sweeps[key] = following
                ended = sweep if sweep.linking is not None and not sweep.partial and not sweep.unlinked else None
        return page, sweep.dangling, sweep, ended, todo, waiting
