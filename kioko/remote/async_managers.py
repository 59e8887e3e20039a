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
from kioko_core import kinds as K
from kioko_core.layer.declared_managers import manager_of


class AsyncManager:
    """A typed manager of an AsyncRemoteMemory: each call of the library's manager, awaited."""

    _manager: ClassVar[str] = ""

    def __init__(self, remote: Any) -> None:
        self._remote = remote
        self.kind = getattr(K.MANAGERS[self._manager], "kind", "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AsyncGoals(AsyncManager):
    _manager = "goals"
    add = awaited(K.Goals.add)
    complete = awaited(K.Goals.complete)
    delete = awaited(K.Goals.delete)
    drop = awaited(K.Goals.drop)
    get = awaited(K.Goals.get)
    list = awaited(K.Goals.list)
    open = awaited(K.Goals.open)
    progress = awaited(K.Goals.progress)
    reopen = awaited(K.Goals.reopen)
    subgoals = awaited(K.Goals.subgoals)
    update = awaited(K.Goals.update)


class AsyncDecisions(AsyncManager):
    _manager = "decisions"
    add = awaited(K.Decisions.add)
    chain = awaited(K.Decisions.chain)
    current = awaited(K.Decisions.current)
    delete = awaited(K.Decisions.delete)
    get = awaited(K.Decisions.get)
    list = awaited(K.Decisions.list)
    outcome = awaited(K.Decisions.outcome)
    supersede = awaited(K.Decisions.supersede)
    update = awaited(K.Decisions.update)


class AsyncProcedures(AsyncManager):
    _manager = "procedures"
    add = awaited(K.Procedures.add)
    delete = awaited(K.Procedures.delete)
    get = awaited(K.Procedures.get)
    list = awaited(K.Procedures.list)
    outcome = awaited(K.Procedures.outcome)
    update = awaited(K.Procedures.update)


class AsyncStrategies(AsyncManager):
    _manager = "strategies"
    add = awaited(K.Strategies.add)
    delete = awaited(K.Strategies.delete)
    get = awaited(K.Strategies.get)
    list = awaited(K.Strategies.list)
    outcome = awaited(K.Strategies.outcome)
    update = awaited(K.Strategies.update)


class AsyncSkills(AsyncManager):
    _manager = "skills"
    add = awaited(K.Skills.add)
    delete = awaited(K.Skills.delete)
    get = awaited(K.Skills.get)
    list = awaited(K.Skills.list)
    outcome = awaited(K.Skills.outcome)
    update = awaited(K.Skills.update)


class AsyncEpisodes(AsyncManager):
    _manager = "episodes"
    add = awaited(K.Episodes.add)
    delete = awaited(K.Episodes.delete)
    get = awaited(K.Episodes.get)
    list = awaited(K.Episodes.list)
    update = awaited(K.Episodes.update)


class AsyncFacts(AsyncManager):
    _manager = "facts"
    add = awaited(K.Facts.add)
    delete = awaited(K.Facts.delete)
    get = awaited(K.Facts.get)
    list = awaited(K.Facts.list)
    update = awaited(K.Facts.update)
    verify = awaited(K.Facts.verify)


class AsyncPreferences(AsyncManager):
    _manager = "preferences"
    add = awaited(K.Preferences.add)
    delete = awaited(K.Preferences.delete)
    get = awaited(K.Preferences.get)
    list = awaited(K.Preferences.list)
    update = awaited(K.Preferences.update)


class AsyncKnowledge(AsyncManager):
    _manager = "knowledge"
    add = awaited(K.Knowledge.add)
    delete = awaited(K.Knowledge.delete)
    get = awaited(K.Knowledge.get)
    list = awaited(K.Knowledge.list)
    update = awaited(K.Knowledge.update)


class AsyncInsights(AsyncManager):
    _manager = "insights"
    add = awaited(K.Insights.add)
    delete = awaited(K.Insights.delete)
    get = awaited(K.Insights.get)
    list = awaited(K.Insights.list)
    update = awaited(K.Insights.update)


class AsyncSummaries(AsyncManager):
    _manager = "summaries"
    add = awaited(K.Summaries.add)
    delete = awaited(K.Summaries.delete)
    get = awaited(K.Summaries.get)
    list = awaited(K.Summaries.list)
    update = awaited(K.Summaries.update)


class AsyncInstructions(AsyncManager):
    _manager = "instructions"
    add = awaited(K.Instructions.add)
    delete = awaited(K.Instructions.delete)
    get = awaited(K.Instructions.get)
    list = awaited(K.Instructions.list)
    remove = awaited(K.Instructions.remove)
    update = awaited(K.Instructions.update)


class AsyncProfile(AsyncManager):
    _manager = "profile"
    all = awaited(K.Profile.all)
    get = awaited(K.Profile.get)
    list = awaited(K.Profile.list)
    record = awaited(K.Profile.record)
    remove = awaited(K.Profile.remove)
    set = awaited(K.Profile.set)


class AsyncWorkingMemory(AsyncManager):
    _manager = "working"
    all = awaited(K.WorkingMemory.all)
    clear = awaited(K.WorkingMemory.clear)
    get = awaited(K.WorkingMemory.get)
    promote = awaited(K.WorkingMemory.promote)
    remove = awaited(K.WorkingMemory.remove)
    set = awaited(K.WorkingMemory.set)


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
