"""The context sections' tests (tests/test_context_sections.py) again, through RemoteMemory on a live server."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_context_sections import (  # noqa: F401  (collected here, with this module's memory)
    plant,
    test_relations_of_what_the_question_names_come_from_the_entity_graph,
    test_the_profile_and_instructions_open_every_context,
    test_working_memory_is_shown_to_its_session_only,
)
from test_remote_public_api import remote_for, server  # noqa: F401  (fixtures)

import kioko
from kioko.remote import RemoteMemory


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def served_store(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def memory(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    remote = remote_for(make=lambda url, auto_link: kioko.connect(url, auto_link=auto_link, intelligence=True))
    plant(remote)
    return remote
