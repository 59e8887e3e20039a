"""Connections to PostgreSQL: the pool (safe after fork), transactions, pipelines, and Kioko's errors."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolTimeout

from kioko_core.store import (
    InvalidRecordError,
    StoreError,
)

_POOL_TIMEOUT = 30.0  # seconds a call waits for a pooled connection before ConnectionLostError
_POOL_MAX_IDLE = 300.0  # an idle connection older than this is closed; a later call opens another

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


class _Pool:
    """psycopg_pool's pool, plus what a store needs around it: safety after fork, and Kioko's errors.

    Connections are opened lazily (``min_size=0``), up to ``pool_size``, and closed after idling
    ``_POOL_MAX_IDLE`` seconds; a broken one is dropped when it comes back.
    """

    def __init__(
        self,
        conninfo: str,
        size: int,
        configure: Callable[[psycopg.Connection], None],
        describe: Callable[[BaseException, bool], StoreError],
    ) -> None:
        self._conninfo, self._size, self._configure, self._describe = conninfo, size, configure, describe
        self._closed = False
        self._pid = os.getpid()
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
            conn = pool.getconn()
        except PoolTimeout as error:
            raise self._describe(error, True) from None
        try:
            yield conn
        finally:
            pool.putconn(conn)

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
