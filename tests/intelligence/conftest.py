"""Fixtures shared by the intelligence tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kioko


@pytest.fixture(params=["memory", "sqlite"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[kioko.MemoryLayer]:
    """An intelligent layer (real routing) on memory:// and on a SQLite file; a module defining its own
    ``memory`` fixture uses that one instead."""
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'turns.db'}"
    with kioko.intelligent(url) as layer:
        yield layer
