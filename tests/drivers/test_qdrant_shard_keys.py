"""The Qdrant driver's shard-key path (``qdrant://...?shard_keys=N``), run here in local mode.

A custom-sharded collection needs a Qdrant cluster, which this machine cannot start (the GitHub
workflow's ``qdrant-cluster`` job runs the contract suite on a real 3-node one). Local mode cannot
create shard keys, but it accepts the shard-key arguments of every read and write and ignores them, so
a store built on a local client with ``shard_keys=4`` runs every line of the sharded path (the key
of each user, the selector on each read, writes grouped per key) through the whole contract suite;
only the routing itself, and moving a point between keys, are the cluster's to test.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract_tests import StoreContractSuite
from kioko_core.store import InvalidRecordError
from kioko_core.store.driver import read_options
from kioko_core.store.registry import register_store
from kioko_core.store.url import StoreURL

qdrant_client = pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed")

from kioko_backends.qdrant.store import QdrantStore  # noqa: E402

SCHEME = "qdrant+sharded-local-test"

_clients: dict[str, list[Any]] = {}  # path -> [client, lock, users]
_clients_lock = threading.Lock()


def open_sharded_local(url: StoreURL, **options: Any) -> QdrantStore:
    """A QdrantStore on a local client with shard_keys=4; the directory's client is shared, as the driver does."""
    parsed = read_options(url, options, QdrantStore.options)  # the driver's own option checks
    path = os.path.realpath(url.path[1:])
    with _clients_lock:
        entry = _clients.get(path)
        if entry is None:
            entry = [qdrant_client.QdrantClient(path=path, force_disable_check_same_thread=True), threading.RLock(), 0]
            _clients[path] = entry
        entry[2] += 1

    def release() -> None:
        with _clients_lock:
            entry[2] -= 1
            if entry[2] == 0:
                del _clients[path]
                entry[0].close()

    return QdrantStore(
        entry[0],
        "sharded",
        parsed["dim"],
        local_path=path,
        lock=entry[1],
        release=release,
        shard_keys=parsed["shard_keys"] or 4,
        address=url.render(),
    )


register_store(SCHEME, open_sharded_local, clobber=True)


@pytest.fixture(scope="module")
def sharded_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield f"{SCHEME}:///{tmp_path_factory.mktemp('sharded')}"


class TestShardKeyPathContract(StoreContractSuite):
    """Every contract test on the sharded code path."""

    @pytest.fixture
    def store_url(self, sharded_url: str) -> str:
        return sharded_url


def test_a_user_has_one_stable_key_and_users_spread_over_all(sharded_url: str) -> None:
    from kioko_core.store.registry import open_store

    with open_store(sharded_url, dim=8) as store:
        assert isinstance(store, QdrantStore)
        assert store.shard_keys == 4
        assert store.shard_key("ana") == store.shard_key("ana")
        # blake2b, not Python's salted hash: the same in every process; this value is pinned so a
        # change of the hash (which would strand every user's points under the old key) fails here
        assert store.shard_key("ana") == "kioko-" + str(
            int.from_bytes(__import__("hashlib").blake2b(b"ana", digest_size=8).digest(), "big") % 4
        )
        spread = Counter(store.shard_key(f"user-{i}") for i in range(2000))
        assert set(spread) == {"kioko-0", "kioko-1", "kioko-2", "kioko-3"}
        assert min(spread.values()) > 400


def test_the_bucket_count_is_fixed_when_the_collection_is_made(tmp_path: Path) -> None:
    url = f"{SCHEME}:///{tmp_path / 'fixed'}"
    from kioko_core.store.registry import open_store

    with open_store(url, dim=8):
        pass
    with pytest.raises(InvalidRecordError, match="with 4 shard keys"):
        open_store(url + "?shard_keys=8", dim=8)


def test_shard_options_are_refused_in_local_mode(tmp_path: Path) -> None:
    from kioko_core.store.registry import open_store

    with pytest.raises(InvalidRecordError, match="local mode has no shards"):
        open_store(f"qdrant+local:///{tmp_path / 'q'}?shard_keys=4", dim=8)
    with pytest.raises(InvalidRecordError, match="shard_keys"):
        open_store("qdrant://localhost:6333/x?shard_keys=0", dim=8)
