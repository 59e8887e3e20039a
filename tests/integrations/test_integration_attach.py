"""kioko.attach / kioko.detach on an OpenAI Agents SDK Agent, an Agno Agent and a plain object with run(),
and Agno's KiokoTools, all offline with scripted models: a turn recalls a stored decision into the
instructions, a later turn's goal progress is recorded, one user's memories only."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

os.environ.setdefault("AGNO_TELEMETRY", "false")  # Agno reports runs to its vendor unless told not to

from agents import Agent, AgentHooks, Runner, set_tracing_disabled  # noqa: E402
from agno.agent import Agent as AgnoAgent  # noqa: E402

import kioko  # noqa: E402
from kioko.integrations.agno import KiokoTools  # noqa: E402
from kioko.integrations.attach import HEADER  # noqa: E402
from kioko.integrations.scripted import ScriptedAgentsModel, ToolCall, agno_model  # noqa: E402

set_tracing_disabled(True)


@pytest.fixture
def memory():
    with kioko.intelligent("memory://") as layer:
        layer.goals.add("Ship the billing migration to PostgreSQL", user_id="kumar")
        layer.add(
            "Decision: billing uses PostgreSQL because we already run it", user_id="kumar", memory_type="decision"
        )
        yield layer


def from_instructions(instructions: str, user: str, results: list[str]) -> str:
    """The stand-in model: answers from the decisions its instructions show, else says it does not know."""
    if "Decisions in force:" in instructions:
        return "Per our decision: " + instructions.split("Decisions in force:\n- ")[1].split("\n")[0]
    return "Noted." if "%" in user else "I do not know."


def goal_progress(layer, user: str = "kumar") -> float | None:
    [goal] = [r for r in layer.memories(user_id=user) if r.kind == "goal"]
    return goal.metadata.get("progress")


def test_openai_agents_sdk_agent(memory) -> None:
    model = ScriptedAgentsModel(from_instructions)
    agent = Agent(name="assistant", instructions="Be brief.", model=model)
    assert kioko.attach(agent, memory, user_id="kumar") is agent

    async def turns() -> tuple[str, str]:
        first = await Runner.run(agent, "Which database do we use for billing?")
        second = await Runner.run(agent, "The billing migration is 80% done, schema moved.")
        return first.final_output, second.final_output

    answer, _ = asyncio.run(turns())
    assert answer == "Per our decision: Decision: billing uses PostgreSQL because we already run it"
    assert model.calls[0].instructions.startswith(f"Be brief.\n\n{HEADER}\n")
    assert goal_progress(memory) == 0.8  # the second turn went to record_turn, which routed it

    stranger = Agent(name="assistant", instructions="Be brief.", model=model)
    kioko.attach(stranger, memory, user_id="ana")
    assert asyncio.run(Runner.run(stranger, "Which database do we use for billing?")).final_output == "I do not know."
    assert HEADER not in model.calls[-1].instructions

    wrapped = agent.instructions
    kioko.attach(agent, memory, user_id="kumar")  # again: the same wrapping, not a second one
    assert agent.instructions is wrapped
    assert kioko.detach(agent)
    assert not kioko.detach(agent)
    assert agent.instructions == "Be brief."
    assert agent.hooks is None
    assert asyncio.run(Runner.run(agent, "Which database do we use for billing?")).final_output == "I do not know."


def test_openai_agents_sdk_hooks_of_the_agent_still_run(memory) -> None:
    seen: list[str] = []

    class Mine(AgentHooks):
        async def on_start(self, context, agent) -> None:
            seen.append("start")

        async def on_end(self, context, agent, output) -> None:
            seen.append(f"end {output}")

    hooks = Mine()
    agent = Agent(name="a", instructions=lambda ctx, agent: "Dynamic.", model=ScriptedAgentsModel(from_instructions))
    agent.hooks = hooks
    kioko.attach(agent, memory, user_id="kumar")
    asyncio.run(Runner.run(agent, "The billing migration is 50% done."))
    assert seen[0] == "start"
    assert seen[1].startswith("end ")
    assert len(seen) == 2
    assert goal_progress(memory) == 0.5
    kioko.detach(agent)
    assert agent.hooks is hooks


def test_agno_agent_attach_and_detach(memory) -> None:
    model = agno_model(from_instructions)
    agent = AgnoAgent(model=model, instructions="Be brief.", telemetry=False)
    kioko.attach(agent, memory, user_id="kumar")
    assert agent.run("Which database do we use for billing?").content.startswith("Per our decision: Decision: billing")
    assert f"{HEADER}\n" in model.calls[-1].instructions
    assert "Be brief." in model.calls[-1].instructions
    agent.run("The billing migration is 30% done.")
    assert goal_progress(memory) == 0.3
    assert asyncio.run(agent.arun("Which database do we use for billing?")).content.startswith("Per our decision")
    kioko.detach(agent)
    assert agent.instructions == "Be brief."
    assert "run" not in agent.__dict__
    assert agent.run("Which database do we use for billing?").content == "I do not know."


def test_agno_attach_is_thread_safe() -> None:
    """Each call sees the context recalled for its own question, never one of a call running beside it.

    A layer without intelligence: record_turn keeps only the user's question, so no reply (which here
    echoes the instructions) becomes a memory that a later question could recall.
    """
    memory = kioko.connect("memory://")
    facts = [
        "Juma feeds the cat at dawn",
        "Wanjiru repairs bicycles downtown",
        "Otieno grows mangoes near Kisumu",
        "Akinyi teaches violin lessons",
        "Baraka brews coffee with cardamom",
        "Njeri photographs flamingos",
        "Kamau restores vintage radios",
        "Achieng paints ceramic bowls",
    ]
    memory.add_many(facts, user_id="kumar")
    names = [fact.split()[0] for fact in facts]
    model = agno_model(lambda instructions, user, results: instructions)
    agent = AgnoAgent(model=model, instructions="Be brief.", telemetry=False)
    kioko.attach(agent, memory, user_id="kumar")

    questions = [f"What does {name} do?" for name in names]
    expected = [{f for f in facts if f in memory.recall(q, user_id="kumar").text} for q in questions]
    assert all(facts[n] in expected[n] for n in range(8))

    def ask(n: int) -> tuple[int, str]:
        return n, agent.run(questions[n]).content

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(ask, list(range(8)) * 3))
    for n, instructions in answers:
        assert {f for f in facts if f in instructions} == expected[n], (n, instructions)
    memory.close()


def test_agno_kioko_tools(memory) -> None:
    def script(instructions: str, user: str, results: list[str]) -> str | ToolCall:
        if user.startswith("Remember") and not results:
            return ToolCall("remember", {"text": user.removeprefix("Remember: "), "kind": "preference"})
        if user.startswith("What") and not results:
            return ToolCall("recall", {"query": user})
        return results[-1] if results else "?"

    agent = AgnoAgent(model=agno_model(script), tools=[KiokoTools(memory, "kumar")], telemetry=False)
    assert agent.run("Remember: Kumar likes dark mode in every tool").content.startswith("Remembered (preference)")
    answer = agent.run("What does Kumar like in every tool?").content
    assert "Kumar likes dark mode in every tool" in answer
    other = AgnoAgent(model=agno_model(script), tools=[KiokoTools(memory, "ana")], telemetry=False)
    assert "dark mode" not in other.run("What does Kumar like in every tool?").content


def test_any_object_with_run(memory) -> None:
    class Bot:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def run(self, text: str) -> str:
            self.seen.append(text)
            return "ok"

    bot = Bot()
    kioko.attach(bot, memory, user_id="kumar")
    assert bot.run("Which database do we use for billing?") == "ok"
    assert bot.seen[0].startswith(HEADER)
    assert bot.seen[0].endswith("\n\nWhich database do we use for billing?")
    assert "PostgreSQL" in bot.seen[0]
    bot.run("The billing migration is 90% done.")
    assert goal_progress(memory) == 0.9
    kioko.detach(bot)
    bot.run("Which database do we use for billing?")
    assert bot.seen[-1] == "Which database do we use for billing?"
    with pytest.raises(kioko.InvalidRecordError):
        kioko.attach(object(), memory, user_id="kumar")
    with pytest.raises(kioko.InvalidRecordError):
        kioko.attach(Bot(), memory, user_id="")
