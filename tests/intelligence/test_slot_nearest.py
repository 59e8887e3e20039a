"""A change said only through the new state (no word shared with the old value): a marked conflict with the nearest
older memory of the user, chosen by the semantic embedder's rank with a floor and a margin; nothing with an
additive cue, with no change cue, with two candidates close together, or with the lexical embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

import kioko
from kioko_intelligence.slot_nearest import _cue_cut, cued, dropped_change, with_its_value

pytest.importorskip("kioko_core.embedding.semantic")


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://?embedder=semantic"
    return f"sqlite:///{tmp_path / 'nearest.db'}?embedder=semantic"


def _said(url: str, *turns: str) -> kioko.Memory:
    memory = kioko.intelligent(url)
    for index, turn in enumerate(turns):
        memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index + 1}")
    return memory


def _in_force(memory: kioko.Memory) -> list[str]:
    return [
        r.content
        for r in memory.memories(user_id="u")
        if not r.metadata.get("superseded_by") and not r.metadata.get("conflicted_by")
    ]


CHANGES = [
    (
        "Aboard RV Celtic Explorer till end of month, sampling plankton off the Porcupine Bank.",
        "Reassigned. Joining RV Tangaroa in Wellington on Tuesday for the Chatham Rise survey.",
        "Am I aboard the Celtic Explorer?",
        "Tangaroa",
    ),
    (
        "I run 5k every morning before work, rain or shine.",
        "Since I went onto the night rota it's a swim straight after my shift, the pool opens at 7.",
        "Do I still run every morning?",
        "swim",
    ),
    (
        "We're getting the bathroom done by Hendersons.",
        "We went with a local plumber in the end, the big firm's quote was far too high.",
        "Who is doing the bathroom?",
        "plumber",
    ),
    (
        "I always take the train to the office.",
        "These days I cycle in, the new bike lane makes it easy.",
        "How do I get to the office?",
        "cycle",
    ),
    # a figure moved to a new value ("shrunk to", "crept up to", "dropped to") is a change cue too
    (
        "I've fourteen puzzles banked ahead for the paper, a comfortable cushion.",
        "Editor ran a double week over Christmas, so the buffer's shrunk to nine.",
        "How many crosswords do I have in reserve?",
        "nine",
    ),
    (
        "My golf handicap is 18.",
        "Great season, it's crept up to 21 with my bad back actually.",
        "What's my handicap?",
        "21",
    ),
]


@pytest.mark.parametrize(("old", "new", "question", "kept"), CHANGES)
def test_a_change_in_other_words_is_a_marked_conflict_with_the_nearest_memory(
    url: str, old: str, new: str, question: str, kept: str
) -> None:
    with _said(url, old, new) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1 and kept in in_force[0]
        newer = next(r for r in memory.memories(user_id="u") if kept in r.content)
        older = next(r for r in memory.memories(user_id="u") if r.id != newer.id)
        assert newer.metadata.get("conflicts_with") == [older.id]
        assert older.metadata.get("conflicted_by") == newer.id  # kept in the store, out of the context
        context = memory.recall(question, user_id="u").text
        assert kept in context and "(was: " in context


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # an additive cue: both stay current
        ("I run 5k every morning before work.", "I also swim after my shift now, the pool opens at 7."),
        ("I always take the train to the office.", "These days I cycle in as well, when it's dry."),
        # no change cue: a new statement, not a new value
        ("I run 5k every morning before work.", "The pool near the hospital opens at 7 and it's always empty."),
        # a cue, but about someone else's things
        ("I run 5k every morning before work.", "These days my sister's cat sleeps on the radiator."),
        # a figure of the world moved: no value of the user's
        ("I run 5k every morning before work.", "The temperature dropped to minus two last night, the car was frozen."),
        # a statement of the world with a subject of its own is no value of the user's
        ("The office printer is a Brother laser.", "These days I print everything at the library instead."),
        # a start, but of another named person than the older memory's
        (
            "Our eldest, Tomasz, goes to St Mary's primary.",
            "The little one, Zofia, started at Rainbow nursery this month.",
        ),
        # the old memory joins two statements: a conflict would take both out of the context
        ("I run 5k in the mornings and swim on Sundays.", "Since the night rota it's a bike ride after my shift."),
    ],
)
def test_what_the_rule_leaves_alone(url: str, old: str, new: str) -> None:
    with _said(url, old, new) as memory:
        assert len(_in_force(memory)) == 2
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


def test_two_memories_close_together_name_no_one_slot(url: str) -> None:
    """The best leads the second by less than the margin: nothing is chosen."""
    with _said(
        url,
        "I run 5k every morning before work.",
        "I jog around the park every evening after dinner.",
        "Since the night rota it's a swim straight after my shift.",
    ) as memory:
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("I eat everything, no restrictions.", "I've gone vegan since March.", "vegan"),
        (
            "We have decided: the summer cottage we rent on Skye this year.",
            "Now have we changed, it becomes Mull instead, the ferry was too expensive.",
            "Mull",
        ),
    ],
)
def test_a_change_the_router_kept_nothing_of_is_stored_in_conflict(url: str, old: str, new: str, kept: str) -> None:
    with _said(url, old, new) as memory:
        in_force = _in_force(memory)
        assert [c for c in in_force if "Summary of session" not in c] == [next(c for c in in_force if kept in c)]
        newer = next(r for r in memory.memories(user_id="u") if kept in r.content)
        assert newer.metadata.get("conflicts_with")


def test_a_reaction_with_a_cue_stores_nothing(url: str) -> None:
    with _said(url, "I'm a sound engineer at a studio in Nashville.", "Right, gotcha, now I get it.") as memory:
        assert not any("gotcha" in r.content for r in memory.memories(user_id="u"))
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


def test_of_several_statements_the_one_with_the_cue_is_widened_to_its_sentence(url: str) -> None:
    """ "I have shifted to those now" says nothing without "Brooks Ghost": the whole sentence is the new value."""
    with _said(
        url,
        "For running I wear Asics Nimbus, nothing else fits.",
        "My physio suggested Brooks Ghost, I have shifted to those now, much better for my knees.",
    ) as memory:
        in_force = [c for c in _in_force(memory) if "Summary of session" not in c]
        assert len(in_force) == 1 and "Brooks Ghost" in in_force[0] and "shifted" in in_force[0]
        context = memory.recall("Which running shoes do I wear?", user_id="u").text
        assert "Brooks Ghost" in context


STARTS = [
    (
        "I'm in year 9 at Oakfield School.",
        "First week at Riverside College done, loving it.",
        "Where do I go to school?",
        "Riverside",
    ),
    (
        "I drive an old Vauxhall Astra.",
        "Picked up a used Honda Jazz at the weekend, she runs like a dream.",
        "What car do I drive?",
        "Honda Jazz",
    ),
    (
        "I'm a barista at a café on Mill Road.",
        "Starting with Greenline Couriers next week as a dispatcher.",
        None,  # the job title it marks is a profile slot, which recall does not search: no question finds the newer
        "Greenline",
    ),
    (
        "I'm in year 9 at Oakfield School.",
        "I've just started at Riverside College.",
        "Where do I go to school?",
        "Riverside",
    ),
]


@pytest.mark.parametrize(("old", "new", "question", "kept"), STARTS)
def test_a_start_of_the_users_own_is_a_change_cue(
    url: str, old: str, new: str, question: str | None, kept: str
) -> None:
    """A new value taken up ("first week at", "started", "got a used", "starting with") ends the one it replaces."""
    with _said(url, old, new) as memory:
        in_force = [c for c in _in_force(memory) if "Summary of session" not in c]
        assert len(in_force) == 1 and kept in in_force[0]
        newer = next(r for r in memory.memories(user_id="u") if kept in r.content)
        assert newer.metadata.get("conflicts_with")
        if question is None:
            return
        context = memory.recall(question, user_id="u").text
        assert kept in context and "(was: " in context


@pytest.mark.parametrize(
    "new",
    [
        "The film started late, we missed the trailers.",  # a thing's start
        "Our new manager started on Monday.",  # someone else's
        "My son started at Riverside College.",
        "Work started late today because of the strike.",
        "I also started going to a pottery class.",  # additive
    ],
)
def test_a_start_that_is_not_the_users_marks_nothing(url: str, new: str) -> None:
    with _said(url, "I work at the bakery on Mill Road and go to the cinema on Fridays.", new) as memory:
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))
    with _said(url, "I'm in year 9 at Oakfield School.", new) as memory:
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


def test_the_lexical_embedder_chooses_nothing() -> None:
    """Its vectors relate only shared words: a change in other words is stored beside the old value."""
    with _said("memory://?embedder=offline", CHANGES[0][0], CHANGES[0][1]) as memory:
        assert len(_in_force(memory)) == 2


def test_the_cue_lexicon() -> None:
    assert cued("Audiobooks on the long hauls these days.")
    assert cued("Everything's in Nationals from this spring.")
    assert cued("We went with a lad from Athlone in the end.")
    assert not cued("I also listen to audiobooks these days.")  # additive
    assert not cued("I listen to audiobooks on the long hauls.")  # no change cue
    assert not cued("Do you listen to audiobooks these days?")  # a question
    assert cued("Starting with Lincs & Notts Air Ambulance on Monday!")
    assert cued("So the mechanic says it's shot, fine, I went and got a used Prius.")
    assert not cued("The new manager started on Monday.")
    assert not cued("My daughter joined the choir.")


COFFEE = "The wife's converted me. Oat flat white, every morning, don't tell the lads."


def test_a_change_said_without_its_value_takes_the_next_sentence() -> None:
    """ "The wife's converted me" says a change and no value: marked alone, it would hide the old value behind a note
    naming no new one; the next sentence of the turn holds the value."""
    assert with_its_value("The wife's converted me.", COFFEE) == COFFEE
    assert with_its_value("I've switched.", "I've switched. Firefox on every machine.") == (
        "I've switched. Firefox on every machine."
    )
    # a value of its own: the sentence as it is
    assert with_its_value("These days I cycle to work.", "These days I cycle to work. Lovely weather.") == (
        "These days I cycle to work."
    )
    # the next sentence is a question, or there is none
    assert with_its_value("I've switched.", "I've switched. Do you know a good browser?") == "I've switched."
    assert with_its_value("I've switched.", "I've switched.") == "I've switched."


COCOA = (
    "The doctor had a word. It's a mug of cocoa at ten bells for me these days, and I don't mind as much as I thought."
)


def test_a_change_in_a_clause_the_router_dropped_is_found() -> None:
    kept = ["The doctor had a word.", "User doesn't mind as much as they thought."]
    assert dropped_change(COCOA, kept) == "It's a mug of cocoa at ten bells for me these days"


@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        # the router kept the change's clause
        (COCOA, ["The doctor had a word.", "It's a mug of cocoa at ten bells for me these days."]),
        # someone else's change, an added thing, no cue
        ("The doctor had a word. My brother drinks cocoa these days, and he loves it.", ["The doctor had a word."]),
        ("The doctor had a word. It's also a mug of cocoa for me these days.", ["The doctor had a word."]),
        ("The doctor had a word. It's a mug of cocoa at ten bells for me.", ["The doctor had a word."]),
        # two dropped changes: which one is the change is a guess
        ("Now it's cocoa at ten bells for me. These days it's porridge at seven.", ["The doctor had a word."]),
    ],
)
def test_what_the_dropped_clause_rule_leaves_alone(turn: str, kept: list[str]) -> None:
    assert dropped_change(turn, kept) is None


@pytest.mark.parametrize(
    ("old", "new", "question", "kept"),
    [
        (
            "When you translate for me, use formal Spanish.",
            "My in-laws are Argentinian, so voseo whenever you translate please.",
            "Which Spanish should you translate into?",
            "voseo",
        ),
    ],
)
def test_a_standing_request_to_the_assistant_changes_the_nearest_instruction(
    url: str, old: str, new: str, question: str, kept: str
) -> None:
    """Said to the assistant with a word of a standing rule, kept by the router as an event or nothing: an
    instruction in a marked conflict with the nearest instruction in force."""
    with _said(url, old, new) as memory:
        newer = next(r for r in memory.memories(user_id="u") if kept in r.content)
        older = next(r for r in memory.memories(user_id="u") if r.content.startswith(old[:20]))
        assert newer.kind == "instruction" and newer.metadata.get("conflicts_with") == [older.id]
        context = memory.recall(question, user_id="u").text
        assert kept in context and "(was: " in context


@pytest.mark.parametrize(
    "new",
    [
        "Please give me the command to restart nginx, I only have a minute.",  # a task for now: no standing word
        "Could you please check anything odd in this config for me.",  # a request asked as a question
        "Can you always double-check my commands?",  # a question
        "I never liked Debian at school, you know.",  # not said to the assistant
        "Please also use sudo everywhere.",  # additive
    ],
)
def test_what_the_standing_request_rule_leaves_alone(url: str, new: str) -> None:
    with _said(url, "When you give me shell commands, assume Debian and apt.", new) as memory:
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


@pytest.mark.parametrize(
    ("old", "new", "question", "kept"),
    [
        (
            "From now on please reply in Portuguese, I'm practising for my trip to Lisbon.",
            "Switch back to English for your replies, I've paused the language practice for a while.",
            "Which language should you reply in?",
            "English",
        ),
        (
            "Give me every temperature in Fahrenheit from now on.",
            "Please go back to Celsius for temperatures, the Fahrenheit ones confuse my kids.",
            "Which unit should you give temperatures in?",
            "Celsius",
        ),
    ],
)
def test_a_request_to_go_back_to_an_earlier_way_is_a_standing_request(
    url: str, old: str, new: str, question: str, kept: str
) -> None:
    """ "Switch back to", "go back to" said to the assistant are words of a standing rule; the router's event of the
    turn that already marks the instruction in force becomes the instruction, the whole turn its text."""
    with _said(url, old, new) as memory:
        newer = next(r for r in memory.memories(user_id="u") if kept in r.content)
        older = next(r for r in memory.memories(user_id="u") if r.content.startswith(old[:20]))
        assert newer.kind == "instruction"
        assert older.id in (newer.metadata.get("conflicts_with") or []) + (newer.metadata.get("supersedes") or [])
        assert kept in memory.recall(question, user_id="u").text


def _marked_after(url: str, *turns: str) -> list[tuple[str, str]]:
    """(new, old) of every marked conflict after ``turns``, one session each."""
    memory = _said(url, *turns)
    try:
        held = {r.id: r for r in memory.memories(user_id="u")}
        return [
            (r.content, held[old].content)
            for r in held.values()
            for old in r.metadata.get("conflicts_with", [])
            if old in held
        ]
    finally:
        memory.close()


def test_a_compound_turn_setting_a_profile_slot_changes_its_other_clause_too(url: str) -> None:
    # the location is the profile's; the job in the other clause named nothing of the old job and both were shown
    marked = _marked_after(
        url,
        "I live in Sherbrooke and I work at the hospital as a lab tech.",
        "Me, I moved to Montréal this summer and now I teach chemistry at a cégep.",
    )
    assert marked == [("User teaches chemistry at a cégep.", "User works at the hospital as a lab tech.")]


@pytest.mark.parametrize(
    "new",
    [
        "Please go back to the previous example, I missed a step.",  # a step back in the talk
        "Could you switch back to that draft you wrote earlier, please.",  # a step back in the talk
        "I went back to the shop for more apt cables, you know.",  # no return to a way of answering
    ],
)
def test_what_the_go_back_words_leave_alone(url: str, new: str) -> None:
    with _said(url, "When you give me shell commands, assume Debian and apt.", new) as memory:
        assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))
        assert not any(r.metadata.get("superseded_by") for r in memory.memories(user_id="u"))


@pytest.mark.parametrize(
    "new",
    [
        "I moved to Montréal this summer and I teach chemistry at a cégep.",  # no change word in the other clause
        "I moved to Montréal this summer and I've also started teaching chemistry at a cégep.",  # additive
        "I moved to Montréal this summer and my sister now works at the hospital there.",  # someone else's
    ],
)
def test_a_compound_turn_with_a_profile_slot_leaves_its_other_clause_alone(url: str, new: str) -> None:
    assert _marked_after(url, "I live in Sherbrooke and I work at the hospital as a lab tech.", new) == []


def test_someone_else_named_elsewhere_in_a_long_turn_does_not_stop_the_change(url: str) -> None:
    # "my partner was livid" is about the engineer's visit; the change is the user's own
    with _said(
        url,
        "Our broadband is with Virgin Media.",
        "The engineer came, drilled a hole in the wrong wall, my partner was livid, but we're on Community Fibre now "
        "and it's twice as fast for less money. The dog barked at him the whole time.",
    ) as memory:
        assert not any("Virgin Media" in c for c in _in_force(memory))
        assert (
            "(was: Our broadband is with Virgin Media" in memory.recall("Who is our broadband with?", user_id="u").text
        )


def test_someone_elses_change_in_the_statement_that_says_it_marks_nothing(url: str) -> None:
    with _said(
        url,
        "I run 5k every morning before work, rain or shine.",
        "Long day, the car broke down at the lights, and my brother swims after his shift these days.",
    ) as memory:
        assert any("5k every morning" in c for c in _in_force(memory))


CUT_CUES = [
    (
        "Got the Golf up on the ramp, clutch job.",
        "Golf's back with the customer. Now the Transit, rear brakes seized solid.",
        "What vehicle am I working on?",
        "Transit",
    ),
    (
        "I jog round Victoria Park before work.",
        "My knee is playing up again. Now the rowing machine in the garage, twenty minutes a day.",
        "How do I exercise?",
        "rowing machine",
    ),
    (
        "Lunch is usually a sausage roll from Greggs.",
        "The doctor is worried about my cholesterol. Now the salad bar at work, every single day.",
        "What do I have for lunch?",
        "salad bar",
    ),
]


@pytest.mark.parametrize(("old", "new", "question", "kept"), CUT_CUES)
def test_a_cue_the_router_cut_from_the_kept_sentence_still_dates_it(
    url: str, old: str, new: str, question: str, kept: str
) -> None:
    """Before, "Now the Transit, ..." was kept without its "Now" beside another statement of the turn: no kept memory
    carried the cue, so nothing was marked and the Golf's clutch job was shown as current."""
    with _said(url, old, new) as memory:
        context = memory.recall(question, user_id="u").text
        assert kept in context
        assert "(was:" in context


@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        ("Golf's back with the customer. Now the Transit, rear brakes seized solid.", "Golf's back with the customer."),
        ("Golf's back. Also the Transit, rear brakes seized solid.", "The Transit, rear brakes seized solid."),
        ("Golf's back. The Transit, rear brakes seized solid.", "The Transit, rear brakes seized solid."),
        ("Golf's back. Now, finally, for a change, the Transit.", "The Transit."),
    ],
)
def test_what_the_cut_cue_reading_leaves_alone(turn: str, kept: str) -> None:
    """The cue must be in the kept text's own sentence, all that the router left out of it, and not additive."""
    assert not _cue_cut(kept, turn)


def test_the_cut_cue_reading() -> None:
    assert _cue_cut("The Transit, rear brakes seized solid.", "Golf's back. Now the Transit, rear brakes seized solid.")
    assert _cue_cut("The bees sit at Ashby.", "Council took it. These days the bees sit at Ashby.")


@pytest.mark.parametrize("order", ["Now make it funnier.", "OK now make it rhyme."])
def test_a_follow_up_order_opened_by_now_is_no_change_of_the_nearest_memory(url: str, order: str) -> None:
    """The rule took the "now" of a follow-up order for a change of the dog's name and stored the order as an
    episode marked against it; that "now" is a word of sequence."""
    memory = _said(url, "Our dog is a rescue greyhound called Pip.")
    memory.record_turn(
        "Write me a limerick about a greyhound.", "There once was a hound ...", user_id="u", session_id="s1"
    )
    report = memory.record_turn(order, "Here you go.", user_id="u", session_id="s1")
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []
    assert _in_force(memory) == ["Our dog is a rescue greyhound called Pip."]


def test_a_change_said_as_an_order_after_now_is_still_marked(url: str) -> None:
    memory = _said(url, "My usual order is a flat white with semi-skimmed milk.")
    report = memory.record_turn("Now make it oat milk instead.", "Sure.", user_id="u", session_id="s1")
    assert [op for op in report.ops if op.status == "applied" and "oat" in op.description]
