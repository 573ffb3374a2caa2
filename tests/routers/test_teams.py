"""/v1/teams: the platform admin (the embedded default's first admin key) creates teams; others see theirs."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.security.conftest import bearer, make_team


def test_platform_admin_creates_a_team_whose_admin_key_runs_it(client: TestClient) -> None:
    made = client.post("/v1/teams", json={"name": "clinic-lab"})
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["name"] == "clinic-lab" and body["platform"] is False
    admin = bearer(body["admin_key"]["key"])
    assert body["admin_key"]["role"] == "admin" and body["admin_key"]["team_id"] == body["id"]
    assert [t["id"] for t in client.get("/v1/teams", headers=admin).json()] == [body["id"]]
    assert client.post("/v1/keys", headers=admin, json={"name": "ci"}).status_code == 201
    assert client.get("/v1/targets", headers=admin).json() == []


def test_only_the_platform_admin_creates_teams(client: TestClient) -> None:
    team = make_team(client, "acme")
    for headers in (team.admin, team.member, team.read_only):
        assert client.post("/v1/teams", headers=headers, json={"name": "mine"}).status_code == 403


def test_platform_admin_lists_every_team_others_only_their_own(client: TestClient) -> None:
    a, b = make_team(client, "a"), make_team(client, "b")
    names = {t["name"] for t in client.get("/v1/teams").json()}
    assert {"default", "a", "b"} <= names
    assert [t["id"] for t in client.get("/v1/teams", headers=a.member).json()] == [a.team_id]
    assert client.get(f"/v1/teams/{a.team_id}", headers=a.read_only).status_code == 200
    assert client.get(f"/v1/teams/{a.team_id}", headers=b.admin).status_code == 404
