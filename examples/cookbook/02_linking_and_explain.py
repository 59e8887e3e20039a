"""Linking at write time, and why two memories are linked. Offline, in memory.

python examples/cookbook/02_linking_and_explain.py
"""

import kioko

memory = kioko.connect("memory://", auto_link=True)
user = "kumar"
jam = memory.add("The line 3 conveyor jammed twice this morning.", user_id=user, memory_type="episode", session_id="s1")
fault = memory.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episode", session_id="s1")
fix = memory.add(
    "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episode", session_id="s1"
)

print("links of the fix:")
for link in memory.graph.links(fix.id, user_id=user):
    print(f"  {link.source_label or link.source} -{link.type}-> {link.target_label or link.target} ({link.weight:.2f})")
why = memory.graph.explain(fix.id, fault.id, user_id=user)
print("why fix and fault are linked:", why.why if hasattr(why, "why") else why)

types = {link.type for link in memory.graph.links(fix.id, user_id=user)}
assert "resolves" in types, types
