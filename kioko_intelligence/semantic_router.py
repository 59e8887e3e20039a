"""SemanticRouter: the offline rules, with the clauses no rule recognised classified by meaning.

The rules of :class:`~kioko_intelligence.heuristic.HeuristicRouter` run first and unchanged. A clause
that reaches their last step (fact, episode or knowledge by grammar) is embedded with the shipped MiniLM
model (:mod:`kioko_core.embedding.semantic`, no network) and compared with labelled prototypes: a few sentences per
class, written for this module. When the nearest class is a goal, preference, instruction, lesson or
decision, or "nothing to remember", by at least :data:`MARGIN` over the next class and with a cosine of
at least :data:`THRESHOLD`, that class decides; otherwise the rules' classification stands.

``Intelligence(router="semantic")`` (or ``kioko.intelligent(url, router="semantic")``) uses it; it needs the
``semantic`` extra, and its first clause loads the model (a few seconds, once per process).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kioko_intelligence.heuristic import HeuristicRouter

THRESHOLD = 0.5
"""The least cosine between a clause and its nearest prototype for the class to count."""
MARGIN = 0.04
"""How much nearer (in mean cosine of the best three) the winning class must be than the next one."""
# Kinds are named here by design: this router's classes are the labels its example sentences are written
# for (the heuristic router's labels: operation kinds, "lesson", "nothing"), each with sentences of that kind.
DECIDING = frozenset({"goal", "preference", "instruction", "lesson", "decision", "nothing"})
"""Classes that overrule the rules' grammar; for fact, episode and knowledge the rules decide."""

PROTOTYPES: dict[str, tuple[str, ...]] = {
    "goal": (
        "I want to get fluent in German within two years.",
        "My target is to double our newsletter subscribers.",
        "I'm hoping to climb Kilimanjaro one day.",
        "We aim to be profitable by next spring.",
        "I'd really like to finally finish my novel.",
        "Getting a black belt is what I'm working towards.",
        "I plan to pay off my student loan early.",
        "Our ambition is to open a second shop downtown.",
    ),
    "preference": (
        "I really love spicy ramen.",
        "I can't stand loud restaurants.",
        "Rainy days are my favourite.",
        "I'm not into musicals at all.",
        "I prefer working early in the morning.",
        "Nothing beats a quiet weekend in the mountains for me.",
        "Mystery novels are my thing.",
        "I'd pick the aisle seat every time.",
    ),
    "instruction": (
        "Please answer me in French from now on.",
        "Keep your replies under five sentences.",
        "Don't give me long lists, just the main point.",
        "Use British spelling when you write for me.",
        "Always show me the sources you used.",
        "Skip the small talk in your answers.",
        "Explain things step by step when I ask about maths.",
        "Write your code samples in Rust, not Python.",
    ),
    "lesson": (
        "Lesson for the future: never trust the default timeout.",
        "I learned that you have to warm up before sprinting.",
        "Next time I should book the venue earlier.",
        "The takeaway is to write tests before refactoring.",
        "What saved us was having a rollback script ready.",
        "Good rule: check the logs before restarting anything.",
        "Should have called the plumber right away, lesson learned.",
        "Always back up the database before a schema change, I found out.",
    ),
    "decision": (
        "We picked Fastly as our CDN.",
        "I'm going with the red bike.",
        "The team settled on biweekly sprints.",
        "We've decided the launch will be in Lisbon.",
        "After comparing them we went for the cheaper plan.",
        "Final choice: React Native for the mobile app.",
        "We'll run the event in person, not online.",
        "I opted to rent instead of buying.",
    ),
    "nothing": (
        "Thanks a lot, that helps.",
        "Hmm, interesting, tell me more.",
        "Okay, let's move on.",
        "Can you explain that again?",
        "Never mind, it's not important.",
        "That makes sense now.",
        "What would you suggest?",
        "Sorry, I was distracted for a second.",
    ),
    "fact": (
        "I have a younger brother in Madrid.",
        "My flat has two bedrooms.",
        "I'm allergic to cats.",
        "Our company has 300 employees.",
        "I own an old Volvo.",
        "My daughter goes to a Montessori school.",
        "I cycle to the office most days.",
        "I do the early shift at the hospital.",
        "On Tuesdays I teach a yoga class.",
    ),
    "episode": (
        "Yesterday the train was two hours late.",
        "We had a great team dinner last Friday.",
        "The server crashed this morning.",
        "I met an old friend at the airport last week.",
        "Our demo went badly on Monday.",
        "I went hiking with my sister on Sunday.",
    ),
    "knowledge": (
        "The museum is closed on Mondays.",
        "Redis keeps its data in memory.",
        "The invoice portal needs two-factor login.",
        "Tomatoes need a lot of sun.",
        "The staging server restarts every night at 3am.",
        "The bus to the airport leaves every 20 minutes.",
    ),
}
"""Labelled prototypes, written for this module (none is a turn of the benchmark's labelled set)."""


class SemanticRouter(HeuristicRouter):
    """The HeuristicRouter with a nearest-prototype reading of the clauses its rules do not recognise."""

    name = "semantic"

    def __init__(self, *, embedder: Any = None, **options: Any) -> None:
        super().__init__(**options)
        self._embedder = embedder
        self._prototypes: tuple[list[str], np.ndarray] | None = None

    def __repr__(self) -> str:
        return f"SemanticRouter(capture={self.capture!r}, min_importance={self.min_importance})"

    def embedder(self) -> Any:
        if self._embedder is None:
            from kioko_core.embedding.semantic import (
                MiniLMEmbedder,  # late: the model loads only when a clause needs it
            )

            self._embedder = MiniLMEmbedder()
        return self._embedder

    def prototypes(self) -> tuple[list[str], np.ndarray]:
        if self._prototypes is None:
            labels = [label for label, texts in PROTOTYPES.items() for _ in texts]
            texts = [text for group in PROTOTYPES.values() for text in group]
            vectors = np.vstack([np.asarray(v, dtype=np.float32) for v in self.embedder().embed_many(texts)])
            self._prototypes = (labels, vectors)
        return self._prototypes

    def kind_of_clause(self, text: str) -> str | None:
        """The class that overrules the rules for ``text`` (a :data:`DECIDING` one), or None."""
        labels, vectors = self.prototypes()
        vector = np.asarray(self.embedder().embed(text), dtype=np.float32)
        scores = vectors @ vector
        best: dict[str, float] = {}
        for label in dict.fromkeys(labels):
            mine = np.sort(scores[[i for i, name in enumerate(labels) if name == label]])[::-1][:3]
            best[label] = float(mine.mean())
        ranked = sorted(best.items(), key=lambda item: -item[1])
        (winner, score), (_, runner_up) = ranked[0], ranked[1]
        nearest = float(max(scores[i] for i, name in enumerate(labels) if name == winner))
        if winner in DECIDING and nearest >= THRESHOLD and score - runner_up >= MARGIN:
            return winner
        return None
