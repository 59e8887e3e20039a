"""LangGraph: KiokoStore as the graph's store; a node reads the user's memories with search().

    python examples/cookbook/10_langgraph_store.py        (pip install 'kioko[langgraph]')

Namespaces ("memories", "<user id>") map to Kioko users (user_label=1); search() is Kioko's recall.
"""

import kioko
from kioko.integrations.langgraph import KiokoStore

memory = kioko.connect("memory://", auto_link=True)
store = KiokoStore(memory, user_label=1)

store.put(("memories", "kumar"), "db", {"text": "Kumar chose PostgreSQL for billing", "source": "standup"})
store.put(("memories", "kumar"), "tea", {"text": "Kumar drinks green tea"})
store.put(("memories", "ana"), "db", {"text": "Ana's team runs billing on SQLite"})

for item in store.search(("memories", "kumar"), query="which database for billing?"):
    print(f"{item.score:.4f}  {item.key}: {item.value}")
print("namespaces of Kumar:", store.list_namespaces(prefix=("memories", "kumar")))
print("filtered:", [i.key for i in store.search(("memories", "kumar"), filter={"source": "standup"})])

best = store.search(("memories", "kumar"), query="which database for billing?")[0]
assert best.value == {"text": "Kumar chose PostgreSQL for billing", "source": "standup"}
assert all(m.user_id == "kumar" for m in memory.memories(user_id="kumar"))  # each user's own memories in Kioko
