"""Issue 27: what the links may bring, the dates a question about when needs, and links across sessions.

Real layers on memory:// (the rules are the core's, the same on every store); each test fails on the code
before issue 27 (the association rule, the dates and ``cross_new`` did not exist).
"""

from __future__ import annotations

from datetime import UTC, datetime

import kioko
from kioko_core.linking import links
from kioko_core.reading.query_and_draft import ASKS_WHEN, TELLS_TIME
from kioko_core.recall.hybrid import WHEN_QUESTION, dated

U = "asha"
MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()


def _turn(memory: kioko.MemoryLayer, text: str, session: str, at: float) -> kioko.Record:
    return memory.add(text, user_id=U, memory_type="episodic", session_id=session, created_at=at)


def test_an_association_sharing_no_word_with_the_question_is_not_brought() -> None:
    """A memory of another session, linked related_to the matching turn through words the question does not
    use, stays out; the reply to the matching turn (its turn-before link) still comes, though it shares no
    word with the question either."""
    memory = kioko.connect("memory://", auto_link=True)
    asked = _turn(memory, "Ben: Did you enjoy the chess tournament on Saturday?", "s1", MAY_8)
    reply = _turn(memory, "Asha: Loved every minute, thanks for asking!", "s1", MAY_8 + 60)
    other = _turn(memory, "Asha: Enjoy your Saturday at the farmers market, Ben!", "s2", MAY_8 + 3 * 86400)
    link = links.entry_for(memory.get(other.id, user_id=U), asked.id)
    assert link is not None
    assert link["type"] == "related_to"
    assert link["by"] == "auto"

    question = "How was the chess tournament?"
    ids = [m.record.id for m in memory.recall(question, user_id=U, links=3).memories]
    assert ids == [asked.id, reply.id]
    off = memory.recall(question, user_id=U, links=3, config={"linked_share_words": False})
    assert other.id in [m.record.id for m in off.memories], "without the rule the association is brought"


def test_a_typed_or_manual_link_is_followed_without_shared_words() -> None:
    memory = kioko.connect("memory://", auto_link=True)
    failure = memory.episodes.add("The nightly job died with OOM-137 last night.", user_id=U)
    lesson = memory.lessons.add("Check the executor memory before rerunning a crashed batch.", user_id=U)
    memory.graph.link(lesson.id, failure.id, "learned_from", user_id=U)
    ctx = memory.recall("why did the nightly job die with OOM-137?", user_id=U, links=3)
    assert lesson.id in [m.record.id for m in ctx.memories]


def test_a_question_about_when_dates_the_events_of_earlier_days() -> None:
    memory = kioko.connect("memory://", auto_link=True)
    _turn(memory, "Ben: I went to a climbing gym in the old brewery yesterday.", "s1", MAY_8)
    today = memory.add("Ben: I signed up for the climbing gym newsletter.", user_id=U, memory_type="episodic")
    fact = memory.add("Ben works as a radiographer.", user_id=U, memory_type="factual", created_at=MAY_8)

    when = memory.recall("When did Ben go to the climbing gym?", user_id=U).text
    assert "- Ben: I went to a climbing gym in the old brewery yesterday. (8 May 2023)" in when
    what = memory.recall("What did Ben go to?", user_id=U).text
    assert "climbing gym in the old brewery yesterday." in what
    assert "(8 May 2023)" not in what
    # an event of today and a fact are shown as they are, even for a question about when
    assert dated(today, datetime.now(UTC).date()) == today.content
    assert dated(fact, datetime.now(UTC).date()) == fact.content


def test_when_questions_are_told_from_others() -> None:
    for asked in ("When did she move?", "What year was it?", "How long has he been painting?", "which day?"):
        assert WHEN_QUESTION.search(asked), asked
    for other in ("What did she research?", "Where has Ben climbed?", "Who is Asha?", "May I ask?"):
        assert not WHEN_QUESTION.search(other), other


def test_cross_new_links_a_weaker_pair_across_sessions() -> None:
    """Evidence that passes the gate with a score under the threshold (0.30 here) links across sessions only
    with ``cross_new``; within the session nothing changes."""
    fill = [
        "Ben: The weather was lovely at the lake today.",
        "Asha: My nephews loved the train exhibit at the museum.",
        "Ben: I am reading a book about lighthouses.",
        "Asha: We went sailing on the fjord last weekend.",
        "Ben: My uncle gave me a compass from Norway.",
    ]
    found = {}
    for cross_new in (0, 2):
        memory = kioko.connect("memory://", auto_link=True, linker={"cross_new": cross_new})
        first = _turn(memory, "Asha: I signed up for a woodturning class yesterday, it is like therapy.", "s1", MAY_8)
        for number, text in enumerate(fill):
            _turn(memory, text, f"s{number + 2}", MAY_8 + 86400 * (number + 1))
        later = _turn(
            memory,
            "Asha: My new woodturning bowl came off the lathe today, the oil turned it golden.",
            "s9",
            MAY_8 + 86400 * 30,
        )
        score = memory.linker.explain(first, later)
        assert score.signals["evidence"]
        assert 0.25 <= score.score < 0.35
        found[cross_new] = links.entry_for(memory.get(later.id, user_id=U), first.id)
    assert found[0] is None
    assert found[2] is not None
    assert found[2]["type"] == "related_to"
    assert found[2]["w"] < 0.35


def test_a_question_asking_when_ranks_the_memory_that_tells_the_time_first() -> None:
    """Two turns match the question; the one saying when ("last week") shares fewer of its words. Asked when,
    it comes first; asked anything else, or with ``when_weight`` 0, the better word match stays first."""
    memory = kioko.connect("memory://", auto_link=False)
    talk = _turn(memory, "Mel: The pottery class made bowls, the class teacher loves pottery.", "s2", MAY_8)
    told = _turn(memory, "Mel: I joined a pottery course last week!", "s1", MAY_8 - 20 * 86400)

    def order(question: str, **config: float) -> list[str]:
        ids = [m.record.id for m in memory.recall(question, user_id=U, links=0, config=config or None).memories]
        return [i for i in ids if i in (talk.id, told.id)]

    assert order("When did Mel join the pottery class?") == [told.id, talk.id]
    assert order("When did Mel join the pottery class?", when_weight=0.0) == [talk.id, told.id]
    assert order("Did Mel join the pottery class?") == [talk.id, told.id]
    assert order("What did Mel join at the pottery class in May 2023?") == [talk.id, told.id], "names a time only"


def test_what_asks_for_a_time_and_what_tells_one() -> None:
    for asked in ("When did she move?", "What year was it?", "How long has he been painting?", "how many weeks?"):
        assert ASKS_WHEN.search(asked), asked
    for other in ("What did she do in May 2023?", "Where did he go last week?", "Who came?"):
        assert not ASKS_WHEN.search(other), other
    for told in ("I went yesterday", "two weeks ago", "last Sunday we met", "in July", "back in 2019", "recently"):
        assert TELLS_TIME.search(told), told
    for other in ("May I come?", "I may go", "the weekday menu", "a sunday roast recipe"):
        assert not TELLS_TIME.search(other), other
