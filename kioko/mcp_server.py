"""Kioko as an MCP server (``kioko mcp``), on the official ``mcp`` SDK's MCPServer (FastMCP in mcp 1.x).

The server acts for one user (and optionally one agent), fixed when it starts: no tool takes a
``user_id``, so a client cannot read or write anyone else's memories. Over HTTP with the service's API
keys (:func:`http_app`), the user is the one the request's key names, checked before the SDK runs. An id that is not in that
scope - a typo, or another user's memory - is a tool error saying it was not found, never data.

Tools: add_memory, get_memory, list_memories, update_memory, pin_memory, search_memories,
get_memory_context, explore_memories, learn_from_conversation, link_memories, forget_memory, forget_about.
Prompts: remember_conversation, what_do_you_know. Resources: ``kioko://memories/{memory_id}`` and
``kioko://goals``. A refused call (bad arguments, an unknown id) answers one sentence saying why.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import typing
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from kioko.listing import newest
from kioko.views import link_view, memory_view, related_view
from kioko_core.errors import InvalidRecordError, KiokoError, MemoryNotFound, MissingExtraError
from kioko_core.kinds.registry import KINDS, LINKABLE_KINDS
from kioko_core.linking.links import LINK_TYPES
from kioko_core.recall.options import RecallOptions

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from kioko.api.auth import KeyFile, KeyRing, Principal
    from kioko.protocol import Memory

SERVER_NAME = "kioko"
INSTRUCTIONS = (
    "Kioko is this user's long-term memory. Call get_memory_context with the user's question before answering; "
    "call add_memory for something worth keeping (a decision, a preference, a fact, what happened), or "
    "learn_from_conversation with the turn and let Kioko decide what to keep. explore_memories shows what is "
    "linked to a memory and why."
)

MEMORY_TYPES: tuple[str, ...] = tuple(
    spelling for info in KINDS if not info.keyed for spelling in (info.name, *info.aliases)
)
"""What ``memory_type`` accepts: every kind of the registry and its aliases (``fact``, ``lesson``...), as the
library and the CLI do; not the kinds held by key (profile slots, the session scratchpad), which have calls of
their own."""

if TYPE_CHECKING:
    MemoryType = str
    LinkType = str
else:  # built from the registries, so a new kind, alias or link type appears here too
    MemoryType = Literal[MEMORY_TYPES]
    LinkType = Literal[tuple(sorted(LINK_TYPES))]

MEMORY_ID = {"min_length": 1, "max_length": 200, "description": "a memory id, as a tool returned it"}
MemoryId = Annotated[str, Field(**MEMORY_ID)]


NOTHING_REMEMBERED = "Nothing relevant is remembered for this yet."
"""What get_memory_context answers when no memory matches (an empty answer reads as a failure to a model)."""


class Message(BaseModel):
    """One message of a conversation."""

    role: Literal["user", "assistant", "system"] = "user"
    content: str = Field(min_length=1)


def require_mcp() -> None:
    """Raise a readable MissingExtraError when the SDK is not installed."""
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError as error:
        raise MissingExtraError(
            f"the MCP server needs the mcp package ({error}); run: pip install 'kioko[mcp]'"
        ) from error


_Tool = TypeVar("_Tool", bound=Callable[..., Any])


def _as_tool_error(fn: _Tool) -> _Tool:
    """Kioko's typed errors reach the client as tool errors with their message; anything else stays a crash
    (the SDK then shows only the tool's name, so no internal detail leaks)."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KiokoError as error:
            raise ToolError(error_text(error)) from error

    return wrapper  # type: ignore[return-value]


def argument_problem(tool: str, error: ValidationError) -> str:
    """A validation error as one sentence naming each bad argument; never the rejected value (it is the caller's
    data, perhaps a secret) and never the validator's documentation address."""
    problems: list[str] = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        where = ".".join(str(part) for part in item["loc"]) or "the arguments"
        if item["type"] == "missing":
            problem = f"{where} is required"
        elif item["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problem = f"{where} is not an argument of this tool"
        else:
            message = " ".join(str(item["msg"]).split())
            problem = f"{where}: {message[:1].lower()}{message[1:]}"
        if problem not in problems:
            problems.append(problem)
    shown = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
    return f"{tool} was called with bad arguments: {shown}."


def _plain(text: str) -> str:
    """A docstring or description on one line with single spaces: clients show it as given."""
    return " ".join(text.split())


DERIVED_TOOLS: dict[str, str] = {}
"""tool -> the call of kioko.Memory whose parameters it takes (the others compose several calls)."""
COMPOSED_TOOLS = {
    "list_memories": "pages through memories() with the kind, session and text filters of kioko/listing.py",
    "pin_memory": "pin or unpin (two operations), and the ids pinned now",
    "explore_memories": "search, then the best match's links and related memories",
}
"""Tools that are no single operation, and why."""


def operation_tool(
    call: str,
    *,
    keep: tuple[str, ...],
    rename: dict[str, str] | None = None,
    types: dict[str, Any] | None = None,
    fields: dict[str, dict[str, Any]] | None = None,
    defaults: dict[str, Any] | None = None,
) -> Callable[[Callable[[dict[str, Any]], Any]], Callable[..., Any]]:
    """A tool whose parameters are ``call``'s, from the operations table (kioko.api.operations): the ``keep``
    ones (never the scope: the server acts for one user), with their types, defaults and bounds there, a tool's
    own name, type, bound, description or default where given. The body gets the call's keyword arguments."""
    from kioko.api import operations

    table = {p.name: p for p in operations.params(call)}
    rename = rename or {}
    wire = {rename.get(name, name): name for name in keep}

    def decorate(body: Callable[[dict[str, Any]], Any]) -> Callable[..., Any]:
        params = []
        for name in keep:
            found = table[name]
            kind = (types or {}).get(name, found.type)
            bounds = {**found.field, **(fields or {}).get(name, {})}
            default = (defaults or {}).get(name, found.default)
            params.append(
                inspect.Parameter(
                    rename.get(name, name),
                    inspect.Parameter.KEYWORD_ONLY,
                    default=inspect.Parameter.empty if default is ... else default,
                    annotation=Annotated[kind, Field(**bounds)] if bounds else kind,
                )
            )

        def tool(**given: Any) -> Any:
            return body({wire[name]: value for name, value in given.items()})

        returns = typing.get_type_hints(body).get("return", Any)
        tool.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
        tool.__name__, tool.__doc__ = body.__name__, body.__doc__
        DERIVED_TOOLS[body.__name__] = call
        return tool

    return decorate


def error_text(error: BaseException) -> str:
    """The message as written (a KeyError subclass's ``str`` would wrap it in quotes)."""
    if isinstance(error, KeyError) and len(error.args) == 1 and isinstance(error.args[0], str):
        return error.args[0]
    return str(error)


def create_server(
    memory: Memory,
    user_id: str | None,
    agent_id: str | None = None,
    *,
    name: str = SERVER_NAME,
    keys: KeyRing | KeyFile | None = None,
) -> MCPServer:
    """An MCPServer whose every tool and resource acts on ``memory`` for ``(user_id, agent_id)`` only.

    With ``keys`` (served over HTTP by :func:`http_app`), the scope is the caller's: the request's API
    key names the user (``user_id`` chooses one when the key may act for several).
    """
    require_mcp()
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError

    me = _scope_of(memory, user_id, agent_id, keys)  # every call below acts for this scope only
    # the SDK logs every refused call at INFO on stderr; a client shows the tool error itself
    server = _server_class()(name=name, instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def tool(fn: _Tool) -> _Tool:
        server.add_tool(_as_tool_error(fn), name=fn.__name__, description=_plain(fn.__doc__ or ""))
        return fn

    @tool
    @operation_tool(
        "add",
        keep=("content", "memory_type", "session_id", "metadata"),
        types={"memory_type": MemoryType},
        fields={
            "content": {"description": "what to remember, in plain words"},
            "session_id": {"description": "the conversation it belongs to"},
            "metadata": {"description": "facts about the memory to keep beside it (JSON values)"},
        },
    )
    def add_memory(args: dict[str, Any]) -> dict[str, Any]:
        """Remember one thing as it is. Returns the stored memory and the links it made to earlier memories."""
        record = me().add(**args)
        links = me().graph.links(record.id) if record.kind in LINKABLE_KINDS else []
        return memory_view(record, links=links)

    @tool
    @operation_tool("get", keep=("memory_id",), fields={"memory_id": MEMORY_ID})
    def get_memory(args: dict[str, Any]) -> dict[str, Any]:
        """One memory by its id, with its links to other memories and why each was made."""
        return memory_view(me().get(**args), links=me().graph.links(args["memory_id"]))

    @tool
    def list_memories(
        memory_type: Annotated[
            list[MemoryType] | None, Field(description="only these kinds of memory (aliases accepted)")
        ] = None,
        session_id: Annotated[str | None, Field(description="only the memories of this conversation")] = None,
        text: Annotated[
            str | None, Field(min_length=1, max_length=500, description="only memories containing this text")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="at most this many, newest first")] = 20,
    ) -> list[dict[str, Any]]:
        """This user's memories, newest first, optionally only some kinds, one conversation or those containing a
        text (case does not matter). Use search_memories to find memories by meaning instead."""
        found = newest(me(), kinds=memory_type, session_id=session_id, text=text, limit=limit)
        return [memory_view(r) for r in found]

    @tool
    @operation_tool(
        "update",
        keep=("memory_id", "content", "metadata"),
        fields={
            "memory_id": MEMORY_ID,
            "content": {"description": "the corrected text (its links are derived again)"},
            "metadata": {"description": "keys to set in the memory's metadata (merged)"},
        },
    )
    def update_memory(args: dict[str, Any]) -> dict[str, Any]:
        """Correct a memory in place: new content, and/or metadata merged into it. Its id stays; its version goes
        up. Returns the memory as it is now, with its links."""
        if args.get("content") is None and not args.get("metadata"):
            raise InvalidRecordError("nothing to change: give content and/or metadata")
        record = me().update(**args)
        return memory_view(record, links=me().graph.links(record.id))

    @tool
    def pin_memory(
        memory_id: MemoryId,
        pinned: Annotated[bool, Field(description="false unpins it")] = True,
    ) -> dict[str, Any]:
        """Pin a memory so that every context shows it under "Keep in mind", or unpin it (pinned false). Returns
        the memory and the ids pinned now."""
        record = me().pin(memory_id) if pinned else me().unpin(memory_id)
        return {**memory_view(record), "pinned": [r.id for r in me().pinned()]}

    @tool
    @operation_tool(
        "search",
        keep=("query", "limit"),
        fields={"query": {"min_length": 1}, "limit": {"ge": 1, "le": 50}},
        defaults={"limit": 5},
    )
    def search_memories(args: dict[str, Any]) -> list[dict[str, Any]]:
        """The memories that best match a query, best first (no link expansion)."""
        return [memory_view(r) for r in me().search(**args)]

    @tool
    @operation_tool(
        "recall",
        keep=("query", "limit", "links", "session_id", "budget"),
        fields={
            "query": {"min_length": 1, "description": "the user's question or task"},
            "limit": {"ge": 1, "le": 50, "description": "how many memories at most (default 8, or the plan's)"},
            "links": {
                "ge": 0,
                "le": 20,
                "description": "how many memories may come only through links to better matches (default 3, or "
                "the plan's)",
            },
        },
    )
    def get_memory_context(args: dict[str, Any]) -> str:
        """The context to answer with: relevant memories, procedures and lessons, open goals, and a section saying
        how these memories connect. With intelligence on, the recall planner picks the sections and caps from the
        question; a limit or links given here win over the plan's. The text stays within budget tokens (about
        four characters each, 2000 by default): a memory too long for it is cut with a marker."""
        options = RecallOptions(limit=args.pop("limit"), links=args.pop("links"), budget=args.pop("budget"))
        return me().recall(**args, options=options).text or NOTHING_REMEMBERED

    @tool
    def explore_memories(
        query: Annotated[str, Field(min_length=1)],
        depth: Annotated[int, Field(ge=1, le=4)] = 2,
        limit: Annotated[int, Field(ge=1, le=30)] = 8,
    ) -> dict[str, Any]:
        """The memory that best matches a query and what is linked to it: its direct links with the evidence each
        was made on, and what lies further away with the chain of links leading there."""
        found = me().search(query, limit=1)
        if not found:
            return {"match": None, "links": [], "related": []}
        best = found[0]
        return {
            "match": memory_view(best),
            "links": [link_view(k) for k in me().graph.links(best.id)],
            "related": [related_view(item) for item in me().graph.related(best.id, depth=depth, limit=limit)],
        }

    @tool
    @operation_tool(
        "learn",
        keep=("messages", "session_id", "dry_run"),
        types={"messages": list[Message] | str},
        fields={"messages": {"description": "the turn: the user's words, or a list of {role, content} messages"}},
    )
    def learn_from_conversation(args: dict[str, Any]) -> dict[str, Any]:
        """Let Kioko decide what to keep from a conversation turn. With the server's intelligence on, the turn is
        routed (facts, preferences, decisions, goals ... added, updated or left alone); without it, what the user
        said is kept as an episode. Returns every operation decided and its status."""
        messages = args["messages"]
        args["messages"] = messages if isinstance(messages, str) else [m.model_dump() for m in messages]
        return me().learn(**args).to_dict()

    @tool
    @operation_tool(
        "graph.link",
        keep=("a", "b", "type", "why", "weight"),
        rename={"a": "source_id", "b": "target_id"},
        types={"type": LinkType},
        fields={"a": MEMORY_ID, "b": MEMORY_ID, "why": {"max_length": 500}},
    )
    def link_memories(args: dict[str, Any]) -> dict[str, Any]:
        """Link two memories by hand (``source type target``, e.g. a fix ``resolves`` a problem); never fades."""
        return link_view(me().graph.link(**args))

    @tool
    @operation_tool("delete", keep=("memory_id",), fields={"memory_id": MEMORY_ID})
    def forget_memory(args: dict[str, Any]) -> dict[str, Any]:
        """Delete one memory; the memories linked to it forget the link."""
        if not me().delete(**args):
            raise MemoryNotFound(args["memory_id"])
        return {"deleted": args["memory_id"]}

    @tool
    @operation_tool(
        "forget_about",
        keep=("subject", "dry_run"),
        fields={"dry_run": {"description": "true: only list what would go"}},
        defaults={"dry_run": False},
    )
    def forget_about(args: dict[str, Any]) -> dict[str, Any]:
        """Forget everything about a person, place or thing the user names: every memory naming it, the entity
        graph's relations of it, and what summaries and session logs say of it. Use it when the user asks to
        forget everything about someone or something; dry_run lists what would go."""
        return me().forget_about(**args)

    @server.prompt(
        name="remember_conversation",
        title="Remember this conversation",
        description="Ask the assistant to keep what is worth keeping from the conversation so far in Kioko.",
    )
    def remember_conversation(
        session_id: Annotated[str | None, Field(description="the conversation's id, if it has one")] = None,
    ) -> str:
        where = f' with session_id "{session_id}"' if session_id else ""
        return (
            "Remember this conversation. Go through it turn by turn and call learn_from_conversation"
            f"{where} with each of the user's turns (role and content), so that Kioko keeps the facts, "
            "preferences, decisions, goals and events in it and updates what changed. For one thing the user "
            "asked you to remember word for word, call add_memory instead. Then say in one sentence what was kept."
        )

    @server.prompt(
        name="what_do_you_know",
        title="What do you know about ...",
        description="Everything Kioko remembers about a topic, put in front of the assistant to answer from.",
    )
    def what_do_you_know(topic: Annotated[str, Field(min_length=1, description="who or what to ask about")]) -> str:
        known = me().recall(topic).text or NOTHING_REMEMBERED
        return (
            f"What do you know about {topic}? Answer from what Kioko remembers, below; say what is missing "
            "rather than guessing, and call explore_memories to follow a link further.\n\n"
            f"What Kioko remembers about {topic}:\n{known}"
        )

    @server.resource(
        "kioko://memories/{memory_id}",
        name="memory",
        mime_type="application/json",
        description="One memory of this user, with its links",
    )
    def read_memory(memory_id: str) -> str:
        try:
            record = me().get(memory_id)
            links = me().graph.links(memory_id)
        except KiokoError as error:
            raise ResourceNotFoundError(error_text(error)) from error
        return json.dumps(memory_view(record, links=links))

    @server.resource(
        "kioko://goals",
        name="goals",
        mime_type="application/json",
        description="This user's open goals, with their progress",
    )
    def read_goals() -> str:
        goals = me().goals.open()
        return json.dumps([memory_view(g) for g in goals])

    return server


def _server_class() -> type[MCPServer]:
    """The SDK's MCPServer, reporting refused arguments as one sentence (see :func:`argument_problem`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    class KiokoServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError:
                raise
            except ToolError as error:
                cause = error.__cause__
                if isinstance(cause, ValidationError):
                    raise ToolError(argument_problem(name, cause)) from cause
                if isinstance(cause, ToolError):  # raised by a tool (a KiokoError): its own sentence, unprefixed
                    raise ToolError(str(cause)) from cause
                raise

    return KiokoServer


_CALLER: contextvars.ContextVar[tuple[str, str | None] | None] = contextvars.ContextVar(
    "kioko_mcp_caller", default=None
)
"""The (user, agent) of the HTTP request being served, set by :func:`http_app` for the tools below it."""


def _scope_of(memory: Memory, user_id: str | None, agent_id: str | None, keys: Any) -> Callable[[], Memory]:
    """What the tools call for their scope: fixed at start, or (with API keys) the current request's caller."""
    if keys is None:
        if not user_id:
            raise KiokoError("the MCP server needs the user it acts for (--user)")
        fixed = memory.scoped(user_id=user_id, agent_id=agent_id)
        return lambda: fixed

    def callers() -> Memory:
        caller = _CALLER.get()
        if caller is None:  # only http_app sets it: nothing reaches a tool without a checked key
            raise KiokoError("no API key was checked for this call")
        return memory.scoped(user_id=caller[0], agent_id=caller[1])

    return callers


def caller_of(principal: Principal, user_id: str | None, agent_id: str | None) -> tuple[str, str | None]:
    """The (user, agent) a key acts as on this server: its one user (and agent), or the ``--user`` chosen at
    start when the key may act for several (an admin key: any). Forbidden when neither decides."""
    from kioko.api.errors import Forbidden

    if principal.admin or len(principal.users) != 1:
        if user_id is None:
            raise Forbidden(
                f"the API key {principal.name!r} may act for several users: start the server with --user to choose"
            )
        principal.check(user_id, agent_id)
        return user_id, agent_id
    (only,) = principal.users
    if user_id is not None and user_id != only:
        raise Forbidden(f"the API key {principal.name!r} may not act for user {user_id!r}")
    agent = agent_id
    if principal.agents is not None and agent is None and len(principal.agents) == 1:
        agent = next(iter(principal.agents))
    principal.check(only, agent)
    return only, agent


def http_app(
    server: MCPServer,
    keys: Any = None,
    user_id: str | None = None,
    agent_id: str | None = None,
    *,
    host: str = "127.0.0.1",
) -> Any:
    """The streamable-HTTP ASGI app of ``server`` (at ``/mcp``); with ``keys``, every request needs an API key.

    A request without a valid key is a 401, one whose key may not act for the server's user a 403, both
    before the SDK sees it. With keys the transport is stateless: each request is served on its own,
    with its own key, so no session outlives the key that opened it.
    """
    app = server.streamable_http_app(stateless_http=keys is not None, json_response=keys is not None, host=host)
    if keys is None:
        return app
    return _KeyGate(app, keys, user_id, agent_id)


class _KeyGate:
    """Checks the request's API key, then serves it with the key's (user, agent) as the tools' scope."""

    def __init__(self, app: Any, keys: Any, user_id: str | None, agent_id: str | None) -> None:
        self.app, self.keys, self.user_id, self.agent_id = app, keys, user_id, agent_id

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from kioko.api.errors import Forbidden, Unauthorized

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        auth = headers.get("authorization", "")
        key = auth[7:].strip() if auth[:7].lower() == "bearer " else headers.get("x-api-key")
        try:
            principal = self.keys.authenticate(key)
            if principal.read_only:
                # the tools write as well as read, and the SDK picks the tool inside the body: a key
                # limited to reads is for the REST API, where each route says which it does
                raise Forbidden(f"the API key {principal.name!r} is read-only; the MCP tools need a key that may write")
            caller = caller_of(principal, self.user_id, self.agent_id)
        except (Unauthorized, Forbidden) as error:
            status = 401 if isinstance(error, Unauthorized) else 403
            return await _refuse(send, status, type(error).__name__, error_text(error))
        token = _CALLER.set(caller)  # tasks the SDK starts for this request copy it
        try:
            await self.app(scope, receive, send)
        finally:
            _CALLER.reset(token)


async def _refuse(send: Any, status: int, kind: str, message: str) -> None:
    body = json.dumps({"error": {"type": kind, "message": message}}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="kioko"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _version() -> str:
    from kioko import __version__

    return __version__


def open_memory(url: str | None, *, intelligence: bool = False) -> Memory:
    """The layer ``kioko mcp`` serves: linking on; with ``intelligence``, turns are routed as well."""
    from kioko import connect, default_url, intelligent

    target = url or default_url()
    return intelligent(target) if intelligence else connect(target, auto_link=True)


def run(
    url: str | None,
    user_id: str | None,
    agent_id: str | None = None,
    *,
    transport: str = "stdio",
    intelligence: bool = False,
    host: str = "127.0.0.1",
    port: int = 8766,
    api_keys: str | None = None,
) -> None:
    """Serve until the client hangs up (stdio) or the process is stopped (http).

    ``api_keys`` (http only): the service's key file; the caller's key then names the user.
    """
    require_mcp()
    import anyio

    keys = None
    if api_keys:
        from kioko.api.auth import KeyFile

        keys = KeyFile(api_keys)
    memory = open_memory(url, intelligence=intelligence)
    try:
        server = create_server(memory, user_id, agent_id, keys=keys)
        if transport == "stdio":
            anyio.run(server.run_stdio_async)
        elif transport == "http":
            anyio.run(functools.partial(_serve_http, http_app(server, keys, user_id, agent_id, host=host), host, port))
        else:
            raise ValueError(f"unknown transport {transport!r}; use stdio or http")
    finally:
        memory.close()


async def _serve_http(app: Any, host: str, port: int) -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5)
    await uvicorn.Server(config).serve()
