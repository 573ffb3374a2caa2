"""A domain error raised anywhere under a route answers as the same problem+json it always did: its status
and title, the detail and field as raised, Retry-After when it says when to come back."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import errors
from app.http.problems import install_problem_handlers


def client_raising(exc: errors.DomainError) -> TestClient:
    app = FastAPI()
    install_problem_handlers(app)

    @app.get("/x")
    def raise_it() -> None:
        raise exc

    return TestClient(app)


@pytest.mark.parametrize(
    ("exc", "status", "title"),
    [
        (errors.NotFound("key_id", "no key 'k'"), 404, "Not found"),
        (errors.Conflict("b", "b: another version"), 409, "Conflict"),
        (errors.Invalid("repeats", "repeats: at most 5"), 422, "Invalid request"),
        (errors.Unreadable("cursor", "cursor: not a cursor this API issued"), 400, "Bad request"),
        (errors.TooLarge("body", "body: more than 3 lines", limit=3), 413, "Content too large"),
        (errors.Stalled("body", "no upload data for 5 s"), 408, "Request timeout"),
        (
            errors.TooMany("status", "the team already has 3 running", retry_after_s=30),
            429,
            "Too many requests",
        ),
        (
            errors.Unavailable(None, "the limiter is not answering", retry_after_s=5),
            503,
            "Service unavailable",
        ),
    ],
)
def test_each_domain_error_answers_with_its_status_title_detail_and_field(
    exc: errors.DomainError, status: int, title: str
) -> None:
    with client_raising(exc) as client:
        response = client.get("/x")
    body = response.json()
    assert response.status_code == status and response.headers["content-type"] == "application/problem+json"
    assert (body["status"], body["title"], body["detail"], body.get("field")) == (
        status,
        title,
        exc.detail,
        exc.field,
    )
    assert response.headers.get("retry-after") == (str(exc.retry_after_s) if exc.retry_after_s else None)
    assert all(body[k] == v for k, v in exc.extra.items())


def test_one_line_names_the_field_when_there_is_one() -> None:
    assert errors.one_line(errors.NotFound("--team", "no team 'x'")) == "no team 'x' [--team]"
    assert errors.one_line(errors.Unavailable(None, "down")) == "down"
