"""Webhook registrations as records: where they live, which events exist, and what a valid one is.

Shared by the webhook routes (registration) and export / import (a registration travels with its
user's export); importable without FastAPI, like the rest of the exchange.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kioko.api.webhook_guard import WebhookGuard, WebhookRefused
from kioko_core.layer.scoped import WEBHOOKS_AGENT
from kioko_core.store import InvalidRecordError, Record

WEBHOOK_AGENT = WEBHOOKS_AGENT
WEBHOOK_KIND = "webhook"
EVENTS = (
    "memory.added",
    "memory.updated",
    "memory.deleted",
    "memory.linked",
    "memory.unlinked",
    "memory.imported",
    "memory.managed",
)
"""What a webhook may subscribe to."""
MIN_SECRET = 16


def check_url(url: Any, guard: WebhookGuard | None) -> None:
    """WebhookRefused unless ``url`` is an absolute http(s) URL that ``guard`` lets the server call
    (None: the form only, for an operator's own import into a store no server is delivering from)."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise WebhookRefused("a webhook url must be an absolute http(s) URL")
    if guard is not None:
        guard.check_url(url)


def check_events(events: Any) -> None:
    """InvalidRecordError unless ``events`` is None or a list of known event names."""
    if events is None:
        return
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise InvalidRecordError("a webhook's events must be a list of event names")
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise InvalidRecordError(f"unknown events {unknown}; use some of {list(EVENTS)}")


def check_registration(record: Record, guard: WebhookGuard | None = None) -> None:
    """A record in a user's webhook scope is a registration the routes would have made, or InvalidRecordError.

    An import goes through this instead of the secrets check: a registration's signing secret is meant
    to be there, and a hand-made file must not register what ``POST /v1/webhooks`` would refuse.
    """
    meta = record.metadata
    if record.kind != WEBHOOK_KIND or set(meta) - {"url", "events", "secret"}:
        raise InvalidRecordError(f"record {record.id!r} in {WEBHOOK_AGENT!r} is not a webhook registration")
    check_url(meta.get("url"), guard)
    check_events(meta.get("events"))
    secret = meta.get("secret")
    if not isinstance(secret, str) or len(secret) < MIN_SECRET or record.content != meta["url"]:
        raise InvalidRecordError(f"webhook registration {record.id!r} needs its url as content and a secret")
