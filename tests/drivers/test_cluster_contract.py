"""The contract suite on the distributed deployments GitHub's workflow starts (it cannot run here: no Docker).

``KIOKO_TEST_QDRANT_CLUSTER_URL``
    A Qdrant cluster collection opened with custom sharding, e.g.
    ``qdrant://localhost:6333/kioko_cluster?shard_keys=3&replication_factor=2`` (the workflow's
    ``qdrant-cluster`` job: 3 nodes from ``.github/cluster/qdrant-compose.yml``).
``KIOKO_TEST_CITUS_URL``
    A Citus coordinator with workers and pgvector on every node, opened with ``?distribute=citus``
    (the workflow's ``citus`` job: ``.github/cluster/citus-compose.yml``).

Without the variable, each class is skipped with that reason, printed in the summary. Under CI the
skip stays a skip: this machine's CI has no Docker, and only the GitHub jobs set the variables.
"""

from __future__ import annotations

import os

import pytest

from contract_tests import StoreContractSuite


def _url(variable: str) -> str:
    url = os.environ.get(variable, "").strip()
    if not url:
        pytest.skip(f"{variable} is not set: this suite runs in the GitHub workflow's cluster jobs")
    return url


class TestQdrantClusterContract(StoreContractSuite):
    """Every contract test on a custom-sharded collection of a 3-node Qdrant cluster."""

    @pytest.fixture
    def store_url(self) -> str:
        return _url("KIOKO_TEST_QDRANT_CLUSTER_URL")


class TestCitusContract(StoreContractSuite):
    """Every contract test on Citus distributed tables, sharded by user."""

    @pytest.fixture
    def store_url(self) -> str:
        return _url("KIOKO_TEST_CITUS_URL")
