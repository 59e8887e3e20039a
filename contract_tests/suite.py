"""``StoreContractSuite``: every contract class in one, what a driver's test file subclasses."""

from __future__ import annotations

from contract_tests.generations import ChangesContract, GenerationContract
from contract_tests.inputs import ArgumentContract, InputRuleContract, OptionContract
from contract_tests.isolation import IsolationContract
from contract_tests.knn import KnnContract
from contract_tests.lifecycle import CrashContract, LifecycleContract, MultiProcessContract, PersistenceContract
from contract_tests.link_store import LinkStoreContract
from contract_tests.postings import PostingsContract
from contract_tests.records import (
    AtomicityContract,
    GetContract,
    UpdateManyContract,
    ValidationContract,
    VersionContract,
)
from contract_tests.scan import ScanContract
from contract_tests.scopes import ReservedScopeContract, ScopeListingContract
from contract_tests.stateful import StateMachineContract

CONTRACT_CLASSES = (
    LifecycleContract,
    OptionContract,
    GetContract,
    UpdateManyContract,
    VersionContract,
    ValidationContract,
    InputRuleContract,
    ArgumentContract,
    AtomicityContract,
    PostingsContract,
    KnnContract,
    ScanContract,
    IsolationContract,
    PersistenceContract,
    MultiProcessContract,
    CrashContract,
    GenerationContract,
    ChangesContract,
    LinkStoreContract,
    ReservedScopeContract,
    ScopeListingContract,
    StateMachineContract,
)
"""Each part of the contract, in the order a failure report lists them."""


class StoreContractSuite(*CONTRACT_CLASSES):  # type: ignore[misc]
    """The whole contract. Subclass it as ``Test...`` and give it a ``store_url`` fixture::

        import pytest
        from contract_tests import StoreContractSuite

        class TestMyStore(StoreContractSuite):
            @pytest.fixture
            def store_url(self, tmp_path):
                return f"mystore://{tmp_path}/data"

    The store need not be empty: every test writes into scopes it invents. Tests that depend on a
    capability (persistence, several processes, exact knn) read ``store.capabilities`` and skip, with
    the reason, when the store does not declare it.
    """
