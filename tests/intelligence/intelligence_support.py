"""The seven-turn transcript of the offline write path (spec: intelligent memory, "What it decides")."""

from __future__ import annotations

TRANSCRIPT = [
    (
        "I'm Kumar, I live in Pune. My goal is to stabilise line 3 by November 30.",
        [
            "profile.set name = Kumar",
            "profile.set location = Pune",
            'goal.add "Goal: Stabilise line 3 by November 30."',
            "relation.add (user) -named-> (Kumar)",
            "relation.add (user) -lives_in-> (Pune)",
        ],
    ),
    (
        "We decided to use Qdrant for the maintenance notes because it is fast.",
        [
            'decision.add "Decision: use Qdrant for the maintenance notes because it is fast."',
        ],
    ),
    (
        "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3.",
        [
            "working.set ticket = INC-4521",
            "working.set error = E-217",
            "working.set task = Debugging ticket INC-4521, the drive shows error E-217 on line 3",
        ],
    ),
    (
        "To reset the safety relay, switch off the breaker, then press reset for 5 seconds, then switch it back on.",
        [
            'procedure.add "How to reset the safety relay: 1. Switch off the breaker. 2. Press re…"',
        ],
    ),
    (
        "We switched from Qdrant to pgvector because we already run Postgres.",
        [
            'decision.supersede "use Qdrant for the maintenance notes" -> pgvector',
        ],
    ),
    (
        "I'm about 60% done with stabilising line 3.",
        [
            'goal.progress "Stabilise line 3 by November 30" -> 60%',
        ],
    ),
    ("thanks!", []),
]
