"""What a ``postgresql://`` URL says: the query parameters Kioko reads, and libpq's connection strings."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from kioko_backends.postgresql.pool import _scrub
from kioko_core.store import (
    InvalidRecordError,
)
from kioko_core.store.driver import DIM, Option, non_negative_float, positive_int, text
from kioko_core.store.url import StoreURL

DEFAULT_TABLE = "kioko"
DEFAULT_POOL_SIZE = 4
DEFAULT_FAILOVER_WAIT = 30.0
"""Seconds a call waits for a server that accepts writes when the URL names several hosts (docs/scaling.md)."""
OPTIONS = {
    "dim": DIM,
    "table": Option(text, DEFAULT_TABLE),
    "pool_size": Option(positive_int, DEFAULT_POOL_SIZE),
    "partitions": Option(positive_int),
    "read_host": Option(text),
    "replicas": Option(text),
    "replica_reads": Option(text, "search"),
    "failover_wait": Option(non_negative_float),
    "distribute": Option(text),
}
KIOKO_QUERY_KEYS = frozenset(OPTIONS)
"""Query parameters Kioko reads itself; every other one goes to libpq, which refuses what it does not know."""


def _conninfo(url: StoreURL) -> str:
    """libpq's connection string for ``url``, without Kioko's own query parameters."""
    params: dict[str, Any] = {key: value for key, value in url.query.items() if key not in KIOKO_QUERY_KEYS}
    if url.hosts:  # libpq's failover list: host=h1,h2 port=p1,p2 (an empty port is libpq's default)
        params.setdefault("host", ",".join(host for host, _ in url.hosts))
        params.setdefault("port", ",".join("" if port is None else str(port) for _, port in url.hosts))
    elif url.host:
        params.setdefault("host", url.host)
    if url.port is not None and not url.hosts:
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


def _replica_conninfo(conninfo: str, replicas: str) -> str:
    """The primary's connection string with the replicas' hosts instead (same database, user and password).

    ``replicas`` is ``host[:port]`` entries (or socket directories) separated by commas; an entry without a
    port takes the primary's port when the URL names one host. Each pooled connection goes to one replica,
    chosen at random (``load_balance_hosts``), and to the next when one does not answer.
    """
    primary = conninfo_to_dict(conninfo)
    primary_port = str(primary.get("port") or "")
    hosts: list[str] = []
    ports: list[str] = []
    for entry in (part.strip() for part in replicas.split(",")):
        host, port = entry, "" if "," in primary_port else primary_port
        if not entry.startswith("/") and entry.count(":") == 1:
            host, _, port_text = entry.partition(":")
            port = str(positive_int(port_text, "replicas' port"))
        if not host:
            raise InvalidRecordError(
                f"replicas (read_host) must name hosts, host:port or socket directories separated by commas, "
                f"got {replicas!r}"
            )
        hosts.append(host)
        ports.append(port)
    # its own application_name, so the replicas' connections are told apart in pg_stat_activity
    name = f"{primary.get('application_name') or 'kioko'} (reads)"
    return make_conninfo(
        conninfo,
        host=",".join(hosts),
        port=",".join(ports),
        application_name=name,
        target_session_attrs="any",
        load_balance_hosts="random" if len(hosts) > 1 else "disable",
    )
