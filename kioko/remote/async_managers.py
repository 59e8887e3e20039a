"""AsyncRemoteMemory's typed managers: ``await memory.goals.add(...)`` has the library's ``Goals.add``
signature and returns its type (mypy and ``inspect`` see both), and sends the operation of the managers'
table (kioko/api/operations.py) it names. :class:`AsyncKindManagers` declares them on AsyncRemoteMemory, one
property per manager attribute of the kinds registry.

Rendered from those tables by tests/managers_source.py (a test fails when a manager's calls change): do not
edit by hand (``python tests/managers_source.py --write``).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from kioko.remote.calls import awaited
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


class AsyncGoals(AsyncManager):
    _manager = "goals"
    add = awaited(kinds.Goals.add)
    complete = awaited(kinds.Goals.complete)
    delete = awaited(kinds.Goals.delete)
    drop = awaited(kinds.Goals.drop)
    get = awaited(kinds.Goals.get)
    list = awaited(kinds.Goals.list)
    open = awaited(kinds.Goals.open)
    progress = awaited(kinds.Goals.progress)
    reopen = awaited(kinds.Goals.reopen)
    subgoals = awaited(kinds.Goals.subgoals)
    update = awaited(kinds.Goals.update)


class AsyncDecisions(AsyncManager):
    _manager = "decisions"
    add = awaited(kinds.Decisions.add)
    chain = awaited(kinds.Decisions.chain)
    current = awaited(kinds.Decisions.current)
    delete = awaited(kinds.Decisions.delete)
    get = awaited(kinds.Decisions.get)
    list = awaited(kinds.Decisions.list)
    outcome = awaited(kinds.Decisions.outcome)
    supersede = awaited(kinds.Decisions.supersede)
    update = awaited(kinds.Decisions.update)


class AsyncProcedures(AsyncManager):
    _manager = "procedures"
    add = awaited(kinds.Procedures.add)
    delete = awaited(kinds.Procedures.delete)
    get = awaited(kinds.Procedures.get)
    list = awaited(kinds.Procedures.list)
    outcome = awaited(kinds.Procedures.outcome)
    update = awaited(kinds.Procedures.update)


class AsyncStrategies(AsyncManager):
    _manager = "strategies"
    add = awaited(kinds.Strategies.add)
    delete = awaited(kinds.Strategies.delete)
    get = awaited(kinds.Strategies.get)
    list = awaited(kinds.Strategies.list)
    outcome = awaited(kinds.Strategies.outcome)
    update = awaited(kinds.Strategies.update)


class AsyncSkills(AsyncManager):
    _manager = "skills"
    add = awaited(kinds.Skills.add)
    delete = awaited(kinds.Skills.delete)
    get = awaited(kinds.Skills.get)
    list = awaited(kinds.Skills.list)
    outcome = awaited(kinds.Skills.outcome)
    update = awaited(kinds.Skills.update)


class AsyncEpisodes(AsyncManager):
    _manager = "episodes"
    add = awaited(kinds.Episodes.add)
    delete = awaited(kinds.Episodes.delete)
    get = awaited(kinds.Episodes.get)
    list = awaited(kinds.Episodes.list)
    update = awaited(kinds.Episodes.update)


class AsyncFacts(AsyncManager):
    _manager = "facts"
    add = awaited(kinds.Facts.add)
    delete = awaited(kinds.Facts.delete)
    get = awaited(kinds.Facts.get)
    list = awaited(kinds.Facts.list)
    update = awaited(kinds.Facts.update)
    verify = awaited(kinds.Facts.verify)


class AsyncPreferences(AsyncManager):
    _manager = "preferences"
    add = awaited(kinds.Preferences.add)
    delete = awaited(kinds.Preferences.delete)
    get = awaited(kinds.Preferences.get)
    list = awaited(kinds.Preferences.list)
    update = awaited(kinds.Preferences.update)


class AsyncKnowledge(AsyncManager):
    _manager = "knowledge"
    add = awaited(kinds.Knowledge.add)
    delete = awaited(kinds.Knowledge.delete)
    get = awaited(kinds.Knowledge.get)
    list = awaited(kinds.Knowledge.list)
    update = awaited(kinds.Knowledge.update)


class AsyncInsights(AsyncManager):
    _manager = "insights"
    add = awaited(kinds.Insights.add)
    delete = awaited(kinds.Insights.delete)
    get = awaited(kinds.Insights.get)
    list = awaited(kinds.Insights.list)
    update = awaited(kinds.Insights.update)


class AsyncSummaries(AsyncManager):
    _manager = "summaries"
    add = awaited(kinds.Summaries.add)
    delete = awaited(kinds.Summaries.delete)
    get = awaited(kinds.Summaries.get)
    list = awaited(kinds.Summaries.list)
    update = awaited(kinds.Summaries.update)


class AsyncInstructions(AsyncManager):
    _manager = "instructions"
    add = awaited(kinds.Instructions.add)
    delete = awaited(kinds.Instructions.delete)
    get = awaited(kinds.Instructions.get)
    list = awaited(kinds.Instructions.list)
    remove = awaited(kinds.Instructions.remove)
    update = awaited(kinds.Instructions.update)


class AsyncProfile(AsyncManager):
    _manager = "profile"
    all = awaited(kinds.Profile.all)
    get = awaited(kinds.Profile.get)
    list = awaited(kinds.Profile.list)
    record = awaited(kinds.Profile.record)
    remove = awaited(kinds.Profile.remove)
    set = awaited(kinds.Profile.set)


class AsyncWorkingMemory(AsyncManager):
    _manager = "working"
    all = awaited(kinds.WorkingMemory.all)
    clear = awaited(kinds.WorkingMemory.clear)
    get = awaited(kinds.WorkingMemory.get)
    promote = awaited(kinds.WorkingMemory.promote)
    remove = awaited(kinds.WorkingMemory.remove)
    set = awaited(kinds.WorkingMemory.set)


MANAGERS: dict[str, type[AsyncManager]] = {
    "goals": AsyncGoals,
    "decisions": AsyncDecisions,
    "procedures": AsyncProcedures,
    "strategies": AsyncStrategies,
    "skills": AsyncSkills,
    "episodes": AsyncEpisodes,
    "facts": AsyncFacts,
    "preferences": AsyncPreferences,
    "knowledge": AsyncKnowledge,
    "insights": AsyncInsights,
    "summaries": AsyncSummaries,
    "instructions": AsyncInstructions,
    "profile": AsyncProfile,
    "working": AsyncWorkingMemory,
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
    "AsyncGoals",
    "AsyncDecisions",
    "AsyncProcedures",
    "AsyncStrategies",
    "AsyncSkills",
    "AsyncEpisodes",
    "AsyncFacts",
    "AsyncPreferences",
    "AsyncKnowledge",
    "AsyncInsights",
    "AsyncSummaries",
    "AsyncInstructions",
    "AsyncProfile",
    "AsyncWorkingMemory",
]
