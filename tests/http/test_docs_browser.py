"""/docs and /redoc render in Chromium with no network: their assets come from the service, not a CDN."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.chromium import chromium, skip_without_chromium
from tests.webhooks.live_server import serving

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

HOST = (
    "helmbench.test"  # not a loopback name: Swagger UI would then reach out for its validator badge, if let
)

skip_without_chromium()

from playwright.sync_api import Page, Route  # noqa: E402


@pytest.fixture
def site(settings: Settings) -> Iterator[str]:
    with serving(create_app(settings)) as url:
        yield url


@pytest.fixture
def offline(tmp_path: Path, site: str) -> Iterator[tuple[Page, str, list[str]]]:
    """A page whose only reachable host is the service (as HOST); every other request is refused and recorded."""
    port = urlsplit(site).port
    outside: list[str] = []
    # no name resolves but the service's: a CDN could not be reached even if asked
    rules = f"--host-resolver-rules=MAP {HOST} 127.0.0.1, MAP * ~NOTFOUND"
    with chromium(tmp_path / "profile", args=[rules]) as context:

        def guard(route: Route) -> None:
            if urlsplit(route.request.url).hostname == HOST:
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        yield context.new_page(), f"http://{HOST}:{port}", outside


def operations(site: str) -> list[tuple[str, str]]:
    paths = httpx.get(f"{site}/openapi.json").json()["paths"]
    return [(method.upper(), path) for path, item in paths.items() for method in item]


def test_swagger_ui_lists_every_operation_offline(offline: tuple[Page, str, list[str]], site: str) -> None:
    page, base, outside = offline
    page.goto(f"{base}/docs", wait_until="networkidle")
    assert outside == []
    blocks = page.locator(".opblock-summary")
    blocks.first.wait_for(timeout=30_000)
    shown = blocks.evaluate_all(
        """blocks => blocks.map(b => [
            b.querySelector('.opblock-summary-method').textContent.trim(),
            b.querySelector('.opblock-summary-path').getAttribute('data-path'),
        ])"""
    )
    assert sorted(map(tuple, shown)) == sorted(operations(site))
    assert outside == []


def test_redoc_renders_the_operations_offline(offline: tuple[Page, str, list[str]], site: str) -> None:
    page, base, outside = offline
    page.goto(f"{base}/redoc", wait_until="networkidle")
    assert outside == []
    sections = page.locator("[data-section-id^='operation/']")
    sections.first.wait_for(timeout=30_000)
    assert sections.count() == len(operations(site))
    assert outside == []
