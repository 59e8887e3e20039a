"""Routes of the typed managers (``/v1/goals``, ``/v1/decisions`` ... ``/v1/profile``, ``/v1/working``).

Built from :data:`kioko.api.operations.OPERATIONS`: each route's body or query parameters are the
method's own keyword arguments, so the OpenAPI schema documents exactly what the Python call takes.
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import APIRouter, Body, Depends, Path, Query
from pydantic import create_model

import kioko.http.schemas as schemas
from kioko.api import operations
from kioko.api.auth import Principal
from kioko.api.wire import record_out
from kioko.http.deps import ERROR_RESPONSES, Service, authorized, principal, service
from kioko.http.routes import _event, context_from_ids
from kioko_core.kinds.registry import KINDS

EVENTS = {
    "add": "memory.added",
    "delete": "memory.deleted",
    "remove": "memory.deleted",
    "clear": "memory.deleted",
    "set": "memory.updated",
}


def build_router() -> APIRouter:
    """The routes of the kinds' managers, one per operation of the table, and ``/v1/kinds``."""
    router = APIRouter(responses=ERROR_RESPONSES)
    router.add_api_route(
        "/v1/kinds", list_kinds, methods=["GET"], tags=["memories"], response_model=list[schemas.KindOut], name="kinds"
    )
    for op in operations.OPERATIONS:
        _add_route(router, op)
    return router


def list_kinds() -> list[dict[str, Any]]:
    """The kinds of memory this server stores, from the kind registry: names, routes, operations, colours.

    Open like ``/healthz``: it is the same for every user and holds no memory, and the console reads it before
    it has a key."""
    return [
        {
            "name": info.name,
            "noun": info.noun,
            "called": info.called,
            "aliases": list(info.aliases),
            "manager": info.manager,
            "path": f"/v1/{operations.URL_NAME.get(info.manager, info.manager)}",
            "section": info.section,
            "links": info.links,
            "keyed": info.keyed,
            "operation": info.op,
            "actions": list(info.actions) if info.op else [],
            "colour": info.colour,
        }
        for info in KINDS
    ]


def _response_model(kind: str) -> Any:
    return {
        "record": schemas.RecordOut,
        "records": list[schemas.RecordOut],
        "record?": schemas.RecordOut | None,
        "value": schemas.Result,
    }[kind]


def _add_route(router: APIRouter, op: operations.Operation) -> None:
    sig = operations.signature(op)
    hints = operations.wire_hints(op)
    kind = operations.returns(op)
    params = [
        inspect.Parameter("svc", inspect.Parameter.KEYWORD_ONLY, default=Depends(service), annotation=Service),
        inspect.Parameter("who", inspect.Parameter.KEYWORD_ONLY, default=Depends(principal), annotation=Principal),
    ]
    for name in op.path_params:
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=str, default=Path(min_length=1, max_length=200)
            )
        )
    in_body = op.verb in ("POST", "PUT", "PATCH")
    text = _text_param(sig, hints) if in_body else None
    if in_body:
        fields: dict[str, Any] = {}
        for name, hint in hints.items():
            default = sig.parameters[name].default
            required = default is inspect.Parameter.empty or name == "user_id"
            if name == text:
                # the text travels as content, as on POST /v1/memories; the method's own name stays an alias
                fields["content"] = (hint, ... if required else default)
                fields[name] = (hint | None, schemas.legacy_text_field(name))
                continue
            fields[name] = (hint, schemas.UserId if name == "user_id" else ... if required else default)
        base: type[schemas.Strict] = (
            type("TextIn", (schemas.TextBody,), {"LEGACY_TEXT": text}) if text else schemas.Strict
        )
        model = create_model(f"{_camel(op.manager)}{_camel(op.method)}In", __base__=base, **fields)
        params.append(inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=model, default=Body()))
    else:
        for name, hint in hints.items():
            default = sig.parameters[name].default
            default = ... if default is inspect.Parameter.empty or name == "user_id" else default
            query = (
                Query(default, min_length=1, max_length=200, description=schemas.USER_ID_HELP)
                if name == "user_id"
                else Query(default, min_length=1, max_length=200)
                if name in ("agent_id", "session_id")
                else Query(default)
            )
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=query))

    def endpoint(**given: Any) -> Any:
        svc: Service = given.pop("svc")
        who: Principal = given.pop("who")
        if in_body:
            body = given.pop("body")
            given.update({k: getattr(body, k) for k in body.model_fields_set})
            if text is not None and "content" in given:
                given[text] = given.pop("content")
            given.setdefault("user_id", body.user_id)
        scope = authorized(who, given.get("user_id"), given.get("agent_id"))
        if op.method == "outcome" and given.get("context") is not None:
            given["context"] = context_from_ids(svc.layer, scope, given["context"])
        call = getattr(getattr(svc.layer, op.manager), op.method)
        if op.write:
            with svc.write_lock:
                result = call(**given)
            _notify(svc, op, given, result)
        else:
            result = call(**given)
        return _out(kind, result)

    endpoint.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    endpoint.__name__ = f"{op.manager}_{op.method}"
    endpoint.__doc__ = _summary(op)
    tag = "memories"
    router.add_api_route(
        op.url,
        endpoint,
        methods=[op.verb],
        tags=[tag],
        response_model=_response_model(kind),
        status_code=201 if op.method == "add" else 200,
        name=op.name,
        operation_id=f"{op.manager}_{op.method}",
    )


def _text_param(sig: inspect.Signature, hints: dict[str, Any]) -> str | None:
    """The parameter that travels as ``content``: the call's positional text (``goals.add(title)``,
    ``decisions.add(text)``, ``decisions.supersede(old_id, text)``), else an update's ``text``."""
    for param in sig.parameters.values():
        if param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and param.name in hints:
            return param.name if param.name in ("title", "text") else None
    return "text" if "text" in hints else None


def _out(kind: str, result: Any) -> Any:
    if kind == "record":
        return record_out(result)
    if kind == "records":
        return [record_out(r) for r in result]
    if kind == "record?":
        return record_out(result) if result is not None else None
    return {"result": result}


def _notify(svc: Service, op: operations.Operation, given: dict[str, Any], result: Any) -> None:
    user_id, agent_id = given.get("user_id"), given.get("agent_id")
    if hasattr(result, "content") and hasattr(result, "user_id"):
        _event(svc, EVENTS.get(op.method, "memory.updated"), result)
    elif result:
        svc.emit(
            "memory.deleted",
            {
                "user_id": user_id,
                "agent_id": agent_id,
                "id": given.get("memory_id"),
                "manager": op.manager,
                "call": op.method,
            },
        )


def _summary(op: operations.Operation) -> str:
    doc = inspect.getdoc(getattr(operations.manager_class(op.manager), op.method)) or ""
    return f"``memory.{op.manager}.{op.method}``: {doc}"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
