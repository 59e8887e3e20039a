"""The context budget: a recall's text stays within its token budget on every surface, a memory too long for it
is cut with a visible marker (never dropped whole for its length alone), and a tight budget gives way in the
documented priority order (instructions and safety-relevant facts last)."""

from __future__ import annotations

import pytest
from remote_support import fresh_url, serving

import kioko
from kioko_core.recall import budget
from kioko_core.store import InvalidRecordError

U = {"user_id": "maya"}
LONG = "The conveyor manual for line 3 says: " + " ".join(
    f"section {i} checks the belt tension and the drive temperature." for i in range(1700)
)


@pytest.fixture(params=["library", "remote"])
def open_memory(request, tmp_path):
    """Opens a layer over memory:// (``remote``: served on loopback and reached through RemoteMemory)."""
    if request.param == "library":
        opened: list = []

        def build(**options):
            opened.append(kioko.connect("memory://", **options))
            return opened[-1]

        yield build
        for item in opened:
            item.close()
        return
    with serving() as serve:
        yield lambda **options: serve(kioko.connect(fresh_url("memory", tmp_path), **options))


def test_a_100_kb_memory_gives_a_bounded_context_with_the_marker(open_memory) -> None:
    """One memory of more than 100 KB: the default context stays within the default budget, shows the memory's
    start and ends it with the cut marker; the memory itself is in ``ctx.memories`` whole."""
    assert len(LONG) > 100_000
    memory = open_memory()
    stored = memory.add(LONG, **U)
    memory.add("Station 12 uses a Siemens drive.", **U)
    ctx = memory.recall("What does the conveyor manual say about belt tension?", **U)
    assert ctx.budget == budget.DEFAULT_BUDGET
    assert budget.count_tokens(ctx.text) <= budget.DEFAULT_BUDGET
    assert ctx.tokens == budget.count_tokens(ctx.text)
    assert "The conveyor manual for line 3 says: section 0 checks" in ctx.text
    assert "more characters]" in ctx.text
    assert ctx.cut == [stored.id]
    assert [m.content for m in ctx.memories if m.id == stored.id] == [LONG]


def test_an_explicit_budget_bounds_every_context_and_keeps_instructions_first(open_memory) -> None:
    """``budget=N`` on each call; the instructions survive the tightest budgets, the relevant memories give way
    (each one either shown, cut with the marker, or named in ``ctx.dropped`` and absent from ``ctx.memories``)."""
    memory = open_memory(intelligence=True)
    memory.instructions.add("Always answer in German.", **U)
    ids = [
        memory.add(f"Line 3 fault number {i}: the drive on line 3 stopped with error E-{200 + i}.", **U).id
        for i in range(8)
    ]
    question = "What happened with the drive on line 3?"
    full = memory.recall(question, **U)
    assert full.dropped == []
    assert "Always answer in German." in full.text
    for tokens in (30, 45, 60, 90, 140, 400):
        ctx = memory.recall(question, budget=tokens, **U)
        assert ctx.budget == tokens
        assert budget.count_tokens(ctx.text) <= tokens
        assert "Always answer in German." in ctx.text
        shown = {m.id for m in ctx.memories}
        for memory_id in ids:
            assert (memory_id in shown) != (memory_id in ctx.dropped)
        assert len(ctx.dropped) < len(ids) or tokens < 60
    assert memory.context(question, budget=30, **U).tokens <= 30


def test_a_tight_budget_drops_lower_sections_before_higher_ones() -> None:
    """Open goals rank below the retrieved memories: a budget with room for one of them keeps the memory."""
    with kioko.connect("memory://") as memory:
        goal = memory.goals.add("Stabilise line 3 by November 30 and keep the drives under 60 degrees", **U)
        fact = memory.add("The drive on station 12 was replaced in March.", **U)
        roomy = memory.recall("When was the drive on station 12 replaced?", **U)
        assert {fact.id, goal.id} <= {m.id for m in roomy.memories}
        tight = memory.recall(
            "When was the drive on station 12 replaced?", budget=budget.count_tokens(roomy.text) - 10, **U
        )
        assert fact.id in {m.id for m in tight.memories}
        assert goal.id in tight.dropped
        assert goal.id not in {m.id for m in tight.memories}


def test_fit_never_exceeds_the_budget() -> None:
    """Every budget from 1 to 400 tokens over blocks of short and very long lines: the text counts at most the
    budget, and a line is either kept whole, cut with the marker, or named as dropped."""
    blocks = [
        budget.Block(
            "memories", "Relevant memories:", [budget.Line("x" * n, f"m{n}") for n in (5, 90, 2000, 17, 40_000)]
        ),
        budget.Block("instructions", "Instructions:", [budget.Line("Answer briefly.", "i1")]),
        budget.Block("links", "How these memories connect:", [budget.Line("m5 relates to m90", needs=("m5", "m90"))]),
    ]
    for tokens in range(1, 401):
        fitted = budget.fit(blocks, tokens)
        assert budget.count_tokens(fitted.text) <= tokens, tokens
        for n in (5, 90, 2000, 17, 40_000):
            whole = f"- {'x' * n}\n" in fitted.text + "\n"
            cut = f"m{n}" in fitted.cut
            assert whole + cut + (f"m{n}" in fitted.dropped) == 1, (tokens, n)
        if "m5 relates to m90" in fitted.text:
            assert "m5" not in fitted.dropped
            assert "m90" not in fitted.dropped


def test_tokens_are_counted_as_documented_and_bad_budgets_refused() -> None:
    assert budget.count_tokens("") == 0
    assert budget.count_tokens("abcd") == 1
    assert budget.count_tokens("abcde") == 2
    with kioko.connect("memory://") as memory:
        memory.add(LONG, **U)
        for bad in (0, -5, True, "100", 2.5):
            with pytest.raises(InvalidRecordError, match="budget"):
                memory.recall("conveyor manual", budget=bad, **U)  # type: ignore[arg-type]
        unbounded = memory.recall("conveyor manual", config={"budget": None}, **U)
        assert unbounded.budget is None
        assert LONG in unbounded.text
    with kioko.connect("memory://", recall_config={"budget": 300}) as memory:
        memory.add(LONG, **U)
        assert memory.recall("conveyor manual", **U).tokens <= 300


def test_search_is_not_thinned_by_the_budget() -> None:
    """search() returns records, not a text: twenty long matches all come back with the default budget."""
    with kioko.connect("memory://") as memory:
        for i in range(20):
            memory.add(f"Pump {i} report: " + "the impeller wears out early. " * 200, **U)
        assert len(memory.search("impeller wears out", limit=20, **U)) == 20


SHAPES = [
    "What does the conveyor manual say about belt tension?",
    "What should I cook tonight?",
    "What did we talk about last time?",
    "What did we do in our first session?",
    "When is the audit?",
    "What are my goals?",
    "How do I restart the line?",
    "Who is Krutika?",
    "Tell me everything you know about me.",
    "What did we decide about the database?",
    "Summarise last week.",
    "x",
]


def test_a_default_recall_stays_within_the_default_budget_whatever_the_shape() -> None:
    """A huge memory: every section filled past its share (instructions, profile, safety facts, goals, decisions,
    procedures, a session's scratchpad, long memories, session summaries); every question shape's default context
    stays within :data:`~kioko_core.recall.budget.DEFAULT_BUDGET` (conftest also checks every test's contexts)."""
    with kioko.intelligent("memory://") as memory:
        memory.add(LONG, **U)
        for i in range(40):
            memory.instructions.add(f"Always mention rule {i} about the line {i} belt before answering.", **U)
            memory.profile.set(f"detail_{i}", f"value {i} of the long profile " * 5, **U)
            memory.add(f"User is allergic to ingredient {i} and never eats dish {i}.", memory_type="factual", **U)
            memory.goals.add(f"Finish the audit part {i} for line {i}", **U)
            memory.decisions.add(f"We decided to use database {i} for the line {i} notes.", **U)
            memory.add(f"Krutika reviewed section {i} of the manual. " + "It was long. " * 60, **U)
        for session in ("s1", "s2"):
            for i in range(12):
                memory.record_turn(
                    f"I restarted line {i} after the jam, the audit is on day {i}.", "Okay.", **U, session_id=session
                )
            memory.end_session(session, **U)
        memory.record_turn("The ticket is INC-4471 and the host is db-7.", "Okay.", **U, session_id="s3")
        for question in SHAPES:
            ctx = memory.recall(question, **U, session_id="s3")
            assert ctx.budget == budget.DEFAULT_BUDGET, question
            assert budget.count_tokens(ctx.text) <= budget.DEFAULT_BUDGET, (question, budget.count_tokens(ctx.text))
            assert len(ctx.text) <= budget.DEFAULT_BUDGET * budget.CHARS_PER_TOKEN, question
