"""The whole contract against the store named on the command line (``python -m contract_tests URL``)."""

from __future__ import annotations

import os

import pytest

from contract_tests import URL_ENVIRONMENT_VARIABLE
from contract_tests.suite import StoreContractSuite


class TestStoreAtURL(StoreContractSuite):
    """Every contract test against ``--store-url`` or ``$KIOKO_CONTRACT_URL``."""

    @pytest.fixture
    def store_url(self, request: pytest.FixtureRequest) -> str:
        url = request.config.getoption("store_url", default=None) or os.environ.get(URL_ENVIRONMENT_VARIABLE)
        if not url:
            pytest.skip(
                f"no store URL given: run `python -m contract_tests URL`, pass --store-url, "
                f"or set {URL_ENVIRONMENT_VARIABLE}"
            )
        return url
