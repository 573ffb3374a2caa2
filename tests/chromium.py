"""Debian's Chromium for the browser tests: where it is, the flags it runs with, a context on a fresh profile.

Never a downloaded browser: `make test` installs the system package where it is missing, and a module that needs it
calls `skip_without_chromium()` before importing Playwright.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def skip_without_chromium() -> None:
    """Skips the calling test module where the system's Chromium is not installed."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)


@contextmanager
def chromium(profile: Path, *, args: Sequence[str] = (), **options: Any) -> Iterator[BrowserContext]:
    """Headless Chromium on a fresh profile; `args` add flags, `options` go to Playwright's context."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=[*CHROMIUM_ARGS, *args],
            **{"viewport": {"width": 1280, "height": 900}, **options},
        )
        try:
            yield context
        finally:
            context.close()
