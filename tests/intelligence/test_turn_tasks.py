"""How a turn is read for the session's current task (kioko_intelligence/rules.py ``TASK``).

A user at work says what they are doing in many shapes besides "I'm working on X": an activity with a time
cue ("Redlining the Acme NDA at the moment"), what they finished and what comes next ("Bay 3 settled,
heading to bay 7 now"), a move on ("on to the feed order now"), an activity naming an identifier
("Plating table 9's mains"). Each becomes the session's task, and the next one replaces it. A word in -ing
that names a thing ("Driving test got moved") or a habit ("Running 5k every morning") is no task.

Real layers (``kioko.intelligent("memory://")``), real routing; no mocks.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.ops import SKIPPED


def tasks(*turns: str) -> tuple[list[str | None], str]:
    """Each turn's planned task (None when it sets none) and the context a question in the session gets."""
    memory = kioko.intelligent("memory://")
    try:
        found: list[str | None] = []
        for turn in turns:
            report = memory.record_turn(turn, user_id="u", session_id="s")
            set_to = [
                op.fields["value"]
                for op in report.ops
                if op.op == "working.set" and op.fields.get("key") == "task" and op.status != SKIPPED
            ]
            found.append(set_to[-1] if set_to else None)
        return found, memory.recall("What am I doing right now?", user_id="u", session_id="s").text
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("first", "then", "now", "before"),
    [
        ("Currently with the patient in bay 3.", "Bay 3 settled, heading to bay 7 now.", "bay 7", "bay 3."),
        (
            "doing the lambing records for the north field flock today",
            "lambing records finished, on to the feed order now",
            "feed order",
            "Doing the lambing records",
        ),
        ("Redlining the Acme NDA at the moment.", "Turning to the Orion lease now.", "Orion lease", "Redlining"),
        ("on a call with Pemberton Ltd right now", "pemberton done, dialling Walsh & Co next", "Walsh", "On a call"),
        ("Plating table 9's mains.", "Table 9 out, now firing table 14's starters.", "table 14", "Plating"),
        (
            "Running experiment batch B12 on the cluster.",
            "B12 crashed, rerunning it as B13 with less memory.",
            "B13",
            "Running experiment",
        ),
    ],
)
def test_the_next_activity_becomes_the_task_and_replaces_the_last(first: str, then: str, now: str, before: str) -> None:
    found, context = tasks(first, then)
    assert found[0] is not None, first
    assert found[1] is not None, then
    assert now in found[1]
    assert now in context
    assert before not in context


@pytest.mark.parametrize(
    "said",
    [
        "Driving test got moved, it's July 8 now.",
        "Running 5k every morning at the moment.",
        "Feeling much better today.",
        "Going to the dentist today.",
    ],
)
def test_a_thing_a_habit_or_a_state_in_ing_is_no_task(said: str) -> None:
    assert tasks(said)[0] == [None]


def test_moving_on_to_a_numbered_place_is_the_task_and_to_an_identifier_rewrites_the_task() -> None:
    found, context = tasks("Currently with the patient in bay 3.", "Bay 3 settled, on to bay 7 now.")
    assert found[1] == "Bay 3 settled, on to bay 7"
    found, context = tasks("Patching server db-02 tonight.", "db-02 went fine. Moving on to db-05.")
    assert found[1] == "Patching server db-05 tonight"  # working_changes rewrote the identifier in the task
    assert "Patching server db-05 tonight" in context


def test_without_a_session_nothing_is_a_task() -> None:
    memory = kioko.intelligent("memory://")
    try:
        report = memory.record_turn("Redlining the Acme NDA at the moment.", user_id="u")
        assert not [op for op in report.ops if op.op == "working.set"]
    finally:
        memory.close()


def test_an_identifier_said_to_be_done_gives_way_to_the_other_one_the_turn_names() -> None:
    memory = kioko.intelligent("memory://")
    try:
        memory.record_turn("wip: BUG-2211 null deref in the exporter", user_id="u", session_id="s")
        memory.record_turn("BUG-2211 fixed and merged. now: BUG-2240 flaky retry test", user_id="u", session_id="s")
        pad = memory.working.all(user_id="u", session_id="s")
        assert pad.get("ticket") == "BUG-2240"
    finally:
        memory.close()


def pad_after(*turns: str) -> dict[str, object]:
    memory = kioko.intelligent("memory://")
    try:
        for turn in turns:
            memory.record_turn(turn, user_id="u", session_id="s")
        return dict(memory.working.all(user_id="u", session_id="s"))
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("first", "then", "now"),
    [
        ("Picking up PAY-1182, the refund rounding bug.", "1182 is merged. Grabbing PAY-1190 next.", "PAY-1190"),
        ("Looking at ticket OPS-3310 this morning.", "3310 got closed. Taking OPS-3321 after lunch.", "OPS-3321"),
        ("Picking up PAY-1182, the refund rounding bug.", "PAY-1182 is shipped. Grabbing PAY-1190.", "PAY-1190"),
    ],
)
def test_a_held_identifier_said_to_be_done_by_its_number_moves_the_ticket_on(first: str, then: str, now: str) -> None:
    # no move-on words ("Grabbing X next"): the held ticket said done, by its whole code or its number, is the move
    assert pad_after(first, then).get("ticket") == now


@pytest.mark.parametrize(
    "then",
    [
        "PAY-1179 is merged already, that was the original report. Still on PAY-1182.",
        "PAY-1179 was the original report of the same bug.",
        "1182 is merged.",
    ],
)
def test_a_ticket_stays_when_another_one_is_done_or_only_named(then: str) -> None:
    assert pad_after("Picking up PAY-1182, the refund rounding bug.", then).get("ticket") == "PAY-1182"


def test_the_git_branch_is_a_scratchpad_identifier_and_a_checkout_moves_it() -> None:
    memory = kioko.intelligent("memory://")
    try:
        memory.record_turn("I'm on branch feature/sso-login, wiring up the SAML callback.", user_id="u", session_id="s")
        memory.record_turn(
            "Prod is on fire, parked the SSO work and checked out hotfix/cookie-expiry.", user_id="u", session_id="s"
        )
        assert memory.working.all(user_id="u", session_id="s").get("branch") == "hotfix/cookie-expiry"
        context = memory.recall("Which branch am I on?", user_id="u", session_id="s").text
        assert "hotfix/cookie-expiry" in context and "feature/sso-login" not in context
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("said", "branch"),
    [
        ("Ran git checkout -b bugfix/login_timeout before lunch.", "bugfix/login_timeout"),
        ("Rebased the release/2.4 branch on main.", "release/2.4"),
        ("Switched to branch spike_new_parser for the afternoon.", "spike_new_parser"),
    ],
)
def test_a_branch_said_in_other_ways(said: str, branch: str) -> None:
    assert pad_after(said).get("branch") == branch


@pytest.mark.parametrize(
    "said",
    [
        "I go to the library branch on Elm Street on Saturdays.",
        "The bank's Nagoya branch is closing in May.",
        "I'm on the branch committee at church this year.",
        "We now push to the main branch and the pipeline deploys.",
    ],
)
def test_a_branch_of_something_else_is_no_scratchpad_branch(said: str) -> None:
    assert "branch" not in pad_after(said)


def test_a_bare_number_is_an_identifier_the_task_moves_on_from() -> None:
    found, context = tasks(
        "Seeing to cow 318, she's calving, might be a long night.",
        "318's calved fine, heifer calf. Now it's 402 that's off her feed, vet's coming.",
    )
    assert "Seeing to cow 402" in context
    assert "cow 318" not in context


@pytest.mark.parametrize(
    ("first", "then", "now", "before"),
    [
        (
            "Picking order 55-1930, fourteen lines, all aisle K.",
            "That one's dispatched. On 55-1987 now, big one, two pallets.",
            "55-1987",
            "55-1930",
        ),
        ("Loading trailer T-118 for the Leeds run.", "On T-121 now, the Glasgow one.", "T-121", "T-118"),
        ("Working ticket 4471, the printer on level 2.", "Printer sorted. On 4480 now, a dead laptop.", "4480", "4471"),
        ("Restocking cage 12-004 for the Hull store.", "Hull's done. On 12-009 now.", "12-009", "12-004"),
    ],
)
def test_on_another_identifier_now_with_no_subject_moves_the_task_on(
    first: str, then: str, now: str, before: str
) -> None:
    """Before, "On 55-1987 now" (the user left out) was no move on, "55-1930" and "4471," were no identifiers (a
    number with a dash, a number before a comma): the session kept the first task."""
    found, context = tasks(first, then)
    assert now in context
    assert before not in context


@pytest.mark.parametrize(
    "then",
    [
        "On hold with the supplier now, ugh.",  # no other identifier
        "On Friday I'm off, so 55-1987 can wait.",  # no "now": another order only named
        "Order 55-1987 came in as well.",
    ],
)
def test_another_identifier_without_a_move_on_leaves_the_task(then: str) -> None:
    found, context = tasks("Picking order 55-1930, fourteen lines, all aisle K.", then)
    assert "55-1930" in context


# -- an activity said as a bare participle, any verb (kioko_intelligence/activities.py)


@pytest.mark.parametrize(
    ("first", "then", "now", "before"),
    [
        (
            "Now grouting the upstairs shower.",
            "Shower's done. Now tiling the kitchen splashback.",
            "splashback",
            "grout",
        ),
        (
            "Currently proofing the Harlow brochure.",
            "Brochure's away. Captioning the gallery photos for the Lisle show.",
            "gallery photos",
            "Harlow",
        ),
        ("Right now I'm glazing the blue mugs.", "kiln unloaded, next up: stacking the bisque shelf", "bisque", "mugs"),
        ("Now I am marking essay 12 of the batch.", "Essay 12 finished. Now essay 13, the long one.", "essay 13", "12"),
    ],
)
def test_a_participle_said_now_or_after_the_last_thing_closed_is_the_task(
    first: str, then: str, now: str, before: str
) -> None:
    found, context = tasks(first, then)
    assert found[0] is not None, first
    assert now in context
    assert before not in context


@pytest.mark.parametrize(
    "said",
    [
        "Onboarding new hires: HR sends the laptop, then IT makes the accounts.",  # a heading names a topic
        "Releases work differently now: pushing the tag triggers CI.",  # "now:" closing a heading
        "Now learning Portuguese for the move.",  # a lasting aim, not this session's task
        "I'm now running the Leeds office.",  # a job: "now" inside the sentence is not enough
        "Checking the gas meters is a pain.",  # the participle is the subject of a statement
        "Checking the gas meter readings for the flats.",  # nothing says it is happening now
    ],
)
def test_a_participle_that_names_a_topic_an_aim_or_a_job_is_no_task(said: str) -> None:
    assert tasks(said)[0] == [None]
