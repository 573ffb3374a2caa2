"""Roles: read-only keys read but never write; members work with targets and evaluations; admins run keys."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.security.conftest import TeamKeys

WRITES = ("POST", "PUT", "PATCH", "DELETE")


def test_a_read_only_key_is_refused_on_every_write_route(client: TestClient, team_a: TeamKeys) -> None:
    writes = []
    for path, operations in client.get("/openapi.json").json()["paths"].items():
        for method, op in operations.items():
            secured = any("HTTPBearer" in s for s in op.get("security", []))
            if method.upper() in WRITES and secured:
                writes.append((method.upper(), path))
    assert len(writes) >= 8
    for method, path in writes:
        url = path.replace("{", "").replace("}", "")  # any id: the role is checked before the id
        answer = client.request(method, url, headers=team_a.read_only, json={})
        assert answer.status_code == 403, f"{method} {path}: {answer.status_code}"
        assert answer.json()["detail"] == "this key is read-only"


def test_a_read_only_key_reads(client: TestClient, team_a: TeamKeys) -> None:
    made = client.post(
        "/v1/targets",
        headers=team_a.member,
        json={"name": "t", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    )
    assert made.status_code == 201
    for path in ("/v1/targets", f"/v1/targets/{made.json()['id']}", "/v1/evaluations", "/v1/teams"):
        assert client.get(path, headers=team_a.read_only).status_code == 200, path


def test_a_member_works_but_cannot_manage_keys(client: TestClient, team_a: TeamKeys) -> None:
    made = client.post(
        "/v1/targets",
        headers=team_a.member,
        json={"name": "t", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    )
    assert made.status_code == 201
    assert client.delete(f"/v1/targets/{made.json()['id']}", headers=team_a.member).status_code == 204
    assert client.post("/v1/keys", headers=team_a.member, json={"name": "x"}).status_code == 403


def test_no_key_or_a_wrong_key_is_401_with_a_bearer_challenge(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer hb_not-a-key"}, {"Authorization": "Basic dXNlcjpwYXNz"}):
        answer = client.get("/v1/targets", headers=headers)
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
        assert answer.headers["content-type"] == "application/problem+json"
