"""An app on a temp SQLite var dir with two teams: each has admin, member and read-only keys."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.store.keys import create_key, create_team


@dataclass
class TeamKeys:
    team_id: str
    admin: dict[str, str]
    member: dict[str, str]
    read_only: dict[str, str]


def bearer(raw: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {raw}"}


def make_team(client: TestClient, name: str) -> TeamKeys:
    """A team with one key of each role, made straight in the store (the API path is tested on its own)."""
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    with Session(engine) as session:
        team = create_team(session=session, name=name)
        raws = {
            role: create_key(session=session, team_id=team.id, name=role, role=role)[1]
            for role in ("admin", "member", "read-only")
        }
        session.commit()
        return TeamKeys(team.id, bearer(raws["admin"]), bearer(raws["member"]), bearer(raws["read-only"]))


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def strict_client(settings: Settings) -> Iterator[TestClient]:
    """The production default: an empty allowlist, so only public addresses may be registered."""
    with TestClient(create_app(settings.model_copy(update={"target_allowlist": ""}))) as c:
        yield c


@pytest.fixture
def platform_admin(client: TestClient, settings: Settings) -> dict[str, str]:
    return bearer(settings.admin_key_path.read_text().strip())


@pytest.fixture
def team_a(client: TestClient) -> TeamKeys:
    return make_team(client, "team-a")


@pytest.fixture
def team_b(client: TestClient) -> TeamKeys:
    return make_team(client, "team-b")
