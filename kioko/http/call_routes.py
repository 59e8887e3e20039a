"""Routes derived from the operations table: ``@serve_call(router, "graph.link", ...)`` serves a call of
:class:`kioko.Memory` at its row's verb and path, with the parameters its signature and row give.

The decorated handler receives the service, the caller and the call's arguments under their Python names
(``{"a": ..., "b": ..., "type": ..., "user_id": ...}``), ready for ``svc.layer.graph.link(**args)``; it
checks the scope and shapes the answer. It writes no parameter itself: a new keyword of the call arrives in
``args`` with the rest.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Body, Depends, Query, Request

import kioko.http.schemas as schemas
from kioko.api import operations
from kioko.api.auth import Principal
from kioko.http.deps import Service, principal, service

Handler = TypeVar("Handler", bound=Callable[..., Any])

SERVED: dict[str, str] = {}
"""call -> the endpoint that serves it (each derived route registers here; a test compares it with the table)."""


def serve_call(router: APIRouter, call: str, **route: Any) -> Callable[[Handler], Handler]:
    """Serve ``call`` (``handler(svc, who, args)``) at its operation's verb and path on ``router``."""
    found = operations.route(call)
    if found.call != call or found.composed:
        raise TypeError(f"{call} is not an operation the table derives (alias or composed)")
    wanted = operations.params(call)
    model = schemas.request_model(call) if any(p.where == "body" for p in wanted) else None
    signature = [
        inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request),
        inspect.Parameter("svc", inspect.Parameter.KEYWORD_ONLY, default=Depends(service), annotation=Service),
        inspect.Parameter("who", inspect.Parameter.KEYWORD_ONLY, default=Depends(principal), annotation=Principal),
    ]
    for param in wanted:
        if param.where == "path":
            signature.append(inspect.Parameter(param.wire, inspect.Parameter.KEYWORD_ONLY, annotation=str))
        elif param.where == "query":
            signature.append(
                inspect.Parameter(
                    param.wire,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=param.type,
                    default=Query(param.default, **param.field),
                )
            )
    if model is not None:
        signature.append(inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=model, default=Body()))
    legacy = found.legacy
    path = found.path.removeprefix(router.prefix)

    def register(handler: Handler) -> Handler:
        wants_request = "request" in inspect.signature(handler).parameters

        def endpoint(**given: Any) -> Any:
            request, svc, who = given.pop("request"), given.pop("svc"), given.pop("who")
            body = given.pop("body", None)
            if body is not None:
                given.update(body.model_dump(exclude={legacy} if legacy else None))
            args = operations.to_library(call, given)
            return handler(svc, who, args, request) if wants_request else handler(svc, who, args)

        endpoint.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
        endpoint.__name__ = handler.__name__  # the operation's id in the API document stays the handler's
        endpoint.__doc__ = handler.__doc__
        router.add_api_route(path, endpoint, methods=[found.verb], **route)
        SERVED[call] = handler.__name__
        return handler

    return register
