"""kioko.attach(): each turn recalls into the agent's instructions and is recorded after. Offline.

    python examples/cookbook/14_attach.py                  (pip install 'kioko[agno]')

On an intelligent layer the recorded turn is routed: here a later turn's goal progress is kept.
"""

import os

os.environ.setdefault("AGNO_TELEMETRY", "false")

from agno.agent import Agent  # noqa: E402

import kioko  # noqa: E402
from kioko.integrations.scripted import agno_model  # noqa: E402

memory = kioko.intelligent("memory://")
memory.goals.add("Ship the billing migration", user_id="kumar")
memory.add("Decision: billing uses PostgreSQL", user_id="kumar", memory_type="decision")

model = agno_model(lambda instructions, user_text, tool_results: "OK")  # shows what it was told in model.calls
agent = kioko.attach(Agent(model=model, instructions="Be brief.", telemetry=False), memory, user_id="kumar")

agent.run("Which database do we use for billing?")
print("the model was told:\n" + model.calls[-1].instructions)
agent.run("The billing migration is 80% done.")
[goal] = memory.goals.list(user_id="kumar")
print("goal progress recorded:", goal.metadata["progress"])
kioko.detach(agent)

assert "Decision: billing uses PostgreSQL" in model.calls[0].instructions
assert goal.metadata["progress"] == 0.8
