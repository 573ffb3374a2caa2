"""The documentation pages name only the service's own assets, serve them, and forbid every other origin."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.config import Settings
from app.http.docs import ASSETS_URL, POLICY
from app.main import create_app


def test_the_pages_load_their_viewers_from_the_service(settings: Settings) -> None:
    client = TestClient(create_app(settings))
    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200
        assert html.headers["content-security-policy"] == POLICY
        assert not re.search(r"https?://", html.text), html.text  # no CDN, no font service
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert assets and all(a.startswith(ASSETS_URL + "/") for a in assets), assets
        for asset in assets:
            assert client.get(asset).status_code == 200, asset


def test_the_policy_allows_this_origin_alone_and_only_on_the_pages(settings: Settings) -> None:
    assert "http" not in POLICY and "*" not in POLICY.replace("'", "")
    client = TestClient(create_app(settings))
    assert "content-security-policy" not in client.get("/openapi.json").headers
    assert "content-security-policy" not in client.get("/healthz").headers
