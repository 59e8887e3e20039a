"""``KiokoRetriever``: Kioko's recall as a LangChain retriever (``pip install 'kioko[langchain]'``).

``KiokoRetriever(memory=memory, user_id="kumar", k=4).invoke("which database?")`` returns the ``k`` best
memories of Kumar's recall as ``Document`` objects: the memory's text as ``page_content``, and in
``metadata`` its id, kind, fused ``score``, the ``signals`` that put it there (``lexical``, ``dense``,
``graph``; ``linked`` for a memory only a link brought), its context ``section``, its ``links`` to the
other documents returned, and the caller's own metadata of the memory under ``"metadata"``.
"""

from __future__ import annotations

from typing import Any

from kioko_core.errors import InvalidRecordError, MissingExtraError

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict
except ImportError as error:  # pragma: no cover - depends on the environment
    raise MissingExtraError(f"KiokoRetriever needs LangChain: pip install 'kioko[langchain]' ({error})") from None

__all__ = ["KiokoRetriever", "documents_of"]

BOOKKEEPING = "_kioko"


class KiokoRetriever(BaseRetriever):
    """The ``k`` best memories of one user's recall for a query, as LangChain documents.

    ``memory`` is a :class:`kioko.MemoryLayer` or a ``RemoteMemory``; ``links`` how many of the ``k`` may be
    memories only a link brought (0: none); ``session_id`` the session recall is for. ``k`` can also be
    given per call: ``retriever.invoke(query, k=2)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any
    user_id: str
    k: int = 4
    links: int = 3
    session_id: str | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        count = self.k if k is None else k
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidRecordError(f"k must be a positive integer, got {count!r}")
        context = self.memory.recall(
            query, user_id=self.user_id, session_id=self.session_id, links=self.links, limit=count, plan=False
        )
        return documents_of(context, count)


def documents_of(context: Any, k: int) -> list[Document]:
    """The ranked memories of a recalled context (not the goals and pins it adds on top), as documents."""
    ranked = [m for m in context.memories if "rrf" in m.signals or "linked" in m.signals][:k]
    ids = {m.record.id for m in ranked}
    documents = []
    for recalled in ranked:
        record = recalled.record
        links = [
            {"source": link.source, "type": link.type, "target": link.target, "weight": link.weight, "why": link.why}
            for link in context.links
            if record.id in (link.source, link.target) and {link.source, link.target} <= ids
        ]
        metadata = {
            "id": record.id,
            "kind": record.kind,
            "score": float(recalled.score),
            "signals": dict(recalled.signals),
            "section": recalled.section,
            "links": links,
            "created_at": record.created_at,
            "session_id": record.session_id,
            "metadata": {key: value for key, value in record.metadata.items() if key != BOOKKEEPING},
        }
        documents.append(Document(page_content=record.content, metadata=metadata, id=record.id))
    return documents
