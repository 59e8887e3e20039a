"""Fixtures shared by the linking tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The cycle collector's automatic passes on for the test, and back as they were after it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()
