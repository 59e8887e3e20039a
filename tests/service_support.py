"""A live Kioko service on a free loopback port, for the service tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import kioko
from kioko.service import create_app
from kioko.service.live import LiveServer


@contextmanager
def live_service(url: str, **app_options: Any) -> Iterator[tuple[LiveServer, Any]]:
    """(server, layer): a layer with linking on over ``url``, served until the block ends."""
    layer = kioko.connect(url, auto_link=True)
    try:
        with LiveServer(create_app(layer, **app_options)) as server:
            yield server, layer
    finally:
        layer.close()
