"""Connections to PostgreSQL: the pool (safe after fork), transactions, pipelines, and Kioko's errors."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from kioko_core.store import (
    ConnectionLostError,
    InvalidRecordError,
    StoreError,
)

_POOL_TIMEOUT = 30.0  # seconds a call waits for a pooled connection before ConnectionLostError
_POOL_MAX_IDLE = 300.0  # an idle connection older than this is closed; a later call opens another
_PROBE_EVERY = 0.25  # seconds between two attempts to reach a server while waiting out a failover

# Connections inherited by a forked child must never be closed there (closing would end the parent's
# session on the server), so the child parks them here for the rest of its life.
_ABANDONED_AFTER_FORK: list[Any] = []


def _fetch(conn: psycopg.Connection, query: sql.SQL | sql.Composed, params: Any) -> list[tuple[Any, ...]]:
    with conn.cursor(binary=True) as cursor:
        cursor.execute(query, params)
        return cursor.fetchall()


@contextmanager
def _transaction(conn: psycopg.Connection) -> Iterator[None]:
    with conn.transaction():
        yield


def _end_transaction(conn: psycopg.Connection) -> None:
    """Roll back whatever a failed call left open, so the connection can go back to the pool."""
    if conn.closed:
        return
    status = conn.info.transaction_status
    try:
        if status == TransactionStatus.INERROR:
            # A server error aborted the pipeline, and psycopg may then believe a statement was
            # prepared whose Parse the server skipped; rollback() also resets that bookkeeping.
            conn.rollback()
        elif status != TransactionStatus.IDLE:
            conn.execute("ROLLBACK", prepare=False)
    except psycopg.Error:
        conn.close()  # the pool drops it


@contextmanager
def _pipeline(conn: psycopg.Connection) -> Iterator[None]:
    """``conn.pipeline()``, raising the server's first error rather than the "pipeline aborted" after it.

    In pipeline mode an error can surface at any later execute; the statements queued behind it then
    report only that the pipeline was aborted, which says nothing useful.
    """
    first: list[psycopg.Error] = []
    try:
        with conn.pipeline():
            try:
                yield
            except psycopg.Error as error:
                first.append(error)
    except psycopg.Error:
        if not first:
            raise
    if first:
        raise first[0]


def _scrub(text: str, password: str | None) -> str:
    """``text`` with the password (plain or URL-quoted) replaced by ***."""
    if password:
        from urllib.parse import quote

        for secret in {password, quote(password, safe=""), quote(password)}:
            if secret:
                text = text.replace(secret, "***")
    return text


def _store_error(error: psycopg.Error, password: str | None) -> StoreError:
    message = _scrub(str(error).strip(), password)
    if isinstance(error, (pg_errors.DataError, pg_errors.IntegrityError)):
        return InvalidRecordError(f"PostgreSQL refused the data: {message}; nothing was written")
    if isinstance(error, pg_errors.UndefinedTable):
        return StoreError(f"{message}: the store's tables were dropped while it was open; reopen it")
    return StoreError(f"PostgreSQL error: {message}")


class _NotConnected(ConnectionLostError):
    """No connection could be had (or the pool was replaced while waiting for one): nothing was sent."""


class _Pool:
    """psycopg_pool's pool, plus what a store needs around it: safety after fork, Kioko's errors, failover.

    Connections are opened lazily (``min_size=0``), up to ``pool_size``, and closed after idling
    ``_POOL_MAX_IDLE`` seconds; a broken one is dropped when it comes back. With ``failover_wait`` > 0,
    :meth:`recovered` waits up to that long for a server the connection string accepts (libpq's
    ``target_session_attrs``: the promoted standby of a multi-host URL) and then replaces the whole pool,
    so no connection to the dead server, and no reconnection backoff the old pool had built up, is reused.
    """

    def __init__(
        self,
        conninfo: str,
        size: int,
        configure: Callable[[psycopg.Connection], None],
        describe: Callable[[BaseException, bool], StoreError],
        failover_wait: float = 0.0,
        wait_for_connection: float = _POOL_TIMEOUT,
    ) -> None:
        self._conninfo, self._size, self._configure, self._describe = conninfo, size, configure, describe
        self.failover_wait = failover_wait
        # with a failover wait, a pool that cannot connect gives up within it (recovered() takes over)
        self._wait_for_connection = max(1.0, min(wait_for_connection, failover_wait or wait_for_connection))
        self._closed = False
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self.generation = 0
        """How many times the pool was replaced after a failure; a call that saw generation g fail replaces it
        only if no other call has since."""
        self._pool = self._open()

    def _open(self) -> ConnectionPool:
        return ConnectionPool(
            self._conninfo,
            min_size=0,
            max_size=self._size,
            open=True,
            name="kioko",
            num_workers=1,
            kwargs={"autocommit": True, "prepare_threshold": 2},
            configure=self._configure,
            timeout=_POOL_TIMEOUT,
            max_idle=_POOL_MAX_IDLE,
        )

    def _current(self) -> ConnectionPool:
        if self._closed:
            raise StoreError("this store is closed; open it again with kioko.connect(url)")
        if os.getpid() != self._pid:
            # a forked child must never use or close the parent's connections: park them, start afresh
            _ABANDONED_AFTER_FORK.append(self._pool)
            self._pid, self._pool = os.getpid(), self._open()
        return self._pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        pool = self._current()
        try:
            conn = pool.getconn(timeout=self._wait_for_connection)
        except PoolTimeout as error:
            raise _NotConnected(str(self._describe(error, True))) from None
        except PoolClosed as error:
            if self._closed:
                raise StoreError("this store is closed; open it again with kioko.connect(url)") from None
            raise _NotConnected(str(self._describe(error, True))) from None  # replaced by recovered()
        try:
            yield conn
        finally:
            pool.putconn(conn)

    def recovered(self, seen_generation: int, deadline: float) -> bool:
        """After a dead connection: True once a server accepts connections again (the pool replaced if it
        still is the one the failed call used), False when ``deadline`` (``time.monotonic()``) passed first."""
        while True:
            remaining = deadline - time.monotonic()
            try:
                # libpq's smallest connect_timeout is 2 s; a refused port (a dead server) fails at once
                probe = psycopg.Connection.connect(self._conninfo, connect_timeout=max(2, min(10, int(remaining))))
            except psycopg.Error:
                if time.monotonic() + _PROBE_EVERY >= deadline:
                    return False
                time.sleep(_PROBE_EVERY)
                continue
            probe.close()
            self._renew(seen_generation)
            return True

    def _renew(self, seen_generation: int) -> None:
        with self._lock:
            if self._closed or os.getpid() != self._pid or self.generation != seen_generation:
                return
            old, self._pool = self._pool, self._open()
            self.generation += 1
        # connections in use go when they come back (putconn closes them on a closed pool); callers waiting
        # in the old pool get PoolClosed (so _NotConnected) and retry here. Closing waits for the old pool's
        # worker, possibly in a connection attempt, so it runs aside.
        threading.Thread(target=old.close, kwargs={"timeout": 5.0}, name="kioko-pool-close", daemon=True).start()

    def is_connection_failure(self, error: BaseException) -> bool:
        """True when ``error`` means the connection is unusable (not, say, a query cancelled by timeout)."""
        return isinstance(error, psycopg.OperationalError) and not isinstance(
            error,
            (
                pg_errors.QueryCanceled,
                pg_errors.LockNotAvailable,
                pg_errors.DeadlockDetected,
                pg_errors.SerializationFailure,
            ),
        )

    def discard_idle(self) -> None:
        """Test the idle connections and replace the dead ones (after one died, the others usually have too)."""
        if not self._closed and os.getpid() == self._pid:
            self._pool.check()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if os.getpid() != self._pid:
            _ABANDONED_AFTER_FORK.append(self._pool)  # the parent's, not ours to close
        else:
            self._pool.close()
