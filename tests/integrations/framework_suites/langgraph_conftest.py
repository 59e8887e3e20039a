"""Copied as tests/conftest.py into LangGraph's own store tests (langgraph-checkpoint's sdist): every
``InMemoryStore`` those tests build is a :class:`kioko.integrations.langgraph.KiokoStore` on a fresh Kioko
layer, memory:// or a new SQLite file (``KIOKO_SUITE_STORE``). Which tests built one is written to
``KIOKO_SUITE_REPORT``, so the count of tests that ran on Kioko is told apart from the framework's own
helpers' tests, which never touch a store.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import langgraph.store.memory as memory_module
import pytest

import kioko
from kioko.integrations.langgraph import KiokoStore, LangChainEmbedder

KIND = os.environ["KIOKO_SUITE_STORE"]
_built: list[int] = [0]
_on_kioko: set[str] = set()


class SwappedStore(KiokoStore):
    """What ``InMemoryStore(index=..., ttl=...)`` builds inside the suite."""

    def __init__(self, *, index=None, ttl=None) -> None:
        url = "memory://" if KIND == "memory" else f"sqlite:///{Path(tempfile.mkdtemp()) / 'store.db'}"
        options = {"auto_link": True}
        if index and index.get("embed") is not None:
            options["embedder"] = LangChainEmbedder(index["embed"], index["dims"])
        super().__init__(kioko.connect(url, **options), user_id="langgraph-suite", index=index, ttl=ttl)
        _built[0] += 1


memory_module.InMemoryStore = SwappedStore


@pytest.fixture(autouse=True)
def _note_kioko(request: pytest.FixtureRequest):
    before = _built[0]
    yield
    if _built[0] > before:
        _on_kioko.add(request.node.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    Path(os.environ["KIOKO_SUITE_REPORT"]).write_text(json.dumps(sorted(_on_kioko)))
