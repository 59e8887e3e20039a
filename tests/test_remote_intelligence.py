"""The offline intelligence's tests (tests/test_intelligence_offline.py) again, through RemoteMemory.

The served layer is ``kioko.intelligent(url)`` on memory:// or SQLite; ``manage`` runs on the server
and its ManageReport comes back whole. Left out: the transcript test, which reads the layer's own
``intelligence.stats()``, and the tests that build their own layer.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from remote_support import remote_for, server  # noqa: F401  (fixtures)
from test_intelligence_offline import (  # noqa: F401  (collected here, with this module's fixtures)
    test_a_forget_that_matches_nothing_is_reported_as_skipped,
    test_a_goal_with_its_due_date,
    test_a_hedged_short_statement_is_skipped_for_low_importance,
    test_a_jam_this_morning_is_a_dated_episode,
    test_a_lesson_learned_is_a_strategy,
    test_a_move_sets_the_location_and_adds_an_episode_dated_a_month_ago,
    test_a_number_change_is_an_update_with_history,
    test_a_plain_preference_stays_a_preference,
    test_a_procedure_from_to_then_finally,
    test_a_remember_request_is_never_gated,
    test_a_restated_goal_is_not_added_twice,
    test_a_switch_supersedes_the_decision_and_the_old_one_stays_linked,
    test_clear_all_memories_about_the_plc_deletes_them,
    test_finishing_a_step_towards_a_goal_is_an_episode_and_the_goal_stays_open,
    test_forget_my_phone_number_deletes_the_slot,
    test_forget_that_i_love_hiking_deletes_the_preference,
    test_general_knowledge_goes_to_the_users_own_scope,
    test_generic_words_never_match_a_goal_alone,
    test_how_to_answer_is_a_standing_instruction,
    test_moving_between_tools_is_no_change_of_location,
    test_passing_the_exam_completes_the_goal_and_giving_up_drops_one,
    test_profile_name_and_location_with_relations_when_the_graph_is_on,
    test_profile_without_the_graph_adds_no_relation,
    test_progress_on_a_piece_counts_as_progress_on_the_goal,
    test_requests_about_the_users_work_and_forget_everything_delete_nothing,
    test_that_worked_credits_the_procedure_the_last_recall_gave_once,
    test_the_debugging_task_and_identifiers_go_to_the_scratchpad,
    test_the_gate_skips_small_talk_and_requests,
    test_the_report_is_json_safe_and_reads_well,
    test_the_task_is_not_also_stored_as_a_fact,
    test_without_a_session_there_is_no_scratchpad,
)

import kioko
from kioko.remote import RemoteMemory


@pytest.fixture
def memory(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    return remote_for(make=kioko.intelligent)


@pytest.fixture
def plain(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    return remote_for(auto_link=False)


@pytest.fixture(scope="module")
def served_store() -> str:
    """memory:// only: these run the same HTTP code as the public-API set, which covers SQLite too."""
    return "memory"
