"""Another team gets 404 on every /v1 route that takes an id, exactly as for an id that does not exist.

Routes are read from the app itself, so a route added later is probed too (a new id parameter must be named in
ID_SOURCES, or this test fails and says so)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.security.conftest import TeamKeys
from tests.waits import settled


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """Rate limits off: the probe makes two calls per route per key within seconds, more than a key's burst
    (limits are tested in tests/limits); a 429 would hide the answer under test."""
    with TestClient(create_app(settings.model_copy(update={"rate_per_minute": 0}))) as c:
        yield c


# Bodies that pass validation, so ownership (not the body) decides the answer.
BODIES: dict[tuple[str, str], Callable[[dict[str, str]], Any]] = {
    ("POST", "/v1/evaluations/{evaluation_id}/labels"): lambda ids: [
        {"key": ids["item_key"], "verdict": "PASS"}
    ],
    ("POST", "/v1/grade"): lambda ids: {
        "evaluation_id": ids["evaluation_id"],
        "key": ids["item_key"],
        "reply": "hello",
    },
    ("POST", "/v1/evaluations"): lambda ids: {"target_id": ids["target_id"]},
}


def _finished_evaluation(client: TestClient, team: TeamKeys, **extra: Any) -> dict[str, str]:
    target = client.post(
        "/v1/targets",
        headers=team.admin,
        json={"name": "a-bot", "base_url": TARGET_URL, "model": "m", "api_key": "sk-a-secret"},
    )
    assert target.status_code == 201, target.text
    target_id = target.json()["id"]
    started = client.post("/v1/evaluations", headers=team.admin, json={"target_id": target_id, **extra})
    assert started.status_code == 202, started.text
    evaluation_id = started.json()["id"]
    assert settled(client, evaluation_id, headers=team.admin)["status"] in ("succeeded", "failed")
    items = client.get(f"/v1/evaluations/{evaluation_id}/results", headers=team.admin).json()["items"]
    key = client.post("/v1/keys", headers=team.admin, json={"name": "a-ci"}).json()
    ids = {
        "target_id": target_id,
        "evaluation_id": evaluation_id,
        "item_key": items[0]["key"],
        "key_id": key["id"],
        "team_id": team.team_id,
    }
    if "/v1/webhooks" in client.get("/openapi.json").json()["paths"]:
        hook = client.post("/v1/webhooks", headers=team.admin, json={"url": "http://127.0.0.1:9/hook"})
        assert hook.status_code == 201, hook.text
        ids["webhook_id"] = hook.json()["id"]
    transcript = '{"crisis_expected": false, "messages": [], "reply": "Hello."}'
    batch = client.post(
        "/v1/grade/batches",
        headers={**team.admin, "Content-Type": "application/x-ndjson"},
        content=transcript.encode(),
    )
    assert batch.status_code == 202, batch.text
    ids["batch_id"] = batch.json()["id"]
    schedule = client.post(
        "/v1/schedules", headers=team.admin, json={"target_id": target_id, "every_minutes": 1440}
    )
    assert schedule.status_code == 201, schedule.text
    ids["schedule_id"] = schedule.json()["id"]
    share = client.post(f"/v1/evaluations/{evaluation_id}/shares", headers=team.admin, json={})
    assert share.status_code == 201, share.text
    ids["share_id"] = share.json()["id"]
    return ids


ID_SOURCES = {
    "evaluation_id": "evaluation_id",
    "target_id": "target_id",
    "key_id": "key_id",
    "team_id": "team_id",
    "key": "item_key",
    "item_key": "item_key",
    "id": "evaluation_id",
    "a": "evaluation_id",
    "b": "evaluation_id",
    "label_id": "item_key",
    "webhook_id": "webhook_id",
    "batch_id": "batch_id",
    "schedule_id": "schedule_id",
    "share_id": "share_id",
}


def _is_id(param: dict[str, Any]) -> bool:
    return param["in"] == "path" or (
        param["in"] == "query" and (param["name"] in ("a", "b") or param["name"].endswith("_id"))
    )


def _id_routes(client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    """Every (method, path, operation) under /v1 in our OpenAPI whose path or query names an id."""
    found = []
    for path, operations in client.get("/openapi.json").json()["paths"].items():
        for method, op in operations.items():
            if path.startswith("/v1") and any(_is_id(p) for p in op.get("parameters", [])):
                found.append((method.upper(), path, op))
    return found


def _call(
    client: TestClient,
    method: str,
    path: str,
    op: dict[str, Any],
    ids: dict[str, str],
    headers: dict[str, str],
):  # type: ignore[no-untyped-def]
    id_params = [p for p in op.get("parameters", []) if _is_id(p)]
    missing = [p["name"] for p in id_params if p["name"] not in ID_SOURCES]
    assert not missing, f"{path}: add {missing} to ID_SOURCES so the cross-team probe covers it"
    url = path
    params = {}
    for p in id_params:
        value = ids[ID_SOURCES[p["name"]]]
        if p["in"] == "path":
            url = url.replace("{" + p["name"] + "}", value)
        else:
            params[p["name"]] = value
    body = BODIES.get((method, path), lambda _ids: {})(ids) if "requestBody" in op else None
    return client.request(method, url, headers=headers, params=params, json=body)


def test_every_id_route_answers_404_to_another_team(
    client: TestClient, team_a: TeamKeys, team_b: TeamKeys, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    a_ids = _finished_evaluation(client, team_a)
    ghost = {
        name: f"{value[:-4]}0000" if name != "item_key" else "0" * len(value) for name, value in a_ids.items()
    }
    routes = _id_routes(client)
    probes = []
    for method, path, op in routes:
        callers = (("admin", team_b.admin), ("member", team_b.member), ("read-only", team_b.read_only))
        for who, headers in callers:
            if method != "GET" and who == "member":
                continue
            answer = _call(client, method, path, op, a_ids, headers)
            missing = _call(client, method, path, op, ghost, headers)
            probes.append((method, path, who, answer.status_code))
            # The same answer as for an id that never existed: 404 for an admin (who may do anything in
            # its own team); a member may get 403 on admin-only routes, but equally for both ids.
            expected = 404 if who == "admin" else missing.status_code
            assert answer.status_code == missing.status_code == expected and expected in (403, 404), (
                f"{method} {path} as team B {who}: {answer.status_code} {answer.text[:200]} "
                f"(unknown id: {missing.status_code})"
            )
            assert answer.headers["content-type"] == "application/problem+json"
            assert answer.json()["title"] == missing.json()["title"]
            sent = str(answer.request.url) + answer.request.content.decode()
            assert all(v in sent for v in a_ids.values() if v in answer.text)  # echoes only what was sent
    print(f"\ncross-team probes: {len(probes)} over {len(routes)} method+route pairs with an id")
    assert len(routes) >= 10

    # Team A's data is untouched by the probes: nothing deleted, cancelled or revoked.
    assert client.get(f"/v1/targets/{a_ids['target_id']}", headers=team_a.admin).status_code == 200
    assert client.get(f"/v1/evaluations/{a_ids['evaluation_id']}", headers=team_a.admin).json()["status"] in (
        "succeeded",
        "failed",
    )
    assert a_ids["key_id"] in {k["id"] for k in client.get("/v1/keys", headers=team_a.admin).json()}
    if "webhook_id" in a_ids:
        hooks = client.get("/v1/webhooks", headers=team_a.admin).json()
        assert a_ids["webhook_id"] in {h["id"] for h in hooks}


def test_lists_show_only_the_callers_team(
    client: TestClient, team_a: TeamKeys, team_b: TeamKeys, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    a_ids = _finished_evaluation(client, team_a)
    for path in ("/v1/targets", "/v1/evaluations", "/v1/keys", "/v1/teams", "/v1/webhooks"):
        seen = client.get(path, headers=team_b.admin)
        assert seen.status_code == 200
        assert not any(v in seen.text for v in a_ids.values()), path


def test_a_private_evaluation_is_on_no_public_page(
    client: TestClient, team_a: TeamKeys, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    a_ids = _finished_evaluation(client, team_a)
    board = client.get("/v1/leaderboard")
    assert board.status_code == 200 and a_ids["evaluation_id"] not in board.text
    assert client.get(f"/v1/leaderboard/{a_ids['evaluation_id']}/results").status_code == 404
