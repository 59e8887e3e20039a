"""Which reads a read replica may serve (``?replicas=``): read-your-writes and monotonic reads, by WAL position.

The store remembers the primary's WAL insert position when it opens, after each of its writes, and after
each read it had to send to the primary. A replica serves a read only once it has replayed that far
(``pg_last_wal_replay_lsn()``, asked on the same connection just before the read, so the read's snapshot is
at least that new); otherwise the read goes to the primary. So a process always sees its own writes, and never
sees the store go back in time. What another process wrote shows on a replica after the replication delay.
A replica that does not answer sends the read to the primary too.

:class:`ReadRouting` holds :class:`~kioko_backends.postgresql.store.PostgresStore`'s reads: on a replica that has
caught up, else on the primary (repeated after a dead connection, or waited for through a failover).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

import psycopg
from psycopg import errors as pg_errors

from kioko_backends.postgresql.failover import _Recovery
from kioko_backends.postgresql.pool import _end_transaction, _NotConnected, _Pool, _store_error
from kioko_backends.postgresql.url import _replica_conninfo
from kioko_core.store import InvalidRecordError, StoreError
from kioko_core.store.driver import text
from kioko_core.store.url import StoreURL

T = TypeVar("T")
_BEHIND = object()  # a replica read refused: the replica has not replayed what this process has seen

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

    def caught_up(self, conn: psycopg.Connection, counted: ReadRouting) -> bool:
        """True when the replica behind ``conn`` has replayed everything this process has seen (a read of its
        replay position, counted in ``counted.round_trips``, unless an earlier one already showed it)."""
        needed = self.needed
        if needed == 0:
            return True
        server = (conn.info.host, conn.info.port)
        if self._replayed.get(server, -1) >= needed:
            return True
        counted.round_trips["position"] += 1
        row = conn.execute(_REPLAYED, prepare=False).fetchone()
        replayed = int(row[0]) if row and row[0] is not None else 0
        with self._lock:
            self._replayed[server] = max(self._replayed.get(server, 0), replayed)
        return replayed >= needed


class ReadRouting:
    """PostgresStore's reads: on a replica when one may serve them and has caught up, else on the primary."""

    url: StoreURL
    failover_wait: float
    round_trips: Counter[str]
    """Requests this store sent to a server and waited for (a statement, or a pipeline of them), by what they were
    for (``knn``, ``postings``, ``generation``, ``get`` ..., ``write``): one per read, one more for a replica's
    replay position when asked (``position``), one or two per record write. Opening the store, purge and failover
    probes are not counted. A figure for benchmarks (user_scale.py's round trips per recall) and tests; counted
    without a lock, so exact while one thread at a time uses the store."""
    _pool: _Pool
    _replicas: _Replicas | None
    _configure: Callable[[psycopg.Connection], None]
    _connection_error: Callable[[BaseException, bool], StoreError]

    def _replica_pool(
        self, conninfo: str, size: int, replicas: str | None, read_host: str | None, replica_reads: str | None
    ) -> _Replicas | None:
        asked = [value for value in (replicas, self.url.query.get("replicas")) if value is not None][:1]
        asked += [value for value in (read_host, self.url.query.get("read_host")) if value is not None][:1]
        if len(asked) == 2:
            raise InvalidRecordError("give replicas or its older name read_host, not both")
        reads = replica_reads if replica_reads is not None else self.url.query.get("replica_reads", "search")
        if reads not in ("search", "all"):
            raise InvalidRecordError(f"replica_reads must be 'search' or 'all', got {reads!r}")
        if not asked:
            return None
        hosts = text(asked[0], "replicas")
        pool = _Pool(
            _replica_conninfo(conninfo, hosts),
            size,
            self._configure,
            self._connection_error,
            wait_for_connection=WAIT_FOR_REPLICA,
        )
        return _Replicas(pool, hosts, everything=reads == "all")

    @property
    def read_host(self) -> str | None:
        """The replicas' hosts as given (``?replicas=`` or ``?read_host=``), or None."""
        return None if self._replicas is None else self._replicas.hosts

    @property
    def reads_served(self) -> dict[str, int]:
        """Of the reads replicas may serve (``replica_reads``): how many a replica served (``replica``), how many
        the primary served instead (``primary``: no replica had caught up with this process, or none answered),
        how many times a replica did not answer (``replica lost``) or cancelled a read in a conflict with its
        recovery (``replica conflict``). Empty without replicas."""
        return {} if self._replicas is None else dict(self._replicas.served)

    def _read(self, work: Callable[[psycopg.Connection], T], *, search: bool, what: str = "read") -> T:
        """Run a read on a replica when one may serve it (``search``: recall's reads), else on the primary."""
        replicas = self._replicas
        if replicas is None or not (search or replicas.everything):
            return self._on_primary(work, what)
        served = self._on_replica(replicas, work, what)
        if served is not _BEHIND:
            replicas.served["replica"] += 1
            return served  # type: ignore[return-value]
        # what the primary shows now, a replica must show before it serves this process again
        self.round_trips["position"] += 1  # asked after the read
        value, position = self._on_primary(lambda conn: (work(conn), insert_position(conn)), what)
        replicas.seen(position)
        replicas.served["primary"] += 1
        return value

    def _on_replica(self, replicas: _Replicas, work: Callable[[psycopg.Connection], T], what: str) -> T | object:
        """``work`` on a replica that has caught up with this process, or ``_BEHIND`` (also when none answers)."""
        if not replicas.available():
            return _BEHIND
        try:
            with replicas.pool.connection() as conn:
                try:
                    if not replicas.caught_up(conn, self):
                        return _BEHIND
                    self.round_trips[what] += 1
                    return work(conn)
                finally:
                    _end_transaction(conn)
        except _NotConnected:
            replicas.lost()
            return _BEHIND
        except (pg_errors.SerializationFailure, pg_errors.DeadlockDetected):
            # a hot standby cancels a query that holds back its replay (a conflict with recovery)
            replicas.served["replica conflict"] += 1
            return _BEHIND
        except psycopg.OperationalError as error:
            if not replicas.pool.is_connection_failure(error):
                raise _store_error(error, self.url.password) from error
            replicas.lost()
            return _BEHIND
        except psycopg.Error as error:
            raise _store_error(error, self.url.password) from error
        except UnicodeEncodeError as error:
            raise InvalidRecordError(
                f"an argument cannot be encoded as UTF-8 ({error.reason}), so PostgreSQL cannot compare it"
            ) from None

    def _on_primary(self, work: Callable[[psycopg.Connection], T], what: str = "read") -> T:
        """Run a read on the primary; a read is safe to repeat, so after a dead connection it is repeated once,
        or, with a failover wait, as soon as a server accepts again within the wait."""
        recovery = _Recovery(self._pool)
        while True:
            try:
                with self._pool.connection() as conn:
                    try:
                        self.round_trips[what] += 1
                        return work(conn)
                    finally:
                        _end_transaction(conn)
            except _NotConnected:
                if self.failover_wait <= 0 or not recovery.again():
                    raise
            except psycopg.OperationalError as error:
                if not self._pool.is_connection_failure(error):
                    raise _store_error(error, self.url.password) from error
                if not recovery.again():
                    raise self._connection_error(error, False) from None  # not while connecting
            except psycopg.Error as error:
                raise _store_error(error, self.url.password) from error
            except UnicodeEncodeError as error:
                raise InvalidRecordError(
                    f"an argument cannot be encoded as UTF-8 ({error.reason}), so PostgreSQL cannot compare it"
                ) from None
