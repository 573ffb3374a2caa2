"""/v1/webhooks: subscribe, list, delete, and the deliveries an evaluation's outcome produces, end to end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from standardwebhooks.webhooks import Webhook as Verifier

from app.config import Settings
from app.main import create_app
from tests.waits import eventually
from tests.webhooks.live_server import receiving, serving, slow_target


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_poll_s": 0.05, "webhook_backoff_s": 0.05})


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


def wait_deliveries(api: TestClient, webhook_id: str, count: int) -> list[Any]:
    return eventually(
        lambda: api.get(f"/v1/webhooks/{webhook_id}/deliveries").json()["items"],
        lambda items: len(items) >= count,
        what=f"{count} delivery attempts to webhook {webhook_id}",
    )


def test_create_returns_the_secret_once_and_lists_without_it(api: TestClient) -> None:
    created = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"})
    assert created.status_code == 201
    assert created.headers["location"] == f"/v1/webhooks/{created.json()['id']}"
    body = created.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 30
    assert sorted(body["events"]) == [
        "evaluation.cancelled",
        "evaluation.failed",
        "evaluation.regressed",
        "evaluation.stalled",
        "evaluation.stopped_by_budget",
        "evaluation.succeeded",
        "grade_batch.completed",
    ]
    listed = api.get("/v1/webhooks").json()
    assert [h["id"] for h in listed] == [body["id"]] and "secret" not in listed[0]
    assert body["secret"] not in api.get("/v1/webhooks").text


@pytest.mark.parametrize(
    "url", ["http://169.254.169.254/latest", "file:///etc/passwd", "http://user:pw@a.example/"]
)
def test_unsafe_urls_are_refused_naming_the_field(api: TestClient, url: str) -> None:
    response = api.post("/v1/webhooks", json={"url": url})
    assert response.status_code == 422 and response.json()["field"] == "url"
    assert "pw" not in response.text


def test_unknown_events_are_refused(api: TestClient) -> None:
    body = {"url": "http://127.0.0.1:9/h", "events": ["evaluation.started"]}
    response = api.post("/v1/webhooks", json=body)
    assert response.status_code == 422 and response.json()["field"].startswith("events")


def test_delete_then_it_is_gone(api: TestClient) -> None:
    webhook_id = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}).json()["id"]
    assert api.delete(f"/v1/webhooks/{webhook_id}").status_code == 204
    assert api.get("/v1/webhooks").json() == []
    again = api.delete(f"/v1/webhooks/{webhook_id}")
    assert again.status_code == 404 and again.json()["field"] == "webhook_id"


def test_webhooks_need_a_key(api: TestClient) -> None:
    assert api.get("/v1/webhooks", headers={"Authorization": ""}).status_code == 401


def test_an_evaluation_outcome_is_delivered_signed_and_listed(api: TestClient) -> None:
    with serving(slow_target(0)) as target_url, receiving(statuses=[500]) as receiver:
        hook = api.post("/v1/webhooks", json={"url": receiver.url, "events": ["evaluation.succeeded"]}).json()
        target = api.post("/v1/targets", json={"name": "bot", "base_url": f"{target_url}/v1", "model": "b"})
        evaluation_id = api.post("/v1/evaluations", json={"target_id": target.json()["id"]}).json()["id"]
        deliveries = wait_deliveries(api, hook["id"], 2)
        headers, body = receiver.requests[-1]
    event = Verifier(hook["secret"]).verify(body, headers)
    assert event["type"] == "evaluation.succeeded" and event["data"]["evaluation_id"] == evaluation_id
    got = [(d["attempt"], d["ok"], d["status_code"]) for d in deliveries]
    assert got == [(2, True, 200), (1, False, 500)]
    assert {d["message_id"] for d in deliveries} == {headers["webhook-id"]}
    assert deliveries[0]["message_state"] == "delivered"
    assert deliveries[0]["event_type"] == "evaluation.succeeded"
    page = api.get(f"/v1/webhooks/{hook['id']}/deliveries", params={"limit": 1}).json()
    assert len(page["items"]) == 1 and page["next_cursor"]
    rest = api.get(f"/v1/webhooks/{hook['id']}/deliveries", params={"cursor": page["next_cursor"]}).json()
    assert [d["attempt"] for d in rest["items"]] == [1] and rest["next_cursor"] is None


def test_cancelling_sends_the_cancelled_event(api: TestClient) -> None:
    with serving(slow_target(0.5)) as target_url, receiving() as receiver:
        hook = api.post("/v1/webhooks", json={"url": receiver.url}).json()
        target = api.post(
            "/v1/targets",
            json={"name": "bot", "base_url": f"{target_url}/v1", "model": "b", "max_concurrency": 1},
        )
        evaluation_id = api.post(
            "/v1/evaluations", json={"target_id": target.json()["id"], "suite": "full"}
        ).json()["id"]
        assert api.post(f"/v1/evaluations/{evaluation_id}/cancel").json()["status"] == "cancelled"
        headers, body = receiver.wait_for(1)[0]
    assert Verifier(hook["secret"]).verify(body, headers)["type"] == "evaluation.cancelled"


def test_a_run_stopped_by_its_budget_sends_the_stopped_by_budget_event(api: TestClient) -> None:
    with serving(slow_target(0)) as target_url, receiving() as receiver:
        hook = api.post("/v1/webhooks", json={"url": receiver.url}).json()
        target = api.post("/v1/targets", json={"name": "bot", "base_url": f"{target_url}/v1", "model": "b"})
        body = {"target_id": target.json()["id"], "suite": "full", "max_calls": 2}
        evaluation_id = api.post("/v1/evaluations", json=body).json()["id"]
        headers, sent = receiver.wait_for(1)[0]
    event = Verifier(hook["secret"]).verify(sent, headers)
    assert event["type"] == "evaluation.stopped_by_budget" and event["data"]["evaluation_id"] == evaluation_id
