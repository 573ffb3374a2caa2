"""Signing a browser in with an API key, over plain HTTP: the cookie's flags, CSRF refusals, the key kept out of
every answer, throttling, sign-out and revocation ending the session, and what each team's browser may see."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.pages.access import SESSION_COOKIE, SIGN_IN_BURST
from tests.pages.teams import Team, hidden_field, two_teams


@pytest.fixture
def app_and_teams(
    settings: Settings, mock_target: respx.MockRouter
) -> Iterator[tuple[TestClient, Team, Team]]:
    with TestClient(create_app(settings)) as client:
        a, b = two_teams(client, mock_target)
        yield client, a, b


def sign_in(client: TestClient, key: str, *, next_path: str = "/") -> httpx.Response:
    form = client.get("/sign-in")
    assert form.status_code == 200
    return client.post(
        "/sign-in",
        data={"csrf": hidden_field(form.text, "csrf"), "api_key": key, "next": next_path},
        follow_redirects=False,
    )


def session_cookie_header(response: httpx.Response) -> str:
    return next(h for h in response.headers.get_list("set-cookie") if h.startswith(f"{SESSION_COOKIE}="))


def test_signing_in_opens_the_teams_private_report_with_a_safe_cookie(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    report = f"/evaluations/{a.evaluation_id}"
    assert client.get(report).status_code == 404  # signed out: a private report is not there

    signed = sign_in(client, a.admin_key, next_path=report)
    assert signed.status_code == 303 and signed.headers["location"] == report
    cookie = session_cookie_header(signed).lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert "secure" not in cookie  # plain http here; see the https test

    page = client.get(report)
    assert page.status_code == 200 and "alpha-bot" in page.text
    assert "Signed in: team <strong>team-a</strong>" in page.text and 'action="/sign-out"' in page.text
    assert page.headers["cache-control"] == "private, no-store"
    events = client.get("/v1/audit", headers=a.keys.admin).json()["items"]
    assert any(e["action"] == "read_page" and e["object_id"] == a.evaluation_id for e in events)


def test_the_cookie_is_secure_over_https(settings: Settings, mock_target: respx.MockRouter) -> None:
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        a, _ = two_teams(client, mock_target)
        cookie = session_cookie_header(sign_in(client, a.admin_key)).lower()
        assert "secure" in cookie and "httponly" in cookie


def test_the_key_appears_in_no_answer_nor_cookie(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    answers = [client.get("/sign-in"), sign_in(client, a.admin_key)]
    answers += [client.get("/"), client.get(f"/evaluations/{a.evaluation_id}")]
    answers.append(sign_in(client, a.admin_key[:-2] + "xx"))  # a wrong key, shown again with the form
    for answer in answers:
        assert a.admin_key not in answer.text
        assert all(a.admin_key not in h for h in answer.headers.get_list("set-cookie"))
        assert a.admin_key not in answer.headers.get("location", "")


def test_a_wrong_key_shows_the_form_again_with_401(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, _, _ = app_and_teams
    refused = sign_in(client, "hb_not-a-key")
    assert refused.status_code == 401
    assert "unknown or revoked" in refused.text and 'name="api_key"' in refused.text
    assert SESSION_COOKIE not in refused.headers.get("set-cookie", "")


def test_too_many_tries_are_throttled(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    statuses = [sign_in(client, f"hb_guess-{n}").status_code for n in range(SIGN_IN_BURST + 1)]
    assert statuses[:SIGN_IN_BURST] == [401] * SIGN_IN_BURST and statuses[-1] == 429
    throttled = sign_in(client, a.admin_key)  # even the right key waits
    assert throttled.status_code == 429 and "try again in" in throttled.text


def test_sign_in_without_the_forms_token_or_from_another_site_is_refused(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    token = hidden_field(client.get("/sign-in").text, "csrf")
    bare = client.post("/sign-in", data={"api_key": a.admin_key}, follow_redirects=False)
    wrong = client.post(
        "/sign-in", data={"csrf": "x" + token, "api_key": a.admin_key}, follow_redirects=False
    )
    foreign = client.post(
        "/sign-in",
        data={"csrf": token, "api_key": a.admin_key},
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    cross_site = client.post(
        "/sign-in",
        data={"csrf": token, "api_key": a.admin_key},
        headers={"Sec-Fetch-Site": "cross-site"},
        follow_redirects=False,
    )
    for answer in (bare, wrong, foreign, cross_site):
        assert answer.status_code == 403 and "another site" in answer.text
        assert SESSION_COOKIE not in answer.headers.get("set-cookie", "")
    assert client.get(f"/evaluations/{a.evaluation_id}").status_code == 404


def test_sign_out_needs_the_sessions_token_and_then_ends_the_session(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    report = f"/evaluations/{a.evaluation_id}"
    sign_in(client, a.admin_key)
    stolen = client.cookies[SESSION_COOKIE]
    csrf = hidden_field(client.get(report).text, "csrf")

    forged = client.post("/sign-out", data={"csrf": "0" * 64}, follow_redirects=False)
    assert forged.status_code == 403 and client.get(report).status_code == 200
    foreign = client.post(
        "/sign-out", data={"csrf": csrf}, headers={"Origin": "http://evil.example"}, follow_redirects=False
    )
    assert foreign.status_code == 403 and client.get(report).status_code == 200

    out = client.post("/sign-out", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/"
    assert SESSION_COOKIE not in client.cookies
    assert client.get(report).status_code == 404
    client.cookies.set(SESSION_COOKIE, stolen)  # the old cookie, kept by someone: the session is gone
    assert client.get(report).status_code == 404


def test_revoking_the_key_signs_its_browsers_out(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, _ = app_and_teams
    member = client.post(
        "/v1/keys", headers=a.keys.admin, json={"name": "laptop", "role": "read-only"}
    ).json()
    assert sign_in(client, member["key"]).status_code == 303
    assert client.get(f"/evaluations/{a.evaluation_id}").status_code == 200
    assert client.delete(f"/v1/keys/{member['id']}", headers=a.keys.admin).status_code == 200
    assert client.get(f"/evaluations/{a.evaluation_id}").status_code == 404


def test_team_bs_browser_does_not_see_team_as_report(app_and_teams: tuple[TestClient, Team, Team]) -> None:
    client, a, b = app_and_teams
    sign_in(client, b.read_only_key)
    assert client.get(f"/evaluations/{b.evaluation_id}").status_code == 200
    other = client.get(f"/evaluations/{a.evaluation_id}")
    assert other.status_code == 404 and "alpha-bot" not in other.text


def test_the_kept_leaderboard_names_the_signed_in_team_only_to_it(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    anonymous = client.get("/")
    assert 'href="/sign-in"' in anonymous.text and anonymous.headers["cache-control"].startswith("public")
    sign_in(client, a.admin_key)
    mine = client.get("/")
    assert "team-a" in mine.text and 'action="/sign-out"' in mine.text
    assert mine.headers["cache-control"] == "private, no-store"
    client.cookies.clear()
    assert "team-a" not in client.get("/").text


def test_after_sign_in_only_a_path_on_this_site_is_followed(
    app_and_teams: tuple[TestClient, Team, Team],
) -> None:
    client, a, _ = app_and_teams
    for elsewhere in ("https://evil.example/", "//evil.example/x", "/\t/evil.example/", "/\\evil.example"):
        assert sign_in(client, a.admin_key, next_path=elsewhere).headers["location"] == "/"
