"""The intelligence writes through the layer: its own records and its link edits pass memory.bookkeeping's checks.

Real stores (memory and a SQLite file): a bookkeeping write outside Kioko's reserved scopes, of a linked kind,
with index terms or with a secret is refused and nothing is written; a link edit that changes more than the
links is refused; a stale one is a ConflictError. An AST walk proves no intelligence module writes to
``memory.store`` itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kioko
import kioko_intelligence
from kioko_core.errors import ConflictError, InvalidRecordError, SecretDropped
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.linking import links
from kioko_core.store import Delete, Record, Scope, Upsert

INTELLIGENCE_DIR = Path(kioko_intelligence.__file__).parent


@pytest.fixture(params=["memory", "sqlite"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> kioko.MemoryLayer:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'k.db'}"
    with kioko.connect(url, auto_link=True) as layer:
        yield layer


def own(user: str = "@maintenance", agent: str | None = None, **fields: object) -> Record:
    values: dict[str, object] = {"id": "c1", "user_id": user, "agent_id": agent, "kind": "counters", "content": "n"}
    values.update(fields)
    return Record.model_validate(values)


def test_kiokos_own_records_are_written_in_its_reserved_scopes(memory: kioko.MemoryLayer) -> None:
    memory.bookkeeping.update_many([Upsert(record=own(), expected_version=0)])
    memory.bookkeeping.update_many([Upsert(record=own("kumar", SESSIONS_AGENT, id="log"), expected_version=0)])
    assert memory.store.get(Scope("@maintenance"), ["c1"])[0] is not None
    assert memory.store.get(Scope("kumar", SESSIONS_AGENT), ["log"])[0] is not None
    memory.bookkeeping.update_many([Delete(id="log", scope=Scope("kumar", SESSIONS_AGENT))])
    assert memory.store.get(Scope("kumar", SESSIONS_AGENT), ["log"])[0] is None


@pytest.mark.parametrize(
    "record, error",
    [
        (own("kumar"), InvalidRecordError),  # a user's own scope: memories go through add()
        (own("@shared"), InvalidRecordError),  # the shared knowledge base holds memories
        (own(kind="factual"), InvalidRecordError),  # a linked kind
        (own(terms=["parser"]), InvalidRecordError),  # indexed: the layer's term statistics would miss it
        (own(content="my password is hunter2"), SecretDropped),
        (own(metadata={"token": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"}), SecretDropped),
    ],
)
def test_a_bookkeeping_write_past_the_rules_is_refused_and_nothing_is_written(
    memory: kioko.MemoryLayer, record: Record, error: type[Exception]
) -> None:
    with pytest.raises(error):
        memory.bookkeeping.update_many([Upsert(record=own(id="first"), expected_version=0), Upsert(record=record)])
    assert memory.store.get(record.scope, [record.id])[0] is None
    assert memory.store.get(Scope("@maintenance"), ["first"])[0] is None  # checked before anything is written


def test_a_deletes_scope_is_checked_too(memory: kioko.MemoryLayer) -> None:
    kept = memory.add("Kumar ships the parser on Friday", user_id="kumar")
    with pytest.raises(InvalidRecordError):
        memory.bookkeeping.update_many([Delete(id=kept.id, scope=Scope("kumar"))])
    assert memory.get(kept.id, user_id="kumar").id == kept.id


def test_a_link_edit_changes_the_links_and_nothing_else(memory: kioko.MemoryLayer) -> None:
    a = memory.add("The parser ships on Friday", user_id="kumar")
    b = memory.add("The lexer must come before the parser", user_id="kumar")
    a, b = memory.store.get(Scope("kumar"), [a.id, b.id])
    assert a is not None
    assert b is not None
    link = links.MemoryLink(
        source=a.id, target=b.id, type="depends_on", weight=0.7, why="order", by="llm", at=1.0, seen=1.0
    )
    memory.bookkeeping.rewrite_links([(a, links.put_link(a, link)), (b, links.put_link(b, link))])
    assert [k.target for k in memory.graph.links(a.id, user_id="kumar") if k.type == "depends_on"] == [b.id]
    with pytest.raises(ConflictError):  # read before the edit above: stale
        memory.bookkeeping.rewrite_links([(a, links.drop_link(a, b.id))])
    fresh = memory.store.get(Scope("kumar"), [a.id])[0]
    assert fresh is not None
    for changed in (
        fresh.model_copy(update={"content": "The parser ships on Monday"}),
        fresh.model_copy(update={"metadata": {**fresh.metadata, "owner": "kumar"}}),
        fresh.model_copy(update={"terms": [*fresh.terms, "monday"]}),
        fresh.model_copy(update={"kind": "procedural"}),
    ):
        with pytest.raises(InvalidRecordError):
            memory.bookkeeping.rewrite_links([(fresh, changed)])
    assert memory.get(a.id, user_id="kumar").content == "The parser ships on Friday"


def store_writes(source: str) -> list[int]:
    """Lines where ``source`` calls ``<something>.store.update_many(...)``: a write past the layer."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "update_many"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "store"
    ]


def test_no_intelligence_module_writes_to_the_store_itself() -> None:
    """Every write of the intelligence goes through the layer (add, update, delete, the managers, bookkeeping);
    the functions that write Kioko's own records take a Bookkeeping, not a store (mypy checks the callers)."""
    sources = sorted(INTELLIGENCE_DIR.glob("*.py"))
    assert len(sources) > 10
    found = {p.name: lines for p in sources if (lines := store_writes(p.read_text(encoding="utf-8")))}
    assert found == {}
    assert store_writes("memory.store.update_many([op])") == [1]  # the check can fail
    assert store_writes("memory.bookkeeping.update_many([op])") == []
