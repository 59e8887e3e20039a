"""Which URLs name a Kioko service rather than a store: apart from :mod:`kioko.remote.client` so that
:func:`kioko.connect` can tell without importing the HTTP client and the service's wire types."""

from __future__ import annotations

from typing import Any

REMOTE_SCHEMES = ("http", "https", "kioko+http", "kioko+https")


def is_remote_url(target: Any) -> bool:
    """Whether ``target`` is a Kioko service's URL (kioko+http(s):// or http(s)://) rather than a store's."""
    return isinstance(target, str) and target.split("://", 1)[0].lower() in REMOTE_SCHEMES and "://" in target
