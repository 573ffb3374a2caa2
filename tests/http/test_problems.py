"""Every refusal the API gives is RFC 9457 problem+json naming the input at fault: validation errors, the HTTP
edge's own problems, routing misses and a database that is away (a 503 to retry, never a 500).

How each domain error maps to its status is covered in tests/test_errors.py, beside app/errors.py."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Query
from fastapi.testclient import TestClient
from pydantic import BaseModel, Field
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from app.http.problems import DATABASE_RETRY_AFTER_S, PROBLEM_JSON, Problem, install_problem_handlers


class Limits(BaseModel):
    concurrency: int = Field(ge=1)


class Body(BaseModel):
    name: str
    limits: Limits


def app_with_routes(tmp_path: Path) -> FastAPI:
    app = FastAPI()
    install_problem_handlers(app)

    @app.post("/things")
    def create(body: Body) -> dict[str, str]:
        return {"name": body.name}

    @app.get("/things")
    def listing(limit: int = Query(10, le=100)) -> dict[str, int]:
        return {"limit": limit}

    @app.get("/edge")
    def edge() -> None:
        raise Problem(
            401, "Unauthorized", "no API key", field="Authorization", headers={"WWW-Authenticate": "Bearer"}
        )

    @app.get("/database-away")
    def database_away() -> None:
        missing = tmp_path / "no such dir" / "helmbench.db"
        with create_engine(f"sqlite:///{missing}").connect() as conn:  # a real OperationalError: cannot open
            conn.execute(text("select 1"))

    @app.get("/database-refused")
    def database_refused() -> None:
        raise IntegrityError("insert", {}, Exception("UNIQUE constraint failed"))

    return app


def test_a_nested_body_field_is_named_by_its_path_with_every_error_listed(tmp_path: Path) -> None:
    with TestClient(app_with_routes(tmp_path)) as client:
        response = client.post("/things", json={"limits": {"concurrency": 0}})
    body = response.json()
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM_JSON
    assert {e["field"] for e in body["errors"]} == {"name", "limits.concurrency"}
    assert body["field"] == body["errors"][0]["field"] and body["detail"].startswith(body["field"] + ": ")
    assert body["instance"] == "/things" and body["title"] == "Invalid request"


def test_a_query_parameter_is_named_without_where_it_came_from(tmp_path: Path) -> None:
    with TestClient(app_with_routes(tmp_path)) as client:
        response = client.get("/things", params={"limit": 1000})
    assert response.status_code == 422 and response.json()["field"] == "limit"


def test_a_problem_raised_at_the_edge_keeps_its_field_and_headers(tmp_path: Path) -> None:
    with TestClient(app_with_routes(tmp_path)) as client:
        response = client.get("/edge")
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert response.json() == {
        "type": "/problems/unauthorized",
        "title": "Unauthorized",
        "status": 401,
        "detail": "no API key",
        "instance": "/edge",
        "field": "Authorization",
    }


def test_unknown_paths_and_methods_answer_as_problems_with_allow(tmp_path: Path) -> None:
    with TestClient(app_with_routes(tmp_path)) as client:
        missing = client.get("/nothing-here")
        wrong_method = client.delete("/things")
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM_JSON
    assert missing.json()["title"] == "Not found"
    assert wrong_method.status_code == 405 and wrong_method.json()["title"] == "Method not allowed"
    assert "POST" in wrong_method.headers["allow"]  # the router's header survives the problem body


def test_a_database_that_is_away_is_a_503_to_retry_and_names_no_path(tmp_path: Path) -> None:
    with TestClient(app_with_routes(tmp_path), raise_server_exceptions=False) as client:
        away = client.get("/database-away")
        refused = client.get("/database-refused")
    assert away.status_code == 503 and away.headers["retry-after"] == str(DATABASE_RETRY_AFTER_S)
    assert away.headers["content-type"] == PROBLEM_JSON and "no such dir" not in away.text
    assert refused.status_code == 500, "a constraint violation is a bug to see, not an outage to wait out"
