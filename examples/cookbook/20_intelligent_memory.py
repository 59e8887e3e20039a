"""Intelligent memory, offline: each turn goes to record_turn(), which decides the memory operations.

    python examples/cookbook/20_intelligent_memory.py

The transcript of the spec's "What it decides (the write path)".
"""

import kioko

memory = kioko.intelligent("memory://")
TURNS = [
    "I'm Kumar, I live in Pune. My goal is to stabilise line 3 by November 30.",
    "We decided to use Qdrant for the maintenance notes because it is fast.",
    "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3.",
    "To reset the safety relay, switch off the breaker, then press reset for 5 seconds, then switch it back on.",
    "We switched from Qdrant to pgvector because we already run Postgres.",
    "I'm about 60% done with stabilising line 3.",
    "thanks!",
]
operations = []
for turn in TURNS:
    report = memory.record_turn(turn, user_id="kumar", session_id="s1")
    print(f"you > {turn}")
    for line in report.summary().splitlines():
        print(f"      {line}")
    print()
    operations.append([op.op for op in report.ops if op.status == "applied"])

assert "goal.add" in operations[0] and "profile.set" in operations[0]
assert "decision.supersede" in operations[4]
assert operations[5] == ["goal.progress"] and operations[6] == []
print(memory.recall("Why did we choose pgvector?", user_id="kumar").text)
