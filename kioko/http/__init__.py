"""Kioko as a service: ``create_app(layer)`` (FastAPI) and what ``kioko serve`` runs.

Importing this package needs no web framework; ``create_app`` imports FastAPI when called, so
RemoteMemory (which shares :mod:`kioko.api.wire`) works with httpx alone.
"""

from __future__ import annotations

from typing import Any


def create_app(layer: Any, **options: Any) -> Any:
    """The FastAPI app serving ``layer`` under /v1 (see :func:`kioko.http.app.create_app`)."""
    try:
        from kioko.http.app import create_app as build
    except ImportError as error:
        from kioko_core.store import MissingExtraError

        raise MissingExtraError(f"the service needs FastAPI: pip install 'kioko[service]' ({error})") from None
    return build(layer, **options)


__all__ = ["create_app"]
