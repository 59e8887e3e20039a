"""The whole store contract on every store of the matrix: memory, SQLite, PostgreSQL, Qdrant local and server.

Each store is opened once per session (one SQLite file, one PostgreSQL server, one Qdrant directory or
collection); the contract tests isolate themselves with fresh scopes, so the stores fill up as the run
goes, which is part of the point: a driver must stay right on a store that holds other data.
"""

from __future__ import annotations

import pytest
from services import STORES

from contract_tests import StoreContractSuite


@pytest.fixture(scope="module", params=STORES)
def matrix_store(request: pytest.FixtureRequest) -> str:
    """The name of the store under test; module scope groups each store's tests together."""
    return request.param


class TestContractMatrix(StoreContractSuite):
    """Every contract test, once per store."""

    @pytest.fixture
    def store_url(self, matrix_store_url: str) -> str:
        return matrix_store_url
