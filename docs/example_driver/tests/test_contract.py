from pathlib import Path

import pytest

from contract_tests import StoreContractSuite


class TestJsonlStore(StoreContractSuite):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"jsonl://{tmp_path}/store.jsonl"
