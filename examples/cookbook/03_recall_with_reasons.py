"""Recall with its reasons: each memory's signals (lexical, dense, graph; linked when only a link brought it).

python examples/cookbook/03_recall_with_reasons.py
"""

import kioko

memory = kioko.connect("memory://", auto_link=True)
user = "kumar"
fault = memory.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episode", session_id="s1")
fix = memory.add(
    "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episode", session_id="s1"
)
memory.add("Kumar drinks green tea", user_id=user)

context = memory.recall("error E-217", user_id=user)
for recalled in context.memories:
    reasons = ", ".join(f"{name} {value:g}" for name, value in recalled.signals.items())
    print(f"{recalled.score:.4f}  {recalled.content}  <- {reasons}")
print()
print(context.text)

first = context.memories[0]
assert first.id == fault.id and first.signals["lexical"] > 0
assert any(m.id == fix.id for m in context.memories)  # shares no word with the question: its link brought it
