"""The typed managers a memory holds (``memory.goals`` ... ``memory.working``, ``memory.lessons``), declared once.

:class:`~kioko_core.layer.memory_layer.MemoryLayer`, :class:`kioko.remote.client.RemoteMemory` and the
:class:`kioko.Memory` protocol take them from :class:`KindManagers`, so mypy and an IDE see each manager's class
(``memory.goals.add`` is :meth:`kioko_core.kinds.Goals.add`). Each property returns the manager its memory built
for itself (``_managers``, see :func:`kioko_core.kinds.managers_for`); nothing is attached at run time.

Rendered from the kinds registry (kioko_core/kinds/registry.py, one property per manager attribute) by
tests/managers_source.py; a test fails when this module and the registry differ: do not edit by hand
(``python tests/managers_source.py --write``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from kioko_core.kinds import (
        Decisions,
        Episodes,
        Facts,
        Goals,
        Insights,
        Instructions,
        Knowledge,
        Preferences,
        Procedures,
        Profile,
        Skills,
        Strategies,
        Summaries,
        WorkingMemory,
    )


def manager_of(memory: object, name: str) -> object:
    """The manager ``memory`` holds under ``name`` (an AttributeError when it holds none: a memory being copied)."""
    held = vars(memory).get("_managers")
    if held is None or name not in held:
        raise AttributeError(name)
    return held[name]


class KindManagers(Protocol):
    """``memory.goals`` ...: one typed manager per kind of memory, read-only."""

    @property
    def facts(self) -> Facts:
        """``memory.facts``: the factual memories (:class:`~kioko_core.kinds.Facts`)."""
        return cast("Facts", manager_of(self, "facts"))

    @property
    def preferences(self) -> Preferences:
        """``memory.preferences``: the preference memories (:class:`~kioko_core.kinds.Preferences`)."""
        return cast("Preferences", manager_of(self, "preferences"))

    @property
    def episodes(self) -> Episodes:
        """``memory.episodes``: the episodic memories (:class:`~kioko_core.kinds.Episodes`)."""
        return cast("Episodes", manager_of(self, "episodes"))

    @property
    def knowledge(self) -> Knowledge:
        """``memory.knowledge``: the semantic memories (:class:`~kioko_core.kinds.Knowledge`)."""
        return cast("Knowledge", manager_of(self, "knowledge"))

    @property
    def goals(self) -> Goals:
        """``memory.goals``: the goal memories (:class:`~kioko_core.kinds.Goals`)."""
        return cast("Goals", manager_of(self, "goals"))

    @property
    def procedures(self) -> Procedures:
        """``memory.procedures``: the procedural memories (:class:`~kioko_core.kinds.Procedures`)."""
        return cast("Procedures", manager_of(self, "procedures"))

    @property
    def skills(self) -> Skills:
        """``memory.skills``: the skill memories (:class:`~kioko_core.kinds.Skills`)."""
        return cast("Skills", manager_of(self, "skills"))

    @property
    def strategies(self) -> Strategies:
        """``memory.strategies``: the strategy memories (:class:`~kioko_core.kinds.Strategies`)."""
        return cast("Strategies", manager_of(self, "strategies"))

    @property
    def lessons(self) -> Strategies:
        """``memory.lessons``: the same manager as ``memory.strategies``."""
        return cast("Strategies", manager_of(self, "strategies"))

    @property
    def decisions(self) -> Decisions:
        """``memory.decisions``: the decision memories (:class:`~kioko_core.kinds.Decisions`)."""
        return cast("Decisions", manager_of(self, "decisions"))

    @property
    def insights(self) -> Insights:
        """``memory.insights``: the insight memories (:class:`~kioko_core.kinds.Insights`)."""
        return cast("Insights", manager_of(self, "insights"))

    @property
    def summaries(self) -> Summaries:
        """``memory.summaries``: the summary memories (:class:`~kioko_core.kinds.Summaries`)."""
        return cast("Summaries", manager_of(self, "summaries"))

    @property
    def instructions(self) -> Instructions:
        """``memory.instructions``: the instruction memories (:class:`~kioko_core.kinds.Instructions`)."""
        return cast("Instructions", manager_of(self, "instructions"))

    @property
    def working(self) -> WorkingMemory:
        """``memory.working``: the working memories (:class:`~kioko_core.kinds.WorkingMemory`)."""
        return cast("WorkingMemory", manager_of(self, "working"))

    @property
    def profile(self) -> Profile:
        """``memory.profile``: the profile memories (:class:`~kioko_core.kinds.Profile`)."""
        return cast("Profile", manager_of(self, "profile"))
