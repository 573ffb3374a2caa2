"""The OpenAPI document lists the problem+json answers every operation can give (auth, limits, body guards), so
a client generated from it, or schemathesis, expects them on every route."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.config import Settings
from app.http.openapi import PROBLEM_SCHEMA, PROBLEMS, document_problems
from app.main import create_app

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


class Thing(BaseModel):
    name: str


def small_app() -> FastAPI:
    app = FastAPI()

    @app.post("/things")
    def create(thing: Thing) -> Thing:
        return thing

    @app.get("/things/{thing_id}")
    def read(thing_id: int) -> dict[str, int]:
        return {"id": thing_id}

    document_problems(app)
    return app


def test_every_operation_lists_each_problem_answer_as_problem_json() -> None:
    schema = small_app().openapi()
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert len(operations) == 2
    for op in operations:
        assert "200" in op["responses"], "the success answer is kept"
        for code, description in PROBLEMS.items():
            assert op["responses"][code] == {"description": description, "content": PROBLEM_CONTENT}
    assert schema["components"]["schemas"]["Problem"] == PROBLEM_SCHEMA


def test_fastapi_s_plain_validation_error_is_replaced_by_the_problem() -> None:
    schema = small_app().openapi()
    create = schema["paths"]["/things"]["post"]
    assert "application/json" not in create["responses"]["422"]["content"]
    assert "HTTPValidationError" not in str(create["responses"])


def test_the_document_is_built_once() -> None:
    app = small_app()
    assert app.openapi() is app.openapi()


def test_the_served_api_documents_rate_limits_and_auth_on_its_routes(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        schema = client.get("/openapi.json").json()
    create = schema["paths"]["/v1/evaluations"]["post"]["responses"]
    assert "Retry-After" in create["429"]["description"] and create["401"]["content"] == PROBLEM_CONTENT
    assert schema["components"]["schemas"]["Problem"]["required"] == ["type", "title", "status", "detail"]
