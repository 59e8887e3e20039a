"""What a Qdrant failure tells the caller: the HTTP answers of a server as :class:`StoreError`s that say what to
do, and never the API key; a lost connection as :class:`ConnectionLostError`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from kioko_core.store import ConnectionLostError, KiokoError, StoreError


def http_error(error: Any, doing: str, address: str, collection: str, api_key: str | None) -> StoreError:
    """The StoreError of a server's HTTP ``error`` while ``doing``: a refused key, a collection gone, or the answer."""
    status = error.status_code
    detail = scrub(error.content[:300].decode("utf-8", "replace"), api_key)
    if status in (401, 403):
        return StoreError(
            f"the Qdrant server at {address} refused the API key (HTTP {status}) while {doing}; "
            "pass the key in the URL (qdrant://:KEY@host), ?api_key= or QDRANT_API_KEY"
        )
    if status == 404:
        return StoreError(
            f"collection {collection!r} is gone from {address} (HTTP 404 while {doing}); "
            "it was deleted while this store was open: open the URL again to recreate it"
        )
    return StoreError(f"the Qdrant server at {address} answered HTTP {status} while {doing}: {detail}")


def scrub(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` (an API key) masked."""
    return text.replace(secret, "***") if secret else text


@contextmanager
def translate_errors(doing: str, address: str, collection: str, api_key: str | None) -> Iterator[None]:
    """qdrant-client's and the transport's errors while ``doing`` as Kioko errors (a lost server, a refused key,
    a failed call) that name the store at ``address`` and never show ``api_key``; Kioko's own pass through."""
    try:
        yield
    except KiokoError:
        raise
    except UnexpectedResponse as error:
        raise http_error(error, doing, address, collection, api_key) from None
    except (ResponseHandlingException, httpx.TransportError, ConnectionError, TimeoutError) as error:
        cause = getattr(error, "source", error)
        what = f"{type(cause).__name__}: {cause}"
        advice = (
            "it did not answer in time; raise ?timeout=SECONDS if it is busy"
            if "Timeout" in what
            else "check that it is running and reachable"
        )
        raise ConnectionLostError(
            f"lost the Qdrant server at {address} while {doing} ({scrub(what, api_key)}); {advice}"
        ) from None
    except (RuntimeError, ValueError, OSError) as error:
        raise StoreError(f"Qdrant failed while {doing} in {address}: {scrub(str(error), api_key)}") from None
