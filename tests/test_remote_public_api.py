"""The public-API tests of the library, run a second time against RemoteMemory on a live server.

Each test below is imported from its own module and collected here, where the ``memory``, ``plain``
and ``layer`` fixtures are a RemoteMemory talking HTTP to a uvicorn server on a loopback port; the
server's layer is over memory:// or a SQLite file. A test passing here means the call behaves the
same over HTTP: same arguments, return types, values and typed errors.

Left out, and why: tests that read the store or the linker underneath (``layer.store``,
``layer.linker``, counting stores: the secrets tests that count stored records, the salient-weight
test), build their own MemoryLayer (``make_layer``), or test pure functions with no layer at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from linking_support import user  # noqa: F401  (fixture)
from remote_support import remote_for, served_store, server  # noqa: F401  (fixtures)
from test_kinds import (  # noqa: F401
    test_agent_and_session_and_metadata_are_passed_through,
    test_created_at_of_the_wrong_type_is_refused,
    test_decision_content_keeps_or_adds_the_framing,
    test_decision_outcome_counts,
    test_every_add_accepts_created_at,
    test_evidence_must_exist_in_the_scope,
    test_fact_update_keeps_the_old_value_in_history,
    test_goal_content_title_and_open_status,
    test_goal_parent_must_be_a_goal_of_the_same_user,
    test_goal_progress_complete_drop_and_open,
    test_goal_progress_refuses_bad_input,
    test_goal_status_change_keeps_its_structural_link,
    test_goal_with_parent_is_part_of_the_parent,
    test_insight_is_derived_from_its_evidence,
    test_instructions_add_list_remove,
    test_lesson_refines_procedure_with_the_spec_labels,
    test_linkable_and_not_linked_memory_types,
    test_managers_refuse_other_kinds,
    test_procedure_content_is_title_and_numbered_steps,
    test_procedure_needs_real_steps,
    test_procedure_outcome_and_update,
    test_profile_set_replaces_one_record_per_slot,
    test_profile_slots_are_per_user_and_never_linked,
    test_strategy_and_skill_outcomes,
    test_summary_is_derived_from_its_episodes,
    test_supersede_links_and_moves_the_served_goal,
    test_supersede_twice_names_the_newer_decision,
    test_supersede_without_linking_still_retires_the_old_decision,
    test_text_managers_store_their_memory_type,
    test_working_memory_is_never_linked_and_can_be_promoted,
    test_working_memory_is_per_session,
)
from test_linking_examples import (  # noqa: F401  (collected here, with this module's fixtures)
    quick,
    test_decision_serves_goal_through_the_entity_graph,
    test_every_linked_memory_records_entities_and_linked_at,
    test_fix_fault_link_is_stored_on_both_memories,
    test_fix_resolves_fault_with_the_spec_numbers,
    test_green_tea_and_the_plc_subnet_are_not_linked,
    test_lesson_refines_procedure,
    test_quick_start_link_lines_read_as_the_spec_prints_them,
)
from test_recall import (  # noqa: F401
    test_feedback_links_the_fix_and_strengthens_what_was_used,
    test_links_zero_turns_expansion_off,
    test_open_goals_are_in_context_and_seed_when_named,
    test_quick_start_context_reads_as_the_spec,
    test_recall_leaves_superseded_decisions_out,
    test_related_and_trace_follow_the_links,
)
from test_secrets import (  # noqa: F401
    test_ordinary_text_with_codes_is_stored,
    test_secret_in_a_note_leaves_the_memory_unchanged,
)

import kioko
from kioko.remote import RemoteMemory
from kioko.service.live import LiveServer


@pytest.fixture
def memory(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    return remote_for(auto_link=True)


@pytest.fixture
def plain(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    return remote_for(auto_link=False)


@pytest.fixture
def layer(memory: RemoteMemory) -> RemoteMemory:
    return memory


def test_connect_returns_a_remote_memory_for_http_urls(server: tuple[LiveServer, Any]) -> None:
    live, _ = server
    for url in (live.url, "kioko+" + live.url):
        with kioko.connect(url) as remote:
            assert isinstance(remote, RemoteMemory) and remote.url == live.url
