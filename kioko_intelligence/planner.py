"""The read path's planner: what a question needs from memory, read offline from its words.

:class:`QueryPlanner` names the query's intents and returns a :class:`RecallPlan`: a cap for each
section of the context, how many memories links may bring in, and which sections to fill with the
newest memories when the search finds none. ``recall()`` follows the plan when the layer has
intelligence (or with ``plan="auto"``); options passed to ``recall()`` win over it.

The caps per intent, over the context's sections (``memories`` holds facts, events, knowledge,
preferences and insights; a missing section keeps the layer's default):

==============  ========  =========  ==========  ======  =======  =====  =====  =====  ===========
intent          memories  decisions  procedures  skills  lessons  graph  links  limit  fill_recent
==============  ========  =========  ==========  ======  =======  =====  =====  =====  ===========
howto           3         1          3           2       3        4      3
decision        4         5          2           0       2        6      4             decisions
goals           3         2          2           0       0               4
temporal        10        2          2           0       0               2      10
personal        8         2          0           0       0               1             (profile 30)
relational      (only the relations)                              15     6
knowledge       6         2          2           0       1        8      2
skills          2         1          2           4       2               2
strategy        3         2          3           2       4               3             lessons
smalltalk       0         0          0           0       0        0      0      (the stable part stays)
feedback        0         0          0           0       0        0      0
(none)          default caps                                      5      3
==============  ========  =========  ==========  ======  =======  =====  =====  =====  ===========

``graph`` caps the "Known relations:" section (the entity graph's relations of what the query names;
default 5); the profile (default 10 slots), the instructions and the session's working memory are shown
in every context - small talk keeps them, with the goals and the pins.

Several intents: per section the largest cap among the intents that cap it, the most links, the
largest limit, every ``fill_recent``. The links per intent are graph-memory section 6's.

A question that names no topic (only stop words and :data:`QUESTION_FRAMING`: "What do I like doing?") is
``personal`` (:func:`asks_without_topic`). A question about the user with no intent but ``personal``,
``temporal`` or ``relational`` ("What do I study?") also fills ``memories`` (:func:`asks_about_user`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kioko_core.privacy.secrets import get_logger, redact
from kioko_core.store import InvalidRecordError, check_scope

# The router's tables (heuristic, language, llm) load when a query is planned, not with RecallPlan: the
# service's wire format, the remote client and every layer import this module for that one dataclass.

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

RETRIEVED_SECTIONS = ("memories", "decisions", "procedures", "skills", "lessons")
"""The context sections retrieval fills (and a plan may cap)."""
SECTION_NAMES = frozenset(
    RETRIEVED_SECTIONS + ("goals", "pinned", "profile", "instructions", "graph", "working", "safety")
)
"""Every section a plan or ``section_limits`` may cap: the retrieved ones, the open goals, the pins, the
profile, the instructions, the entity graph's relations (``graph``), the session's working memory and the
safety facts the question bears on (``safety``, default 5)."""
FILLABLE = frozenset({"decisions", "procedures", "skills", "lessons", "memories"})
"""Sections ``fill_recent`` may fill with the newest memories of their kind when the search finds none."""
# The intents and sections share words with the kinds (a "decision" question, the "profile" section) but name
# what a question asks and what a context shows, not stored kinds: nothing here is looked up in the registry.
INTENTS = (
    "howto",
    "decision",
    "goals",
    "temporal",
    "personal",
    "relational",
    "knowledge",
    "skills",
    "strategy",
    "smalltalk",
    "feedback",
)
GENERAL_LINKS = 3
QUERY_CHARS = 2000
"""The start of the query the model sees (a plan needs the question, not a pasted log)."""

log = get_logger("kioko.intelligence")


@dataclass(frozen=True)
class _Row:
    caps: dict[str, int]
    links: int
    reason: str
    limit: int | None = None
    fill_recent: tuple[str, ...] = ()


def _caps(memories: int, decisions: int, procedures: int, skills: int, lessons: int, **more: int) -> dict[str, int]:
    return {**dict(zip(RETRIEVED_SECTIONS, (memories, decisions, procedures, skills, lessons))), **more}


TABLE: dict[str, _Row] = {
    "howto": _Row(_caps(3, 1, 3, 2, 3, graph=4), 3, "a how-to question: procedures, skills and lessons first"),
    "decision": _Row(
        _caps(4, 5, 2, 0, 2, graph=6),
        4,
        "a question about a decision: the decision log first",
        fill_recent=("decisions",),
    ),
    "goals": _Row(
        _caps(3, 2, 2, 0, 0),
        4,
        "a question about goals or what is next: every open goal, the plans and decisions that serve them",
    ),
    "temporal": _Row(
        _caps(10, 2, 2, 0, 0),
        2,
        "a question about when: more events, the plans and the decisions that fix a day",
        limit=10,
    ),
    "personal": _Row(
        _caps(8, 2, 0, 0, 0, profile=30),
        1,
        "a question about the user: personal facts, no procedures",
        fill_recent=("memories",),
    ),
    "relational": _Row({"graph": 15}, 6, "names someone or something the graph knows: more linked memories"),
    "knowledge": _Row(_caps(6, 2, 2, 0, 1, graph=8), 2, "a knowledge question: facts and knowledge first"),
    "skills": _Row(_caps(2, 1, 2, 4, 2), 2, "asks for a skill or template: skills first"),
    "strategy": _Row(
        _caps(3, 2, 3, 2, 4),
        3,
        "asks how best to approach something, or for a lesson or note: lessons first",
        fill_recent=("lessons",),
    ),
    "smalltalk": _Row(_caps(0, 0, 0, 0, 0, graph=0), 0, "small talk: no retrieval"),
    "feedback": _Row(_caps(0, 0, 0, 0, 0, graph=0), 0, "feedback on an answer: no retrieval"),
}

_PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "howto": r"\bhow (?:do|can|should|would|could|did) (?:i|we|you|one)\b|\bhow to\b|\bsteps? (?:to|for)\b|"
        r"\bprocedure\b|\binstructions? (?:to|for)\b|\bwhat are the steps\b|\bwalk me through\b",
        "decision": r"\bwhy did (?:we|i|you|they)\b|\bdecid|\bdecision|\bchose\b|\bchoose\b|\bchosen\b|\bsettled? on\b|"
        r"\bwent with\b|\bgo with\b|\bpicked\b|\bswitch(?:ed)? (?:to|from)\b|\bwhich .* did we\b",
        "goals": r"\bgoals?\b|\bfocus on\b|\bpriorit|\bwork on next\b|\bwhat(?:'s| is) next\b|\bdeadlines?\b|"
        r"\bobjectives?\b|\bmilestones?\b|\bon track\b",
        "temporal": r"\bwhen\b|\blast (?:week|month|year|night|time|monday|tuesday|wednesday|thursday|friday|saturday|"
        r"sunday)\b|\byesterday\b|\bago\b|\bthis (?:morning|week|month)\b|\bwhat happened\b|\bhow long\b|"
        r"\bwhat time\b|\bwhat date\b|\bsince when\b|\bhistory of\b",
        "personal": r"\babout me\b|\bwho am i\b|\bmy (?:name|age|birthday|job|role|title|address|location|phone|email|"
        r"family|wife|husband|partner|kids|children|preferences?|profile|hobbies)\b|"
        r"\bwhere do i (?:live|work)\b|\bwhat do i (?:like|prefer|do)\b|\bdo you know me\b",
        "relational": r"^\W*who(?:'s| is| was| are| were)\b|\brelationship\b|\bconnected to\b|\bworks? with\b|"
        r"\breports? to\b",
        "knowledge": r"^\W*what(?:'s| is| are| was| were) (?:the|a|an)\b(?! best\b| right\b| better\b| next\b)|"
        r"\bwhat does .+ (?:mean|stand for)\b|\bdefault\b|\bdefin(?:e|ition)\b|\bspecs?\b|"
        r"\bspecification\b|\bexplain what\b",
        "skills": r"\bskills?\b|\btemplates?\b|\bprompts?\b|\bsnippets?\b|\bscripts?\b|\bdo we have an? \b",
        "strategy": r"\bbest (?:way|approach|practice)s?\b|\bhow should (?:i|we)\b|\bshould (?:i|we) (?:use|try|approach)\b|\bstrateg|\blessons?\b|"
        r"\bnotes? to (?:self|myself)\b|^\W*what (?:was|were|is|are) (?:the|my) notes?\b|"
        r"\bwhat worked\b|\bavoid\b|\btips?\b|\badvice\b|\bmistakes?\b|\bpitfalls?\b",
    }.items()
}


PROBLEM = re.compile(
    r"\b(?:died|dies|dying|dead|killed|crash(?:es|ed|ing)?|fail(?:s|ed|ing|ure|ures)?|errors?|exceptions?|"
    r"broke|broken|stuck|jam(?:s|med|ming)?|clogged|blocked|leak(?:s|ed|ing)|tripped|hangs?|hung|timed? ?out|"
    r"timeouts?|panic(?:s|ked)?|segfault(?:s|ed)?|oom|out of memory|"
    r"exit(?:ed)? (?:code|with)|not working|stopped working|won't (?:start|run|build|boot|load)|doesn't work|"
    r"(?:is|are|went|goes) down|outage|incident|keeps? (?:crashing|failing|dying|timing out))\b",
    re.IGNORECASE,
)
"""Words that report something going wrong (a job that died, an error, an outage)."""
ASKS_HELP = re.compile(
    r"\bwhat (?:do|should|can|could|shall) (?:i|we) do\b|\bwhat now\b|\bwhat(?:'s| is| was) the fix\b|"
    r"\bhow (?:do|can|should|could|did) (?:i|we) (?:fix|solve|handle|deal with|recover|resolve|debug|get past|stop)\b|"
    r"\bhow to (?:fix|solve|handle|deal with|recover|resolve|debug|stop)\b|\bany (?:ideas?|fix(?:es)?|tips?|suggestions?)\b|"
    r"\bhelp\b|\bwhat went wrong\b|\bwhy (?:does|did|do|is|was) (?:it|this|that|the)\b",
    re.IGNORECASE,
)
"""Asks what to do about it: with :data:`PROBLEM`, a problem question (planned as ``howto`` and ``strategy``)."""
PROBLEM_REASON = "a problem and a call for help: the fixes (procedures) and lessons about it first"


def is_problem_question(query: str) -> bool:
    """Reports something going wrong and asks what to do ("the nightly job died again with OOM-137, what do I do?")."""
    return PROBLEM.search(query) is not None and ASKS_HELP.search(query) is not None


QUESTION_FRAMING = frozenset(
    "know knows knew tell remind remember think mind anything something everything things stuff day days lately "
    "currently recently usually generally".split()
)
"""Words that frame a question rather than name its topic: "What should I know?", "Anything I should keep in mind?"."""


def asks_without_topic(query: str) -> bool:
    """A question made only of stop words and :data:`QUESTION_FRAMING` ("What do I like doing?", "What should I
    know?"): it names nothing to search for, so it is about the user (the ``personal`` intent: their newest
    facts and preferences, the whole profile)."""
    from kioko_core.reading.analysis import own_terms, stem
    from kioko_intelligence.language import is_question

    if not is_question(query):
        return False
    framing = {"t:" + stem(w) for w in QUESTION_FRAMING} | {"e:" + w for w in QUESTION_FRAMING}
    return all(term in framing for term in own_terms(query))


USER_SUBJECT = re.compile(
    r"\b(?:(?:do|did|am|was|have|had|can|could|should|will|would) i|i(?:'m| am| was))\b|\bmy\b", re.I
)
ABOUT_USER_INTENTS = frozenset({"personal", "temporal", "relational"})
"""The intents (or none) of a question about the user whose search may find nothing of theirs to show."""


def asks_about_user(query: str) -> bool:
    """A question with the user as its subject or owner ("What do I study?", "What's my position at the firm?"):
    when its words find none of their memories ("User is a 2nd year medic" shares no word with "study"),
    the plan fills the ``memories`` section with their newest facts, preferences and events (``fill_recent``),
    without the ``personal`` intent's caps (a procedure may still answer "What do I need for the visa?")."""
    from kioko_intelligence.language import is_question

    return is_question(query) and USER_SUBJECT.search(query) is not None


@dataclass
class RecallPlan:
    """What recall retrieves: the intents read, why, a cap per context section, links, fill_recent.

    ``section_limits`` maps a section (``memories``, ``decisions``, ``procedures``, ``skills``,
    ``lessons``, ``goals``, ``pinned``) to how many memories it shows; a section not named keeps the default.
    ``links`` is how many memories links alone may bring in; ``limit`` the total (None: the layer's);
    ``fill_recent`` the sections filled with the newest memories of their kind (decisions: those in
    force) when the search finds none.
    """

    intents: list[str] = field(default_factory=list)
    reason: str = "no particular intent: every kind with the default caps"
    section_limits: dict[str, int] = field(default_factory=dict)
    links: int = GENERAL_LINKS
    fill_recent: list[str] = field(default_factory=list)
    limit: int | None = None

    def __post_init__(self) -> None:
        check_plan_options(self.section_limits, self.fill_recent)
        if isinstance(self.links, bool) or not isinstance(self.links, int) or self.links < 0:
            raise InvalidRecordError(f"plan links must be an integer >= 0, got {self.links!r}")
        if self.limit is not None and (
            isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1
        ):
            raise InvalidRecordError(f"plan limit must be a positive integer or None, got {self.limit!r}")
        unknown = [i for i in self.intents if i not in INTENTS]
        if unknown:
            raise InvalidRecordError(f"unknown intent(s) {unknown}; known: {list(INTENTS)}")

    @property
    def retrieves(self) -> bool:
        """False when every retrieved section is capped at 0 (small talk): only goals and pins are shown."""
        return any(self.section_limits.get(s, 1) > 0 for s in RETRIEVED_SECTIONS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "intents": list(self.intents),
            "reason": self.reason,
            "section_limits": dict(self.section_limits),
            "links": self.links,
            "fill_recent": list(self.fill_recent),
            "limit": self.limit,
        }


def check_plan_options(section_limits: Any, fill_recent: Any) -> None:
    """:class:`InvalidRecordError` for a section_limits / fill_recent that names no section or caps badly."""
    if not isinstance(section_limits, dict):
        raise InvalidRecordError(
            f"section_limits must be a dict of section -> int, got {type(section_limits).__name__}"
        )
    for name, cap in section_limits.items():
        if name not in SECTION_NAMES:
            raise InvalidRecordError(f"unknown section {name!r} in section_limits; known: {sorted(SECTION_NAMES)}")
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
            raise InvalidRecordError(f"section_limits[{name!r}] must be an integer >= 0, got {cap!r}")
    if isinstance(fill_recent, str) or not isinstance(fill_recent, (list, tuple)):
        raise InvalidRecordError(f"fill_recent must be a list of sections, got {fill_recent!r}")
    for name in fill_recent:
        if name not in FILLABLE:
            raise InvalidRecordError(f"fill_recent can fill {sorted(FILLABLE)}, not {name!r}")


def plan_for(intents: list[str]) -> RecallPlan:
    """The plan for these intents (the table's rows merged: the largest cap, the most links, every fill)."""
    intents = [i for i in INTENTS if i in intents]
    if not intents:
        return RecallPlan()
    caps: dict[str, int] = {}
    for intent in intents:
        for section, cap in TABLE[intent].caps.items():
            caps[section] = max(caps.get(section, 0), cap)
    limits = [limit for limit in (TABLE[i].limit for i in intents) if limit is not None]
    fills = list(dict.fromkeys(f for i in intents for f in TABLE[i].fill_recent))
    reason = "; ".join(TABLE[i].reason for i in intents)
    return RecallPlan(
        intents=intents,
        reason=reason,
        section_limits=caps,
        links=max(TABLE[i].links for i in intents),
        fill_recent=fills,
        limit=max(limits) if limits else None,
    )


class QueryPlanner:
    """Reads a query's intents offline (patterns, no model) and returns its :class:`RecallPlan`.

    ``use_graph``: a query naming an entity the user's entity graph knows also gets the ``relational``
    intent (one postings call).
    """

    name = "offline"

    def __init__(self, *, use_graph: bool = True) -> None:
        self.use_graph = use_graph

    def __repr__(self) -> str:
        return f"QueryPlanner(use_graph={self.use_graph})"

    def intents(self, query: str) -> list[str]:
        """The intents the query's words show, in the table's order (no graph)."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        from kioko_intelligence.normalise import normalise_query

        tidy = normalise_query(query)  # "WHAT DO I LIKE", "whats my dogs name" read as tidy questions
        query = query if tidy == query else tidy  # a Query read once (its names known) stays that Query
        found = {name for name, pattern in _PATTERNS.items() if pattern.search(query)}
        if is_problem_question(query):
            # "what do I do?" after a failure asks for a fix, not about the user ("what do I do for a living?")
            found = (found - {"personal"}) | {"howto", "strategy"}
        from kioko_intelligence.language import is_small_talk
        from kioko_intelligence.rules import FEEDBACK_BAD, FEEDBACK_OK

        if FEEDBACK_OK.search(query) or FEEDBACK_BAD.search(query):
            found.add("feedback")
        elif query.strip() and is_small_talk(query):
            found.add("smalltalk")
        elif not found & {"howto", "strategy"} and asks_without_topic(query):
            found.add("personal")
        return [i for i in INTENTS if i in found]

    def plan(
        self,
        memory: MemoryLayer,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> RecallPlan:
        """The plan for ``query`` in ``user_id``'s memory."""
        from kioko_core.reading.query_and_draft import names_known
        from kioko_intelligence.normalise import normalise_query

        scope = check_scope((user_id, agent_id))
        if isinstance(query, str):
            tidy = normalise_query(query)
            # an unchanged question stays the Query it came as: its names were matched once, with its terms
            query = query if tidy == query else tidy
        intents = self.intents(query)
        if (
            self.use_graph
            and "relational" not in intents
            and query.strip()
            and not {"smalltalk", "feedback"} & set(intents)
        ):
            if names_known(memory.entities, query, scope.user_id):  # recall's Query holds them: no second match
                intents = [i for i in INTENTS if i in intents or i == "relational"]
        plan = plan_for(intents)
        if set(intents) <= ABOUT_USER_INTENTS and "memories" not in plan.fill_recent and asks_about_user(query):
            plan = replace(plan, fill_recent=[*plan.fill_recent, "memories"])
        return replace(plan, reason=f"{PROBLEM_REASON}; {plan.reason}") if is_problem_question(query) else plan


DEFAULT_PLAN_PROMPT = """Which memories does an assistant need to answer the user's message? Name its intents:
- howto: how to do something (procedures, skills, lessons)
- decision: why or what was decided
- goals: the user's goals, priorities, what to focus on
- temporal: when something happened, what happened at a time
- personal: about the user themself
- relational: who someone is, how people or things relate
- knowledge: a fact or reference value
- skills: a skill, template, prompt or script
- strategy: the best way to approach something, lessons learned
- smalltalk: greetings, thanks, chit-chat
- feedback: says an earlier answer worked or did not
Answer with JSON only: {{"intents": ["howto"], "reason": "one short sentence"}} (an empty list when none fits).

Message: {query}
"""


def parse_intents(text: Any) -> tuple[list[str], str]:
    """The known intents and the reason in a model's answer; ValueError when it names no usable intent list."""
    if not isinstance(text, str):
        raise ValueError("the model's answer is not text")
    from kioko_intelligence.llm import json_values

    for value in json_values(text, "{"):
        if isinstance(value, dict) and isinstance(value.get("intents"), list):
            named = [i.strip().lower() for i in value["intents"] if isinstance(i, str)]
            known = [i for i in INTENTS if i in named]
            if value["intents"] and not known:
                raise ValueError(f"the model named no known intent: {value['intents']!r}")
            reason = value.get("reason")
            return known, reason.strip()[:200] if isinstance(reason, str) else ""
    raise ValueError("no intents JSON found in the model's answer")


class LLMPlanner:
    """A model names the query's intents (one small call per query); any failure falls back to ``fallback``.

    The answer is validated: unknown intents are dropped, an answer naming none of the known ones, a
    malformed answer or a model that raises hands the query to the fallback (the offline planner).
    """

    name = "llm"

    def __init__(self, llm: Any, *, fallback: Any = None, prompt_template: str = DEFAULT_PLAN_PROMPT) -> None:
        from kioko_intelligence.llm import as_ask

        self.ask = as_ask(llm)
        self.fallback = fallback if fallback is not None else QueryPlanner()
        self.prompt_template = prompt_template
        self.calls = 0
        self.fallbacks = 0

    def __repr__(self) -> str:
        return f"LLMPlanner(fallback={self.fallback!r})"

    def plan(
        self,
        memory: MemoryLayer,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> RecallPlan:
        check_scope((user_id, agent_id))
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        self.calls += 1
        try:
            # a query is no memory, but a secret pasted into one is still not the model's to see
            shown = redact(query[:QUERY_CHARS])
            intents, reason = parse_intents(self.ask(self.prompt_template.format(query=shown)))
        except Exception as error:  # a failing or confused model never breaks recall
            log.warning("LLMPlanner: %s: %s; planning offline", type(error).__name__, error)
            self.fallbacks += 1
            return self.fallback.plan(
                memory, query, user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit
            )
        plan = plan_for(intents)
        return replace(plan, reason=f"the model: {reason}") if reason else plan


__all__ = [
    "DEFAULT_PLAN_PROMPT",
    "QUESTION_FRAMING",
    "asks_about_user",
    "asks_without_topic",
    "FILLABLE",
    "INTENTS",
    "LLMPlanner",
    "QueryPlanner",
    "RETRIEVED_SECTIONS",
    "RecallPlan",
    "TABLE",
    "check_plan_options",
    "parse_intents",
    "plan_for",
]
