"""The public surface of ``kioko``: its errors, and what a developer holds (layer, scoped views, managers)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

import kioko
from kioko_core import errors

PUBLIC_ERRORS = (
    "KiokoError",
    "StoreError",
    "ConflictError",
    "InvalidRecordError",
    "ConnectionLostError",
    "UnknownStoreError",
    "MissingExtraError",
    "MemoryNotFound",
    "KindMismatch",
    "LinkConflict",
    "SecretDropped",
)


@pytest.mark.parametrize("name", PUBLIC_ERRORS)
def test_every_public_error_is_exported_from_kioko_and_is_the_core_class(name: str) -> None:
    """``kioko.X`` is ``kioko_core.errors.X`` (one class, whichever module raised it) and derives from KiokoError."""
    exported = getattr(kioko, name)
    assert exported is getattr(errors, name)
    assert issubclass(exported, kioko.KiokoError)
    assert name in kioko.__all__


def test_the_store_protocol_module_re_exports_the_same_error_classes() -> None:
    """Drivers import errors from kioko_core.store; they are the very classes the layer raises."""
    from kioko_core import store

    for name in (
        "KiokoError",
        "StoreError",
        "ConflictError",
        "InvalidRecordError",
        "ConnectionLostError",
        "UnknownStoreError",
        "MissingExtraError",
    ):
        assert getattr(store, name) is getattr(errors, name)


def test_memory_not_found_names_the_id_and_reads_as_a_sentence() -> None:
    """MemoryNotFound is a KeyError for dict-like code, but its message is not shown in quotes."""
    error = kioko.MemoryNotFound("m1", "kumar")
    assert isinstance(error, KeyError)
    assert error.memory_id == "m1"
    assert str(error) == "no memory 'm1' for user 'kumar'"


def test_a_missing_memory_raises_the_exported_class() -> None:
    with kioko.connect("memory://") as memory:
        with pytest.raises(kioko.MemoryNotFound):
            memory.get("nope", user_id="kumar")
        with pytest.raises(kioko.SecretDropped):
            memory.add("my password is hunter2", user_id="kumar")


# --------------------------------------------------------------------------- the kind registry


def test_every_kind_of_the_registry_has_its_declared_manager_on_the_layer() -> None:
    """The registry names each kind's manager attribute; MemoryLayer declares it (for type checkers) and has it."""
    from kioko_core.kinds.registry import KINDS
    from kioko_core.layer.memory_layer import MemoryLayer

    with kioko.connect("memory://") as memory:
        for info in KINDS:
            for name in (info.manager, *info.manager_aliases):
                assert isinstance(getattr(MemoryLayer, name, None), property), name
                assert getattr(memory, name).kind == info.name, name


@pytest.mark.parametrize(
    "spelling, stored",
    [
        ("fact", "factual"),
        ("factual", "factual"),
        ("event", "episodic"),
        ("episode", "episodic"),
        ("knowledge", "semantic"),
        ("procedure", "procedural"),
        ("lesson", "strategy"),
        ("goal", "goal"),
    ],
)
def test_memory_type_accepts_the_kind_and_its_aliases_and_stores_the_kind(spelling: str, stored: str) -> None:
    """``memory_type="fact"`` and ``"factual"`` both work; the record always carries the stored name."""
    with kioko.connect("memory://") as memory:
        record = memory.add("Kumar works at Acme.", user_id="kumar", memory_type=spelling)
        assert record.kind == stored
        assert [r.id for r in memory.memories(user_id="kumar", kinds={spelling})] == [record.id]


def test_an_unknown_memory_type_is_refused_naming_the_known_ones() -> None:
    with kioko.connect("memory://") as memory:
        with pytest.raises(kioko.InvalidRecordError, match="factual"):
            memory.add("x", user_id="kumar", memory_type="facts!")
        assert list(memory.memories(user_id="kumar")) == []


def test_section_of_and_noun_read_the_registry() -> None:
    from kioko_core.kinds.registry import noun, section_of

    assert section_of("decision") == "decisions"
    assert section_of("strategy") == "lessons"
    assert section_of("factual") == "memories"
    assert section_of("no-such-kind") == "memories"
    assert noun("strategy") == "lesson"
    assert noun("summary") == "insight"


# --------------------------------------------------------------------------- one rule, one place


def test_the_analysis_and_the_entity_graph_key_names_with_one_function() -> None:
    """``"*Kioko*"`` is the entity ``kioko`` both to the text analysis and to the entity graph."""
    from kioko_core.graph import entities
    from kioko_core.reading import analysis as text

    assert entities.entity_key is text.entity_key
    assert text.entity_key("*Kioko*") == text.entity_key("Kioko") == "kioko"
    assert text.entity_key(".NET") == ".net"
    assert text.entity_key("(pgvector),") == "pgvector"
    with kioko.connect("memory://") as memory:
        memory.graph.add("*Kioko*", "uses", "pgvector", user_id="kumar")
        assert [t.object for t in memory.graph.relations("Kioko", user_id="kumar")] == ["pgvector"]


def test_a_manager_write_runs_the_secrets_check_once() -> None:
    """The layer's one detector checks a manager's write (content and the fields it keeps), exactly once."""
    calls: list[str] = []
    with kioko.connect("memory://") as memory:
        check = memory.secrets.check_record

        def counting(content, metadata=None):  # type: ignore[no-untyped-def]
            calls.append(content)
            return check(content, metadata)

        memory.secrets.check_record = counting  # type: ignore[method-assign]
        memory.goals.add("Ship Kioko", user_id="kumar")
        assert calls == ["Goal: Ship Kioko."]
        with pytest.raises(kioko.SecretDropped):
            memory.decisions.add("Use pgvector", user_id="kumar", rationale="the password is hunter2")


# --------------------------------------------------------------------------- scopes, views, timestamps


@pytest.mark.parametrize(
    "user_id, agent_id",
    [
        ("kumar", "@graph"),
        ("kumar", "@shared"),
        ("kumar", "@anything"),
        ("@graph", None),
        ("@kumar", None),
        ("@graph", "@graph"),
    ],
)
def test_reserved_scope_names_are_refused_as_user_or_agent_ids(user_id: str, agent_id: str | None) -> None:
    """``agent_id="@graph"`` would write into the user's entity-graph scope: names beginning with @ are Kioko's."""
    with kioko.connect("memory://", auto_link=True) as memory:
        memory.graph.add("Kioko", "uses", "pgvector", user_id="kumar")
        with pytest.raises(kioko.InvalidRecordError, match="reserved"):
            memory.add("Kioko uses pgvector.", user_id=user_id, agent_id=agent_id)
        with pytest.raises(kioko.InvalidRecordError, match="reserved"):
            list(memory.memories(user_id=user_id, agent_id=agent_id))
        with pytest.raises(kioko.InvalidRecordError, match="reserved"):
            memory.scoped(user_id=user_id, agent_id=agent_id)
        assert [t.object for t in memory.graph.relations("Kioko", user_id="kumar")] == ["pgvector"]


def test_the_shared_knowledge_base_may_still_be_written_by_name() -> None:
    with kioko.connect("memory://") as memory:
        shared = memory.add("PostgreSQL 18 supports pgvector.", user_id="@shared", memory_type="semantic")
        assert memory.get(shared.id, user_id="@shared").content == shared.content


def test_a_scoped_view_is_a_full_layer_bound_to_its_scope() -> None:
    """``memory.scoped(user_id="k").goals.add("x")`` works; managers, graph, recall all act for the view's scope."""
    with kioko.connect("memory://", auto_link=True) as memory:
        kumar = memory.scoped(user_id="kumar")
        assert isinstance(kumar, kioko.MemoryLayer)
        assert kumar.scope == kioko.Scope("kumar", None)
        goal = kumar.goals.add("Ship the Kioko memory layer")
        decision = kumar.decisions.add("Use pgvector for the Kioko memory layer's vectors")
        kumar.profile.set("name", "Kumar")
        kumar.graph.add("Kioko", "uses", "pgvector")
        assert goal.user_id == decision.user_id == "kumar"
        assert [g.id for g in memory.goals.open(user_id="kumar")] == [goal.id]
        assert memory.profile.get("name", user_id="kumar") == "Kumar"
        assert [k.target for k in kumar.graph.links(decision.id)] == [goal.id]
        assert goal.id in {m.record.id for m in kumar.recall("What are we shipping?").memories}
        assert [t.object for t in memory.graph.relations("Kioko", user_id="kumar")] == ["pgvector"]
        assert kumar.get(goal.id, user_id="kumar").id == goal.id  # repeating the view's own scope is fine
        with pytest.raises(kioko.InvalidRecordError, match="bound to user 'kumar'"):
            kumar.get(goal.id, user_id="krutika")
        with pytest.raises(kioko.InvalidRecordError, match="bound to agent"):
            kumar.add("x", agent_id="planner")
        with pytest.raises(kioko.InvalidRecordError, match="user_id is required"):
            memory.add("Who is this for?")
        helper = memory.scoped(user_id="kumar", agent_id="planner")
        helper.facts.add("The planner runs nightly.")
        assert [r.kind for r in memory.memories(user_id="kumar", agent_id="planner")] == ["factual"]
        assert memory.goals.open(user_id="kumar", agent_id="planner") == []
        kumar.close()  # a view does not close the store it shares
        assert memory.get(goal.id, user_id="kumar").id == goal.id


def test_intelligent_does_not_change_the_layer_it_is_given() -> None:
    plain = kioko.connect("memory://", auto_link=False)  # linking off (the default is on): the change would show
    linking = kioko.intelligent(plain)
    assert plain.auto_link is False
    assert linking.auto_link is True
    assert linking.store is plain.store
    goal = plain.goals.add("Ship the Kioko memory layer", user_id="kumar")
    decision = linking.decisions.add("Use pgvector for the Kioko memory layer", user_id="kumar")
    assert [k.target for k in linking.graph.links(decision.id, user_id="kumar")] == [goal.id]
    unlinked = plain.decisions.add("Use pgvector for the Kioko memory layer, again", user_id="kumar")
    assert plain.graph.links(unlinked.id, user_id="kumar") == []
    assert linking.with_linking().auto_link
    assert linking.auto_link
    linking.close()


@pytest.mark.parametrize(
    "given, expected",
    [
        (1_700_000_000, 1_700_000_000.0),
        (1_700_000_000.5, 1_700_000_000.5),
        (datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC), 1_700_000_000.0),
        (datetime(2023, 11, 14, 23, 13, 20, tzinfo=timezone(timedelta(hours=1))), 1_700_000_000.0),
        (datetime(2023, 11, 14, 22, 13, 20), datetime(2023, 11, 14, 22, 13, 20).timestamp()),  # naive: local time
    ],
)
def test_created_at_is_epoch_seconds_or_a_datetime_on_add_and_on_managers(given: object, expected: float) -> None:
    with kioko.connect("memory://") as memory:
        assert memory.add("Kioko shipped.", user_id="kumar", created_at=given).created_at == expected  # type: ignore[arg-type]
        assert memory.episodes.add("Kioko shipped.", user_id="kumar", created_at=given).created_at == expected


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "2024-01-01"])
def test_created_at_that_is_not_a_time_is_refused(bad: object) -> None:
    with kioko.connect("memory://") as memory:
        with pytest.raises(kioko.InvalidRecordError, match="created_at"):
            memory.add("Kioko shipped.", user_id="kumar", created_at=bad)  # type: ignore[arg-type]
        assert list(memory.memories(user_id="kumar")) == []
