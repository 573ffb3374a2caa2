"""The pages in headless Debian Chromium: load, filter, sort the leaderboard, open a report and a transcript.

Screenshots go to test-output/pages/; HELMBENCH_UPDATE_SCREENSHOTS=1 also copies them to docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.chromium import chromium, skip_without_chromium
from tests.pages.conftest import OUTPUT, Site

# The session fixture starts servers and runs two evaluations: slow on a busy machine.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
README_SHOTS = ("leaderboard", "report")

skip_without_chromium()

from playwright.sync_api import BrowserContext, Locator, Page, expect  # noqa: E402


def browser(tmp_path: Path, javascript: bool) -> AbstractContextManager[BrowserContext]:
    """Chromium from the system package on a fresh profile; never a downloaded browser."""
    return chromium(tmp_path / "profile", java_script_enabled=javascript)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    with browser(tmp_path, javascript=True) as context:
        yield context.new_page()


@pytest.fixture
def page_without_js(tmp_path: Path) -> Iterator[Page]:
    with browser(tmp_path, javascript=False) as context:
        yield context.new_page()


def screenshot(page: Page, name: str, until: Locator | None = None) -> Path:
    """A full-page screenshot, or down to the end of `until`; the README's two are copied on request."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.png"
    clip = None
    if until is not None:  # page coordinates: the box's bottom plus how far the page is scrolled
        bottom = until.evaluate("e => e.getBoundingClientRect().bottom + window.scrollY")
        clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": bottom + 16}  # type: ignore[index]
    page.screenshot(path=str(path), full_page=True, clip=clip)  # type: ignore[arg-type]
    if name in README_SHOTS and os.environ.get("HELMBENCH_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, DOCS / path.name)
    return path


def model_names(page: Page) -> list[str]:
    return [t.split("\n")[0].strip() for t in page.locator("tbody th[scope=row]").all_inner_texts()]


def pass_rates(page: Page) -> list[int]:
    """The pass-rate column (the fourth cell of each row) as whole percentages."""
    return [
        int(row.locator("td, th").nth(3).inner_text().split("%")[0]) for row in page.locator("tbody tr").all()
    ]


def test_leaderboard_loads_filters_and_sorts(site: Site, page: Page) -> None:
    page.goto(site.base + "/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboard")
    ranked = [e["target_name"] for e in page.request.get(site.base + "/v1/leaderboard").json()["entries"]]
    assert model_names(page) == ranked and sorted(ranked) == ["Careless bot", "Toy bot"]
    assert page.locator("main").count() == 1 and page.locator("thead th[scope=col]").count() == 10
    screenshot(page, "leaderboard")

    page.get_by_label("User's country").select_option("AU")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_role("status")).to_contain_text("Australia")
    assert "country=AU" in page.url and page.get_by_label("User's country").input_value() == "AU"
    assert sorted(model_names(page)) == ["Careless bot", "Toy bot"]

    page.get_by_role("link", name="Pass rate").click()
    expect(page.locator("th[aria-sort=descending]")).to_contain_text("Pass rate")
    assert pass_rates(page) == sorted(pass_rates(page), reverse=True)
    page.get_by_role("link", name="Pass rate").click()
    expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Pass rate")
    assert pass_rates(page) == sorted(pass_rates(page))
    assert "country=AU" in page.url  # sorting keeps the filter
    screenshot(page, "leaderboard-filtered")


def test_report_charts_and_a_failing_transcript(site: Site, page: Page) -> None:
    page.goto(site.base + "/")
    page.get_by_role("link", name="Toy bot").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Toy bot")
    assert page.get_by_role("img").count() == 3  # the charts, each named by its <title>
    expect(page.get_by_role("img", name="Pass rate by pillar", exact=True)).to_be_visible()
    expect(page.get_by_role("img", name="Pass rate by behaviour", exact=True)).to_be_visible()
    expect(page.get_by_role("img", name="Pass rate by condition", exact=True)).to_be_visible()
    # three tables of figures (pillars' score and pass rate, countries, crisis categories), besides one per risk
    # ladder the report runs
    expect(page.locator("xpath=//table[not(ancestor::section[@aria-labelledby='h-ladders'])]")).to_have_count(
        3
    )
    expect(page.locator("table.pillar-scores")).to_contain_text("Score (0–100)")
    item = page.locator("details.item").first
    reply = item.locator(".msg.reply")
    expect(reply).to_be_hidden()
    item.locator(":scope > summary").click()
    expect(reply).to_be_visible()
    expect(item.locator("li").first).not_to_be_empty()  # the grader's reasons
    screenshot(page, "report", until=item)


def test_unshared_transcripts_stay_hidden_and_pages_work_without_javascript(
    site: Site, page_without_js: Page
) -> None:
    page = page_without_js
    page.goto(site.base + "/")
    page.get_by_label("Condition (deployment persona)").select_option(index=1)
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_role("status")).to_contain_text("condition")
    page.get_by_role("link", name="Model").click()
    assert "sort=model" in page.url and "condition=" in page.url
    page.get_by_role("link", name="Careless bot").click()
    item = page.locator("details.item").first
    item.locator(":scope > summary").click()
    expect(item.get_by_role("heading", name="Why the grader marked it")).to_be_visible()
    assert item.locator(".msg").count() == 0
    expect(page.get_by_text("has not shared transcripts")).to_be_visible()
    screenshot(page, "report-unshared")
