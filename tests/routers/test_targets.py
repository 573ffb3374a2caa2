"""/v1/targets: create, read, list, delete; secrets are write-only; bad input is problem+json."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.routers.conftest import make_target


def test_create_returns_201_with_location_and_never_the_key(client: TestClient) -> None:
    response = client.post(
        "/v1/targets",
        json={
            "name": "a",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "api_key": "sk-live-123",
            "headers": {"X-Org": "o-1"},
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"/v1/targets/{body['id']}"
    assert body["has_api_key"] is True and body["header_names"] == ["X-Org"]
    assert "sk-live-123" not in response.text and "o-1" not in response.text
    assert "sk-live-123" not in client.get(f"/v1/targets/{body['id']}").text
    assert "sk-live-123" not in client.get("/v1/targets").text


def test_list_get_delete(client: TestClient) -> None:
    first, second = make_target(client, name="one"), make_target(client, name="two")
    assert [t["id"] for t in client.get("/v1/targets").json()] == [first, second]
    assert client.delete(f"/v1/targets/{first}").status_code == 204
    missing = client.get(f"/v1/targets/{first}")
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    assert [t["id"] for t in client.get("/v1/targets").json()] == [second]


def test_bad_requests_name_the_field(client: TestClient) -> None:
    cases = [
        ({"name": "x", "base_url": "ftp://h/v1", "model": "m"}, "base_url"),
        ({"name": "x", "base_url": "http://user:pw@h.example/v1", "model": "m"}, "base_url"),
        (
            {"name": "x", "base_url": "http://h.example/v1", "model": "m", "max_concurrency": "lots"},
            "max_concurrency",
        ),
        ({"name": "x", "base_url": "http://h.example/v1"}, "model"),
        ({"name": "x", "base_url": "http://h.example/v1", "model": "m", "kind": "carrier_pigeon"}, "kind"),
        (
            {"name": "x", "base_url": "http://h.example/v1", "model": "m", "params": {"messages": []}},
            "params",
        ),
    ]
    for body, field in cases:
        response = client.post("/v1/targets", json=body)
        assert response.status_code == 422, (body, response.text)
        problem = response.json()
        assert response.headers["content-type"] == "application/problem+json"
        assert problem["field"] == field and problem["status"] == 422 and field in problem["detail"]


def test_requests_without_a_valid_key_are_401(client: TestClient) -> None:
    assert client.get("/v1/targets", headers={"Authorization": ""}).status_code == 401
    response = client.get("/v1/targets", headers={"Authorization": "Bearer hb_not_a_key"})
    assert response.status_code == 401 and response.json()["field"] == "Authorization"
