"""Intelligence with a model: one call per turn that needs it, the offline router when the call fails.

    python examples/cookbook/21_llm_intelligence.py

``ask`` is any prompt -> text function; here a scripted stand-in plays the model, so the recipe runs
offline. Put your model there (see the spec's "ask" with the OpenAI client).
"""

import json
import re

import kioko

ANSWERS = {
    "Downtime is already down 12%.": {
        "operations": [{"op": "goal.progress", "target": "g1", "progress": 0.6, "reason": "12 of the 20 points"}]
    },
    "My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.": {
        "operations": [{"op": "fact.add", "text": "User's API key is sk-EXAMPLE-not-a-real-key-000"}]
    },
    "I prefer bullet points over long paragraphs.": "Sure, I will remember that!",  # no JSON: falls back
}
calls = []


def ask(prompt: str) -> str:
    """The stand-in model: answers by the user's words in the prompt's conversation."""
    calls.append(prompt)
    said = re.findall(r"^user: (.*)$", prompt, flags=re.MULTILINE)[-1]
    answer = ANSWERS.get(said, {"operations": []})
    return answer if isinstance(answer, str) else json.dumps(answer)


memory = kioko.intelligent("memory://", llm=ask)
memory.goals.add("Cut unplanned downtime on line 3 by 20%", user_id="kumar")
TURNS = [
    "Downtime is already down 12%.",
    "My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.",
    "thanks!",
    "I prefer bullet points over long paragraphs.",
]
reports = {}
for turn in TURNS:
    report = memory.record_turn(turn, user_id="kumar", session_id="s1")
    reports[turn] = report
    print(f"you > {turn}")
    for line in report.summary().splitlines():
        print(f"      {line}")
    print()

[goal] = memory.goals.list(user_id="kumar")
assert goal.metadata["progress"] == 0.6
# the secret was redacted before the model read the turn, and nothing holding it was stored
assert not any("sk-EXAMPLE-not-a-real-key-000" in prompt for prompt in calls)
assert not any("sk-EXAMPLE" in m.content for m in memory.memories(user_id="kumar"))
assert reports["thanks!"].model_calls == 0  # the gate: small talk never reaches the model
assert reports[TURNS[3]].router == "llm->heuristic"  # no JSON from the model: the offline router decided
print(f"{len(calls)} model calls for {len(TURNS)} turns")
