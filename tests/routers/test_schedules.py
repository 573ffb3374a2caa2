"""/v1/schedules: validation, team scoping, and due ticks started by the scheduler on an injected clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.services.schedules import run_due
from tests.routers.conftest import TARGET_URL, careful_bot, make_target
from tests.security.conftest import make_team
from tests.waits import settled


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # The background loop looks once at start, long before any tick here is due; the tests drive the clock.
    return settings.model_copy(update={"scheduler_period_s": 300.0})


@pytest.fixture
def client(settings: Settings, mock_target: respx.MockRouter) -> Iterator[TestClient]:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    with TestClient(create_app(settings)) as test_client:
        key = (settings.var_dir / "admin.key").read_text().strip()
        test_client.headers["Authorization"] = f"Bearer {key}"
        yield test_client


def tick(client: TestClient, now: datetime) -> list[str]:
    """One scheduler pass at `now` in the app's own event loop (the in-process queue lives there)."""
    state = client.app.state.helmbench  # type: ignore[attr-defined]
    return client.portal.call(run_due, state.deps, state.queue, now)  # type: ignore[union-attr]


def at(body: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(body["next_run_at"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "every_minutes"),
        ({"cron": "*/5 * * * *", "every_minutes": 5}, "every_minutes"),
        ({"cron": "every tuesday"}, "cron"),
        ({"every_minutes": 0}, "every_minutes"),
        ({"every_minutes": 5, "baseline": "ev_nope"}, "baseline"),
        ({"every_minutes": 5, "alert": {"max_drop": -0.1}}, "alert.max_drop"),
        ({"every_minutes": 5, "alert": {"metrics": ["vibes"]}}, "alert.metrics"),
        ({"every_minutes": 5, "suite": "huge"}, "suite"),
    ],
)
def test_bad_schedules_are_422_naming_the_field(client: TestClient, body: dict[str, Any], field: str) -> None:
    target_id = make_target(client)
    response = client.post("/v1/schedules", json={"target_id": target_id, **body})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["field"] == field


def test_create_read_patch_delete_and_other_teams_see_nothing(client: TestClient) -> None:
    target_id = make_target(client)
    made = client.post(
        "/v1/schedules",
        json={
            "target_id": target_id,
            "cron": "0 6 * * *",
            "alert": {"max_drop": 0.05, "metrics": ["headline"]},
        },
    )
    assert made.status_code == 201, made.text
    schedule = made.json()
    assert made.headers["location"] == f"/v1/schedules/{schedule['id']}"
    assert (at(schedule).hour, at(schedule).minute) == (6, 0)
    assert schedule["alert"] == {"max_drop": 0.05, "metrics": ["headline"]}
    assert [s["id"] for s in client.get("/v1/schedules").json()] == [schedule["id"]]

    patched = client.patch(f"/v1/schedules/{schedule['id']}", json={"every_minutes": 30})
    assert patched.status_code == 200, patched.text
    assert patched.json()["cron"] is None and patched.json()["every_minutes"] == 30
    assert at(patched.json()) - datetime.fromisoformat(schedule["created_at"]) <= timedelta(minutes=30)
    assert client.patch(f"/v1/schedules/{schedule['id']}", json={"cron": "nope"}).json()["field"] == "cron"

    other = make_team(client, "elsewhere")
    readonly = client.post(
        "/v1/schedules", headers=other.read_only, json={"target_id": target_id, "every_minutes": 5}
    )
    assert readonly.status_code == 403
    foreign_target = client.post(
        "/v1/schedules", headers=other.admin, json={"target_id": target_id, "every_minutes": 5}
    )
    assert foreign_target.status_code == 404 and foreign_target.json()["field"] == "target_id"
    for method in ("GET", "PATCH", "DELETE"):
        response = client.request(method, f"/v1/schedules/{schedule['id']}", headers=other.admin, json={})
        assert response.status_code == 404, (method, response.text)
    assert client.get("/v1/schedules", headers=other.admin).json() == []

    assert client.delete(f"/v1/schedules/{schedule['id']}").status_code == 204
    assert client.get(f"/v1/schedules/{schedule['id']}").status_code == 404
    assert client.get("/v1/schedules").json() == []


def test_a_one_minute_schedule_runs_once_per_tick(client: TestClient) -> None:
    target_id = make_target(client)
    schedule = client.post("/v1/schedules", json={"target_id": target_id, "every_minutes": 1}).json()
    first = at(schedule)

    assert tick(client, first - timedelta(seconds=1)) == []
    started = tick(client, first)
    assert len(started) == 1
    assert tick(client, first) == []  # the same tick again: already claimed
    started += tick(client, first + timedelta(minutes=1))
    assert len(started) == 2
    for evaluation_id in started:
        assert settled(client, evaluation_id)["status"] == "succeeded"
    listed = client.get(f"/v1/schedules/{schedule['id']}").json()
    assert listed["last_evaluation_id"] == started[1]
    assert at(listed) == first + timedelta(minutes=2)


def test_missed_ticks_run_once_and_the_next_is_in_the_future(client: TestClient) -> None:
    target_id = make_target(client)
    schedule = client.post("/v1/schedules", json={"target_id": target_id, "every_minutes": 1}).json()
    later = at(schedule) + timedelta(minutes=10, seconds=30)  # ten ticks passed while nothing ran
    started = tick(client, later)
    assert len(started) == 1
    assert tick(client, later) == []
    assert at(client.get(f"/v1/schedules/{schedule['id']}").json()) == at(schedule) + timedelta(minutes=11)
    settled(client, started[0])


def test_a_paused_schedule_starts_nothing_until_resumed(client: TestClient) -> None:
    target_id = make_target(client)
    schedule = client.post("/v1/schedules", json={"target_id": target_id, "every_minutes": 1}).json()
    client.patch(f"/v1/schedules/{schedule['id']}", json={"paused": True})
    assert tick(client, at(schedule) + timedelta(minutes=5)) == []


def test_a_tick_whose_target_is_gone_is_spent_with_the_reason_kept(client: TestClient) -> None:
    target_id = make_target(client)
    schedule = client.post("/v1/schedules", json={"target_id": target_id, "every_minutes": 1}).json()
    assert client.delete(f"/v1/targets/{target_id}").status_code == 204
    assert tick(client, at(schedule)) == []
    after = client.get(f"/v1/schedules/{schedule['id']}").json()
    assert "target_id" in after["last_error"] and at(after) == at(schedule) + timedelta(minutes=1)
