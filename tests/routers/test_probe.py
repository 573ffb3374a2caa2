"""Probing at the API: a dead or misconfigured endpoint is a 422 naming it and why; `probe: false` skips it."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.providers import GRADE, chat, openai_error, reasoning_model, refused_port
from tests.routers.conftest import TARGET_URL, careful_bot

JUDGE_URL = "http://127.0.0.1:9931/v1"
GOOD_JUDGE_URL = "http://127.0.0.1:9932/v1"


@pytest.fixture
def probing(settings: Settings, mock_target: respx.MockRouter) -> Iterator[TestClient]:
    """The API with probes on (the test suite's default is off); the mocks outlive it."""
    with TestClient(create_app(settings.model_copy(update={"probe_endpoints": True}))) as client:
        client.headers["Authorization"] = f"Bearer {(settings.var_dir / 'admin.key').read_text().strip()}"
        yield client


def target(**extra: Any) -> dict[str, Any]:
    return {"name": "bot", "base_url": TARGET_URL, "model": "careful-1", "api_key": "sk-t", **extra}


def known_models(request: httpx.Request) -> httpx.Response:
    if json.loads(request.content)["model"] != "careful-1":
        return openai_error(404, "The model `gone-1` does not exist", param=None, code="model_not_found")
    return careful_bot(request)


def test_a_refused_port_is_a_422_naming_the_target_unless_probe_is_false(
    probing: TestClient, mock_target: respx.MockRouter
) -> None:
    port = refused_port()
    mock_target.route(host="127.0.0.1", port=port).pass_through()  # a real socket, refused for real
    dead = target(base_url=f"http://127.0.0.1:{port}/v1")
    response = probing.post("/v1/targets", json=dead)
    assert response.status_code == 422 and response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["field"] == "target" and "connection refused" in problem["detail"]
    assert '"probe": false' in problem["detail"] and problem["probe"][0]["ok"] is False
    assert probing.get("/v1/targets").json() == []  # nothing stored

    created = probing.post("/v1/targets", json={**dead, "probe": False})
    assert created.status_code == 201
    report = probing.post(f"/v1/targets/{created.json()['id']}/probe")
    assert report.status_code == 200 and report.json()["ok"] is False
    assert "connection refused" in report.json()["results"][0]["detail"]


def test_a_patch_to_a_model_the_provider_does_not_know_is_refused_and_changes_nothing(
    probing: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=known_models)
    created = probing.post("/v1/targets", json=target())
    assert created.status_code == 201, created.text
    target_id = created.json()["id"]
    assert probing.post(f"/v1/targets/{target_id}/probe").json()["ok"] is True

    response = probing.patch(f"/v1/targets/{target_id}", json={"model": "gone-1"})
    assert response.status_code == 422 and "unknown model 'gone-1'" in response.json()["detail"]
    assert probing.get(f"/v1/targets/{target_id}").json()["version"] == 1
    skipped = probing.patch(f"/v1/targets/{target_id}", json={"model": "gone-1", "probe": False})
    assert skipped.status_code == 200 and skipped.json()["version"] == 2


def test_a_reasoning_model_judge_is_refused_naming_it_and_the_parameter_then_accepted_without_it(
    probing: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    judge_route = mock_target.post(f"{JUDGE_URL}/chat/completions").mock(side_effect=reasoning_model())
    mock_target.post(f"{GOOD_JUDGE_URL}/chat/completions").mock(return_value=chat(json.dumps(GRADE)))
    target_id = probing.post("/v1/targets", json=target()).json()["id"]
    judge = {"base_url": JUDGE_URL, "model": "o-judge"}
    body = {"target_id": target_id, "judges": [{"base_url": GOOD_JUDGE_URL, "model": "good"}, judge]}

    response = probing.post("/v1/evaluations", json=body)
    assert response.status_code == 422
    problem = response.json()
    assert problem["field"] == "judges[1]" and "`temperature`" in problem["detail"]
    assert [p["endpoint"] for p in problem["probe"]] == ["target", "judges[0]", "judges[1]"]
    assert problem["probe"][2]["param"] == "temperature"
    assert probing.get("/v1/evaluations").json()["items"] == []

    body["judges"][1] = {**judge, "params": {"temperature": None}}
    accepted = probing.post("/v1/evaluations", json=body)
    assert accepted.status_code == 202, accepted.text
    assert "temperature" not in json.loads(judge_route.calls.last.request.content)


def test_the_api_keeps_answering_while_a_probe_waits_on_a_slow_endpoint(
    probing: TestClient, mock_target: respx.MockRouter
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(3.0)
        return careful_bot(request)

    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=slow)
    with ThreadPoolExecutor(1) as pool:
        registering = pool.submit(probing.post, "/v1/targets", json=target())
        time.sleep(0.3)  # the probe's call is out
        started = time.monotonic()
        assert probing.get("/healthz").status_code == 200
        answered_in = time.monotonic() - started
        assert not registering.done()
        assert registering.result(timeout=30).status_code == 201
    assert answered_in < 2.0  # well before the probe ends
