"""KiokoRetriever: LangChain's standard retriever suite (langchain-tests' RetrieversIntegrationTests, pinned
in pyproject) on memory:// and SQLite, and what the documents carry."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

import kioko
from kioko.integrations.langchain import KiokoRetriever

NOTES = [
    "Kumar chose PostgreSQL for the billing service",
    "The billing service sends invoices every Monday",
    "Billing alerts go to the finance channel",
    "The billing database is backed up nightly",
    "Ana prefers green tea",
]
_layers: dict[str, Any] = {}


def seeded(kind: str) -> Any:
    """One layer per store kind for the whole module, holding the notes."""
    if kind not in _layers:
        url = "memory://" if kind == "memory" else f"sqlite:///{Path(tempfile.mkdtemp()) / 'retriever.db'}"
        layer = kioko.connect(url, auto_link=True)
        layer.add_many(NOTES, user_id="kumar")
        _layers[kind] = layer
    return _layers[kind]


class TestKiokoRetrieverOnMemory(RetrieversIntegrationTests):
    store_kind = "memory"

    @property
    def retriever_constructor(self) -> type[KiokoRetriever]:
        return KiokoRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": seeded(self.store_kind), "user_id": "kumar"}

    @property
    def retriever_query_example(self) -> str:
        return "billing service"


class TestKiokoRetrieverOnSQLite(TestKiokoRetrieverOnMemory):
    store_kind = "sqlite"


def test_documents_carry_the_signals_links_and_metadata() -> None:
    with kioko.connect("memory://") as layer:
        fault = layer.add("Line 3 keeps faulting with error E-217.", user_id="u", metadata={"source": "pager"})
        fix = layer.add("Found it: the encoder cable was loose.", user_id="u")
        layer.add("Ana prefers green tea", user_id="u")
        layer.graph.link(fix.id, fault.id, "resolves", 0.9, user_id="u")
        docs = KiokoRetriever(memory=layer, user_id="u", k=2).invoke("error E-217")
        assert [d.page_content for d in docs] == [fault.content, fix.content]
        first, second = (d.metadata for d in docs)
        assert first["id"] == fault.id
        assert first["kind"] == "factual"
        assert first["metadata"] == {"source": "pager"}
        assert first["signals"]["lexical"] > 0
        assert first["score"] > second["score"]
        assert set(second["signals"]) == {"linked"}  # only the link brought the fix
        assert (
            first["links"]
            == second["links"]
            == [{"source": fix.id, "type": "resolves", "target": fault.id, "weight": 0.9, "why": ""}]
        )
        assert KiokoRetriever(memory=layer, user_id="u", links=0).invoke("error E-217", k=5)[-1].id != fix.id
        assert KiokoRetriever(memory=layer, user_id="someone-else").invoke("error E-217") == []
        with pytest.raises(kioko.InvalidRecordError):
            KiokoRetriever(memory=layer, user_id="u").invoke("x", k=0)
