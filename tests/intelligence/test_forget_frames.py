"""Requests to forget read by their frame, and things asked for in other words matched by meaning (#33, dev26).

- the thing as what the user said of it ("remove what I said about my godson"), "them and everything about them",
  "any of that, or anything else about her" (her: the person an earlier turn named by a role), "everything I told you
  last time we talked" (the conversation before this one);
- a thing named in other words than its memory's ("my number plates" for "User's van's reg is KX19 BRV"): among the
  memories holding part of its words, the ones the semantic embedder finds nearest; "my old address": the newest
  value stays; "Could you take my work extension out?": the rest of the memory stays; "that medical thing I told you
  about": the health memories.

Before, each of these was stored as a statement or matched nothing, and the memories stayed. Real layers on
memory:// and SQLite files (the semantic embedder), driven through the agent loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import kioko

U = {"user_id": "wren"}


@pytest.fixture(params=["memory", "sqlite"])
def semantic(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[kioko.MemoryLayer]:
    """An intelligent layer with the semantic embedder (the suite's default is the lexical one)."""
    pytest.importorskip("kioko_core.embedding.semantic")
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'frames.db'}"
    with kioko.intelligent(f"{url}?embedder=semantic") as layer:
        yield layer


def _after(memory, sessions: list[list[str]], request: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The memories' texts after ``request``, said in its own session after the ``sessions``."""
    for number, said in enumerate(sessions, start=1):
        for text in said:
            memory.record_turn(text, "Okay.", session_id=f"s{number}", **U)
        memory.end_session(f"s{number}", **U)
    memory.record_turn(request, "Done.", session_id="last", **U)
    memory.end_session("last", **U)
    return [r.content for r in memory.memories(**U)]


def _holds(contents: list[str], word: str) -> bool:
    return any(word.lower() in c.lower() for c in contents)


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My godson Matthias starts at Aberdeen uni in September.", "I'm a cathedral organist in Ely."],
            "I should be obliged if you would remove what I said about my godson.",
            "Matthias",
            "organist",
        ),
        (
            ["My landlord Mr Osei is putting the rent up in March.", "I work nights at the sorting office."],
            "Could you delete what I told you about my landlord?",
            "Osei",
            "sorting office",
        ),
        (
            ["My cousin Fenella is getting divorced.", "I teach piano in Harrogate."],
            "Please scrub everything I mentioned about my cousin, she'd hate it being written down.",
            "Fenella",
            "piano",
        ),
        (
            ["I play for the Harriers on Sundays, left back.", "The Harriers coach is Rob Dunmore.", "I'm a plumber."],
            "I've quit the Harriers, so forget them and everything about them.",
            "Harriers",
            "plumber",
        ),
        (
            ["I sing with the Ely Singers every Tuesday.", "The Ely Singers director is called Moira.", "I'm a nurse."],
            "Ely Singers is finished for me, delete them and anything to do with them.",
            "Moira",
            "nurse",
        ),
    ],
)
def test_a_subject_framed_as_what_was_said_or_with_everything_about_it(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, [said], asked)
    assert not _holds(contents, gone), contents
    assert _holds(contents, kept), contents


def test_what_someone_else_removed_is_no_request(memory) -> None:  # type: ignore[no-untyped-def]
    contents = _after(
        memory,
        [["My cousin Fenella is getting divorced.", "I teach piano in Harrogate."]],
        "My cousin removed what I said about her from the group chat.",
    )
    assert _holds(contents, "Fenella"), contents


@pytest.mark.parametrize(
    ("first", "then", "asked", "gone", "kept"),
    [
        (
            ["My neighbour Mrs Adeyemi feeds my cat when I'm away.", "I'm a flight dispatcher at East Midlands."],
            ["You know the neighbour I mentioned?", "She's moving to Leicester next month."],
            "Actually don't keep any of that, or anything else about her. She's a very private lady.",
            ["Adeyemi", "Leicester"],
            "East Midlands",
        ),
        (
            ["My friend Alys lent me her car last week.", "I'm a teacher in Bangor."],
            ["You remember my friend I mentioned?", "She's moving to Cardiff with her girlfriend."],
            "Please don't keep any of that, or anything else about her.",
            ["Alys", "Cardiff"],
            "Bangor",
        ),
    ],
)
def test_any_of_that_and_anything_else_about_a_person_named_earlier_by_role(  # type: ignore[no-untyped-def]
    memory, first, then, asked, gone, kept
) -> None:
    for text in first:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    memory.end_session("s1", **U)
    contents = _said_in_last_session(memory, then, asked)
    assert not any(_holds(contents, word) for word in gone), contents
    assert _holds(contents, kept), contents


def _said_in_last_session(memory, said: list[str], request: str) -> list[str]:  # type: ignore[no-untyped-def]
    for text in [*said, request]:
        memory.record_turn(text, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)
    return [r.content for r in memory.memories(**U)]


LAST_TALK_SESSIONS = [
    ["I'm a dental hygienist in Stockport.", "I swim at Grand Central pool before work."],
    [
        "My boss Martin had a go at me in front of a patient today.",
        "I'm thinking of reporting him to the practice owner.",
    ],
]


@pytest.mark.parametrize(
    "asked",
    [
        "Everything I told you last time we talked, can you forget it? I was in a state.",
        "Please forget what I said in our last chat.",
        "Can you wipe everything from last time? I was in a state.",
        "Our last conversation, delete all of it please.",
        "I'd rather you didn't keep anything I told you last time.",
    ],
)
def test_the_last_conversation_goes_and_the_ones_before_stay(memory, asked: str) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, LAST_TALK_SESSIONS, asked)
    assert not _holds(contents, "Martin"), contents
    assert not _holds(contents, "reporting"), contents
    assert _holds(contents, "Grand Central"), contents
    assert _holds(contents, "hygienist"), contents


def test_the_last_conversation_mentioned_is_no_request(memory) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, LAST_TALK_SESSIONS, "Last time we talked I was in a right state.")
    assert _holds(contents, "Martin"), contents


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My van's reg is KX19 BRV, for the parking permit form.", "I'm an electrician, mostly rewires in Hove."],
            "Please forget my number plates.",
            "KX19",
            "rewires",
        ),
        (
            ["My car's reg is YR68 PLT, for the residents' parking.", "I'm a postman in Leeds."],
            "Can you forget my number plate?",
            "YR68",
            "postman",
        ),
        (
            ["We're leaning towards Marigold if it's a girl.", "My partner works as a locum GP."],
            "Pretend I never mentioned a baby name. We've gone off it.",
            "Marigold",
            "locum",
        ),
        (
            ["My son studies at St Paul's Co-ed, he's in P4 now.", "I work in the Kowloon Bay office on Tuesdays."],
            "Don't keep my son's school name lah, for privacy.",
            "St Paul",
            "Kowloon",
        ),
        (
            ["My daughter goes to Greenbank Academy, she's in Year 8.", "I work at the Asda in Kirkstall."],
            "Please don't keep my daughter's school name.",
            "Greenbank",
            "Kirkstall",
        ),
    ],
)
def test_a_thing_named_in_other_words_is_matched_by_meaning(semantic, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(semantic, [said], asked)
    assert not _holds(contents, gone), contents
    assert _holds(contents, kept), contents


def test_no_meaning_is_read_with_the_lexical_embedder(memory) -> None:  # type: ignore[no-untyped-def]
    """The lexical embedder relates no texts that share no word: nothing is matched by meaning."""
    said = ["My van's reg is KX19 BRV, for the parking permit form.", "I'm an electrician, mostly rewires in Hove."]
    contents = _after(memory, [said], "Please forget my number plates.")
    assert _holds(contents, "KX19"), contents


def test_a_meaning_match_leaves_what_is_nearer_nothing(semantic) -> None:  # type: ignore[no-untyped-def]
    """Of the memories holding part of the words, only the nearest in meaning go: "Juniper" is the baby name,
    the partner's job (a capitalised "GP" holds "name" as any name does) stays."""
    said = ["We like Juniper if it's a girl.", "My partner works as a GP in Otley."]
    contents = _after(semantic, [said], "Pretend I never mentioned a baby name.")
    assert not _holds(contents, "Juniper"), contents
    assert _holds(contents, "GP"), contents


@pytest.mark.parametrize(
    ("first", "then", "asked", "gone", "kept"),
    [
        (
            ["I live at 14 Ropewalk Lane in Whitby.", "I skipper a crabbing boat."],
            ["We've moved out to Staithes, 3 Cliff Terrace."],
            "You can forget my old address now, no use to anyone.",
            "Ropewalk",
            "Cliff Terrace",
        ),
        (
            ["I live at 22 Mill Lane in Otley.", "I'm a vet in Leeds."],
            ["We've moved to 9 Beck Street in Ilkley."],
            "You can forget my previous address.",
            "Mill Lane",
            "Beck Street",
        ),
        (
            ["My phone number is 07700 900123.", "I'm a vet in Leeds."],
            ["New number's 07700 900999, the old one's dead."],
            "Delete my old number please.",
            "900123",
            "900999",
        ),
    ],
)
def test_an_old_value_goes_and_the_newest_stays(memory, first, then, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, [first, [*then]], asked)
    assert not _holds(contents, gone), contents
    assert _holds(contents, kept), contents


def test_a_work_extension_taken_out_keeps_the_workplace(semantic) -> None:  # type: ignore[no-untyped-def]
    said = [
        "I'm a speech and language therapist on the children's unit at St Mungo's, extension 4417 if the school rings."
    ]
    contents = _after(semantic, [said], "Could you take my work extension out? You can keep that I'm at St Mungo's.")
    assert not _holds(contents, "4417"), contents
    assert _holds(contents, "St Mungo's"), contents


def test_taking_something_out_that_no_memory_holds_is_no_forget(memory) -> None:  # type: ignore[no-untyped-def]
    contents = _after(
        memory, [["My dog Biscuit loves the beach.", "I'm a joiner in Whitby."]], "Can you take my bins out?"
    )
    assert _holds(contents, "Biscuit"), contents
    assert _holds(contents, "joiner"), contents


@pytest.mark.parametrize(
    "asked",
    [
        "That medical thing I told you about, I'd rather you didn't hang on to it.",
        "That health stuff I told you about, please don't hang on to it.",
    ],
)
def test_a_medical_thing_told_about_takes_the_health_memories(memory, asked: str) -> None:  # type: ignore[no-untyped-def]
    said = ["The nurse said I'm prediabetic, my HbA1c came back at 44.", "I teach Year 6 at a primary in Wigan."]
    contents = _after(memory, [said], asked)
    assert not _holds(contents, "prediabetic"), contents
    assert not _holds(contents, "HbA1c"), contents
    assert _holds(contents, "Year 6"), contents


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My parking spot in the garage on Boylston is number 38.", "I've got Sox season tickets, bleachers."],
            "Wicked annoying, they shuffled everybody. Just scrap the parking spot, I'll tell ya the new one later.",
            "38",
            "bleachers",
        ),
        (
            ["My locker at the leisure centre is 214.", "I swim on Mondays."],
            "Bin the locker, they've given everyone new ones.",
            "214",
            "Mondays",
        ),
        (
            ["My desk on the third floor is 4B.", "I'm an actuary at Aviva."],
            "Ditch the desk, we're all hot-desking now.",
            "4B",
            "actuary",
        ),
        (
            ["Our family code word for school pickups is pineapple.", "The twins go to Holy Cross primary."],
            "Scrub the code word. If it's written down anywhere it's no good to us.",
            "pineapple",
            "Holy Cross",
        ),
        (
            ["Our safe word with the kids is marmalade.", "I work at the Co-op."],
            "Bin the safe word, we've changed it.",
            "marmalade",
            "Co-op",
        ),
        (
            ["We used to have a little holiday house in Tavira.", "Our neighbours in Tavira were the Costa family."],
            "Let's drop Tavira altogether: the house, the neighbours, all of it.",
            "Tavira",
            "",
        ),
    ],
)
def test_a_binning_verb_on_a_numbered_thing_a_code_word_or_a_name(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, [said], asked)
    assert not _holds(contents, gone), contents
    assert not kept or _holds(contents, kept), contents


@pytest.mark.parametrize(
    ("said", "asked", "kept"),
    [
        (["The old sofa is knackered.", "I'm an actuary at Aviva."], "Ditch the old sofa.", "sofa"),
        (
            ["The Friday meeting is with the suppliers.", "I'm an actuary at Aviva."],
            "Scrap the Friday meeting.",
            "suppliers",
        ),
        (["My mate Tom lives in Leeds.", "I'm an actuary at Aviva."], "Let's drop Tom at the station first.", "Tom"),
        (
            ["We had a holiday house in Tavira.", "I'm an actuary at Aviva."],
            "Let's drop it, I don't want to argue.",
            "Tavira",
        ),
    ],
)
def test_a_binning_verb_on_a_thing_no_memory_numbers_forgets_nothing(memory, said, asked, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, [said], asked)
    assert _holds(contents, kept), contents


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My sister Priya is going through IVF.", "I work as a surveyor in Derby."],
            "Priya wouldn't want that written down, so get rid of it.",
            "IVF",
            "surveyor",
        ),
        (
            ["I'm seeing a therapist called Dr Hahn for my anxiety.", "I work as a surveyor in Derby."],
            "I'd like the therapy stuff gone from your memory.",
            "Hahn",
            "surveyor",
        ),
        (
            ["My salary is 48k.", "I work as a surveyor in Derby."],
            "I'd love my salary info wiped from your notes.",
            "48k",
            "surveyor",
        ),
        (
            ["My ex, Callum, still has my bike.", "I work as a surveyor in Derby."],
            "Anything about my ex can go in the bin.",
            "Callum",
            "surveyor",
        ),
        (
            ["I prefer aisle seats on planes.", "I like my coffee black.", "I work as a surveyor in Derby."],
            "Kindly be erasing my preferences, all of them.",
            "aisle",
            "surveyor",
        ),
        (
            ["Kemi from accounts is getting married in May.", "Kemi asked me to be a bridesmaid."],
            "Kemi and me fell out. Don't want her in your memory no more.",
            "Kemi",
            "",
        ),
        (
            ["Kemi from accounts is getting married in May.", "Kemi asked me to be a bridesmaid."],
            "I would be most grateful if all reference to Kemi could be removed.",
            "Kemi",
            "",
        ),
        (
            ["I'm seeing Dr Hahn for my anxiety.", "I work as a surveyor in Derby."],
            "Could any references to Dr Hahn be deleted?",
            "Hahn",
            "surveyor",
        ),
        (
            ["My locker code at the gym is 5521.", "I work as a surveyor in Derby."],
            "lol forget the locker code they changed it",
            "5521",
            "surveyor",
        ),
        (
            ["My NHS number is 485 777 3456.", "I work as a surveyor in Derby."],
            "Delete from your notes: my NHS number.",
            "3456",
            "surveyor",
        ),
        (
            ["I'm on sertraline, 50mg.", "I work as a surveyor in Derby."],
            "The sertraline, don't keep hold of that.",
            "sertraline",
            "surveyor",
        ),
        (
            ["My manager Gráinne is going on maternity leave.", "I work as a surveyor in Derby."],
            "Can you make it so you never heard about Gráinne?",
            "Gráinne",
            "surveyor",
        ),
        (
            ["My manager Gráinne is going on maternity leave.", "I work as a surveyor in Derby."],
            "I regret telling you about my manager. Please erase.",
            "Gráinne",
            "surveyor",
        ),
        (
            ["My son Leo has been excluded from school.", "I work as a surveyor in Derby."],
            "I don't feel comfortable with you knowing about Leo's exclusion.",
            "excluded",
            "surveyor",
        ),
        (
            ["My son Leo has been excluded from school.", "I work as a surveyor in Derby."],
            "That thing about Leo - can it not be saved?",
            "excluded",
            "surveyor",
        ),
        (
            ["My son Leo has been excluded from school.", "I work as a surveyor in Derby."],
            "Bit of a weird ask but can you un-know the Leo stuff",
            "excluded",
            "surveyor",
        ),
        (
            ["My son Leo has been excluded from school.", "I work as a surveyor in Derby."],
            "Would it be possible to delete the school exclusion thing?",
            "excluded",
            "surveyor",
        ),
        (
            ["My passport number is 533912877.", "I work as a surveyor in Derby."],
            "Discard my passport number.",
            "533912877",
            "surveyor",
        ),
        (
            ["My passport number is 533912877.", "I work as a surveyor in Derby."],
            "I'd appreciate it if my passport number wasn't kept.",
            "533912877",
            "surveyor",
        ),
        (
            ["My brother Callum got arrested last weekend.", "I'm a baker in Hull."],
            "I'd rather not have Callum's business stored anywhere.",
            "arrested",
            "baker",
        ),
        (
            ["I love sushi.", "I hate coriander.", "I'm a baker in Hull."],
            "Reset my food preferences.",
            "sushi",
            "baker",
        ),
        (
            ["I'm saving for a deposit, got 12k so far.", "I'm a baker in Hull."],
            "My finances are private, please remove all of that.",
            "12k",
            "baker",
        ),
        (
            ["My alarm code is 1987.", "I'm a baker in Hull."],
            "Make sure that alarm code doesn't stay in your memory.",
            "1987",
            "baker",
        ),
        (
            ["My locker code at the gym is 5521.", "I'm a baker in Hull."],
            "The gym changed the lockers so no point you keeping the locker code.",
            "5521",
            "baker",
        ),
        (
            ["My girlfriend Zara is moving in next month.", "I'm a baker in Hull."],
            "Zara's out of the picture. Nothing about her should stay.",
            "Zara",
            "baker",
        ),
        (
            ["My nan Doreen has dementia, she's in a home in Rotherham.", "I'm a baker."],
            "Can you keep my nan out of your memory?",
            "Doreen",
            "baker",
        ),
        (
            ["My car reg is AB12 CDE.", "I'm a baker."],
            "I've sold the car, the reg can go.",
            "AB12",
            "baker",
        ),
    ],
)
def test_requests_in_other_voices(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    """A wish that it be gone, "X can go in the bin", a progressive ("be erasing"), "her" not wanted, "all
    reference to X could be removed", "lol" and a new clause after the thing, "from memory:" before it, "keep hold
    of"; "make it so you never heard about X", a bare act after a regret at telling, unease at the assistant knowing,
    "can it not be saved?", "un-know", "would it be possible to", "discard", "if X wasn't kept"."""
    contents = _after(memory, [said], asked)
    assert not _holds(contents, gone), contents
    assert not kept or _holds(contents, kept), contents


@pytest.mark.parametrize(
    ("said", "asked", "kept"),
    [
        (["The old shed is falling apart.", "I'm a surveyor."], "I want the old shed gone by spring.", "shed"),
        (
            ["The wedding is in June in Bath.", "I'm a surveyor."],
            "Everything about the wedding can go ahead as planned.",
            "Bath",
        ),
        (["The Friday meeting is at the depot.", "I'm a surveyor."], "Could the meeting be moved to Friday?", "depot"),
        (["My son Leo is doing his GCSEs.", "I'm a surveyor."], "I regret telling Leo he could skip revision.", "GCSE"),
        (["The batteries are in the drawer.", "I'm a surveyor."], "Discard the batteries when they're flat.", "drawer"),
        (
            ["My son Leo is doing his GCSEs.", "I'm a surveyor."],
            "I'm not comfortable with Leo knowing my salary.",
            "GCSE",
        ),
        (["My router is a BT Hub 6.", "I'm a surveyor."], "Reset my router, how do I do that?", "router"),
        (["The kids love the beach at Filey.", "I'm a surveyor."], "The kids can go.", "Filey"),
        (["Our dog Bramble steals bread.", "I'm a surveyor."], "Keep the dog out of the kitchen.", "Bramble"),
        (
            ["The old sofa is knackered.", "I'm a surveyor."],
            "No point in keeping the old sofa, it's knackered.",
            "sofa",
        ),
        (
            ["The back door doesn't lock properly.", "I'm a surveyor."],
            "Make sure the cat doesn't stay in the garage.",
            "door",
        ),
    ],
)
def test_wishes_and_plans_that_are_no_forget(memory, said, asked, kept) -> None:  # type: ignore[no-untyped-def]
    contents = _after(memory, [said], asked)
    assert _holds(contents, kept), contents


def test_a_pronoun_in_the_next_session_goes_with_a_person_the_profile_came_between(memory) -> None:  # type: ignore[no-untyped-def]
    """A profile slot ("User's job title is baker") between the person's memory and "He's out on bail now" is the
    user's, not another name: the chain of "he" stays open (it ended at "User's")."""
    contents = _after(
        memory,
        [["My brother Callum got arrested last weekend.", "I'm a baker."], ["He's out on bail now."]],
        "Actually can you forget about my brother altogether.",
    )
    assert not _holds(contents, "Callum"), contents
    assert not _holds(contents, "bail"), contents
    assert _holds(contents, "baker"), contents


def test_a_pronoun_after_another_name_stays(memory) -> None:  # type: ignore[no-untyped-def]
    contents = _after(
        memory,
        [["My brother Callum got arrested last weekend.", "My mate Jonno is a plumber."], ["He's out on bail now."]],
        "Actually can you forget about my brother altogether.",
    )
    assert not _holds(contents, "Callum"), contents
    assert _holds(contents, "bail"), contents
