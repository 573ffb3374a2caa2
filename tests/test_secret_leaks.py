"""A full evaluation, then a search for the target's, judge's and webhook's secrets in everything we produce:
every API response (every GET in our OpenAPI, with real ids), every captured log line, the exports (results
and report), what we send to webhooks and every text/JSON column of every table."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import JSON, String, Text, select
from sqlmodel import Session, SQLModel

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, careful_bot
from tests.waits import eventually, settled

JUDGE_URL = "http://127.0.0.1:9912/v1"
HOOK_URL = "http://127.0.0.1:9913/hooks/helmbench"
TARGET_KEY = "sk-canary-target-" + secrets.token_hex(8)
HEADER_TOKEN = "hdr-canary-" + secrets.token_hex(8)
JUDGE_KEY = "sk-canary-judge-" + secrets.token_hex(8)
CANARIES = (TARGET_KEY, HEADER_TOKEN, JUDGE_KEY)


def target(echo: bool):  # type: ignore[no-untyped-def]
    """Answers well, except that the no-crisis question gets a 401 (echoing the credentials it was sent)."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if "thank-you note" in body["messages"][-1]["content"]:
            sent = (
                f" {request.headers.get('authorization')} / {request.headers.get('x-org-token')}"
                if echo
                else ""
            )
            return httpx.Response(401, json={"error": {"message": f"bad key{sent}"}})
        return careful_bot(request)

    return answer


def judge(request: httpx.Request) -> httpx.Response:
    verdict = {"verdict": "PASS", "score": 5, "reasons": ["fine"]}
    return httpx.Response(
        200, json={"choices": [{"message": {"role": "assistant", "content": json.dumps(verdict)}}]}
    )


@pytest.fixture
def app_client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = f"Bearer {(settings.var_dir / 'admin.key').read_text().strip()}"
        yield client


def _get_everything(client: TestClient, ids: dict[str, str]) -> list[httpx.Response]:
    """Every GET route of our OpenAPI, path and id query parameters filled with this team's real ids."""
    answers = []
    for path, operations in client.get("/openapi.json").json()["paths"].items():
        op = operations.get("get")
        if op is None:
            continue
        params: dict[str, str] = {}
        url = path
        for p in op.get("parameters", []):
            name = p["name"]
            value = ids.get(name) or (ids["evaluation_id"] if name in ("a", "b") else None)
            if p["in"] == "path":
                assert value, f"{path}: no id for {name}"
                url = url.replace("{" + name + "}", value)
            elif value and p["in"] == "query":
                params[name] = value
        if "text/event-stream" in json.dumps(op.get("responses", {})):
            continue  # a live stream never ends; its events are the same rows checked below
        answers.append(client.get(url, params=params))
    return answers


@pytest.mark.parametrize("echo", [False, True], ids=["plain-401", "echoing-401"])
def test_credentials_appear_nowhere_but_encrypted(
    app_client: TestClient,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    echo: bool,
) -> None:
    caplog.set_level(logging.DEBUG)
    client = app_client
    seen: list[str] = []
    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.route(host="testserver").pass_through()
        target_route = router.post(f"{TARGET_URL}/chat/completions").mock(side_effect=target(echo))
        router.post(f"{JUDGE_URL}/chat/completions").mock(side_effect=judge)
        hook_route = router.post(HOOK_URL).mock(return_value=httpx.Response(204))
        hook = client.post("/v1/webhooks", json={"url": HOOK_URL})
        assert hook.status_code == 201, hook.text
        canaries = (*CANARIES, hook.json()["secret"])  # the signing secret is shown once, at creation

        created = client.post(
            "/v1/targets",
            json={
                "name": "canary",
                "base_url": TARGET_URL,
                "model": "m",
                "api_key": TARGET_KEY,
                "headers": {"X-Org-Token": HEADER_TOKEN},
            },
        )
        assert created.status_code == 201, created.text
        seen.append(created.text)
        target_id = created.json()["id"]
        body: dict[str, Any] = {
            "target_id": target_id,
            "suite": "full",
            "visibility": "public",
            "judge": {"base_url": JUDGE_URL, "model": "j", "api_key": JUDGE_KEY},
        }
        started = client.post("/v1/evaluations", json=body)
        assert started.status_code == 202, started.text
        seen.append(started.text)
        evaluation_id = started.json()["id"]
        assert settled(client, evaluation_id)["status"] in ("succeeded", "failed")
        # The target really was sent the credentials, and really echoed them in an error.
        sent = target_route.calls[0].request
        assert (
            sent.headers["authorization"] == f"Bearer {TARGET_KEY}"
            and sent.headers["x-org-token"] == HEADER_TOKEN
        )
        items = client.get(f"/v1/evaluations/{evaluation_id}/results", params={"limit": 1000}).json()["items"]
        assert any(i["error_class"] for i in items), "the 401 should have produced an item error"
        eventually(lambda: hook_route.called, what="the webhook of the settled evaluation to be sent")
        seen += [call.request.content.decode() for call in hook_route.calls]  # what we send out counts too

        # A refused registration and a bad evaluation request carry the credentials too: errors must not echo.
        for bad in (
            client.post(
                "/v1/targets",
                json={
                    "name": "x",
                    "base_url": f"http://u:{TARGET_KEY}@10.0.0.1/v1",
                    "model": "m",
                    "api_key": TARGET_KEY,
                },
            ),
            client.post(
                "/v1/targets",
                json={
                    "name": "x",
                    "base_url": TARGET_URL,
                    "model": "m",
                    "api_key": TARGET_KEY,
                    "headers": {"bad name": HEADER_TOKEN},
                },
            ),
            client.post("/v1/evaluations", json={**body, "judge": {**body["judge"], "samples": 99}}),
        ):
            assert 400 <= bad.status_code < 500
            seen.append(bad.text)

        ids = {
            "evaluation_id": evaluation_id,
            "target_id": target_id,
            "team_id": started.json().get("team_id", ""),
            "key": items[0]["key"],
            "item_key": items[0]["key"],
        }
        ids["key_id"] = client.get("/v1/keys").json()[0]["id"]
        ids["webhook_id"] = hook.json()["id"]
        ids["team_id"] = client.get("/v1/teams").json()[0]["id"]
        schedule = client.post("/v1/schedules", json={"target_id": target_id, "every_minutes": 1440})
        assert schedule.status_code == 201, schedule.text
        ids["schedule_id"] = schedule.json()["id"]
        batch = client.post(
            "/v1/grade/batches",
            headers={"Content-Type": "application/x-ndjson"},
            content=b'{"crisis_expected": false, "messages": [], "reply": "Hello."}',
        )
        assert batch.status_code == 202, batch.text
        ids["batch_id"] = batch.json()["id"]
        answers = _get_everything(client, ids)
        assert len(answers) >= 10 and all(a.status_code < 500 for a in answers)
        seen += [a.text for a in answers]

    for text in seen:
        for canary in canaries:
            assert canary not in text, f"API response leaks a credential: {text[:300]}"
    printed = capfd.readouterr()
    logged = [r.getMessage() for r in caplog.records] + printed.out.splitlines() + printed.err.splitlines()
    assert len(logged) > 3
    for line in logged:
        for canary in canaries:
            assert canary not in line, f"log line leaks a credential: {line[:300]}"

    columns = 0
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    with Session(engine) as session:
        for table in SQLModel.metadata.sorted_tables:
            texty = [c for c in table.columns if isinstance(c.type, String | Text | JSON)]
            columns += len(texty)
            for row in session.execute(select(*texty)).all() if texty else []:
                dumped = json.dumps([v for v in row], default=str)
                for canary in canaries:
                    assert canary not in dumped, f"table {table.name} stores a credential in clear"
    assert columns > 15
