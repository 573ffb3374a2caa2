"""Our OpenAPI documents, per operation, the problem+json answers it can really give, so clients (and
schemathesis) can rely on them: derived from what the route depends on (a key: 401, 403, 429, 503; a path id:
404; a body: 400, 408, 413, 422) plus what the route declares itself (`problems(409, 410)`)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from app.deps import get_current_key, get_platform_admin, get_session, get_state
from app.http import examples
from app.http.event_docs import event_schemas
from app.http.problem_types import TYPES, UNKNOWN_TYPE

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "RFC 9457 problem details; `field` names the input at fault.",
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {
            "type": "string",
            "format": "uri-reference",
            "enum": [*TYPES, UNKNOWN_TYPE],
            "description": "The kind of problem, to branch on; GET it (resolved against the API's address) for "
            "what it means. about:blank: a status no kind covers.",
        },
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "field": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}
PROBLEMS = {
    "400": "Malformed request (e.g. a JSON body that is not UTF-8)",
    "401": "Missing, unknown or revoked API key",
    "403": "The key's role does not allow this",
    "404": "Not found (also: another team's resource)",
    "408": "The request body did not arrive in time",
    "409": "Conflict with the resource's state",
    "410": "Deleted on purpose: its transcripts were erased (only the report was kept)",
    "413": "Request body too large",
    "415": "The body is not of a media type this operation takes",
    "422": "Invalid request; `field` names the input at fault",
    "429": "Rate or concurrency limit; see Retry-After",
    "503": "A service dependency is unreachable (the database, or with workers Redis, which keeps the rate "
    "limits); see Retry-After",
}
REF = {"$ref": "#/components/schemas/Problem"}
_READS = frozenset({"GET", "HEAD"})


def operation_id(route: APIRoute) -> str:
    """An operation's id is its handler's name (`create_target`, `get_evaluation_report`): readable, and stable
    for a generated client as long as the handler keeps its name (tests/http/test_openapi.py pins the list)."""
    return route.name


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    """A route's own problem answers, beyond what its dependencies imply: `responses=problems(409, 410)`."""
    return {code: {"description": PROBLEMS[str(code)]} for code in codes}


# Answers served with an ETag: a client that sends it back in If-None-Match gets this, with no body.
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not modified: the ETag sent in If-None-Match still holds (no body)."}
}


def _calls(dependant: Dependant) -> set[Any]:
    """Every dependency callable the route resolves, however deep."""
    found: set[Any] = set()
    for dep in dependant.dependencies:
        found.add(dep.call)
        found |= _calls(dep)
    return found


def _params(dependant: Dependant) -> bool:
    """Whether any path, query, header, cookie or body parameter can fail validation."""
    own = (
        dependant.path_params,
        dependant.query_params,
        dependant.header_params,
        dependant.cookie_params,
        dependant.body_params,
    )
    return any(own) or any(_params(dep) for dep in dependant.dependencies)


def _needs_role(call: Any) -> bool:
    return call is get_platform_admin or getattr(call, "__qualname__", "").startswith("require_role.")


def derived_problems(route: APIRoute | RouteContext, method: str) -> set[str]:
    """The problem statuses a route's signature implies; what its handler adds, it declares with problems()."""
    calls = _calls(route.dependant)
    codes: set[str] = set()
    if get_current_key in calls:  # the key check: unknown, its rate, Redis holding that rate, its role
        codes |= {"401", "429", "503"}
        if method not in _READS or any(_needs_role(c) for c in calls):
            codes.add("403")
    if calls & {get_session, get_state}:  # the database, down or restarting
        codes.add("503")
    if route.dependant.path_params:
        codes.add("404")
    if route.body_field is not None:  # a JSON body: unreadable, slow, too large, invalid
        codes |= {"400", "408", "413", "422"}
    elif (route.openapi_extra or {}).get("requestBody"):  # a body read as it streams in
        codes |= {"408", "413"}
    if _params(route.dependant):
        codes.add("422")
    return codes


def document_problems(app: FastAPI) -> None:
    """Wrap app.openapi so each operation lists its problem answers, replacing FastAPI's plain-JSON 422."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
        for name in ("HTTPValidationError", "ValidationError"):  # replaced by the problem everywhere
            schema["components"]["schemas"].pop(name, None)
        for name, model_schema in event_schemas().items():
            schema["components"]["schemas"].setdefault(name, model_schema)
        routes = {  # each route as included (its prefix, its router's dependencies)
            (route.path_format, method.lower()): route
            for route in iter_route_contexts(app.routes)
            if isinstance(route.original_route, APIRoute) and route.include_in_schema
            for method in route.methods
        }
        for path, operations in schema.get("paths", {}).items():
            for method, op in operations.items():
                responses = op.setdefault("responses", {})
                route = routes.get((path, method))
                codes = derived_problems(route, method.upper()) if route else set()
                codes |= {code for code in responses if code in PROBLEMS}  # what the route declared
                if "422" in responses and "422" not in codes:
                    del responses["422"]
                for code in sorted(codes):
                    responses[code] = {
                        "description": PROBLEMS[code],
                        "content": {"application/problem+json": {"schema": REF}},
                    }
        for (method, path, code), example in examples.RESPONSES.items():
            op = schema.get("paths", {}).get(path, {}).get(method)
            if op:  # an app built of other routes (a test's) has none of ours
                op["responses"][code]["content"]["application/json"]["example"] = example
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
