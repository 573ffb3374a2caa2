"""Two teams, each with a finished private evaluation, on the embedded default: what the sign-in and share-link
tests look at. Built through the API with the target mocked at the HTTP layer."""

from __future__ import annotations

import re
from dataclasses import dataclass

import respx
from fastapi.testclient import TestClient

from tests.routers.conftest import TARGET_URL, careful_bot
from tests.security.conftest import TeamKeys, make_team
from tests.waits import settled


@dataclass(frozen=True)
class Team:
    keys: TeamKeys
    evaluation_id: str

    @property
    def admin_key(self) -> str:
        return self.keys.admin["Authorization"].removeprefix("Bearer ")

    @property
    def read_only_key(self) -> str:
        return self.keys.read_only["Authorization"].removeprefix("Bearer ")


def private_evaluation(client: TestClient, headers: dict[str, str], name: str) -> str:
    target = client.post(
        "/v1/targets", headers=headers, json={"name": name, "base_url": TARGET_URL, "model": f"{name}-1"}
    )
    assert target.status_code == 201, target.text
    started = client.post("/v1/evaluations", headers=headers, json={"target_id": target.json()["id"]})
    assert started.status_code == 202, started.text
    evaluation_id = started.json()["id"]
    assert settled(client, evaluation_id, headers=headers)["status"] == "succeeded"
    return evaluation_id


def two_teams(client: TestClient, mock_target: respx.MockRouter) -> tuple[Team, Team]:
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=careful_bot)
    a, b = make_team(client, "team-a"), make_team(client, "team-b")
    return (
        Team(a, private_evaluation(client, a.admin, "alpha-bot")),
        Team(b, private_evaluation(client, b.admin, "beta-bot")),
    )


def hidden_field(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, f"no hidden field {name!r} in the page"
    return found.group(1)
