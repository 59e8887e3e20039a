"""router="semantic": the rules first, then the clauses no rule recognised read against labelled prototypes
with the shipped MiniLM model (real weights, no network)."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence import Intelligence, IntelligenceConfigError
from kioko_intelligence.brain import offline_router
from kioko_intelligence.heuristic import HeuristicRouter
from kioko_intelligence.semantic_router import PROTOTYPES, SemanticRouter


def test_routers_are_named_and_an_unknown_name_is_a_typed_error() -> None:
    assert type(Intelligence().router) is HeuristicRouter
    assert type(Intelligence("heuristic").router) is HeuristicRouter
    assert isinstance(Intelligence("semantic").router, SemanticRouter)
    assert isinstance(offline_router("semantic", capture="rules").capture, str)
    with pytest.raises(IntelligenceConfigError):
        Intelligence("clever")


def test_a_clause_no_rule_knows_is_classified_by_its_nearest_prototypes() -> None:
    said = "The rollback script was a lifesaver, worth having one ready."  # a lesson the rules read as an event
    rules = kioko.intelligent("memory://")
    semantic = kioko.intelligent("memory://", router="semantic")
    try:
        by_rules = rules.manage(said, user_id="u", dry_run=True)
        by_meaning = semantic.manage(said, user_id="u", dry_run=True)
        kept = semantic.manage("We decided to use Qdrant for the notes because it is fast.", user_id="u", dry_run=True)
    finally:
        rules.close()
        semantic.close()
    assert [op.op for op in by_rules.ops] == ["episode.add"]
    assert [op.op for op in by_meaning.ops] == ["strategy.add"]
    assert by_meaning.router == "semantic"
    assert by_meaning.ops[0].fields["text"] == said  # the user's words
    assert [op.op for op in kept.ops] == ["decision.add"]  # what a rule recognises, the rule decides


def test_prototypes_are_not_turns_of_the_labelled_set() -> None:
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "router_turns.jsonl"
    turns = {json.loads(line)["turn"].lower() for line in data.read_text(encoding="utf-8").splitlines()}
    assert not {text.lower() for texts in PROTOTYPES.values() for text in texts} & turns
