"""LLM review of automatic links in the tend task, with a scripted model: keep, retype, drop, bad answers."""

from __future__ import annotations

import json
import re

import pytest

import kioko
from kioko_core.linking import links
from kioko_core.store import Scope
from kioko_intelligence import Intelligence
from kioko_intelligence.link_review import KEPT_WEIGHT, parse_review, review_links

U = {"user_id": "kumar"}
GOAL = "Ship the Kioko memory layer by December 15"
DECISION = "Decision: Vector database - chose pgvector for Kioko because we already run Postgres."
EVENT = "Line 3 stopped with error E-217 on the drive."
FACT = "Error E-217 on line 3 means the encoder cable is loose."


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path):
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'review.db'}"


class Model:
    """Answers with ``answer(prompt)``; counts the calls and keeps the prompts."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        result = self.answer(prompt)
        if isinstance(result, BaseException):
            raise result
        return result if isinstance(result, str) else json.dumps(result)


def pair_of(prompt: str, text: str) -> str:
    """The pair name (p1 ...) whose A or B is ``text``."""
    for match in re.finditer(r"^(p\d+): A = \[\w+\] (.*)\n\s+B = \[\w+\] (.*)$", prompt, re.MULTILINE):
        if text in match.group(2) or text in match.group(3):
            return match.group(1)
    raise AssertionError(f"{text!r} is not in the prompt")


def _plant(memory, user_id: str = "kumar") -> dict[str, str]:
    who = {"user_id": user_id}
    ids = {
        "goal": memory.goals.add(GOAL, **who).id,
        "decision": memory.decisions.add(DECISION, **who).id,
        "event": memory.add(EVENT, memory_type="episodic", **who).id,
        "fact": memory.add(FACT, **who).id,
    }
    memory.graph.connect(**who)
    return ids


def _entry(memory, a: str, b: str, user_id: str = "kumar") -> dict | None:
    return links.entry_for(memory.get(a, user_id=user_id), b)


def test_the_prompt_shows_the_newest_automatic_links_in_the_specs_shape(url) -> None:
    with kioko.connect(url) as memory:
        ids = _plant(memory)
        assert _entry(memory, ids["decision"], ids["goal"])["by"] == "auto"
        model = Model(lambda prompt: {"links": []})
        assert review_links(memory, model, Scope("kumar", None)) == {
            "reviewed": 0,
            "kept": 0,
            "retyped": 0,
            "dropped": 0,
        }
        (prompt,) = model.prompts
        assert f"A = [decision] '{DECISION}'\n    B = [goal] 'Goal: {GOAL}.'\n    proposed: A serves B (" in prompt
        assert prompt.rstrip().endswith(
            'Answer with JSON only: {"links": [{"pair": "p1", "keep": true, "type": "serves", "source": "A", '
            '"why": "..."}]}'
        )
        assert _entry(memory, ids["decision"], ids["goal"])["by"] == "auto"  # no verdict: left as it was


def test_keep_retype_and_drop(url) -> None:
    with kioko.connect(url) as memory:
        ids = _plant(memory)

        def answer(prompt: str) -> dict:
            return {
                "links": [
                    {"pair": pair_of(prompt, DECISION), "keep": True, "type": "serves", "source": "A", "why": "ok"},
                    {"pair": pair_of(prompt, FACT), "keep": True, "type": "informs", "source": "B", "why": "cause"},
                ]
            }

        done = review_links(memory, Model(answer), Scope("kumar", None))
        assert done == {"reviewed": 2, "kept": 1, "retyped": 1, "dropped": 0}
        kept = _entry(memory, ids["decision"], ids["goal"])
        assert (kept["by"], kept["type"], kept["dir"], kept["why"]) == ("llm", "serves", "out", "ok")
        assert kept["w"] >= KEPT_WEIGHT
        assert _entry(memory, ids["goal"], ids["decision"])["by"] == "llm"
        retyped = _entry(memory, ids["event"], ids["fact"])  # B (the event) is now the source
        assert (retyped["by"], retyped["type"], retyped["dir"]) == ("llm", "informs", "out")
        # reviewed links are no longer automatic: the next review has nothing to show
        again = Model(lambda prompt: {"links": []})
        review_links(memory, again, Scope("kumar", None))
        assert again.prompts == []

    with kioko.connect(url.replace("review.db", "drop.db")) as memory:
        ids = _plant(memory)
        model = Model(lambda prompt: {"links": [{"pair": pair_of(prompt, FACT), "keep": False}]})
        assert review_links(memory, model, Scope("kumar", None))["dropped"] == 1
        assert _entry(memory, ids["fact"], ids["event"]) is None
        assert _entry(memory, ids["event"], ids["fact"]) is None
        memory.graph.connect(rebuild=True, **U)  # remembered as unlinked: the algorithm does not make it again
        assert _entry(memory, ids["fact"], ids["event"]) is None
        assert _entry(memory, ids["decision"], ids["goal"])["by"] == "auto"


@pytest.mark.parametrize(
    "answer",
    [
        "I think these links look fine.",
        '{"links": [{"pair": "p1", "keep": "yes"}]',
        '{"links": "all good"}',
        RuntimeError("model is down"),
        TimeoutError("no answer"),
    ],
    ids=["prose", "truncated-json", "links-not-a-list", "exception", "timeout"],
)
def test_a_malformed_answer_or_a_failing_model_leaves_every_link_and_never_breaks_tend(url, answer) -> None:
    with kioko.connect(url, intelligence=Intelligence(llm=Model(lambda prompt: answer))) as memory:
        ids = _plant(memory)
        done = memory.maintain(tasks=["tend"], **U)["kumar"]["tend"]
        assert done["reviewed"] == 0
        assert {"linked_memories", "links", "pruned"} <= set(done)
        assert "review_error" in done
        assert _entry(memory, ids["decision"], ids["goal"])["by"] == "auto"


def test_invalid_pairs_types_and_sides_are_ignored(url) -> None:
    with kioko.connect(url) as memory:
        ids = _plant(memory)

        def answer(prompt: str) -> dict:
            decision, fact = pair_of(prompt, DECISION), pair_of(prompt, FACT)
            return {
                "links": [
                    {"pair": "p99", "keep": False},
                    {"pair": ids["goal"], "keep": False},
                    {"pair": decision, "keep": True, "type": "part_of", "source": "A"},  # structural: not a model's
                    {"pair": decision, "keep": True, "type": "bogus", "source": "A"},
                    {"pair": fact, "keep": True, "type": "resolves", "source": "C"},
                    {"pair": fact, "keep": "no"},
                    "not a verdict",
                ]
            }

        assert review_links(memory, Model(answer), Scope("kumar", None))["reviewed"] == 0
        assert _entry(memory, ids["decision"], ids["goal"])["by"] == "auto"
        assert _entry(memory, ids["fact"], ids["event"])["by"] == "auto"
    with pytest.raises(ValueError):
        parse_review("[]")


def test_nothing_outside_the_users_scope_is_shown_or_reachable(url) -> None:
    with kioko.connect(url) as memory:
        mine = _plant(memory)
        theirs = _plant(memory, user_id="asha")

        def answer(prompt: str) -> dict:
            # the model names asha's memories by id, and every pair it was shown, to drop them
            verdicts = [{"pair": theirs[k], "keep": False} for k in theirs]
            verdicts += [{"pair": p, "keep": False} for p in re.findall(r"^(p\d+):", prompt, re.MULTILINE)]
            return {"links": verdicts}

        model = Model(answer)
        assert review_links(memory, model, Scope("kumar", None))["dropped"] == 2
        assert all(theirs[k] not in model.prompts[0] for k in theirs)
        assert _entry(memory, mine["decision"], mine["goal"]) is None
        assert _entry(memory, theirs["decision"], theirs["goal"], user_id="asha")["by"] == "auto"
        assert _entry(memory, theirs["fact"], theirs["event"], user_id="asha")["by"] == "auto"


def test_the_scheduler_reviews_when_it_tends_with_the_intelligences_model(url) -> None:
    model = Model(lambda prompt: {"links": [{"pair": "p1", "keep": True, "type": "related_to", "source": "A"}]})
    with kioko.connect(url, intelligence=Intelligence(llm=model)) as memory:
        _plant(memory)
        done = memory.maintain(tasks=["tend"], **U)["kumar"]["tend"]
        assert len(model.prompts) == 1
        assert done["reviewed"] == 1
    with kioko.connect(url, intelligence=True) as memory:  # no model: no review
        assert "reviewed" not in memory.maintain(tasks=["tend"], **U)["kumar"]["tend"]
