"""Kioko inside agent frameworks: one module per framework, each behind its own extra.

- :mod:`kioko.integrations.langgraph`: ``KiokoStore``, a LangGraph ``BaseStore`` (``kioko[langgraph]``)
- :mod:`kioko.integrations.langchain`: ``KiokoRetriever``, a LangChain ``BaseRetriever`` (``kioko[langchain]``)
- :mod:`kioko.integrations.openai_agents`: ``KiokoSession`` and ``kioko_tools`` (``kioko[openai-agents]``)
- :mod:`kioko.integrations.agno`: ``KiokoTools`` (``kioko[agno]``)

Nothing here is imported by ``import kioko``: a framework is loaded only when its module is. Every module
uses only the calls a local :class:`kioko.MemoryLayer` and a :class:`kioko.remote.client.RemoteMemory` share
(:class:`~kioko.integrations.memory.Memory`), so each works on both.
"""
