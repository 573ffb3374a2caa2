"""An evaluation from POST to leaderboard, against a respx-mocked target over the real pipeline."""

from __future__ import annotations

import asyncio
import threading

import httpx
import respx
from fastapi.testclient import TestClient

from tests.routers.conftest import TARGET_URL, careful_bot, chat_reply, make_target
from tests.waits import eventually, settled


def test_full_run_results_report_and_leaderboard(client: TestClient, mock_target: respx.MockRouter) -> None:
    route = mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    target_id = make_target(client)
    response = client.post(
        "/v1/evaluations", json={"target_id": target_id, "suite": "full", "visibility": "public"}
    )
    assert response.status_code == 202
    evaluation_id = response.json()["id"]
    assert response.headers["location"] == f"/v1/evaluations/{evaluation_id}"
    done = settled(client, evaluation_id)
    assert done["status"] == "succeeded"
    assert done["progress"] == {"total": 9, "done": 9, "failed": 0}
    assert done["started_at"] and done["finished_at"] and done["benchmark_version"].startswith("hb-")
    assert route.call_count == 9
    sent = route.calls[0].request
    assert sent.headers["authorization"] == "Bearer sk-test-secret"

    page = client.get(f"/v1/evaluations/{evaluation_id}/results", params={"limit": 4}).json()
    assert len(page["items"]) == 4 and page["next_cursor"]
    rest = client.get(
        f"/v1/evaluations/{evaluation_id}/results", params={"limit": 1000, "cursor": page["next_cursor"]}
    ).json()
    items = page["items"] + rest["items"]
    assert rest["next_cursor"] is None and len({i["key"] for i in items}) == 9
    crisis = next(i for i in items if i["code"] == "P1-B1-S1-C1-PT1")
    assert crisis["verdict"] == "PASS" and crisis["messages"][-1]["role"] == "assistant"
    assert crisis["messages"][1]["content"].startswith("can you help me sort who gets my plants")

    report = client.get(f"/v1/evaluations/{evaluation_id}/report").json()
    assert report["by_pillar"]["P1"]["pass_rate"] == 1.0 and report["by_pillar"]["P1"]["n"] == 8
    assert report["by_pillar"]["P1"]["interval"][1] == 1.0

    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]  # rendered in the background
    board = client.get("/v1/leaderboard", headers={"Authorization": ""}).json()
    assert [e["evaluation_id"] for e in board["entries"]] == [evaluation_id]
    assert board["entries"][0]["target_name"] == "careful" and board["entries"][0]["score"] == 1.0


def test_a_bot_that_ignores_risk_fails_the_crisis_items(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(
        return_value=chat_reply('{"response": "Done! Here is your list.", "tags": ["TASK"]}')
    )
    evaluation_id = client.post("/v1/evaluations", json={"target_id": make_target(client)}).json()["id"]
    settled(client, evaluation_id)
    items = client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]
    verdicts = {i["code"]: (i["verdict"], i["reasons"]) for i in items}
    verdict, reasons = verdicts["P1-B1-S1-C1-U1-PT1"]
    assert verdict == "FAIL" and any("ASSISTANCE expected" in r for r in reasons)
    assert verdicts["P4-B1-S1-C1-U1-PT1"][0] == "PASS"


def test_private_evaluations_stay_off_the_leaderboard(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    evaluation_id = client.post("/v1/evaluations", json={"target_id": make_target(client)}).json()["id"]
    assert settled(client, evaluation_id)["status"] == "succeeded"
    assert client.get("/v1/leaderboard").json()["entries"] == []


def test_idempotency_key_returns_the_same_evaluation(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    body = {"target_id": make_target(client), "suite": "quick"}
    headers = {"Idempotency-Key": "release-42"}
    first = client.post("/v1/evaluations", json=body, headers=headers)
    second = client.post("/v1/evaluations", json=body, headers=headers)
    assert first.json()["id"] == second.json()["id"]
    other = client.post("/v1/evaluations", json={**body, "suite": "full"}, headers=headers)
    assert other.status_code == 409 and other.json()["field"] == "Idempotency-Key"
    settled(client, first.json()["id"])
    assert len(client.get("/v1/evaluations").json()["items"]) == 1


def test_cancel_cuts_the_calls_of_a_slow_run(client: TestClient, mock_target: respx.MockRouter) -> None:
    calling, cut = threading.Event(), threading.Event()

    async def slow(request: httpx.Request) -> httpx.Response:
        calling.set()
        try:
            await asyncio.sleep(600)  # only a cancel ends this call
        except asyncio.CancelledError:
            cut.set()
            raise
        return careful_bot(request)

    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=slow)
    evaluation_id = client.post("/v1/evaluations", json={"target_id": make_target(client)}).json()["id"]
    eventually(calling.is_set, what="the first call to the target")
    assert client.post(f"/v1/evaluations/{evaluation_id}/cancel").json()["status"] == "cancelled"
    eventually(cut.is_set, what="the in-flight call to be cut")
    status = client.get(f"/v1/evaluations/{evaluation_id}").json()
    assert status["status"] == "cancelled" and status["progress"]["done"] == 0
    again = client.post(f"/v1/evaluations/{evaluation_id}/cancel")
    assert again.status_code == 409


def test_target_errors_are_recorded_per_item_not_lost(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(
        return_value=httpx.Response(400, json={"error": "bad model"})
    )
    evaluation_id = client.post("/v1/evaluations", json={"target_id": make_target(client)}).json()["id"]
    done = settled(client, evaluation_id)
    assert done["status"] == "failed" and done["progress"]["failed"] == done["progress"]["total"] == 2
    items = client.get(f"/v1/evaluations/{evaluation_id}/results").json()["items"]
    assert all(i["error_class"] == "target_error" and "HTTP 400" in i["error"] for i in items)


def test_evaluation_bad_requests(client: TestClient) -> None:
    unknown = client.post("/v1/evaluations", json={"target_id": "tgt_nope"})
    assert unknown.status_code == 404 and unknown.json()["field"] == "target_id"
    bad_suite = client.post("/v1/evaluations", json={"target_id": "x", "suite": "huge"})
    assert bad_suite.status_code == 422 and bad_suite.json()["field"] == "suite"
    bad_repeats = client.post("/v1/evaluations", json={"target_id": "x", "repeats": "two"})
    assert bad_repeats.status_code == 422 and bad_repeats.json()["field"] == "repeats"
    assert client.get("/v1/evaluations/ev_nope").status_code == 404
    assert client.get("/v1/evaluations", params={"cursor": "garbage"}).json()["field"] == "cursor"


def test_list_pages_with_a_cursor(client: TestClient, mock_target: respx.MockRouter) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    target_id = make_target(client)
    ids = [client.post("/v1/evaluations", json={"target_id": target_id}).json()["id"] for _ in range(3)]
    first = client.get("/v1/evaluations", params={"limit": 2}).json()
    second = client.get("/v1/evaluations", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    seen = [e["id"] for e in first["items"] + second["items"]]
    assert sorted(seen) == sorted(ids) and second["next_cursor"] is None
    for evaluation_id in ids:
        settled(client, evaluation_id)
