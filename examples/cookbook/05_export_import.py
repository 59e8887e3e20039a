"""Export one user's memories (JSON lines, links included) and import them elsewhere.

python examples/cookbook/05_export_import.py
"""

import json

import kioko
from kioko.api.exchange import export_lines, import_lines  # the CLI's kioko export / kioko import

with kioko.connect("memory://", auto_link=True) as here:
    user = "kumar"
    here.add("The line 3 conveyor jammed twice this morning.", user_id=user, memory_type="episode", session_id="s1")
    here.add("Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episode", session_id="s1")
    lines = list(export_lines(here, user))
    links_here = sum(len(here.graph.links(m.id, user_id=user)) for m in here.memories(user_id=user))

print(f"{len(lines)} lines: a header ({json.loads(lines[0])['format']}), one per record, an end line with the count")

with kioko.connect("memory://") as there:
    print("imported:", import_lines(there, lines))
    moved = list(there.memories(user_id="kumar"))
    links_there = sum(len(there.graph.links(m.id, user_id="kumar")) for m in moved)
    print(f"{len(moved)} memories, {links_there} link ends (was {links_here})")
    assert len(moved) == 2 and links_there == links_here
