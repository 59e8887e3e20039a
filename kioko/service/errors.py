"""The service's own errors and the HTTP status of every error the library raises on purpose.

Importable without FastAPI: RemoteMemory raises these same classes from a server's error bodies.
"""

from __future__ import annotations

from kioko_core.layer import MemoryNotFound
from kioko_core.links import LinkConflict
from kioko_core.store import ConflictError, ConnectionLostError, InvalidRecordError, KiokoError, StoreError


class ServiceError(KiokoError):
    """A request the service refused before the library saw it."""


class Unauthorized(ServiceError):
    """No API key, or one the server does not know (HTTP 401)."""


class Forbidden(ServiceError):
    """The API key may not act for this user or agent (HTTP 403)."""


class PayloadTooLarge(ServiceError):
    """The request body is over the server's limit (HTTP 413)."""


class RequestInvalid(InvalidRecordError):
    """The request does not match the API's schema (HTTP 422); ``message`` names the fields."""


# most specific first: the first class an error is an instance of decides its status
STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (Unauthorized, 401),
    (Forbidden, 403),
    (PayloadTooLarge, 413),
    (MemoryNotFound, 404),
    (LinkConflict, 409),
    (ConflictError, 409),
    (InvalidRecordError, 422),
    (ConnectionLostError, 503),
    (StoreError, 503),
)


def status_of(error: BaseException) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 500
