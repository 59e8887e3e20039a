"""What a ``postgresql://`` URL says: the query parameters Kioko reads, and libpq's connection strings."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from kioko_core.driver import DIM, Option, positive_int, text
from kioko_core.store import (
    InvalidRecordError,
)
from kioko_core.url import StoreURL

from .pool import _scrub

DEFAULT_TABLE = "kioko"
DEFAULT_POOL_SIZE = 4
OPTIONS = {
    "dim": DIM,
    "table": Option(text, DEFAULT_TABLE),
    "pool_size": Option(positive_int, DEFAULT_POOL_SIZE),
    "partitions": Option(positive_int),
    "read_host": Option(text),
    "distribute": Option(text),
}
KIOKO_QUERY_KEYS = frozenset(OPTIONS)
"""Query parameters Kioko reads itself; every other one goes to libpq, which refuses what it does not know."""


def _conninfo(url: StoreURL) -> str:
    """libpq's connection string for ``url``, without Kioko's own query parameters."""
    params: dict[str, Any] = {key: value for key, value in url.query.items() if key not in KIOKO_QUERY_KEYS}
    if url.host:
        params.setdefault("host", url.host)
    if url.port is not None:
        params.setdefault("port", url.port)
    if url.username:
        params.setdefault("user", url.username)
    if url.password:
        params.setdefault("password", url.password)
    database = url.path.lstrip("/")
    if database:
        params.setdefault("dbname", database)
    params.setdefault("connect_timeout", 10)
    params.setdefault("application_name", "kioko")
    try:
        return make_conninfo("", **params)
    except psycopg.ProgrammingError as error:
        raise InvalidRecordError(
            f"{_scrub(str(error).strip(), url.password)} in {url.render()}: Kioko reads "
            f"{', '.join(sorted(KIOKO_QUERY_KEYS))} from the query and hands every other parameter to libpq"
        ) from None


def _replica_conninfo(conninfo: str, read_host: str) -> str:
    """The primary's connection string with the replica's host (``host``, ``host:port`` or a socket directory)."""
    host, port = read_host, None
    if not read_host.startswith("/") and read_host.count(":") == 1:
        host, _, port_text = read_host.partition(":")
        port = positive_int(port_text, "read_host's port")
    if not host:
        raise InvalidRecordError(f"read_host must name a host, host:port or a socket directory, got {read_host!r}")
    # its own application_name, so the replica's connections are told apart in pg_stat_activity
    name = f"{conninfo_to_dict(conninfo).get('application_name') or 'kioko'} (reads)"
    return make_conninfo(conninfo, host=host, application_name=name, **({"port": port} if port is not None else {}))
