"""KiokoStore beyond LangGraph's own tests: the scope mapping, exact values, recall with links, refusals,
SQLite across reopening and a Kioko service (RemoteMemory) behind the same store."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, PutOp, SearchOp
from service_support import live_service

import kioko
from kioko.integrations.langgraph import KiokoStore, TTLNotSupported


@pytest.fixture
def layer():
    with kioko.connect("memory://", auto_link=True) as memory:
        yield memory


def test_a_value_comes_back_equal_and_is_a_kioko_memory_of_the_scope(layer) -> None:
    store = KiokoStore(layer, user_id="kumar")
    value = {"text": "Kumar prefers PostgreSQL for billing", "tags": ["db", 3, 2.5, True, None], "n": {"a": {"b": []}}}
    store.put(("memories", "prefs"), "db", value)
    item = store.get(("memories", "prefs"), "db")
    assert item is not None
    assert item.value == value
    assert item.key == "db"
    assert item.namespace == ("memories", "prefs")
    kept = list(layer.memories(user_id="kumar"))
    assert [m.content for m in kept] == ["Kumar prefers PostgreSQL for billing\ndb"]
    assert list(layer.memories(user_id="langgraph")) == []  # the store acts for kumar only
    store.put(("memories", "prefs"), "db", {"text": "Kumar now prefers SQLite"})
    assert store.get(("memories", "prefs"), "db").value == {"text": "Kumar now prefers SQLite"}
    assert len(list(layer.memories(user_id="kumar"))) == 1
    store.delete(("memories", "prefs"), "db")
    assert store.get(("memories", "prefs"), "db") is None
    assert list(layer.memories(user_id="kumar")) == []


@pytest.mark.parametrize("value", [{"t": (1, 2)}, {1: "x"}, {"when": object()}, {"x": float("nan")}])
def test_a_value_json_would_change_is_refused(layer, value) -> None:
    store = KiokoStore(layer)
    with pytest.raises(kioko.InvalidRecordError, match="JSON"):
        store.put(("a",), "k", value)
    assert store.get(("a",), "k") is None


def test_ttl_and_secrets_are_refused_and_nothing_is_written(layer) -> None:
    store = KiokoStore(layer)
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", {"text": "x"}, ttl=5)
    with pytest.raises(TTLNotSupported):
        store.batch([PutOp(("a",), "k", {"text": "x"}, ttl=5.0)])
    with pytest.raises(TTLNotSupported):
        KiokoStore(layer, ttl={"default_ttl": 10})
    with pytest.raises(kioko.SecretDropped):
        store.put(("a",), "k", {"text": "deploy with AKIAIOSFODNN7EXAMPLE please"})
    assert store.search(("a",)) == []


def test_search_is_recall_with_links_followed_and_scores(layer) -> None:
    store = KiokoStore(layer, user_id="ana")
    store.put(("notes",), "fault", {"text": "Line 3 keeps faulting with error E-217."})
    store.put(("notes",), "fix", {"text": "Found it: the encoder cable was loose."})
    store.put(("notes",), "tea", {"text": "Ana likes tea"})
    store.put(("other",), "code", {"text": "The E-217 fault code means the encoder lost its signal."})
    ids = {m.metadata["langgraph"]["key"]: m.id for m in layer.memories(user_id="ana")}
    layer.graph.link(ids["fix"], ids["fault"], "resolves", 0.9, user_id="ana")
    found = store.search(("notes",), query="error E-217")
    assert [i.key for i in found[:2]] == ["fault", "fix"]  # the fix shares no word with the question: a link
    assert found[0].score > found[1].score > found[2].score == 0.0  # the tea note: matched the (empty) filter only
    assert all(i.namespace == ("notes",) for i in found)
    linked = [m for m in layer.recall("error E-217", user_id="ana").memories if m.id == ids["fix"]]
    assert linked
    assert "linked" in linked[0].signals
    assert [i.key for i in store.search(("notes",), query="tea", filter={"text": "Ana likes tea"})] == ["tea"]
    assert [i.key for i in store.search(("notes",), query="E-217", limit=1)] == ["fault"]


def test_unindexed_items_are_kept_but_never_recalled(layer) -> None:
    store = KiokoStore(layer)
    store.put(("docs",), "secret-plan", {"text": "quarterly roadmap draft"}, index=False)
    store.put(("docs",), "plan", {"text": "quarterly roadmap final"})
    assert store.get(("docs",), "secret-plan").value == {"text": "quarterly roadmap draft"}
    found = store.search(("docs",), query="quarterly roadmap")
    assert [(i.key, i.score is None) for i in found] == [("plan", False), ("secret-plan", True)]
    assert [
        m.metadata["langgraph"]["key"] for m in layer.recall("quarterly roadmap", user_id="langgraph").memories
    ] == ["plan"]


def test_user_label_maps_namespaces_to_users_and_never_crosses_them(layer) -> None:
    store = KiokoStore(layer, user_label=1)  # LangMem's ("memories", "{user_id}")
    store.put(("memories", "kumar"), "a", {"content": "Kumar deploys on Fridays"})
    store.put(("memories", "ana"), "a", {"content": "Ana deploys on Mondays"})
    assert [m.content for m in layer.memories(user_id="kumar")] == ["Kumar deploys on Fridays"]
    assert [i.value["content"] for i in store.search(("memories", "ana"), query="deploys")] == [
        "Ana deploys on Mondays"
    ]
    assert store.get(("memories", "ana"), "a").value == {"content": "Ana deploys on Mondays"}
    for op in (SearchOp(("memories",)), SearchOp(("memories", "*")), ListNamespacesOp(), GetOp(("memories",), "a")):
        with pytest.raises(InvalidNamespaceError, match="never several users"):
            store.batch([op])
    assert store.list_namespaces(prefix=("memories", "kumar")) == [("memories", "kumar")]


def test_sqlite_keeps_the_items_across_reopening(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    first = KiokoStore.connect(url)
    first.put(("users", "u1"), "profile", {"name": "Kumar", "langs": ["sw", "en"]})
    first.close()
    again = KiokoStore.connect(url)
    try:
        assert again.get(("users", "u1"), "profile").value == {"name": "Kumar", "langs": ["sw", "en"]}
        assert again.list_namespaces() == [("users", "u1")]
        assert [i.key for i in again.search(("users",), query="Kumar")] == ["profile"]
    finally:
        again.close()


async def _async_round_trip(store: KiokoStore) -> None:
    await store.aput(("a", "b"), "k", {"text": "async notes on Kioko"})
    assert (await store.aget(("a", "b"), "k")).value == {"text": "async notes on Kioko"}
    assert [i.key for i in await store.asearch(("a",), query="Kioko")] == ["k"]


def test_the_same_store_works_on_a_kioko_service() -> None:
    import asyncio

    with live_service("memory://") as (server, layer), kioko.connect(server.url) as remote:
        store = KiokoStore(remote, user_id="kumar")
        store.put(("notes",), "1", {"text": "The billing service runs on PostgreSQL 16"})
        assert store.get(("notes",), "1").value == {"text": "The billing service runs on PostgreSQL 16"}
        assert [i.key for i in store.search(("notes",), query="billing")] == ["1"]
        asyncio.run(_async_round_trip(store))
        assert store.list_namespaces() == [("a", "b"), ("notes",)]
        assert {m.user_id for m in layer.memories(user_id="kumar")} == {"kumar"}
