"""The service's own errors and the HTTP status of every error the library raises on purpose.

Importable without FastAPI: RemoteMemory raises these same classes from a server's error bodies.
"""

from __future__ import annotations

from kioko_core.store import InvalidRecordError, KiokoError


class ServiceError(KiokoError):
    """A request the service refused before the library saw it."""


class Unauthorized(ServiceError):
    """No API key, or one the server does not know (HTTP 401)."""


class Forbidden(ServiceError):
    """The API key may not act for this user or agent (HTTP 403)."""


class PayloadTooLarge(ServiceError):
    """The request body is over the server's limit (HTTP 413)."""


class TooManyRequests(ServiceError):
    """The API key is over its request rate (HTTP 429, with ``Retry-After`` in seconds)."""


class HostNotAllowed(ServiceError):
    """The request's ``Host`` is not a name this server answers to (HTTP 400): a DNS rebinding, or a
    name to add with ``--allowed-host``."""


class CrossSiteRefused(Forbidden):
    """A request a page of another site sent (its ``Origin`` or ``Sec-Fetch-Site`` says so), or a browser's
    request without the console's token on a server without keys (HTTP 403)."""


class UnsupportedMediaType(ServiceError):
    """A write whose body is not ``application/json`` (NDJSON for an import) (HTTP 415)."""


class TooManyWebhooks(ServiceError):
    """The user already has as many webhooks as the server allows (HTTP 409); delete one to register another."""


class WebhookRefused(InvalidRecordError):
    """A webhook URL the server will not call (HTTP 422 at registration); the message says why."""


class RequestInvalid(InvalidRecordError):
    """The request does not match the API's schema (HTTP 422); ``message`` names the fields."""


STATUS_BY_NAME = {
    "Unauthorized": 401,
    "Forbidden": 403,
    "HostNotAllowed": 400,
    "UnsupportedMediaType": 415,
    "PayloadTooLarge": 413,
    "TooManyRequests": 429,
    "TooManyWebhooks": 409,
    "TooLargeError": 413,
    "MemoryNotFound": 404,
    "IdUnavailable": 404,
    "LinkConflict": 409,
    "ConflictError": 409,
    "InvalidRecordError": 422,
    "ConnectionLostError": 503,
    "StoreError": 503,
}
"""By class name, so an error keeps its status wherever the core moves it; the most specific class wins."""


def status_of(error: BaseException) -> int:
    """The status of the first class in the error's MRO that has one (MemoryNotFound before StoreError)."""
    for cls in type(error).__mro__:
        if cls.__name__ in STATUS_BY_NAME:
            return STATUS_BY_NAME[cls.__name__]
    return 500
