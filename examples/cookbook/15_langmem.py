"""LangMem's memory tools on a KiokoStore: a LangChain agent manages and searches the user's memories in Kioko.

    python examples/cookbook/15_langmem.py                 (pip install 'kioko[langmem]')

LangMem's tools read the user from the run's config (``{langgraph_user_id}``); with ``user_label=1`` the
namespace ("memories", "<user id>") is that Kioko user. A scripted chat model plays the model (offline).
"""

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langmem import create_manage_memory_tool, create_search_memory_tool

import kioko
from kioko.integrations.langgraph import KiokoStore


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with the messages it was given, in order; tools need no binding for a script."""

    def bind_tools(self, tools, **kwargs):
        return self


def call(tool: str, args: dict, number: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": tool, "args": args, "id": f"call_{number}"}])


script = iter(
    [
        call("manage_memory", {"content": "Kumar chose PostgreSQL for billing", "action": "create"}, 1),
        AIMessage("Saved."),
        call("search_memory", {"query": "database for billing"}, 2),
        AIMessage("You chose PostgreSQL."),
    ]
)
memory = kioko.connect("memory://", auto_link=True)
store = KiokoStore(memory, user_label=1)
tools = [
    create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}")),
    create_search_memory_tool(namespace=("memories", "{langgraph_user_id}")),
]
agent = create_agent(ScriptedChatModel(messages=script), tools=tools, store=store)
config = {"configurable": {"langgraph_user_id": "kumar"}}

agent.invoke({"messages": [("user", "Remember: we chose PostgreSQL for billing")]}, config)
answer = agent.invoke({"messages": [("user", "Which database for billing?")]}, config)
for message in answer["messages"]:
    print(f"{type(message).__name__}: {str(message.content)[:160]}")

print("Kumar's memories in Kioko:", [m.content for m in memory.memories(user_id="kumar")])
assert [m.content for m in memory.memories(user_id="kumar")] == ["Kumar chose PostgreSQL for billing"]
assert "Kumar chose PostgreSQL for billing" in answer["messages"][-2].content  # what search_memory found
