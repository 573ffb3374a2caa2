"""Browser access in headless Debian Chromium: sign in with a key, open a private report, sign out; follow a
share link signed out; an expired and a revoked link refused; team B's browser refused team A's report."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
import respx
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.store.db import make_engine
from app.store.models import ShareLink, utcnow
from bench.ports import free_port
from tests.chromium import chromium, skip_without_chromium
from tests.pages.conftest import serving_in_thread
from tests.pages.teams import Team, two_teams

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

skip_without_chromium()

from playwright.sync_api import BrowserContext, Page, expect  # noqa: E402


def browser(tmp_path: Path) -> AbstractContextManager[BrowserContext]:
    """Chromium from the system package on a fresh profile; never a downloaded browser."""
    return chromium(tmp_path / "profile")


@dataclass(frozen=True)
class Live:
    base: str
    a: Team
    b: Team
    settings: Settings


@pytest.fixture
def live(settings: Settings, mock_target: respx.MockRouter) -> Iterator[Live]:
    """Two teams' finished private evaluations, then the app served on a real port for the browser."""
    with TestClient(create_app(settings)) as client:
        a, b = two_teams(client, mock_target)
    port = free_port()
    mock_target.route(host="127.0.0.1", port=port).pass_through()  # the test's own calls to the served API
    with serving_in_thread(create_app(settings), port):
        yield Live(base=f"http://127.0.0.1:{port}", a=a, b=b, settings=settings)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    with browser(tmp_path) as context:
        yield context.new_page()


def sign_in(page: Page, base: str, key: str, report: str) -> None:
    page.goto(f"{base}{report}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    page.get_by_role("main").get_by_role("link", name="sign in").click()
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()


def test_sign_in_open_a_private_report_and_sign_out(live: Live, page: Page) -> None:
    report = f"/evaluations/{live.a.evaluation_id}"
    sign_in(page, live.base, live.a.admin_key, report)
    assert page.url == live.base + report  # back where the visitor started
    expect(page.get_by_role("heading", level=1)).to_contain_text("alpha-bot")
    expect(page.locator("[data-viewer]")).to_contain_text("Signed in: team team-a")
    assert live.a.admin_key not in page.url and live.a.admin_key not in page.content()
    cookie = next(c for c in page.context.cookies() if c["name"] == "hb_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""  # nothing a script on the page can read

    page.get_by_role("link", name="Leaderboard").first.click()
    expect(page.locator("[data-viewer]")).to_contain_text("team-a")  # the board too says who is signed in

    page.get_by_role("button", name="Sign out").click()
    assert page.url == live.base + "/"
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    page.goto(live.base + report)
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")


def test_a_wrong_key_is_told_and_nothing_opens(live: Live, page: Page) -> None:
    sign_in(page, live.base, "hb_wrong-key", f"/evaluations/{live.a.evaluation_id}")
    expect(page.get_by_role("alert")).to_contain_text("unknown or revoked")
    assert not [c for c in page.context.cookies() if c["name"] == "hb_session"]


def test_team_bs_browser_is_refused_team_as_report(live: Live, page: Page) -> None:
    own = f"/evaluations/{live.b.evaluation_id}"
    sign_in(page, live.base, live.b.read_only_key, own)
    expect(page.get_by_role("heading", level=1)).to_contain_text("beta-bot")
    answer = page.goto(f"{live.base}/evaluations/{live.a.evaluation_id}")
    assert answer is not None and answer.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    assert "alpha-bot" not in page.content()


def test_share_links_open_signed_out_until_revoked_or_expired(live: Live, page: Page) -> None:
    shares = f"{live.base}/v1/evaluations/{live.a.evaluation_id}/shares"
    with httpx.Client(headers=live.a.keys.admin) as api:
        kept, revoked, expired = (
            api.post(shares, json={"label": n}).json() for n in ("kept", "revoked", "old")
        )
        assert api.delete(f"{shares}/{revoked['id']}").status_code == 200
    engine = make_engine(live.settings)
    with Session(engine) as session:  # as if its week had passed
        stmt = update(ShareLink).where(ShareLink.id == expired["id"])  # type: ignore[arg-type]
        session.execute(stmt.values(expires_at=utcnow() - timedelta(minutes=1)))
        session.commit()
    engine.dispose()

    answer = page.goto(kept["url"])
    assert answer is not None and answer.status == 200
    assert (
        answer.headers["referrer-policy"] == "no-referrer" and "no-store" in answer.headers["cache-control"]
    )
    expect(page.get_by_role("heading", level=1)).to_contain_text("alpha-bot")
    expect(page.locator("[data-viewer]")).to_have_text("Shared link · read-only")
    page.get_by_role("link", name="← Leaderboard").click()  # leaving: nothing of the link goes along
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    answer = page.goto(f"{live.base}/evaluations/{live.a.evaluation_id}")
    assert answer is not None and answer.status == 404  # the link opened that page only, as a guest

    for link, status, why in ((revoked, 410, "revoked"), (expired, 410, "expired")):
        answer = page.goto(link["url"])
        assert answer is not None and answer.status == status
        expect(page.get_by_role("heading", level=1)).to_have_text("This share link does not open a report")
        expect(page.locator("main")).to_contain_text(why)
        assert "alpha-bot" not in page.content()
