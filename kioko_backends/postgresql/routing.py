"""Which reads a read replica may serve (``?replicas=``): read-your-writes and monotonic reads, by WAL position.

The store remembers the primary's WAL insert position when it opens, after each of its writes, and after
each read it had to send to the primary. A replica serves a read only once it has replayed that far
(``pg_last_wal_replay_lsn()``, asked on the same connection just before the read, so the read's snapshot is
at least that new); otherwise the read goes to the primary. So a process always sees its own writes, and never
sees the store go back in time. What another process wrote shows on a replica after the replication delay.
A replica that does not answer sends the read to the primary too.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import psycopg

from kioko_backends.postgresql.pool import _Pool

_REPLAYED = "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END) - '0/0'"
INSERT_POSITION = "SELECT pg_current_wal_insert_lsn() - '0/0'"
_RESTING = 5.0  # seconds the replicas are left alone after one failed to answer; the primary serves meanwhile
WAIT_FOR_REPLICA = 3.0
"""Seconds a read waits for a replica's pooled connection before the primary serves it (a dead replica's pool
keeps retrying in the background; no read should wait the primary pool's 30 s for it)."""


def insert_position(conn: psycopg.Connection) -> int:
    """The primary's WAL insert position, in bytes: at or past the end of every commit it has seen."""
    row = conn.execute(INSERT_POSITION, prepare=False).fetchone()
    return int(row[0]) if row else 0


class _Replicas:
    """The replicas' pool, and the WAL position a replica must have replayed to serve this process's reads."""

    def __init__(self, pool: _Pool, hosts: str, everything: bool) -> None:
        self.pool = pool
        self.hosts = hosts
        self.everything = everything
        """True: get and scan go to a replica too (``replica_reads=all``); False: only what recall searches with."""
        self.needed = 0
        self._replayed: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()
        self._resting_until = 0.0
        self.served: Counter[str] = Counter()
        """How many reads each side served ("replica", "primary"), how many times a replica did not answer
        ("replica lost") and how many reads a replica cancelled in a conflict with its recovery ("replica conflict")."""

    def seen(self, position: int) -> None:
        """This process has seen the store at ``position`` (its write committed there, or a primary read)."""
        with self._lock:
            self.needed = max(self.needed, position)

    def available(self) -> bool:
        return time.monotonic() >= self._resting_until

    def lost(self) -> None:
        """A replica did not answer: reads go to the primary for a while (no call waits on a dead replica)."""
        self.served["replica lost"] += 1
        self._resting_until = time.monotonic() + _RESTING
        self.pool.discard_idle()

    def caught_up(self, conn: psycopg.Connection) -> bool:
        """True when the replica behind ``conn`` has replayed everything this process has seen."""
        needed = self.needed
        if needed == 0:
            return True
        server = (conn.info.host, conn.info.port)
        if self._replayed.get(server, -1) >= needed:
            return True
        row = conn.execute(_REPLAYED, prepare=False).fetchone()
        replayed = int(row[0]) if row and row[0] is not None else 0
        with self._lock:
            self._replayed[server] = max(self._replayed.get(server, 0), replayed)
        return replayed >= needed
