"""Kioko's store contract suite: the tests every driver passes, ours and third parties'.

Two ways to run it:

* In a driver's own tests, subclass :class:`StoreContractSuite` (or single parts of it) and supply a
  ``store_url`` fixture; see the class docstring.
* From a shell, ``python -m contract_tests URL [pytest options]`` runs the whole suite against any
  store URL and exits non-zero if anything fails.

It needs pytest and hypothesis: ``pip install 'kioko[contract]'`` (not ``kioko[test]``, the project's own test stack).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

URL_ENVIRONMENT_VARIABLE = "KIOKO_CONTRACT_URL"
"""Where ``python -m contract_tests`` (and ``pytest contract_tests``) find the store URL to test."""

TEST_MODULES = (
    "base",
    "support",
    "records",
    "inputs",
    "postings",
    "knn",
    "scan",
    "isolation",
    "lifecycle",
    "generations",
    "stateful",
    "suite",
)
"""The modules holding assertions: pytest must rewrite them for its detailed failure messages."""

# Registering before the modules are imported is what lets pytest rewrite their asserts; importing
# the package stays cheap because the names below load on first use.
pytest.register_assert_rewrite(*(f"{__name__}.{module}" for module in TEST_MODULES))

_EXPORTS = {
    "StoreContractSuite": "suite",
    "CONTRACT_CLASSES": "suite",
    "StoreContractBase": "base",
    "LifecycleContract": "lifecycle",
    "PersistenceContract": "lifecycle",
    "MultiProcessContract": "lifecycle",
    "CrashContract": "lifecycle",
    "GetContract": "records",
    "UpdateManyContract": "records",
    "VersionContract": "records",
    "ValidationContract": "records",
    "AtomicityContract": "records",
    "PostingsContract": "postings",
    "InputRuleContract": "inputs",
    "ArgumentContract": "inputs",
    "OptionContract": "inputs",
    "KnnContract": "knn",
    "MIN_RECALL": "knn",
    "ScanContract": "scan",
    "IsolationContract": "isolation",
    "GenerationContract": "generations",
    "ChangesContract": "generations",
    "LinkStoreContract": "link_store",
    "StateMachineContract": "stateful",
    "DIM": "support",
    "check_knn": "support",
    "exact_knn": "support",
    "make_record": "support",
    "new_scope": "support",
}

__all__ = ["URL_ENVIRONMENT_VARIABLE", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
