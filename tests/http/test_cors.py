"""CORS on the public read endpoints only, so any dashboard may poll them from a browser: a preflight answered
at once, listed origins echoed (with Vary), credentials never allowed, private paths and other origins none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.config import Settings
from app.http.cors import PublicCORSMiddleware, is_public_path
from app.main import create_app

DASH = "https://dash.example"


def behind_cors(origins: str) -> TestClient:
    """A bare app answering every path, behind the middleware: what it adds is all that differs."""

    async def ok(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok", headers={"ETag": '"e1"'})

    inner = Starlette(routes=[Route("/{path:path}", ok, methods=["GET", "OPTIONS", "POST"])])
    return TestClient(PublicCORSMiddleware(inner, origins=origins))


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


def test_only_the_public_read_paths_are_public() -> None:
    assert is_public_path("/v1/leaderboard") and is_public_path("/v1/public/abc/report")
    assert is_public_path("/v1/benchmark/scenarios")
    assert not is_public_path("/v1/leaderboards") and not is_public_path("/v1/publicity")
    assert not is_public_path("/v1/evaluations") and not is_public_path("/")


def test_a_preflight_is_answered_by_the_middleware_without_reaching_the_app() -> None:
    client = behind_cors("*")
    preflight = client.options(
        "/v1/leaderboard", headers={"Origin": DASH, "Access-Control-Request-Method": "GET"}
    )
    assert preflight.status_code == 204 and preflight.content == b""
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS"
    assert preflight.headers["access-control-max-age"] == "600" and "vary" not in preflight.headers
    plain_options = client.options("/v1/leaderboard", headers={"Origin": DASH})  # not a preflight
    assert plain_options.text == "ok" and plain_options.headers["access-control-allow-origin"] == "*"


def test_a_listed_origin_is_echoed_with_vary_and_the_etag_exposed() -> None:
    client = behind_cors("https://ops.example, https://dash.example/")  # a trailing slash is forgiven
    response = client.get("/v1/benchmark", headers={"Origin": DASH})
    assert response.text == "ok" and response.headers["access-control-allow-origin"] == DASH
    assert (
        response.headers["vary"] == "Origin" and response.headers["access-control-expose-headers"] == "ETag"
    )
    assert "access-control-allow-credentials" not in response.headers
    unlisted = client.options(
        "/v1/benchmark", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert unlisted.text == "ok" and "access-control-allow-origin" not in unlisted.headers


def test_private_paths_and_requests_without_an_origin_get_no_cors() -> None:
    client = behind_cors("*")
    private = client.get("/v1/evaluations", headers={"Origin": DASH})
    assert private.text == "ok" and not any(h.startswith("access-control-") for h in private.headers)
    no_origin = client.get("/v1/leaderboard")
    assert not any(h.startswith("access-control-") for h in no_origin.headers)


def test_no_origins_configured_means_no_cors_anywhere() -> None:
    client = behind_cors("")
    response = client.get("/v1/leaderboard", headers={"Origin": DASH})
    assert response.text == "ok" and "access-control-allow-origin" not in response.headers


def test_cors_on_public_reads_without_credentials_and_preflight(api: TestClient) -> None:
    response = api.get("/v1/leaderboard", headers={"Origin": "https://dash.example"})
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-expose-headers"] == "ETag"
    assert "access-control-allow-credentials" not in response.headers
    preflight = api.options(
        "/v1/leaderboard",
        headers={
            "Origin": "https://dash.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
    )
    assert preflight.status_code == 204 and "GET" in preflight.headers["access-control-allow-methods"]
    assert preflight.headers["access-control-allow-headers"] == "If-None-Match"
    private = api.options(
        "/v1/targets", headers={"Origin": "https://dash.example", "Access-Control-Request-Method": "GET"}
    )
    assert "access-control-allow-origin" not in private.headers


def test_listed_origins_are_echoed_and_others_get_nothing(settings: Settings) -> None:
    listed = settings.model_copy(update={"cors_origins": "https://dash.example, https://ops.example"})
    with TestClient(create_app(listed)) as client:
        ok = client.get("/v1/benchmark", headers={"Origin": "https://ops.example"})
        assert ok.headers["access-control-allow-origin"] == "https://ops.example"
        assert ok.headers["vary"] == "Origin"
        other = client.get("/v1/benchmark", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers
