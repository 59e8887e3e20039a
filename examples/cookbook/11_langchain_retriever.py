"""LangChain: KiokoRetriever returns one user's recall as Documents, with the reasons in metadata.

python examples/cookbook/11_langchain_retriever.py     (pip install 'kioko[langchain]')
"""

import kioko
from kioko.integrations.langchain import KiokoRetriever

memory = kioko.connect("memory://", auto_link=True)
fault = memory.add("Line 3 keeps faulting with error E-217.", user_id="kumar", memory_type="episode", session_id="s1")
memory.add("Found it: the encoder cable on line 3 was loose.", user_id="kumar", memory_type="episode", session_id="s1")

retriever = KiokoRetriever(memory=memory, user_id="kumar", k=3)
for doc in retriever.invoke("error E-217"):
    print(doc.page_content, doc.metadata["signals"], [link["type"] for link in doc.metadata["links"]])

docs = retriever.invoke("error E-217")
assert docs[0].metadata["id"] == fault.id and "resolves" in [link["type"] for link in docs[0].metadata["links"]]
