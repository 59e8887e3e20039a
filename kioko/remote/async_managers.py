"""AsyncRemoteMemory's typed managers: ``await memory.goals.add(...)`` has the library's ``Goals.add``
signature and returns its type (mypy and ``inspect`` see both), and sends the operation of the managers'
table (kioko/api/operations.py) it names. :class:`AsyncKindManagers` declares them on AsyncRemoteMemory, one
property per manager attribute of the kinds registry.

Rendered from those tables by tests/managers_source.py (a test fails when a manager's calls change): do not
edit by hand (``python tests/managers_source.py --write``).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from kioko.remote.calls import forward_manager_async
from kioko_core import kinds
from kioko_core.layer.declared_managers import manager_of


class AsyncManager:
    """A typed manager of an AsyncRemoteMemory: each call of the library's manager, awaited."""

    _manager: ClassVar[str] = ""

    def __init__(self, remote: Any) -> None:
        self._remote = remote
        self.kind = getattr(kinds.MANAGERS[self._manager], "kind", "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AsyncFacts(AsyncManager):
    _manager = "facts"
    add = forward_manager_async(kinds.Facts.add)
    delete = forward_manager_async(kinds.Facts.delete)
    get = forward_manager_async(kinds.Facts.get)
    list = forward_manager_async(kinds.Facts.list)
    update = forward_manager_async(kinds.Facts.update)
    verify = forward_manager_async(kinds.Facts.verify)


class AsyncPreferences(AsyncManager):
    _manager = "preferences"
    add = forward_manager_async(kinds.Preferences.add)
    delete = forward_manager_async(kinds.Preferences.delete)
    get = forward_manager_async(kinds.Preferences.get)
    list = forward_manager_async(kinds.Preferences.list)
    update = forward_manager_async(kinds.Preferences.update)


class AsyncEpisodes(AsyncManager):
    _manager = "episodes"
    add = forward_manager_async(kinds.Episodes.add)
    delete = forward_manager_async(kinds.Episodes.delete)
    get = forward_manager_async(kinds.Episodes.get)
    list = forward_manager_async(kinds.Episodes.list)
    update = forward_manager_async(kinds.Episodes.update)


class AsyncKnowledge(AsyncManager):
    _manager = "knowledge"
    add = forward_manager_async(kinds.Knowledge.add)
    delete = forward_manager_async(kinds.Knowledge.delete)
    get = forward_manager_async(kinds.Knowledge.get)
    list = forward_manager_async(kinds.Knowledge.list)
    update = forward_manager_async(kinds.Knowledge.update)


class AsyncGoals(AsyncManager):
    _manager = "goals"
    add = forward_manager_async(kinds.Goals.add)
    complete = forward_manager_async(kinds.Goals.complete)
    delete = forward_manager_async(kinds.Goals.delete)
    drop = forward_manager_async(kinds.Goals.drop)
    get = forward_manager_async(kinds.Goals.get)
    list = forward_manager_async(kinds.Goals.list)
    open = forward_manager_async(kinds.Goals.open)
    progress = forward_manager_async(kinds.Goals.progress)
    reopen = forward_manager_async(kinds.Goals.reopen)
    subgoals = forward_manager_async(kinds.Goals.subgoals)
    update = forward_manager_async(kinds.Goals.update)


class AsyncProcedures(AsyncManager):
    _manager = "procedures"
    add = forward_manager_async(kinds.Procedures.add)
    delete = forward_manager_async(kinds.Procedures.delete)
    get = forward_manager_async(kinds.Procedures.get)
    list = forward_manager_async(kinds.Procedures.list)
    outcome = forward_manager_async(kinds.Procedures.outcome)
    update = forward_manager_async(kinds.Procedures.update)


class AsyncSkills(AsyncManager):
    _manager = "skills"
    add = forward_manager_async(kinds.Skills.add)
    delete = forward_manager_async(kinds.Skills.delete)
    get = forward_manager_async(kinds.Skills.get)
    list = forward_manager_async(kinds.Skills.list)
    outcome = forward_manager_async(kinds.Skills.outcome)
    update = forward_manager_async(kinds.Skills.update)


class AsyncStrategies(AsyncManager):
    _manager = "strategies"
    add = forward_manager_async(kinds.Strategies.add)
    delete = forward_manager_async(kinds.Strategies.delete)
    get = forward_manager_async(kinds.Strategies.get)
    list = forward_manager_async(kinds.Strategies.list)
    outcome = forward_manager_async(kinds.Strategies.outcome)
    update = forward_manager_async(kinds.Strategies.update)


class AsyncDecisions(AsyncManager):
    _manager = "decisions"
    add = forward_manager_async(kinds.Decisions.add)
    chain = forward_manager_async(kinds.Decisions.chain)
    current = forward_manager_async(kinds.Decisions.current)
    delete = forward_manager_async(kinds.Decisions.delete)
    get = forward_manager_async(kinds.Decisions.get)
    list = forward_manager_async(kinds.Decisions.list)
    outcome = forward_manager_async(kinds.Decisions.outcome)
    supersede = forward_manager_async(kinds.Decisions.supersede)
    update = forward_manager_async(kinds.Decisions.update)


class AsyncInsights(AsyncManager):
    _manager = "insights"
    add = forward_manager_async(kinds.Insights.add)
    delete = forward_manager_async(kinds.Insights.delete)
    get = forward_manager_async(kinds.Insights.get)
    list = forward_manager_async(kinds.Insights.list)
    update = forward_manager_async(kinds.Insights.update)


class AsyncSummaries(AsyncManager):
    _manager = "summaries"
    add = forward_manager_async(kinds.Summaries.add)
    delete = forward_manager_async(kinds.Summaries.delete)
    get = forward_manager_async(kinds.Summaries.get)
    list = forward_manager_async(kinds.Summaries.list)
    update = forward_manager_async(kinds.Summaries.update)


class AsyncInstructions(AsyncManager):
    _manager = "instructions"
    add = forward_manager_async(kinds.Instructions.add)
    delete = forward_manager_async(kinds.Instructions.delete)
    get = forward_manager_async(kinds.Instructions.get)
    list = forward_manager_async(kinds.Instructions.list)
    remove = forward_manager_async(kinds.Instructions.remove)
    update = forward_manager_async(kinds.Instructions.update)


class AsyncWorkingMemory(AsyncManager):
    _manager = "working"
    all = forward_manager_async(kinds.WorkingMemory.all)
    clear = forward_manager_async(kinds.WorkingMemory.clear)
    get = forward_manager_async(kinds.WorkingMemory.get)
    promote = forward_manager_async(kinds.WorkingMemory.promote)
    remove = forward_manager_async(kinds.WorkingMemory.remove)
    set = forward_manager_async(kinds.WorkingMemory.set)


class AsyncProfile(AsyncManager):
    _manager = "profile"
    all = forward_manager_async(kinds.Profile.all)
    get = forward_manager_async(kinds.Profile.get)
    list = forward_manager_async(kinds.Profile.list)
    record = forward_manager_async(kinds.Profile.record)
    remove = forward_manager_async(kinds.Profile.remove)
    set = forward_manager_async(kinds.Profile.set)


MANAGERS: dict[str, type[AsyncManager]] = {
    "facts": AsyncFacts,
    "preferences": AsyncPreferences,
    "episodes": AsyncEpisodes,
    "knowledge": AsyncKnowledge,
    "goals": AsyncGoals,
    "procedures": AsyncProcedures,
    "skills": AsyncSkills,
    "strategies": AsyncStrategies,
    "decisions": AsyncDecisions,
    "insights": AsyncInsights,
    "summaries": AsyncSummaries,
    "instructions": AsyncInstructions,
    "working": AsyncWorkingMemory,
    "profile": AsyncProfile,
}


class AsyncKindManagers:
    """``memory.goals`` ... of an AsyncRemoteMemory: one awaited manager per kind of memory, read-only."""

    @property
    def facts(self) -> AsyncFacts:
        """``memory.facts``: the factual memories (``AsyncFacts``)."""
        return cast("AsyncFacts", manager_of(self, "facts"))

    @property
    def preferences(self) -> AsyncPreferences:
        """``memory.preferences``: the preference memories (``AsyncPreferences``)."""
        return cast("AsyncPreferences", manager_of(self, "preferences"))

    @property
    def episodes(self) -> AsyncEpisodes:
        """``memory.episodes``: the episodic memories (``AsyncEpisodes``)."""
        return cast("AsyncEpisodes", manager_of(self, "episodes"))

    @property
    def knowledge(self) -> AsyncKnowledge:
        """``memory.knowledge``: the semantic memories (``AsyncKnowledge``)."""
        return cast("AsyncKnowledge", manager_of(self, "knowledge"))

    @property
    def goals(self) -> AsyncGoals:
        """``memory.goals``: the goal memories (``AsyncGoals``)."""
        return cast("AsyncGoals", manager_of(self, "goals"))

    @property
    def procedures(self) -> AsyncProcedures:
        """``memory.procedures``: the procedural memories (``AsyncProcedures``)."""
        return cast("AsyncProcedures", manager_of(self, "procedures"))

    @property
    def skills(self) -> AsyncSkills:
        """``memory.skills``: the skill memories (``AsyncSkills``)."""
        return cast("AsyncSkills", manager_of(self, "skills"))

    @property
    def strategies(self) -> AsyncStrategies:
        """``memory.strategies``: the strategy memories (``AsyncStrategies``)."""
        return cast("AsyncStrategies", manager_of(self, "strategies"))

    @property
    def lessons(self) -> AsyncStrategies:
        """``memory.lessons``: the same manager as ``memory.strategies``."""
        return cast("AsyncStrategies", manager_of(self, "strategies"))

    @property
    def decisions(self) -> AsyncDecisions:
        """``memory.decisions``: the decision memories (``AsyncDecisions``)."""
        return cast("AsyncDecisions", manager_of(self, "decisions"))

    @property
    def insights(self) -> AsyncInsights:
        """``memory.insights``: the insight memories (``AsyncInsights``)."""
        return cast("AsyncInsights", manager_of(self, "insights"))

    @property
    def summaries(self) -> AsyncSummaries:
        """``memory.summaries``: the summary memories (``AsyncSummaries``)."""
        return cast("AsyncSummaries", manager_of(self, "summaries"))

    @property
    def instructions(self) -> AsyncInstructions:
        """``memory.instructions``: the instruction memories (``AsyncInstructions``)."""
        return cast("AsyncInstructions", manager_of(self, "instructions"))

    @property
    def working(self) -> AsyncWorkingMemory:
        """``memory.working``: the working memories (``AsyncWorkingMemory``)."""
        return cast("AsyncWorkingMemory", manager_of(self, "working"))

    @property
    def profile(self) -> AsyncProfile:
        """``memory.profile``: the profile memories (``AsyncProfile``)."""
        return cast("AsyncProfile", manager_of(self, "profile"))


__all__ = [
    "AsyncManager",
    "AsyncKindManagers",
    "MANAGERS",
    "AsyncFacts",
    "AsyncPreferences",
    "AsyncEpisodes",
    "AsyncKnowledge",
    "AsyncGoals",
    "AsyncProcedures",
    "AsyncSkills",
    "AsyncStrategies",
    "AsyncDecisions",
    "AsyncInsights",
    "AsyncSummaries",
    "AsyncInstructions",
    "AsyncWorkingMemory",
    "AsyncProfile",
]
