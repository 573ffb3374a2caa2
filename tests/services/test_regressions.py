"""A scheduled target that gets worse is flagged: stored, listed, on its report page, sent signed once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import respx
from fastapi.testclient import TestClient
from standardwebhooks.webhooks import Webhook as Verifier

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, careful_bot, chat_reply, make_target
from tests.routers.test_schedules import tick
from tests.waits import eventually, settled
from tests.webhooks.live_server import receiving


def careless_bot(request: httpx.Request) -> httpx.Response:
    """Never notices distress: every message gets the same plain task answer."""
    return chat_reply(json.dumps({"response": "Sure, here you go.", "tags": ["TASK"]}))


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"scheduler_period_s": 300.0, "webhook_poll_s": 0.05, "webhook_backoff_s": 0.05}
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = (
            "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        )
        yield test_client


def deliveries(client: TestClient, webhook_id: str, count: int) -> list[Any]:
    return eventually(
        lambda: client.get(f"/v1/webhooks/{webhook_id}/deliveries").json()["items"],
        lambda items: len(items) >= count and all(d["message_state"] == "delivered" for d in items),
        what=f"{count} deliveries to webhook {webhook_id}",
    )


def run_tick(client: TestClient, now: datetime) -> dict[str, Any]:
    started = tick(client, now)
    assert len(started) == 1
    return settled(client, started[0])


def test_a_target_that_gets_worse_is_flagged_once_and_the_webhook_is_signed(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    bot = mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    with receiving() as receiver:
        mock_target.route(host="127.0.0.1", port=urlsplit(receiver.url).port).pass_through()
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["evaluation.regressed"]}
        ).json()
        target_id = make_target(client)
        schedule = client.post(
            "/v1/schedules",
            json={"target_id": target_id, "suite": "full", "repeats": 10, "every_minutes": 1},
        ).json()
        first = datetime.fromisoformat(schedule["next_run_at"])

        good_1 = run_tick(client, first)
        good_2 = run_tick(client, first + timedelta(minutes=1))
        assert good_2["baseline_evaluation_id"] == good_1["id"]
        assert client.get("/v1/regressions").json() == {"items": [], "next_cursor": None}

        bot.side_effect = careless_bot  # the same URL now answers worse
        worse = run_tick(client, first + timedelta(minutes=2))
        delivered = deliveries(client, hook["id"], 1)
        headers, body = receiver.requests[0]

    assert worse["status"] == "succeeded" and worse["baseline_evaluation_id"] == good_2["id"]
    listed = client.get("/v1/regressions").json()["items"]
    by_metric = {r["metric"]: r for r in listed}
    assert {"headline", "pillar:P1", "sensitivity"} <= set(by_metric)
    assert all(r["evaluation_id"] == worse["id"] and r["schedule_id"] == schedule["id"] for r in listed)
    first_page = client.get("/v1/regressions", params={"limit": 1}).json()
    rest = client.get("/v1/regressions", params={"cursor": first_page["next_cursor"]}).json()
    assert [r["id"] for r in first_page["items"] + rest["items"]] == [r["id"] for r in listed]
    sensitivity = by_metric["sensitivity"]
    assert (sensitivity["baseline_value"], sensitivity["value"]) == (1.0, 0.0)
    assert sensitivity["interval"][1] < 0 and sensitivity["p_adjusted"] < 0.05
    results = client.get(f"/v1/evaluations/{worse['id']}/results", params={"limit": 1000}).json()["items"]
    failed_now = {r["key"] for r in results if r["verdict"] != "PASS"}
    assert sensitivity["flipped_keys"] and set(sensitivity["flipped_keys"]) <= failed_now

    event = Verifier(hook["secret"]).verify(body, headers)
    assert event["type"] == "evaluation.regressed"
    assert event["data"]["evaluation_id"] == worse["id"]
    assert event["data"]["baseline_evaluation_id"] == good_2["id"]
    sent = {r["metric"]: r for r in event["data"]["regressions"]}
    assert sent.keys() == by_metric.keys()
    assert sent["sensitivity"]["interval"] == sensitivity["interval"]
    assert sent["sensitivity"]["flipped_keys"] == sensitivity["flipped_keys"]
    assert len(receiver.requests) == 1 and len(delivered) == 1 and delivered[0]["ok"]

    page = client.get(f"/evaluations/{worse['id']}")
    assert "Regressions" in page.text and good_2["id"] in page.text
    assert "Regressions" not in client.get(f"/evaluations/{good_2['id']}").text


def test_an_explicit_baseline_on_an_evaluation_is_compared_and_a_stable_target_is_not_flagged(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    target_id = make_target(client)
    body = {"target_id": target_id, "suite": "full", "repeats": 10}
    first = settled(client, client.post("/v1/evaluations", json=body).json()["id"])
    again = client.post("/v1/evaluations", json={**body, "baseline_evaluation_id": first["id"]})
    assert settled(client, again.json()["id"])["baseline_evaluation_id"] == first["id"]
    assert client.get("/v1/regressions").json()["items"] == []
    missing = client.post("/v1/evaluations", json={**body, "baseline_evaluation_id": "ev_nope"})
    assert missing.status_code == 422 and missing.json()["field"] == "baseline_evaluation_id"


def test_a_failing_comparison_still_settles_the_evaluation(
    client: TestClient, mock_target: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**_: Any) -> list[Any]:
        raise RuntimeError("comparison bug")

    monkeypatch.setattr("app.services.regressions.find_regressions", broken)
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    target_id = make_target(client)
    first = settled(client, client.post("/v1/evaluations", json={"target_id": target_id}).json()["id"])
    body = {"target_id": target_id, "baseline_evaluation_id": first["id"]}
    second = settled(client, client.post("/v1/evaluations", json=body).json()["id"])
    assert second["status"] == "succeeded"
    report = client.get(f"/v1/evaluations/{second['id']}/report").json()
    assert report["overall"]["pass_rate"] is not None
