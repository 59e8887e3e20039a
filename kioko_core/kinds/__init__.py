"""Typed memory managers: ``memory.goals``, ``memory.decisions``, ``memory.procedures`` ... ``memory.working``.

Each manager knows one kind of memory: which ``memory_type`` it is stored as, how its content reads
(that is what the linker analyses and what a link line shows) and which metadata fields the spec's
structure needs (a goal's ``parent``, a decision's ``supersedes``, an insight's ``evidence``). Every
write goes through :meth:`MemoryLayer.add` / ``update`` / ``delete``, so linking, isolation and the
secrets check apply exactly as for a plain ``memory.add`` (the layer checks the content and every field the
manager keeps in metadata, notes and reasons included, once per write).

Content conventions (what the linker and the link lines see):

========================  =====================================================  =====================
manager                   content                                                label in link lines
========================  =====================================================  =====================
goals                     ``Goal: <title>.``                                     metadata ``title``
decisions                 ``Decision: <text>.`` (kept as is when it already
                          starts "Decision:" / "We decided ...")                 content, prefix cut
procedures                ``<title>: 1) step; 2) step``                          metadata ``title``
strategies (lessons)      ``For <context>: <text>`` or ``<text>``                content
profile                   ``User's <slot> is <value>.``                          (never linked)
working                   ``<key>: <value>``                                     (never linked)
others                    the text as given                                      content
========================  =====================================================  =====================

Listing calls (``goals.open``, ``decisions.current``, ``profile.all`` ...) read with ``store.scan``:
they are for agents' tools, consoles and the router, not for the write or recall hot path. Lists are
ordered oldest first (``created_at``, then id).

The managers live in one module per family: ``kinds.base`` (what they share), ``kinds.plans`` (goals,
decisions), ``kinds.know_how`` (procedures, lessons, skills), ``kinds.knowing`` (episodes, facts, preferences,
knowledge, insights, summaries) and ``kinds.unlinked`` (instructions, profile, working memory); every name is
imported from here, ``kioko_core.kinds``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kioko_core.errors import KindMismatch
from kioko_core.kinds.base import MAX_HISTORY, MAX_NOTES, KindManager, _TextManager, deterministic_id
from kioko_core.kinds.know_how import Procedures, Skills, Strategies
from kioko_core.kinds.knowing import Episodes, Facts, Insights, Knowledge, Preferences, Summaries
from kioko_core.kinds.plans import GOAL_DONE as GOAL_DONE
from kioko_core.kinds.plans import GOAL_DROPPED as GOAL_DROPPED
from kioko_core.kinds.plans import GOAL_OPEN as GOAL_OPEN
from kioko_core.kinds.plans import Decisions, Goals
from kioko_core.kinds.registry import KINDS, KindInfo
from kioko_core.kinds.unlinked import Instructions, Profile, WorkingMemory

if TYPE_CHECKING:
    from kioko_core.layer.parts import KindsHost

# --------------------------------------------------------------------------- wiring


TextManager = _TextManager
"""The manager a kind whose memory is just its text names in its registry row (``manager_class="TextManager"``):
it manages the kind of the row it is built for."""


def _manager_class(info: KindInfo) -> type:
    """The class the registry row names, checked: a class of its own kind must be the row's."""
    # this package's namespace: every manager class is imported into it above, whichever module defines it
    found = globals().get(info.manager_class)
    manages = getattr(found, "kind", None)
    if not (isinstance(found, type) and isinstance(manages, str)):
        raise TypeError(f"kind {info.name!r}: the registry names no manager class {info.manager_class!r} here")
    if manages and manages != info.name:
        raise TypeError(f"kind {info.name!r}: {info.manager_class} manages {manages!r}")
    return found


MANAGERS: dict[str, type] = {info.manager: _manager_class(info) for info in KINDS}
"""Attribute name on a MemoryLayer -> manager class (both from the kind registry's rows)."""


def attribute_names() -> dict[str, str]:
    """Every attribute a memory holds a manager under -> the row's own attribute (``lessons`` -> ``strategies``)."""
    return {name: info.manager for info in KINDS for name in (info.manager, *info.manager_aliases)}


def managers_for(layer: KindsHost) -> dict[str, KindManager]:
    """One typed manager of every kind for ``layer``, under its attribute and its aliases (``lessons`` is
    ``strategies``): what the layer's declared properties return (:mod:`kioko_core.layer.declared_managers`).

    :class:`MemoryLayer` keeps them as its ``_managers`` (each view its own, bound to the view's scope).
    """
    built: dict[str, KindManager] = {}
    for info in KINDS:
        manager = MANAGERS[info.manager](layer)
        if not getattr(type(manager), "kind", ""):  # a TextManager: the row says which kind
            manager.kind, manager.noun = info.name, info.called
        built[info.manager] = manager
    return {name: built[own] for name, own in attribute_names().items()}


# in the order the reference page (docs/reference/kinds.md) shows them
__all__ = [
    "MAX_NOTES",
    "MAX_HISTORY",
    "TextManager",
    "MANAGERS",
    "KindMismatch",
    "KindManager",
    "Goals",
    "Decisions",
    "Procedures",
    "Strategies",
    "Skills",
    "Episodes",
    "Facts",
    "Preferences",
    "Knowledge",
    "Insights",
    "Summaries",
    "Instructions",
    "Profile",
    "WorkingMemory",
    "attribute_names",
    "deterministic_id",
    "managers_for",
]
