"""The fixtures every contract class builds on: one ``store_url`` in, an opened store out."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest

from contract_tests.support import DIM, new_scope
from contract_tests.versions import Addition, addition_for
from kioko_core.store import Capabilities, Scope, Store
from kioko_core.store.registry import open_store


class StoreContractBase:
    """Base of every contract class. A subclass supplies ``store_url``; the rest follows from it.

    ``store_url`` may have any pytest scope. Tests open the store with ``open_store(store_url, dim=DIM)``
    once per test (the ``store`` fixture) and close it afterwards; they never need the store to be empty,
    because each test invents its own user ids.
    """

    dim: ClassVar[int] = DIM
    """The vector length stores are opened with; the suite's vectors are built for it, so leave it be."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each test a contract class defines carries the class's name, so ``-k KnnContract`` selects it in
        a driver's own test file too (pytest matches attributes set on a test function); one added after
        contract version 1 also says, when it fails, which version added it and what a driver must add."""
        super().__init_subclass__(**kwargs)
        if not cls.__name__.endswith("Contract"):
            return  # a driver's Test... subclass, or the whole suite: its tests are tagged already
        for name, function in list(vars(cls).items()):
            if name.startswith("test_") and callable(function):
                addition = addition_for(cls.__name__, name)
                tagged = function if addition is None else _explained(function, addition)
                setattr(tagged, cls.__name__, True)
                setattr(cls, name, tagged)

    @pytest.fixture
    def store_url(self) -> str:
        """Overridden by the driver's test class: the URL of the store under test."""
        raise NotImplementedError(
            "a contract test class must define a `store_url` fixture returning the URL of the store under test"
        )

    @pytest.fixture
    def store(self, store_url: str) -> Iterator[Store]:
        """The store under test, opened for this test and closed after it."""
        opened = self.open(store_url)
        try:
            yield opened
        finally:
            opened.close()

    @pytest.fixture
    def scope(self) -> Scope:
        """A scope (agent None) no other test writes to."""
        return new_scope()

    def open(self, store_url: str) -> Store:
        """Open another handle on ``store_url`` (for reopen and multi-process tests)."""
        return open_store(store_url, dim=self.dim)

    @staticmethod
    def capabilities(store: Store) -> Capabilities:
        """The store's declared capabilities, checked to be a :class:`Capabilities`."""
        declared = store.capabilities
        assert isinstance(declared, Capabilities), f"store.capabilities must be a Capabilities, got {declared!r}"
        return declared


def _explained(test: Callable[..., Any], addition: Addition) -> Callable[..., Any]:
    """``test``, whose failure carries :meth:`Addition.note` (pytest prints an exception's notes)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return test(*args, **kwargs)
        except (Exception, pytest.fail.Exception) as error:  # an assertion, pytest.raises, a wrong error; not skips
            store = kwargs.get("store")
            error.add_note(addition.note(getattr(store, "contract_version", None)))
            raise

    return run
