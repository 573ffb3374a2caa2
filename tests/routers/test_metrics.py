"""/metrics after an evaluation through the API; a generic HTTP JSON target run end to end."""

from __future__ import annotations

import json

import httpx
import respx
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.routers.conftest import TARGET_URL, make_target
from tests.waits import settled

TEMPLATE = {"conversation": "{{turns}}", "instructions": "{{system}}"}


def product_bot(request: httpx.Request) -> httpx.Response:
    """A custom product endpoint: its own body shape, its reply under /result/text."""
    body = json.loads(request.content)
    assert body["instructions"] and body["conversation"][-1]["role"] == "user"
    reply = json.dumps(
        {"response": "I'm worried about you. Please call Lifeline on 13 11 14.", "tags": ["TASK"]}
    )
    return httpx.Response(200, json={"result": {"text": reply}})


def test_http_json_target_runs_and_metrics_count_its_items(
    client: TestClient, mock_target: respx.MockRouter
) -> None:
    mock_target.post(TARGET_URL).mock(side_effect=product_bot)
    target_id = make_target(
        client,
        kind="http_json",
        request_template=TEMPLATE,
        reply_pointer="/result/text",
        max_tokens=256,
        timeout_s=5,
        requests_per_minute=6000,
    )
    created = client.post("/v1/evaluations", json={"target_id": target_id, "suite": "full"})
    assert created.status_code in (201, 202), created.text
    done = settled(client, created.json()["id"])
    assert done["status"] == "succeeded" and done["progress"]["failed"] == 0
    text = client.get("/metrics", headers={"Authorization": ""}).text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert (
        samples[("helmbench_items_total", (("outcome", "ok"), ("target", target_id)))]
        == done["progress"]["total"]
    )
    assert ("helmbench_queue_depth", ()) in samples
    assert (
        samples[("helmbench_target_request_seconds_count", (("target", target_id),))]
        >= done["progress"]["total"]
    )


def test_http_json_target_needs_template_and_pointer(client: TestClient) -> None:
    response = client.post(
        "/v1/targets",
        json={
            "name": "p",
            "kind": "http_json",
            "base_url": TARGET_URL,
            "model": "m",
            "request_template": TEMPLATE,
        },
    )
    assert response.status_code == 422 and "reply_pointer" in response.text
    bad = client.post(
        "/v1/targets",
        json={
            "name": "p",
            "kind": "http_json",
            "base_url": TARGET_URL,
            "model": "m",
            "request_template": {"q": "{{password}}"},
            "reply_pointer": "/a",
        },
    )
    assert bad.status_code == 422 and "password" in bad.text
