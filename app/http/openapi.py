"""Our OpenAPI documents the problem+json answers every operation can give, so clients (and schemathesis) can
rely on them: auth, limits and body guards apply to every route, not just the ones that mention them."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

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
    "422": "Invalid request; `field` names the input at fault",
    "429": "Rate or concurrency limit; see Retry-After",
    "503": "A service dependency is unreachable (scale-out: Redis, which keeps the rate limits); see Retry-After",
}
REF = {"$ref": "#/components/schemas/Problem"}


def operation_id(route: APIRoute) -> str:
    """An operation's id is its handler's name (`create_target`, `get_evaluation_report`): readable, and stable
    for a generated client as long as the handler keeps its name (tests/http/test_openapi.py pins the list)."""
    return route.name


def document_problems(app: FastAPI) -> None:
    """Wrap app.openapi so each operation lists the problem answers, replacing FastAPI's plain-JSON 422."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
        for operations in schema.get("paths", {}).values():
            for op in operations.values():
                responses = op.setdefault("responses", {})
                for code, description in PROBLEMS.items():
                    responses[code] = {
                        "description": description,
                        "content": {"application/problem+json": {"schema": REF}},
                    }
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
