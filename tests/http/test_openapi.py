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


def test_the_export_declares_the_media_types_it_answers_with(settings: Settings) -> None:
    from app.routers.grade_batches import EXPORT_MEDIA

    schema = create_app(settings).openapi()
    ok = schema["paths"]["/v1/grade/batches/{batch_id}/export"]["get"]["responses"]["200"]
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
