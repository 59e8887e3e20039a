"""Lets ``pytest contract_tests --store-url URL`` run the suite; ``python -m contract_tests`` uses it too."""

from __future__ import annotations

import os

import pytest

from contract_tests import TEST_MODULES, URL_ENVIRONMENT_VARIABLE
from kioko_core.store import CONTRACT_VERSION
from kioko_core.store.url import StoreURL

# `python -m contract_tests` imports this package before pytest starts; registering again here,
# before the test module pulls the contract modules in, still gets their asserts rewritten
pytest.register_assert_rewrite(*(f"{__package__}.{module}" for module in TEST_MODULES))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-url",
        default=None,
        help=f"URL of the store the contract suite tests (default: ${URL_ENVIRONMENT_VARIABLE})",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Let ``-k KnnContract`` select a part of the contract: each test gets its defining class as a keyword."""
    for item in items:
        qualified = getattr(getattr(item, "function", None), "__qualname__", "")
        if "." in qualified:
            item.extra_keyword_matches.add(qualified.split(".")[0])


def pytest_report_header(config: pytest.Config) -> str | None:
    url = config.getoption("store_url", default=None) or os.environ.get(URL_ENVIRONMENT_VARIABLE)
    if not url:
        return None
    try:
        shown = StoreURL.parse(url).render()
    except ValueError:
        shown = "<an unparsable URL>"
    return f"kioko contract suite (contract version {CONTRACT_VERSION}) against {shown}"
