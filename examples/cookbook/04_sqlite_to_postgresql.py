"""Moving from SQLite to PostgreSQL is a change of URL: export from one, import into the other.

    python examples/cookbook/04_sqlite_to_postgresql.py postgresql://user:pw@localhost/kioko

The same code runs on every store; only the URL changes. Without an argument it moves to a second
SQLite file (so the recipe runs anywhere); the cookbook's test gives it a real PostgreSQL.
"""

import sys
import tempfile
from pathlib import Path

import kioko
from kioko.api.exchange import export_lines, import_lines  # the CLI's kioko export / kioko import

USER = "cookbook-move"  # a user of its own: the target may be a database in use
folder = Path(tempfile.mkdtemp())
source_url = f"sqlite:///{folder / 'memory.db'}"
target_url = sys.argv[1] if len(sys.argv) > 1 else f"sqlite:///{folder / 'moved.db'}"

with kioko.connect(source_url, auto_link=True) as source:
    source.add("Kumar runs the packaging plant in Pune", user_id=USER)
    source.add("Chose pgvector because we already run Postgres", user_id=USER, memory_type="decision")
    lines = list(export_lines(source, USER))

with kioko.connect(target_url, auto_link=True) as target:
    target.forget_user(user_id=USER)  # a rerun starts from an empty scope
    counts = import_lines(target, lines)
    print(f"moved {counts} from SQLite to {target_url.split('://')[0]}")
    text = target.recall("Why pgvector?", user_id=USER).text
    print(text)
    assert "Chose pgvector because we already run Postgres" in text
    target.forget_user(user_id=USER)
