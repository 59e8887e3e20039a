"""The recall API's tests (tests/test_recall_api.py) again, through RemoteMemory on a live server."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_recall_api import (  # noqa: F401  (collected here, with this module's layer)
    _chat,
    test_a_linked_memory_has_a_real_score_and_counts_in_the_budget,
    test_bad_limits_are_errors,
    test_bad_links_are_errors,
    test_limit_is_the_total_number_returned,
    test_links_caps_the_memories_only_links_brought,
    test_the_turn_before_lifts_an_answer_that_shares_few_words,
)
from remote_support import remote_for, server  # noqa: F401  (fixtures)

from kioko.remote import RemoteMemory


@pytest.fixture
def layer(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    remote = remote_for(auto_link=True)
    _chat(remote)
    return remote


@pytest.fixture(scope="module")
def served_store() -> str:
    """memory:// only: these run the same HTTP code as the public-API set, which covers SQLite too."""
    return "memory"
