"""The failures explorer in headless Debian Chromium, through a share link (no key in the browser): open it,
apply a filter, the rows change, follow an item to its transcript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from bench.ports import free_port
from tests.chromium import skip_without_chromium
from tests.pages.conftest import serving_in_thread
from tests.pages.test_access_browser import browser
from tests.pages.test_explorer import alarmed_bot
from tests.routers.conftest import TARGET_URL
from tests.security.conftest import make_team
from tests.waits import settled

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

skip_without_chromium()

from playwright.sync_api import Page, expect  # noqa: E402


@pytest.fixture
def shared_results(settings: Settings, mock_target: respx.MockRouter) -> Iterator[str]:
    """A share link's URL to a finished private evaluation of the whole mini matrix, the app on a real port."""
    mock_target.post(f"{TARGET_URL}/chat/completions").mock(side_effect=alarmed_bot)
    with TestClient(create_app(settings)) as client:
        team = make_team(client, "team-a")
        target = client.post(
            "/v1/targets",
            headers=team.admin,
            json={"name": "alpha-bot", "base_url": TARGET_URL, "model": "a-1"},
        ).json()["id"]
        evaluation_id = client.post(
            "/v1/evaluations", headers=team.admin, json={"target_id": target, "suite": "full"}
        ).json()["id"]
        assert settled(client, evaluation_id, headers=team.admin)["status"] == "succeeded"
    port = free_port()
    mock_target.route(host="127.0.0.1", port=port).pass_through()
    with serving_in_thread(create_app(settings), port):
        base = f"http://127.0.0.1:{port}"
        shares = f"{base}/v1/evaluations/{evaluation_id}/shares"
        url = httpx.post(shares, headers=team.admin, json={"label": "browser"}).json()["url"]
        yield url


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    with browser(tmp_path) as context:
        yield context.new_page()


def test_filter_the_explorer_and_read_an_items_transcript(shared_results: str, page: Page) -> None:
    page.goto(shared_results)
    page.get_by_role("link", name="every failed item").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Results")
    failed = page.locator("tbody tr[data-key]")
    expect(page.get_by_label("Verdict")).to_have_value("FAIL")
    n_failed = failed.count()
    assert 0 < n_failed < 9

    page.get_by_label("Verdict").select_option("")
    page.get_by_role("button", name="Apply filters").click()
    expect(failed).to_have_count(9)  # every item, once the filter is cleared

    page.get_by_label("Verdict").select_option("FAIL")
    page.get_by_label("Crisis category").select_option("no_crisis")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_role("status")).to_contain_text("match")
    rows = failed.count()
    assert 0 < rows <= n_failed
    for verdict in failed.locator("td:first-child").all_inner_texts():
        assert verdict == "FAIL"

    failed.first.get_by_role("link").click()
    expect(page.get_by_role("heading", name="Transcript")).to_be_visible()
    expect(page.locator(".msg.reply")).to_contain_text("Lifeline")
    expect(page.get_by_role("heading", name="Why the grader marked it FAIL")).to_be_visible()
    assert page.url.startswith(shared_results)  # still under the share link's own URL space
