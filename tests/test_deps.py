"""The request's dependencies as a caller meets them: a revoked key is refused like an unknown one, the rate is
checked before the role, each route's role is named when refused, and team management is the platform's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.deps import CurrentKey, LibraryDep, SettingsDep
from app.main import create_app
from tests.security.conftest import make_team


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"rate_burst": 3, "rate_per_minute": 1}))) as c:
        yield c


def test_a_revoked_key_is_refused_as_an_unknown_one(client: TestClient) -> None:
    team = make_team(client, "team-a")
    made = client.post("/v1/keys", headers=team.admin, json={"name": "ci", "role": "member"}).json()
    ci = {"Authorization": f"Bearer {made['key']}"}
    assert client.get("/v1/targets", headers=ci).status_code == 200
    assert client.delete(f"/v1/keys/{made['id']}", headers=team.admin).status_code == 200
    refused = client.get("/v1/targets", headers=ci)
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["detail"] == "the API key is unknown or revoked"


def test_a_key_over_its_rate_waits_whatever_its_role(client: TestClient) -> None:
    team = make_team(client, "team-a")
    assert [client.get("/v1/targets", headers=team.read_only).status_code for _ in range(3)] == [200] * 3
    over = client.post("/v1/targets", headers=team.read_only, json={})
    assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1, "the rate before the role"
    assert client.get("/v1/targets", headers=team.member).status_code == 200, "each key has its own rate"


def test_a_refusal_names_the_role_the_route_needs(client: TestClient) -> None:
    team = make_team(client, "team-a")
    refused = client.post("/v1/keys", headers=team.member, json={"name": "x", "role": "member"})
    assert refused.status_code == 403 and refused.json()["detail"] == "this needs a 'admin' key or higher"
    assert refused.json()["field"] == "Authorization"


def test_only_the_platform_team_s_admins_manage_teams(client: TestClient, settings: Settings) -> None:
    team = make_team(client, "team-a")
    refused = client.post("/v1/teams", headers=team.admin, json={"name": "team-c"})
    assert refused.status_code == 403 and refused.json()["detail"] == "this needs a platform admin key"
    platform = {"Authorization": "Bearer " + settings.admin_key_path.read_text().strip()}
    assert client.post("/v1/teams", headers=platform, json={"name": "team-c"}).status_code == 201


def test_routes_read_settings_library_and_key_from_the_app_they_run_in(settings: Settings) -> None:
    app = create_app(settings)

    @app.get("/probe")  # a route of our own on the real app, reading its state through the aliases
    def read(key: CurrentKey, current: SettingsDep, library: LibraryDep) -> dict[str, str]:
        return {"team": key.team_id, "var_dir": str(current.var_dir), "version": library.version}

    with TestClient(app) as client:
        admin = {"Authorization": "Bearer " + settings.admin_key_path.read_text().strip()}
        body = client.get("/probe", headers=admin).json()
    assert body["var_dir"] == str(settings.var_dir) and body["team"].startswith("team_")
    assert body["version"] == app.state.helmbench.deps.library.version
