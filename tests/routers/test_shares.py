"""Share links over HTTP: made, listed and revoked by the owning team (or a platform admin) only; followed
signed out they open that one report read-only, until revoked, expired or the evaluation deleted."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.store.models import ShareLink, utcnow
from tests.pages.teams import Team, two_teams
from tests.security.conftest import bearer


@pytest.fixture
def app_and_teams(
    settings: Settings, mock_target: respx.MockRouter
) -> Iterator[tuple[TestClient, Team, Team]]:
    with TestClient(create_app(settings)) as client:
        a, b = two_teams(client, mock_target)
        yield client, a, b


def share(client: TestClient, team: Team, **body: object) -> dict:
    made = client.post(f"/v1/evaluations/{team.evaluation_id}/shares", headers=team.keys.admin, json=body)
    assert made.status_code == 201, made.text
    return made.json()


def test_a_share_link_opens_that_report_signed_out_and_nothing_else(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, b = app_and_teams
    made = client.post(
        f"/v1/evaluations/{a.evaluation_id}/shares",
        headers=a.keys.member,
        json={"label": "for the clinician"},
    )
    assert made.status_code == 201, made.text
    link = made.json()
    assert made.headers["location"] == f"/v1/evaluations/{a.evaluation_id}/shares/{link['id']}"
    assert link["url"].startswith("http://testserver/shared/") and link["active"] is True
    assert link["label"] == "for the clinician"
    days = (link["expires_at"][:10], (utcnow() + timedelta(days=7)).date().isoformat())
    assert days[0] == days[1]  # the default: a week

    page = client.get(link["url"])  # no key, no cookie
    assert page.status_code == 200 and "alpha-bot" in page.text and "Shared link · read-only" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == "private, no-store"
    assert 'action="/sign-out"' not in page.text and "beta-bot" not in page.text
    # The link opens no session: the team's pages stay closed to its holder.
    assert client.get(f"/evaluations/{a.evaluation_id}").status_code == 404
    assert client.get(f"/evaluations/{b.evaluation_id}").status_code == 404
    assert client.get(f"/v1/evaluations/{a.evaluation_id}/results").status_code == 401

    events = client.get("/v1/audit", headers=a.keys.admin).json()["items"]
    reads = [e for e in events if e["action"] == "read_share"]
    assert len(reads) == 1 and reads[0]["object_id"] == a.evaluation_id and reads[0]["key_id"] is None


def test_the_list_never_shows_a_token_again(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    link = share(client, a, expires_in_days=30)
    token = link["url"].rsplit("/", 1)[1]
    listed = client.get(f"/v1/evaluations/{a.evaluation_id}/shares", headers=a.keys.read_only)
    assert listed.status_code == 200 and [s["id"] for s in listed.json()] == [link["id"]]
    assert token not in listed.text and "url" not in listed.json()[0]


@pytest.mark.parametrize("days", [0, 91, "soon"])
def test_a_lifetime_out_of_range_is_a_problem_naming_the_field(
    app_and_teams: tuple[TestClient, Team, Team], days: object
) -> None:
    client, a, _ = app_and_teams
    answer = client.post(
        f"/v1/evaluations/{a.evaluation_id}/shares", headers=a.keys.admin, json={"expires_in_days": days}
    )
    assert answer.status_code == 422 and answer.headers["content-type"] == "application/problem+json"
    assert "expires_in_days" in answer.json()["field"]


def test_a_revoked_link_answers_410_at_once(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    link = share(client, a)
    revoked = client.delete(f"/v1/evaluations/{a.evaluation_id}/shares/{link['id']}", headers=a.keys.admin)
    assert revoked.status_code == 200 and revoked.json()["active"] is False and revoked.json()["revoked_at"]
    page = client.get(link["url"])
    assert page.status_code == 410 and "revoked" in page.text and "alpha-bot" not in page.text
    assert page.headers["referrer-policy"] == "no-referrer"


def test_an_expired_link_answers_410_and_an_unknown_one_404(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    link = share(client, a, expires_in_days=1)
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    with Session(engine) as session:  # a day and a minute later
        past = utcnow() - timedelta(minutes=1)
        session.execute(update(ShareLink).where(ShareLink.id == link["id"]).values(expires_at=past))  # type: ignore[arg-type]
        session.commit()
    expired = client.get(link["url"])
    assert expired.status_code == 410 and "expired" in expired.text and "alpha-bot" not in expired.text
    listed = client.get(f"/v1/evaluations/{a.evaluation_id}/shares", headers=a.keys.admin).json()
    assert listed[0]["active"] is False
    unknown = client.get(link["url"][:-4] + "AAAA")
    assert unknown.status_code == 404 and "alpha-bot" not in unknown.text


def test_deleting_the_evaluation_removes_its_links(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    link = share(client, a)
    assert client.delete(f"/v1/evaluations/{a.evaluation_id}", headers=a.keys.admin).status_code == 204
    assert client.get(link["url"]).status_code == 404
    engine = client.app.state.helmbench.deps.engine  # type: ignore[attr-defined]
    with Session(engine) as session:
        assert session.get(ShareLink, link["id"]) is None


def test_another_teams_keys_cannot_make_list_or_revoke_links(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, b = app_and_teams
    link = share(client, a)
    shares = f"/v1/evaluations/{a.evaluation_id}/shares"
    for headers in (b.keys.admin, b.keys.member):
        assert client.post(shares, headers=headers, json={}).status_code == 404
        assert client.get(shares, headers=headers).status_code == 404
        assert client.delete(f"{shares}/{link['id']}", headers=headers).status_code == 404
    # A's link, revoked through B's own evaluation's path, is not found either.
    elsewhere = f"/v1/evaluations/{b.evaluation_id}/shares/{link['id']}"
    assert client.delete(elsewhere, headers=b.keys.admin).status_code == 404
    assert client.get(shares, headers=a.keys.admin).json()[0]["active"] is True
    assert client.get(link["url"]).status_code == 200


def test_a_read_only_key_cannot_make_or_revoke_links(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    link = share(client, a)
    shares = f"/v1/evaluations/{a.evaluation_id}/shares"
    assert client.post(shares, headers=a.keys.read_only, json={}).status_code == 403
    assert client.delete(f"{shares}/{link['id']}", headers=a.keys.read_only).status_code == 403


def test_a_platform_admin_may_share_any_teams_evaluation(
    app_and_teams: tuple[TestClient, Team, Team], settings: Settings
) -> None:
    client, a, _ = app_and_teams
    platform = bearer(settings.admin_key_path.read_text().strip())
    made = client.post(f"/v1/evaluations/{a.evaluation_id}/shares", headers=platform, json={})
    assert made.status_code == 201
    assert client.get(made.json()["url"]).status_code == 200
