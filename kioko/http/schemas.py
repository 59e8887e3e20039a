"""Request and response bodies of the REST API: what /v1/openapi.json documents."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from kioko.api import operations
from kioko.api.operations import USER_ID_HELP
from kioko_core.linking.links import LINK_TYPES

Id = Field(min_length=1, max_length=200)
UserId = Field(min_length=1, max_length=200, description=USER_ID_HELP)
AgentId = Field(None, min_length=1, max_length=200, description="one of the user's agents (its own scope)")
LinkType = Literal[tuple(sorted(LINK_TYPES))]  # type: ignore[valid-type]


class Strict(BaseModel):
    """A request body: unknown fields are refused, and nothing is coerced ("yes" is not True, 1 is not "1").

    A lone surrogate (JSON can escape one, ``"\\ud800"``) is refused anywhere in the body: no store can
    hold it and no UTF-8 answer can carry it back, so it is a 422 before the library sees the call.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_lone_surrogates(cls, data: Any) -> Any:
        where = lone_surrogate_at(data)
        if where is not None:
            raise ValueError(f"{where or 'the body'} holds a lone surrogate (not a Unicode character)")
        return data


class TextBody(Strict):
    """A body whose text is ``content``, as on ``POST /v1/memories``; ``LEGACY_TEXT`` names the route's older
    spelling (``title`` on /v1/goals, ``text`` on /v1/decisions and /v1/manage, ``user`` on /v1/turns), still
    accepted in its place so existing clients keep working. Both at once is a 422."""

    LEGACY_TEXT: ClassVar[str] = ""

    @model_validator(mode="before")
    @classmethod
    def _legacy_text(cls, data: Any) -> Any:
        legacy = cls.LEGACY_TEXT
        if legacy and isinstance(data, dict) and legacy in data:
            if "content" in data:
                raise ValueError(f"give the text once: content (or its older name {legacy}), not both")
            data = {("content" if key == legacy else key): value for key, value in data.items()}
        return data


def legacy_text_field(name: str) -> Any:
    """The older name of ``content`` on a route, documented as deprecated (the validator moves it to content)."""
    return Field(None, deprecated=True, description=f"the older name of content, still accepted ({name})")


def lone_surrogate_at(value: Any, where: str = "") -> str | None:
    """The path (``metadata.note``) of the first string, key or value, that UTF-8 cannot encode; None if none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            found = lone_surrogate_at(key, inner) if isinstance(key, str) else None
            if found is None:
                found = lone_surrogate_at(item, inner)
            if found is not None:
                return found.encode("utf-8", "backslashreplace").decode("utf-8")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate_at(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None


# --------------------------------------------------------------------------- errors


class ErrorBody(BaseModel):
    type: str = Field(description="the Python error's class name: MemoryNotFound, LinkConflict, SecretDropped ...")
    message: str
    kinds: list[str] | None = Field(None, description="SecretDropped: what kind of secret was found")


class ErrorOut(BaseModel):
    error: ErrorBody


# --------------------------------------------------------------------------- memories


class RecordOut(BaseModel):
    """A memory: the one shape REST, RemoteMemory, the CLI's ``--json`` and the MCP tools show
    (:func:`kioko.views.memory_view`)."""

    id: str
    user_id: str
    agent_id: str | None = None
    kind: str = Field(description="the memory_type: factual, episodic, goal, decision ...")
    content: str
    metadata: dict[str, Any] = Field(description="exactly what the user stored (no bookkeeping of Kioko's)")
    session_id: str | None = None
    created_at: float
    updated_at: float
    version: int
    entities: list[str] = Field(default_factory=list, description="what the memory is about (entity keys)")
    linked_at: float | None = Field(None, description="when the linker last linked it; null: never")
    links: list[LinkOut] = Field(
        default_factory=list,
        description="its links, source -> target; the other memory's label and type where it was read",
    )


class KindOut(BaseModel):
    """One kind of memory, as the kind registry's row says (``GET /v1/kinds``; the console reads it)."""

    name: str = Field(description="what a memory of this kind stores as its kind (memory_type)")
    noun: str = Field(description="what link lines call it")
    called: str = Field(description="what a person calls it (messages, the console)")
    aliases: list[str] = Field(description="other memory_type spellings accepted for it")
    manager: str = Field(description="the layer's attribute that manages it (memory.goals)")
    path: str = Field(description="where its routes live (/v1/goals)")
    section: str = Field(description="the section of a recalled context it shows in")
    links: bool = Field(description="whether the linker links it")
    keyed: bool = Field(description="held by key (profile slots, working memory) rather than by text")
    operation: str | None = Field(description="the kind the intelligence's operations name it by (fact.add)")
    actions: list[str] = Field(description="what those operations may do (add, update, outcome ...)")
    colour: str = Field(description="its colour on the console and the graph page")


class BatchItem(Strict):
    content: str = Field(min_length=1)
    memory_type: str | None = None
    session_id: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: float | None = None
    id: str | None = Field(None, min_length=1, max_length=200)


class Page(BaseModel):
    items: list[RecordOut]
    next_cursor: str | None = Field(None, description="pass as cursor= for the next page; null on the last")


class Deleted(BaseModel):
    deleted: bool


class Count(BaseModel):
    deleted: int


class ForgottenOut(BaseModel):
    id: str
    kind: str
    content: str


class ForgetAboutOut(BaseModel):
    """What forgetting a subject removed (``dry_run``: would remove)."""

    subject: str
    dry_run: bool
    memories: list[ForgottenOut] = Field(description="every memory naming the subject")
    relations: list[str] = Field(description="the entity graph's triples of what the subject names, as lines")
    traces: list[str] = Field(description="summary points and waiting session turns naming it, described")
    deleted: int = Field(description="memories deleted (0 in a dry run)")


class Result(BaseModel):
    result: Any


# --------------------------------------------------------------------------- recall


class PlanIn(Strict):
    """A RecallPlan to follow as it is (``POST /v1/plan`` answers one in this form)."""

    intents: list[str] = Field(default_factory=list, max_length=20)
    reason: str = Field("a plan sent by the client", max_length=2000)
    section_limits: dict[str, int] = Field(default_factory=dict)
    links: int = Field(3, ge=0, le=50)
    fill_recent: list[str] = Field(default_factory=list, max_length=20)
    limit: int | None = Field(None, ge=1, le=200)


class PlanOut(BaseModel):
    intents: list[str]
    reason: str
    section_limits: dict[str, int]
    links: int
    fill_recent: list[str]
    limit: int | None = None


class LinkOut(BaseModel):
    """A link (:func:`kioko.views.link_view`): ``source`` -> ``target``, as ``type``; its author ``by``."""

    source: str
    target: str
    type: str
    weight: float
    why: str
    by: str
    at: float
    seen: float
    source_label: str = ""
    source_type: str = ""
    target_label: str = ""
    target_type: str = ""
    taken_from: str | None = None
    shared: bool = False
    line: str | None = Field(None, description="the sentence the link reads as (where both ends were read)")
    weight_now: float | None = Field(
        None,
        description="the weight after fading since it was last seen (GET .../links only; manual links keep theirs)",
    )


class RecalledOut(RecordOut):
    """A memory of a recall context: the memory's own fields, and how it was found."""

    score: float
    signals: dict[str, float]
    section: str


class SectionsOut(BaseModel):
    profile: list[RecordOut] = []
    instructions: list[RecordOut] = []
    relations: list[TripleOut] = []
    working: list[RecordOut] = []


class ContextOut(BaseModel):
    query: str
    text: str
    memories: list[RecalledOut]
    links: list[LinkOut]
    plan: PlanOut | None = Field(None, description="the plan recall followed (explicit options applied); null: none")
    sections: SectionsOut = Field(
        default_factory=SectionsOut,
        description="what the context shows besides its memories (with intelligence): the profile, the "
        "instructions, the entity graph's relations of what the query names, the session's working memory",
    )
    budget: int | None = Field(None, description="the tokens the text was fitted to (null: no budget)")
    tokens: int = Field(0, description="the text's size in tokens (characters / 4, rounded up)")
    cut: list[str] = Field([], description="ids of the memories the text shows only in part, ending in the cut marker")
    dropped: list[str] = Field([], description="ids of the memories the budget left out of the text and memories")


# --------------------------------------------------------------------------- graph


class Unlinked(BaseModel):
    unlinked: bool


class RelatedOut(RecordOut):
    """A connected memory: the memory's own fields, its activation and the chain of links to it."""

    score: float
    path: list[LinkOut]


class LinkScoreOut(BaseModel):
    score: float
    linked: bool
    type: str
    why: str
    signals: dict[str, float | bool]
    source: str = ""
    target: str = ""


class ConnectOut(BaseModel):
    memories: int
    links: int
    dropped: int
    duration_ms: float
    remaining: int = Field(0, description="memories a limit left for a later call (0 without a limit)")


class GraphOut(BaseModel):
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    stats: dict[str, Any]


class TripleOut(BaseModel):
    id: str
    subject: str
    relation: str
    object: str
    subject_key: str
    object_key: str
    valid_from: float
    valid_to: float | None = None
    source: str | None = None
    created_at: float


# --------------------------------------------------------------------------- service


class Health(BaseModel):
    status: str
    store: str | None = None


class ImportOut(BaseModel):
    records: int
    written: int
    unchanged: int


class WhoAmI(BaseModel):
    name: str = Field(description="the key's label (never the key)")
    admin: bool = Field(description="the key may act for every user")
    users: list[str] | None = Field(description="the users the key may act for, sorted; null for an admin key")
    agents: list[str] | None = Field(None, description="the only agents it may act for; null: any")


# --------------------------------------------------------------------------- requests, from the operations table


class Message(Strict):
    role: str = Field(min_length=1, max_length=50)
    content: str


PLAN = Literal["auto"] | bool | PlanIn | None
WIRE_TYPES: dict[str, Any] = {
    "items": list[BatchItem],
    "plan": PLAN,
    "type": LinkType,
    "manage.content": str | list[Message],
    "messages": str | list[Message],
}
"""The wire types the operations table leaves to the server (``surface.SCHEMA``): ``"call.name"`` or ``"name"``."""


def wire_type(call: str, param: operations.Param) -> Any:
    """The JSON type a parameter of ``call`` takes on the wire (its Python type, or the wire schema's)."""
    if param.type != operations.SCHEMA:
        return param.type
    own = operations.route(call).call
    return WIRE_TYPES.get(f"{own}.{param.wire}", WIRE_TYPES.get(param.wire))


def request_model(call: str, *, written_in: Mapping[str, type] | None = None) -> type[Strict]:
    """The JSON body of ``call``'s operation, built from its signature and its row of the operations table
    (:data:`kioko.api.operations.MEMORY_ROUTES`): one field per parameter the body carries."""
    if written_in is None:
        return _request_model(call)
    return _build(call, written_in)


@functools.cache
def _request_model(call: str) -> type[Strict]:
    model = _build(call, None)
    name = model.__name__
    other = _BY_NAME.setdefault(name, model)
    if other is not model:
        # one body shared by several operations (ScopeIn): the same fields, or the table is wrong
        if _shape(other) != _shape(model):
            raise TypeError(f"{call}: request model {name} differs from another operation's of that name")
        return other
    return model


_BY_NAME: dict[str, type[Strict]] = {}


def _shape(model: type[BaseModel]) -> list[tuple[str, str]]:
    return [(name, repr(info)) for name, info in model.model_fields.items()]


def _build(call: str, written_in: Mapping[str, type] | None) -> type[Strict]:
    found = operations.route(call)
    fields: dict[str, Any] = {}
    text: Any = None
    for param in operations.params(call, written_in=written_in):
        if param.where != "body":
            continue
        kind = wire_type(call, param)
        fields[param.wire] = (kind, Field(param.default, **param.field))
        if param.wire == "content":
            text = kind
    base: type[Strict] = Strict
    if found.legacy:
        # the route's older name of its text, still accepted (the validator moves it to content)
        fields[found.legacy] = (text | None, legacy_text_field(found.legacy))
        base = type(f"{found.model}Text", (TextBody,), {"LEGACY_TEXT": found.legacy, "__module__": __name__})
    name = found.model or "".join(part.capitalize() for part in found.call.replace(".", "_").split("_")) + "In"
    model: type[Strict] = create_model(name, __base__=base, __module__=__name__, **fields)
    return model
