"""A live Kioko server on loopback and RemoteMemory clients to it, for the test modules that run the library's
calls over HTTP.

``remote_for`` builds a fresh served layer per call (over memory:// or a new SQLite file, as ``served_store``
says) and hands back a RemoteMemory to it; one server per module. ``served`` wraps a layer a test already holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko.remote.client import RemoteMemory
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer

CALL_TIMEOUT = 600.0
"""Seconds a test's client waits for the loopback server: the library's 30 s default is for users; on a CI
machine with both cores busy a linked add_many could pass it, and the test would fail on the scheduler, not on
Kioko (a run at load 15 timed one out)."""


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def served_store(request: pytest.FixtureRequest) -> str:
    """The store behind the server (not the store matrix: every call here goes through HTTP)."""
    return request.param


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[LiveServer, Any]]:
    """One live server per module; each test gives it a fresh layer (a new memory:// or SQLite file)."""
    app = create_app(MemoryLayer(MemoryStore()))
    with LiveServer(app) as live:
        yield live, app


@pytest.fixture
def remote_for(
    server: tuple[LiveServer, Any], served_store: str, tmp_path: Path
) -> Iterator[Callable[..., RemoteMemory]]:
    live, app = server
    opened: list[Any] = []

    def build(*, auto_link: bool = True, make: Callable[..., Any] = kioko.connect) -> RemoteMemory:
        url = "memory://" if served_store == "memory" else f"sqlite:///{tmp_path / uuid.uuid4().hex}.db"
        layer = make(url, auto_link=auto_link)
        app.state.kioko.layer = layer
        remote = kioko.connect(live.url, timeout=CALL_TIMEOUT)
        opened.extend([remote, layer])
        return remote

    yield build
    for item in reversed(opened):
        item.close()


@contextmanager
def served(layer: Any) -> Iterator[RemoteMemory]:
    """A RemoteMemory to ``layer``, served on a loopback port until the block ends."""
    with LiveServer(create_app(layer)) as live, kioko.connect(live.url, timeout=CALL_TIMEOUT) as remote:
        yield remote


@contextmanager
def serving() -> Iterator[Callable[[Any], RemoteMemory]]:
    """``serve(layer)``: a RemoteMemory to ``layer`` on one live server for the block (each call serves the
    layer it is given, as ``remote_for`` does); every layer and client is closed when the block ends."""
    app = create_app(MemoryLayer(MemoryStore()))
    opened: list[Any] = []

    def serve(layer: Any) -> RemoteMemory:
        app.state.kioko.layer = layer
        remote = kioko.connect(live.url, timeout=CALL_TIMEOUT)
        opened.extend([remote, layer])
        return remote

    with LiveServer(app) as live:
        try:
            yield serve
        finally:
            for item in reversed(opened):
                item.close()


def fresh_url(store: str, folder: Path) -> str:
    """A new, empty store of the kind ``store`` names ("memory" or "sqlite"), as ``remote_for`` opens one."""
    return "memory://" if store == "memory" else f"sqlite:///{folder / uuid.uuid4().hex}.db"


REMOTE_SURFACES = ("remote-memory", "remote-sqlite")
"""The surfaces a library test module adds to its own fixture to run its tests over HTTP: a new store of that
kind behind the module's live server (fixture ``server``), reached through RemoteMemory."""


@contextmanager
def remote_surface(
    request: pytest.FixtureRequest, surface: str, folder: Path, **options: Any
) -> Iterator[RemoteMemory]:
    """A RemoteMemory to a new layer ``kioko.connect(<store of surface>, **options)`` served by the module's
    ``server`` (the test module imports that fixture); the layer and the client close when the block ends."""
    live, app = request.getfixturevalue("server")
    layer = kioko.connect(fresh_url(surface.removeprefix("remote-"), folder), **options)
    app.state.kioko.layer = layer
    remote = kioko.connect(live.url, timeout=CALL_TIMEOUT)
    try:
        yield remote
    finally:
        remote.close()
        layer.close()
