"""The OpenAPI document: a schema for every JSON answer, per operation the problem+json answers it can really
give (derived from what the route depends on), event streams with their events, exports with their media types,
so a client generated from it (or schemathesis) can trust it."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.config import Settings
from app.deps import CurrentKey, get_session
from app.http.openapi import PROBLEM_SCHEMA, PROBLEMS, document_problems, problems
from app.main import create_app
from tests.conftest import write_mini_library

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


class Thing(BaseModel):
    name: str


def small_app() -> FastAPI:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"ping": "pong"}

    @app.post("/things", responses=problems(409))
    def create(thing: Thing, key: CurrentKey) -> Thing:
        return thing

    @app.get("/things/{thing_id}", dependencies=[Depends(get_session)])
    def read(thing_id: int) -> dict[str, int]:
        return {"id": thing_id}

    document_problems(app)
    return app


def _codes(op: dict[str, Any]) -> set[str]:
    return {code for code in op["responses"] if code in PROBLEMS}


def test_each_operation_lists_the_problems_its_dependencies_and_declarations_imply() -> None:
    schema = small_app().openapi()
    paths = schema["paths"]
    assert _codes(paths["/ping"]["get"]) == set(), "no key, no body, no database: nothing can go wrong"
    assert _codes(paths["/things"]["post"]) == {"400", "401", "403", "408", "409", "413", "422", "429", "503"}
    assert _codes(paths["/things/{thing_id}"]["get"]) == {"404", "422", "503"}
    for op in (paths["/things"]["post"], paths["/things/{thing_id}"]["get"]):
        assert "200" in op["responses"], "the success answer is kept"
        for code in _codes(op):
            assert op["responses"][code] == {"description": PROBLEMS[code], "content": PROBLEM_CONTENT}
    assert schema["components"]["schemas"]["Problem"] == PROBLEM_SCHEMA


def test_fastapi_s_plain_validation_error_is_replaced_by_the_problem() -> None:
    schema = small_app().openapi()
    create = schema["paths"]["/things"]["post"]
    assert "application/json" not in create["responses"]["422"]["content"]
    assert "HTTPValidationError" not in str(schema)


def test_the_document_is_built_once() -> None:
    app = small_app()
    assert app.openapi() is app.openapi()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """/openapi.json as the app serves it."""
    root = tmp_path_factory.mktemp("openapi")
    settings = Settings(
        var_dir=root / "var", data_dir=write_mini_library(root / "data"), database_url=None, redis_url=None
    )
    with TestClient(create_app(settings)) as client:
        return client.get("/openapi.json").json()


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op) for path, item in schema["paths"].items() for method, op in item.items()
    ]


def test_the_served_api_documents_rate_limits_and_auth_on_its_routes(served: dict[str, Any]) -> None:
    create = served["paths"]["/v1/evaluations"]["post"]["responses"]
    assert "Retry-After" in create["429"]["description"] and create["401"]["content"] == PROBLEM_CONTENT
    assert served["components"]["schemas"]["Problem"]["required"] == ["type", "title", "status", "detail"]


def test_every_json_answer_has_a_schema_of_its_own(served: dict[str, Any]) -> None:
    untyped = []
    for method, path, op in operations(served):
        for code, response in op["responses"].items():
            json_schema = response.get("content", {}).get("application/json", {}).get("schema")
            if code.startswith("2") and json_schema is not None:
                target = json_schema.get("items", json_schema)
                if "$ref" not in target and "anyOf" not in target:
                    untyped.append(f"{method} {path} {code}: {json_schema}")
    assert untyped == []
    for method, path in [("GET", "/v1/evaluations/{evaluation_id}/report"), ("GET", "/v1/compare")]:
        assert served["paths"][path][method.lower()]["responses"]["200"]["content"]["application/json"][
            "schema"
        ]


def test_problems_listed_are_the_ones_an_operation_can_give(served: dict[str, Any]) -> None:
    paths = served["paths"]
    assert _codes(paths["/healthz"]["get"]) == set()
    assert _codes(paths["/v1/benchmark"]["get"]) == set()
    assert _codes(paths["/readyz"]["get"]) == {"503"}
    for method, path, op in operations(served):
        codes = _codes(op)
        public = path in ("/healthz", "/readyz", "/v1/benchmark") or path.startswith("/v1/leaderboard")
        assert ("401" in codes) is not public, (method, path)
        if method == "GET":
            assert not codes & {"408", "413"}, (method, path, "a GET has no body to be slow or large")
        else:
            assert "403" in codes, (method, path, "a read-only key may not write")
        if "{" in path:
            assert "404" in codes, (method, path)
    assert "409" in _codes(paths["/v1/evaluations/{evaluation_id}/cancel"]["post"])
    assert "410" in _codes(paths["/v1/evaluations/{evaluation_id}/results"]["get"])
    assert "415" in _codes(paths["/v1/grade/batches"]["post"])
    assert "403" not in _codes(paths["/v1/evaluations"]["get"]) and "403" in _codes(paths["/v1/keys"]["get"])


@pytest.mark.parametrize(
    ("path", "model"),
    [
        ("/v1/evaluations/{evaluation_id}/events", "EvaluationProgress"),
        ("/v1/grade/batches/{batch_id}/events", "GradeBatchPublic"),
    ],
)
def test_event_streams_name_each_event_and_its_data_schema(
    served: dict[str, Any], path: str, model: str
) -> None:
    ok = served["paths"][path]["get"]["responses"]["200"]
    assert set(ok["content"]) == {"text/event-stream"}
    events = ok["content"]["text/event-stream"]["x-events"]
    assert set(events) == {"progress", "end"}
    for name, event in events.items():
        assert event["data"] == {"$ref": f"#/components/schemas/{model}"}
        assert f"`{name}`" in ok["description"] and model in ok["description"]
    assert served["components"]["schemas"][model]["properties"]["status"]


# A generated client names its methods after these: changing one breaks every client built before. Change with care.
OPERATION_IDS = {
    ("POST", "/v1/evaluations/{evaluation_id}/labels"): "add_labels",
    ("GET", "/v1/grade/batches/{batch_id}/events"): "batch_events",
    ("POST", "/v1/evaluations/{evaluation_id}/cancel"): "cancel_evaluation",
    ("GET", "/v1/compare"): "compare_evaluations",
    ("POST", "/v1/keys"): "create_key",
    ("POST", "/v1/evaluations/{evaluation_id}/shares"): "create_share",
    ("GET", "/v1/evaluations/{evaluation_id}/shares"): "list_shares",
    ("DELETE", "/v1/evaluations/{evaluation_id}/shares/{share_id}"): "revoke_share",
    ("POST", "/v1/schedules"): "create_schedule",
    ("POST", "/v1/targets"): "create_target",
    ("POST", "/v1/teams"): "create_team",
    ("POST", "/v1/webhooks"): "create_webhook",
    ("DELETE", "/v1/evaluations/{evaluation_id}"): "delete_evaluation",
    ("DELETE", "/v1/grade/batches/{batch_id}"): "delete_batch",
    ("GET", "/v1/audit"): "list_audit",
    ("PATCH", "/v1/teams/{team_id}"): "update_team",
    ("POST", "/v1/targets/{target_id}/probe"): "probe_target",
    ("DELETE", "/v1/schedules/{schedule_id}"): "delete_schedule",
    ("DELETE", "/v1/targets/{target_id}"): "delete_target",
    ("DELETE", "/v1/webhooks/{webhook_id}"): "delete_webhook",
    ("GET", "/v1/evaluations/{evaluation_id}/events"): "evaluation_events",
    ("GET", "/v1/grade/batches/{batch_id}/export"): "export_batch",
    ("GET", "/v1/evaluations/{evaluation_id}/export"): "export_evaluation",
    ("GET", "/v1/grade/batches/{batch_id}"): "get_batch",
    ("GET", "/v1/grade/batches/{batch_id}/errors"): "get_batch_errors",
    ("GET", "/v1/grade/batches/{batch_id}/report"): "get_batch_report",
    ("GET", "/v1/grade/batches/{batch_id}/results"): "get_batch_results",
    ("GET", "/v1/benchmark"): "get_benchmark",
    ("GET", "/v1/evaluations/{evaluation_id}"): "get_evaluation",
    ("GET", "/v1/evaluations/{evaluation_id}/report"): "get_evaluation_report",
    ("GET", "/v1/evaluations/{evaluation_id}/results"): "get_evaluation_results",
    ("GET", "/v1/keys/{key_id}"): "get_key",
    ("GET", "/v1/leaderboard"): "get_leaderboard",
    ("GET", "/v1/leaderboard/{evaluation_id}/report"): "get_public_report",
    ("GET", "/v1/leaderboard/{evaluation_id}/results"): "get_public_results",
    ("GET", "/v1/schedules/{schedule_id}"): "get_schedule",
    ("GET", "/v1/targets/{target_id}"): "get_target",
    ("GET", "/v1/teams/{team_id}"): "get_team",
    ("POST", "/v1/grade"): "grade",
    ("GET", "/healthz"): "healthz",
    ("GET", "/v1/webhooks/{webhook_id}/deliveries"): "list_deliveries",
    ("GET", "/v1/evaluations"): "list_evaluations",
    ("GET", "/v1/keys"): "list_keys",
    ("GET", "/v1/regressions"): "list_regressions",
    ("GET", "/v1/schedules"): "list_schedules",
    ("GET", "/v1/targets/{target_id}/versions"): "list_target_versions",
    ("GET", "/v1/targets"): "list_targets",
    ("GET", "/v1/teams"): "list_teams",
    ("GET", "/v1/webhooks"): "list_webhooks",
    ("GET", "/readyz"): "readyz",
    ("DELETE", "/v1/keys/{key_id}"): "revoke_key",
    ("POST", "/v1/evaluations"): "start_evaluation",
    ("PATCH", "/v1/schedules/{schedule_id}"): "update_schedule",
    ("PATCH", "/v1/targets/{target_id}"): "update_target",
    ("POST", "/v1/grade/batches"): "upload_batch",
}


def test_operation_ids_are_readable_unique_and_stay_what_clients_were_built_on(settings: Settings) -> None:
    schema = create_app(settings).openapi()
    served = {
        (method.upper(), path): op["operationId"]
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    assert served == OPERATION_IDS
    assert len(set(served.values())) == len(served)


def test_the_export_declares_the_media_types_it_answers_with(served: dict[str, Any]) -> None:
    from app.routers.grade_batches import EXPORT_MEDIA

    ok = served["paths"]["/v1/grade/batches/{batch_id}/export"]["get"]["responses"]["200"]
    assert set(ok["content"]) == set(EXPORT_MEDIA.values())  # not application/json: it streams CSV or JSONL


def test_the_item_export_declares_its_media_types_and_the_results_their_filters(settings: Settings) -> None:
    from app.services.exports import MEDIA

    schema = create_app(settings).openapi()
    export = schema["paths"]["/v1/evaluations/{evaluation_id}/export"]["get"]
    assert set(export["responses"]["200"]["content"]) == {"text/csv", "application/vnd.apache.parquet"}
    assert set(MEDIA.values()) == set(export["responses"]["200"]["content"])
    results = schema["paths"]["/v1/evaluations/{evaluation_id}/results"]["get"]
    filters = {"verdict", "behavior", "scenario", "country", "check"}
    for operation in (export, results):
        assert filters <= {p["name"] for p in operation["parameters"]}
    board = schema["paths"]["/v1/leaderboard"]["get"]
    assert "text/csv" in board["responses"]["200"]["content"]
    assert "format" in {p["name"] for p in board["parameters"]}


def _validator(served: dict[str, Any], schema: dict[str, Any]) -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft202012Validator({**schema, "components": served["components"]})


def test_every_example_fits_the_schema_it_illustrates(served: dict[str, Any]) -> None:
    checked: list[str] = []
    for method, path, op in operations(served):
        bodies = [("request", op.get("requestBody", {}).get("content", {}).get("application/json", {}))]
        bodies += [
            (code, r.get("content", {}).get("application/json", {})) for code, r in op["responses"].items()
        ]
        for where, media in bodies:
            values = [e["value"] for e in media.get("examples", {}).values()]
            values += [media["example"]] if "example" in media else []
            for value in values:
                assert _validator(served, media["schema"]).is_valid(value), (method, path, where, value)
                checked.append(f"{method} {path} {where}")
    for name, component in served["components"]["schemas"].items():
        for value in component.get("examples", []):
            assert _validator(served, component).is_valid(value), (name, value)
            checked.append(name)
    assert {"POST /v1/targets request", "POST /v1/evaluations request", "POST /v1/grade request"} <= set(
        checked
    )
    assert {"GET /v1/leaderboard 200", "Headline"} <= set(checked)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/evaluations/{evaluation_id}",
        "/v1/evaluations/{evaluation_id}/report",
        "/v1/leaderboard",
        "/v1/leaderboard/{evaluation_id}/report",
        "/v1/leaderboard/{evaluation_id}/results",
        "/v1/benchmark",
    ],
)
def test_answers_served_with_an_etag_document_not_modified(served: dict[str, Any], path: str) -> None:
    assert "content" not in served["paths"][path]["get"]["responses"]["304"]
