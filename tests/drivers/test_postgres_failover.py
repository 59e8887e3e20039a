"""PostgreSQL past one machine: a multi-host URL that survives a failover, and read replicas for recall.

Three embedded servers in streaming replication on 127.0.0.1 (tests/replication.py): ``a`` the primary,
committing synchronously to ``b``; ``b`` a standby of ``a``; ``c`` a standby streaming from ``b`` (so it
follows ``b`` when ``b`` is promoted). The store's URL names ``a`` and ``b`` with
``target_session_attrs=read-write`` and ``c`` as its replica. The failover test kills ``a`` in the middle
of a write load, promotes ``b``, and counts: every write the store acknowledged is on ``b``. Under
``CI=true`` servers that cannot start fail the run, as the suite's own PostgreSQL does.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import kioko
from kioko_core.store import ConnectionLostError, Delete, InvalidRecordError, Record, Scope, Upsert

pytest.importorskip("psycopg")
# the tests share one cluster and the later ones need what the earlier left (the failover kills the primary)
pytestmark = pytest.mark.in_order

import replication  # noqa: E402 (tests/ is on the path: conftest puts it there)
from ports import free_port  # noqa: E402

DIM = 8
WRITERS = 3
BEFORE_KILL = 40  # acknowledged writes before the primary is killed
AFTER_PROMOTION = 40  # acknowledged writes the same store must make after the standby is promoted


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, replication.Node]]:
    try:
        started = replication.Cluster()
    except Exception as error:  # the wheel is missing, or this system cannot run it
        _unavailable(error)
    try:
        a = started.primary("a", synchronous=["b"])
        b = started.standby("b", a)
        c = started.standby("c", b)
    except Exception as error:
        started.stop()
        _unavailable(error)
    try:
        yield {"a": a, "b": b, "c": c}
    finally:
        started.stop()


def _unavailable(error: BaseException) -> None:
    reason = f"three replicating embedded PostgreSQL servers could not start: {type(error).__name__}: {error}"
    if _under_ci():
        pytest.fail(f"{reason}; CI=true requires them", pytrace=False)
    pytest.skip(reason)


def _url(nodes: dict[str, replication.Node], table: str, **query: str) -> str:
    extra = "".join(f"&{key}={value}" for key, value in query.items())
    return (
        f"postgresql://postgres@{nodes['a'].address},{nodes['b'].address}/postgres"
        f"?target_session_attrs=read-write&replicas={nodes['c'].address}&table={table}&dim={DIM}{extra}"
    )


def _record(user: str, key: str, n: int, content: str | None = None) -> Record:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[n % DIM] = 1.0
    vector[(n + 1) % DIM] = 0.5 + (n % 97) / 100
    return Record(
        id=key,
        user_id=user,
        kind="fact",
        content=content or f"note {key}",
        terms=[f"t{n}", "all"],
        embedding=vector,
        created_at=1_700_000_000.0 + n,
        updated_at=1_700_000_000.0 + n,
    )


def _rows(node: replication.Node, table: str) -> dict[str, tuple[int, str]]:
    return {
        key: (version, content)
        for key, version, content in node.sql(f"SELECT id, version, content FROM {table}_records")
    }


def test_a_replica_serves_reads_once_it_has_what_this_process_wrote(cluster: dict[str, replication.Node]) -> None:
    """Read-your-writes by WAL position: with ``c``'s replay paused, a write is read back from the primary
    (``c`` does not have it); once ``c`` has replayed it, ``c`` serves the same read."""
    a, c = cluster["a"], cluster["c"]
    with kioko.open_store(_url(cluster, "ryw", replica_reads="all")) as store:
        store.update_many([Upsert(record=_record("ana", f"ana-{i}", i), expected_version=0) for i in range(5)])
        replication.wait_for("c to replay the first writes", lambda: c.replayed() >= a.written())
        c.sql("SELECT pg_wal_replay_pause()")
        try:
            replication.wait_for(
                "c's replay to pause", lambda: c.sql("SELECT pg_get_wal_replay_pause_state()")[0][0] == "paused"
            )
            store.update_many([Upsert(record=_record("ana", "ana-new", 9), expected_version=0)])
            before = store.reads_served
            assert store.get(Scope("ana"), ["ana-new"])[0] is not None  # read back at once: from the primary
            assert store.postings(Scope("ana"), ["t9"], 5).ids == {"t9": ["ana-new"]}
            served = store.reads_served
            assert served.get("primary", 0) - before.get("primary", 0) == 2, served
            assert "ana-new" not in _rows(c, "ryw")  # the replica really lacks it: the primary was needed
        finally:
            c.sql("SELECT pg_wal_replay_resume()")
        replication.wait_for("c to replay the new write", lambda: "ana-new" in _rows(c, "ryw"))
        replication.wait_for("c to pass the primary's position", lambda: c.replayed() >= a.written())
        before = store.reads_served
        assert store.get(Scope("ana"), ["ana-new"])[0] is not None
        assert store.knn(Scope("ana"), _record("ana", "q", 9).embedding, 1)[0].id == "ana-new"  # type: ignore[arg-type]
        served = store.reads_served
        assert served.get("replica", 0) - before.get("replica", 0) == 2, served
        assert served.get("primary", 0) == before.get("primary", 0), served


def test_recall_served_by_a_replica_sees_another_process_writes(cluster: dict[str, replication.Node]) -> None:
    """A reader that never wrote recalls from ``c`` only; a memory another store adds shows there once
    ``c`` has replayed it (the replication delay, measured and printed), never from the primary."""
    c = cluster["c"]
    url = _url(cluster, "recall")
    with kioko.connect(url, auto_link=False) as writer, kioko.connect(url, auto_link=False) as reader:
        writer.add("The deploy key for the staging cluster rotates every Tuesday", user_id="ben")
        replication.wait_for("c to replay the first memory", lambda: len(_rows(c, "recall")) >= 1)
        assert reader.recall("when does the staging deploy key rotate?", user_id="ben").memories
        added = time.monotonic()
        writer.add("Error E-4417 means the vault token expired", user_id="ben")
        lag = replication.wait_for(
            "a recall on the replica to find the new memory",
            lambda: (
                any("E-4417" in m.content for m in reader.recall("what does E-4417 mean?", user_id="ben").memories)
                and time.monotonic() - added
            ),
        )
        served = reader.store.reads_served
        assert served.get("replica", 0) >= 2, served
        assert served.get("primary", 0) == 0, served
        print(f"\nrecall on the replica saw another process's memory {lag * 1000:.0f} ms after it was acknowledged")


def test_a_failover_loses_no_acknowledged_write(cluster: dict[str, replication.Node]) -> None:
    """Kill the primary in the middle of a write load, promote the synchronous standby: the same store (the
    same URL) goes on writing after the pause, and every write it acknowledged is on the new primary. Each
    writer reads its write back at once (``replica_reads=all``: from ``c`` when it has caught up, else from
    the primary), before, during and after the failover: it always finds it."""
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    acked: dict[str, tuple[int, str]] = {}
    errors: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    acked_after_kill: list[float] = []
    killed_at: list[float] = []
    moments: dict[str, float] = {}

    def write(store: Any, worker: int) -> None:
        counter_id, counter_version = f"counter-{worker}", 0
        n = 0
        while not stop.is_set():
            n += 1
            key = f"w{worker}-{n}"
            try:
                if n % 3 == 0:  # an update at an expected version: the other write a layer makes
                    counter = _record("fo", counter_id, n, content=f"counter {worker} at {n}")
                    stored = store.update_many([Upsert(record=counter, expected_version=counter_version)])[0]
                    counter_version, key, content = stored.version, counter_id, counter.content
                else:
                    stored = store.update_many([Upsert(record=_record("fo", key, n), expected_version=0)])[0]
                    content = stored.content
                again = store.get(Scope("fo"), [key])[0]
            except Exception as error:  # every one is a failure of the rule under test
                with lock:
                    errors.append(f"{key}: {type(error).__name__}: {error}")
                continue
            if again is None or (again.version, again.content) != (stored.version, content):
                errors.append(f"{key}: read back {again!r} after writing version {stored.version}")
            with lock:
                acked[key] = (stored.version, content)
                if killed_at:
                    acked_after_kill.append(time.monotonic())

    with kioko.open_store(_url(cluster, "fo", failover_wait="90", replica_reads="all")) as store:
        workers = [threading.Thread(target=write, args=(store, i), daemon=True) for i in range(WRITERS)]
        for worker in workers:
            worker.start()
        try:
            replication.wait_for(f"{BEFORE_KILL} acknowledged writes", lambda: len(acked) >= BEFORE_KILL)
            with lock:
                killed_at.append(time.monotonic())
                at_kill = len(acked)
            a.kill()
            moments["killed"] = time.monotonic()
            b.promote()
            moments["promoted"] = time.monotonic()
            replication.wait_for(
                f"{AFTER_PROMOTION} writes acknowledged after the promotion",
                lambda: len(acked_after_kill) >= AFTER_PROMOTION,
            )
        finally:
            stop.set()
            for worker in workers:
                worker.join(timeout=replication.WAIT)
        assert not any(worker.is_alive() for worker in workers)
        assert store._pool.generation >= 1  # the pool was replaced: the writes after went to b
        outcomes, served = dict(store.lost_writes), store.reads_served
    assert errors == []
    found = _rows(b, "fo")
    lost = {key: value for key, value in acked.items() if found.get(key) != value}
    resumed = min(t for t in acked_after_kill if t > moments["promoted"])
    print(
        f"\n{len(acked)} records written ({at_kill} before the kill, {len(acked_after_kill)} acknowledged writes "
        f"after it), {len(acked) - len(lost)} as acknowledged on the new primary, {len(lost)} lost; kill to "
        f"promoted {moments['promoted'] - moments['killed']:.2f} s, promoted to the next acknowledged write "
        f"{resumed - moments['promoted']:.2f} s; writes lost in flight, by what b showed: {outcomes}; "
        f"reads back: {served}"
    )
    assert lost == {}
    replication.wait_for("c to follow b and replay every acknowledged write", lambda: _rows(c, "fo") == found)


def test_a_call_gives_up_after_the_failover_wait(cluster: dict[str, replication.Node]) -> None:
    """With no server accepting writes (``a`` dead, ``b`` stopped), a write waits ``failover_wait`` and then
    raises ConnectionLostError; it never hangs. Runs after the failover (``b`` is the primary)."""
    a, b = cluster["a"], cluster["b"]
    if a.running:
        pytest.skip("runs after test_a_failover_loses_no_acknowledged_write (it needs the killed primary)")
    with kioko.open_store(_url(cluster, "fo", failover_wait="1")) as store:
        assert store.get(Scope("fo"), ["counter-0"])[0] is not None  # b serves it: the failover test wrote there
        b.kill()
        with pytest.raises(ConnectionLostError):
            store.update_many([Upsert(record=_record("fo", "late", 1), expected_version=0)])


def test_which_lost_writes_are_repeated(postgresql_store_url: str) -> None:
    """The rule failover.py applies to a write whose connection died after sending: read on one server."""
    from kioko_backends.postgresql.failover import APPLIED, UNKNOWN, UNTOUCHED, outcome, repeatable

    url = postgresql_store_url + ("&" if "?" in postgresql_store_url else "?") + f"table=lost&dim={DIM}"
    with kioko.open_store(url) as store:
        first = _record("lu", "lu-1", 1)
        store.update_many([Upsert(record=first, expected_version=0)])
        read = store._get_on_primary  # type: ignore[attr-defined]
        changed = _record("lu", "lu-1", 2, content="changed")
        batch = [Upsert(record=changed, expected_version=1), Delete(id="lu-2", scope=Scope("lu"), expected_version=0)]
        assert repeatable(batch)
        assert not repeatable([Upsert(record=changed)])  # no version: its outcome cannot be read back
        assert not repeatable([Upsert(record=changed, expected_version=1)] * 2)
        assert outcome(batch, read) == UNTOUCHED  # nothing applied: sent again
        store.update_many(batch)
        assert outcome(batch, read) == APPLIED  # committed before the connection died: not sent again
        store.update_many([Upsert(record=_record("lu", "lu-1", 3, content="someone else"), expected_version=2)])
        assert outcome(batch, read) == UNKNOWN  # another writer moved it: the call raises


def test_a_replica_that_does_not_answer_leaves_reads_to_the_primary(postgresql_store_url: str) -> None:
    """A replica address where nothing listens: the first read waits at most WAIT_FOR_REPLICA for it, then the
    primary serves it; the next reads go straight to the primary while the replica rests. No read fails."""
    closed = free_port()  # bound, then closed: nothing listens there
    url = postgresql_store_url + ("&" if "?" in postgresql_store_url else "?") + f"table=noreplica&dim={DIM}"
    with kioko.open_store(url, replicas=f"127.0.0.1:{closed}", replica_reads="all") as store:
        store.update_many([Upsert(record=_record("nr", "nr-1", 1), expected_version=0)])
        assert store.get(Scope("nr"), ["nr-1"])[0] is not None
        assert store.postings(Scope("nr"), ["t1"], 5).ids == {"t1": ["nr-1"]}
        assert store.reads_served == {"replica lost": 1, "primary": 2}


def test_urls_with_several_hosts_and_replicas() -> None:
    """libpq's failover list from the URL, the failover wait's default, and the replica options' checks."""
    from psycopg.conninfo import conninfo_to_dict

    from kioko_backends.postgresql.url import _conninfo, _replica_conninfo
    from kioko_core.store.url import StoreURL

    url = StoreURL.parse("postgresql://u:pw@10.0.0.1:5432,db2,[::1]:5433/app?target_session_attrs=read-write")
    assert url.hosts == (("10.0.0.1", 5432), ("db2", None), ("::1", 5433))
    assert url.render() == "postgresql://u:***@10.0.0.1:5432,db2,[::1]:5433/app?target_session_attrs=read-write"
    info = conninfo_to_dict(_conninfo(url))
    assert (info["host"], info["port"], info["target_session_attrs"]) == (
        "10.0.0.1,db2,::1",
        "5432,,5433",
        "read-write",
    )
    replica = conninfo_to_dict(_replica_conninfo(_conninfo(url), "r1:6432,r2"))
    assert (replica["host"], replica["port"], replica["target_session_attrs"]) == ("r1,r2", "6432,", "any")
    assert replica["load_balance_hosts"] == "random"
    assert replica["application_name"] == "kioko (reads)"
    single = conninfo_to_dict(_replica_conninfo(_conninfo(StoreURL.parse("postgresql://u@p:6000/app")), "r1"))
    assert (single["host"], single["port"]) == ("r1", "6000")
    with pytest.raises(InvalidRecordError, match="replicas"):
        _replica_conninfo(_conninfo(url), "r1,:5")
