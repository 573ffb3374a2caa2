"""/v1/keys: admins create, list (prefix only) and revoke their team's keys; nobody else can."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.security.conftest import bearer, make_team


def test_admin_creates_a_key_that_works_and_is_listed_by_prefix_only(client: TestClient) -> None:
    team = make_team(client, "acme")
    created = client.post("/v1/keys", headers=team.admin, json={"name": "ci", "role": "member"})
    assert created.status_code == 201, created.text
    body = created.json()
    raw = body["key"]
    assert raw.startswith("hb_") and raw.startswith(body["prefix"]) and body["team_id"] == team.team_id
    assert client.get("/v1/targets", headers=bearer(raw)).status_code == 200

    listed = client.get("/v1/keys", headers=team.admin)
    assert listed.status_code == 200
    assert {k["name"] for k in listed.json()} == {"admin", "member", "read-only", "ci"}
    assert raw not in listed.text and "key_hash" not in listed.text
    assert all(
        set(k) == {"id", "team_id", "name", "role", "prefix", "created_at", "revoked_at"}
        for k in listed.json()
    )


def test_a_revoked_key_gets_401_at_once(client: TestClient) -> None:
    team = make_team(client, "acme")
    body = client.post("/v1/keys", headers=team.admin, json={"name": "laptop"}).json()
    assert client.get("/v1/targets", headers=bearer(body["key"])).status_code == 200
    revoked = client.delete(f"/v1/keys/{body['id']}", headers=team.admin)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    after = client.get("/v1/targets", headers=bearer(body["key"]))
    assert after.status_code == 401 and after.headers["content-type"] == "application/problem+json"
    assert body["id"] not in {k["id"] for k in client.get("/v1/keys", headers=team.admin).json()}
    shown = client.get("/v1/keys", headers=team.admin, params={"include_revoked": True}).json()
    assert body["id"] in {k["id"] for k in shown}


def test_members_and_read_only_keys_cannot_manage_keys(client: TestClient) -> None:
    team = make_team(client, "acme")
    for headers in (team.member, team.read_only):
        assert client.get("/v1/keys", headers=headers).status_code == 403
        denied = client.post("/v1/keys", headers=headers, json={"name": "x", "role": "admin"})
        assert denied.status_code == 403 and denied.json()["field"] == "Authorization"


def test_an_admin_cannot_reach_another_teams_keys(client: TestClient) -> None:
    a, b = make_team(client, "a"), make_team(client, "b")
    a_key = client.post("/v1/keys", headers=a.admin, json={"name": "a-ci"}).json()
    assert client.get(f"/v1/keys/{a_key['id']}", headers=b.admin).status_code == 404
    assert client.delete(f"/v1/keys/{a_key['id']}", headers=b.admin).status_code == 404
    assert client.get("/v1/keys", headers=b.admin, params={"team_id": a.team_id}).status_code == 404
    made = client.post("/v1/keys", headers=b.admin, json={"name": "sneaky", "team_id": a.team_id})
    assert made.status_code == 404
    assert client.get("/v1/targets", headers=bearer(a_key["key"])).status_code == 200


def test_the_platform_admin_manages_keys_of_any_team(client: TestClient) -> None:
    team = make_team(client, "acme")
    made = client.post("/v1/keys", json={"name": "ops", "role": "read-only", "team_id": team.team_id})
    assert made.status_code == 201 and made.json()["team_id"] == team.team_id
    listed = client.get("/v1/keys", params={"team_id": team.team_id}).json()
    assert "ops" in {k["name"] for k in listed}


def test_the_last_admin_key_of_a_team_cannot_be_revoked(client: TestClient) -> None:
    team = make_team(client, "acme")
    keys = client.get("/v1/keys", headers=team.admin).json()
    admin_id = next(k["id"] for k in keys if k["role"] == "admin")
    refused = client.delete(f"/v1/keys/{admin_id}", headers=team.admin)
    assert refused.status_code == 409 and refused.json()["field"] == "key_id"
    second = client.post("/v1/keys", headers=team.admin, json={"name": "admin2", "role": "admin"}).json()
    assert client.delete(f"/v1/keys/{admin_id}", headers=bearer(second["key"])).status_code == 200


def test_role_must_be_one_of_three(client: TestClient) -> None:
    response = client.post("/v1/keys", json={"name": "x", "role": "owner"})
    assert response.status_code == 422 and response.json()["field"] == "role"
