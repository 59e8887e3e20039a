"""The quick start: store memories, recall the context for a question. Offline, in memory.

python examples/cookbook/01_quick_start.py
"""

import kioko

memory = kioko.connect("memory://", auto_link=True)  # or "sqlite:///memory.db", "postgresql://..."

memory.add("Kumar runs the packaging plant in Pune", user_id="kumar")
memory.add("The line 3 conveyor jammed twice this morning", user_id="kumar", memory_type="episode")
memory.add("Chose pgvector because we already run Postgres", user_id="kumar", memory_type="decision")

context = memory.recall("What happened on line 3?", user_id="kumar")
print(context.text)  # the text to put in front of the model
assert "line 3 conveyor jammed" in context.text
assert memory.recall("What happened on line 3?", user_id="someone-else").memories == []  # one user's memories
