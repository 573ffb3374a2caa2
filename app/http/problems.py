"""Errors as RFC 9457 problem+json, naming the field at fault."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import (
    Conflict,
    DomainError,
    Gone,
    Invalid,
    NotFound,
    Stalled,
    TooLarge,
    TooMany,
    Unavailable,
    Unreadable,
)
from app.http.problem_types import problem_type
from app.store.retry import is_transient

PROBLEM_JSON = "application/problem+json"
DATABASE_RETRY_AFTER_S = 5  # a dropped connection or a database restart usually passes within seconds


class Problem(Exception):
    """Raise from the HTTP edge for what only HTTP knows (a header, a media type, readiness); the domain raises
    app.errors instead, which `problem_of` turns into one of these."""

    def __init__(
        self,
        status: int,
        title: str,
        detail: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ):
        super().__init__(detail)
        self.status, self.title, self.detail, self.field = status, title, detail, field
        self.headers = headers
        self.extra = extra


# The status and title of each domain error, the most specific class first (Unreadable is also Invalid).
DOMAIN_STATUSES: tuple[tuple[type[DomainError], int, str], ...] = (
    (NotFound, 404, "Not found"),
    (Conflict, 409, "Conflict"),
    (Gone, 410, "Gone"),
    (Unreadable, 400, "Bad request"),
    (Invalid, 422, "Invalid request"),
    (TooLarge, 413, "Content too large"),
    (Stalled, 408, "Request timeout"),
    (TooMany, 429, "Too many requests"),
    (Unavailable, 503, "Service unavailable"),
)


def problem_of(exc: DomainError) -> Problem:
    """The problem document a domain error answers with: its status and title, its detail and field as raised."""
    status, title = next(
        ((s, t) for kind, s, t in DOMAIN_STATUSES if isinstance(exc, kind)), (400, "Bad request")
    )
    headers = {"Retry-After": str(exc.retry_after_s)} if exc.retry_after_s is not None else None
    return Problem(status, title, exc.detail, field=exc.field, headers=headers, **exc.extra)


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or str(loc[-1] if loc else "body")


def install_problem_handlers(app: FastAPI) -> None:
    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> JSONResponse:
        return _problem_response(request, exc)

    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> JSONResponse:
        return _problem_response(request, problem_of(exc))

    def _problem_response(request: Request, exc: Problem) -> JSONResponse:
        body = {
            "type": problem_type(exc.status),
            "title": exc.title,
            "status": exc.status,
            "detail": exc.detail,
            "instance": request.url.path,
            **({"field": exc.field} if exc.field else {}),
            **exc.extra,
        }
        return JSONResponse(body, status_code=exc.status, media_type=PROBLEM_JSON, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": _field_name(tuple(e.get("loc", ()))), "message": e.get("msg", "invalid")}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"field": "body", "message": "invalid request"}
        body = {
            "type": problem_type(422),
            "title": "Invalid request",
            "status": 422,
            "detail": f"{first['field']}: {first['message']}",
            "instance": request.url.path,
            "field": first["field"],
            "errors": errors,
        }
        return JSONResponse(body, status_code=422, media_type=PROBLEM_JSON)

    @app.exception_handler(SQLAlchemyError)
    async def _database(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        """The database unreachable (an outage, a restart, a full pool): 503 and when to retry, not a 500."""
        if not is_transient(exc):
            raise exc
        body = {
            "type": problem_type(503),
            "title": "Service unavailable",
            "status": 503,
            "detail": "the database is unreachable; nothing was lost, try again shortly",
            "instance": request.url.path,
        }
        headers = {"Retry-After": str(DATABASE_RETRY_AFTER_S)}
        return JSONResponse(body, status_code=503, media_type=PROBLEM_JSON, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed"}
        body = {
            "type": problem_type(exc.status_code),
            "title": titles.get(exc.status_code, "Error"),
            "status": exc.status_code,
            "detail": str(exc.detail),
            "instance": request.url.path,
        }
        return JSONResponse(
            body, status_code=exc.status_code, media_type=PROBLEM_JSON, headers=getattr(exc, "headers", None)
        )
