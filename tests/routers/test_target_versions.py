"""PATCH /v1/targets/{id}: each change is a new version; an evaluation runs against the version it began with."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.routers.conftest import TARGET_URL, careful_bot, make_target
from tests.waits import settled


def test_patch_records_version_2_and_keeps_the_id_and_unsent_secret(client: TestClient) -> None:
    target_id = make_target(client, headers={"X-Org": "org-7"})
    assert client.get(f"/v1/targets/{target_id}").json()["version"] == 1
    patched = client.patch(f"/v1/targets/{target_id}", json={"model": "careful-2", "params": {"top_p": 0.5}})
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert body["id"] == target_id and body["version"] == 2 and body["model"] == "careful-2"
    assert body["has_api_key"] is True and body["header_names"] == ["X-Org"]  # untouched fields are kept
    assert client.get(f"/v1/targets/{target_id}").json()["version"] == 2

    versions = client.get(f"/v1/targets/{target_id}/versions")
    assert versions.status_code == 200
    listed = versions.json()
    assert [(v["version"], v["model"], v["params"]) for v in listed] == [
        (1, "careful-1", {}),
        (2, "careful-2", {"top_p": 0.5}),
    ]
    assert all(v["has_api_key"] and v["header_names"] == ["X-Org"] for v in listed)
    assert "sk-test-secret" not in versions.text and "org-7" not in versions.text


def test_patch_can_remove_the_key_and_the_headers(client: TestClient) -> None:
    target_id = make_target(client, headers={"X-Org": "org-7"})
    body = client.patch(f"/v1/targets/{target_id}", json={"api_key": None, "headers": {}}).json()
    assert body["has_api_key"] is False and body["header_names"] == []
    first = client.get(f"/v1/targets/{target_id}/versions").json()[0]
    assert first["has_api_key"] is True  # the old version still records that it had one


def test_bad_patches_name_the_field_and_change_nothing(client: TestClient) -> None:
    target_id = make_target(client)
    cases = [
        ({"base_url": "ftp://h/v1"}, "base_url"),
        ({"base_url": "http://10.1.2.3/v1"}, "base_url"),  # outside the allow-list: SSRF check as on create
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"params": {"messages": []}}, "params"),
        ({"model": ""}, "model"),
        ({"kind": "http_json"}, "request_template"),
        ({"colour": "blue"}, "colour"),
    ]
    for patch, field in cases:
        response = client.patch(f"/v1/targets/{target_id}", json=patch)
        assert response.status_code == 422, (patch, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["field"] == field, (patch, response.json())
    assert client.get(f"/v1/targets/{target_id}").json()["version"] == 1
    assert len(client.get(f"/v1/targets/{target_id}/versions").json()) == 1


def test_another_teams_target_is_not_found(client: TestClient) -> None:
    target_id = make_target(client)
    team = client.post("/v1/teams", json={"name": "elsewhere"}).json()
    other = {"Authorization": f"Bearer {team['admin_key']['key']}"}
    assert client.patch(f"/v1/targets/{target_id}", headers=other, json={"model": "x"}).status_code == 404
    assert client.get(f"/v1/targets/{target_id}/versions", headers=other).status_code == 404
    assert client.get(f"/v1/targets/{target_id}").json()["model"] == "careful-1"


@pytest.fixture
def one_at_a_time(settings: Settings) -> Iterator[TestClient]:
    """One item a shard and one shard at a time: a run's second shard starts only after its first has ended."""
    with TestClient(create_app(settings.model_copy(update={"shard_size": 1, "worker_max_jobs": 1}))) as api:
        api.headers["Authorization"] = f"Bearer {(settings.var_dir / 'admin.key').read_text().strip()}"
        yield api


def test_an_evaluation_keeps_its_version_when_the_target_changes_mid_run(
    one_at_a_time: TestClient, mock_target: respx.MockRouter
) -> None:
    client = one_at_a_time
    arrived, gate = threading.Event(), threading.Event()
    models: dict[str, list[str]] = {}

    async def held(request: httpx.Request) -> httpx.Response:
        model = json.loads(request.content)["model"]
        models.setdefault(model, []).append(request.url.host)
        arrived.set()
        await asyncio.to_thread(gate.wait, 30)
        return careful_bot(request)

    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=held)
    target_id = make_target(client)
    old = client.post("/v1/evaluations", json={"target_id": target_id}).json()["id"]
    assert arrived.wait(20)  # the old run's first shard is calling; its second has not started
    assert client.patch(f"/v1/targets/{target_id}", json={"model": "careful-2"}).json()["version"] == 2
    new = client.post("/v1/evaluations", json={"target_id": target_id}).json()["id"]
    gate.set()
    old_done, new_done = settled(client, old), settled(client, new)
    assert old_done["status"] == new_done["status"] == "succeeded"
    assert old_done["target_version"] == 1 and new_done["target_version"] == 2
    # every call of the old run (its second shard began after the change) went to version 1's model
    assert len(models["careful-1"]) == old_done["progress"]["total"]
    assert len(models["careful-2"]) == new_done["progress"]["total"]


def test_a_read_only_key_reads_versions_but_cannot_change_the_target(client: TestClient) -> None:
    target_id = make_target(client)
    reader = client.post("/v1/keys", json={"name": "dash", "role": "read-only"}).json()["key"]
    headers = {"Authorization": f"Bearer {reader}"}
    assert client.patch(f"/v1/targets/{target_id}", headers=headers, json={"model": "x"}).status_code == 403
    assert [
        v["version"] for v in client.get(f"/v1/targets/{target_id}/versions", headers=headers).json()
    ] == [1]
