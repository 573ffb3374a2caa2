"""What dashboards poll: ETag → 304, Cache-Control, a leaderboard re-rendered on change, public-only CORS."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.http.body_cache import BodyCache, SingleFlight
from app.http.caching import etag_matches
from app.main import create_app
from tests.waits import eventually, eventually_async, settled
from tests.webhooks.live_server import serving, slow_target


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = "Bearer " + (settings.var_dir / "admin.key").read_text().strip()
        yield client


@pytest.fixture
def target_url() -> Iterator[str]:
    with serving(slow_target(0)) as url:
        yield url


def run(api: TestClient, target_url: str, visibility: str = "public") -> str:
    target = api.post("/v1/targets", json={"name": "bot", "base_url": f"{target_url}/v1", "model": "m"})
    target = target.json()
    body = {"target_id": target["id"], "visibility": visibility}
    evaluation_id = api.post("/v1/evaluations", json=body).json()["id"]
    assert settled(api, evaluation_id)["status"] == "succeeded"
    return evaluation_id


def test_leaderboard_revalidates_to_304_and_changes_when_an_evaluation_is_published(
    api: TestClient, target_url: str
) -> None:
    first = api.get("/v1/leaderboard", headers={"Authorization": ""})
    assert first.status_code == 200 and first.json()["entries"] == []
    assert first.headers["cache-control"] == "public, max-age=5" and first.headers["etag"].startswith('"')
    same = api.get("/v1/leaderboard", headers={"If-None-Match": first.headers["etag"]})
    assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == first.headers["etag"]
    evaluation_id = run(api, target_url)
    revalidate = {"If-None-Match": first.headers["etag"]}
    changed = eventually(  # the stamp is rechecked at most once a second
        lambda: api.get("/v1/leaderboard", headers=revalidate),
        lambda response: response.status_code != 304,
        what="the leaderboard to notice the new evaluation",
        every=0.1,
    )
    assert changed.status_code == 200 and changed.headers["etag"] != first.headers["etag"]
    assert [e["evaluation_id"] for e in changed.json()["entries"]] == [evaluation_id]


def test_evaluation_status_is_private_no_cache_with_an_etag_that_tracks_progress(
    api: TestClient, target_url: str
) -> None:
    evaluation_id = run(api, target_url, visibility="private")
    status = api.get(f"/v1/evaluations/{evaluation_id}", headers={"Origin": "https://dash.example"})
    assert status.headers["cache-control"] == "private, no-cache"
    assert "access-control-allow-origin" not in status.headers  # private data never gets CORS
    assert (
        api.get(
            f"/v1/evaluations/{evaluation_id}", headers={"If-None-Match": status.headers["etag"]}
        ).status_code
        == 304
    )
    report = api.get(f"/v1/evaluations/{evaluation_id}/report")
    assert report.headers["cache-control"] == "private, no-cache"
    assert (
        api.get(
            f"/v1/evaluations/{evaluation_id}/report",
            headers={"If-None-Match": f"W/{report.headers['etag']}"},
        ).status_code
        == 304
    )
    other = api.get(f"/v1/evaluations/{evaluation_id}", headers={"If-None-Match": '"stale"'})
    assert other.status_code == 200 and other.json()["status"] == "succeeded"


def test_public_report_is_served_only_for_published_evaluations(api: TestClient, target_url: str) -> None:
    private_id = run(api, target_url, visibility="private")
    assert api.get(f"/v1/leaderboard/{private_id}/report", headers={"Authorization": ""}).status_code == 404
    public_id = run(api, target_url)
    report = api.get(
        f"/v1/leaderboard/{public_id}/report", headers={"Authorization": "", "Origin": "https://x.org"}
    )
    assert report.status_code == 200 and report.json()["evaluation_id"] == public_id
    assert report.headers["access-control-allow-origin"] == "*" and report.headers["etag"]


def test_catalogue_has_a_stable_etag_and_long_cache(api: TestClient) -> None:
    first = api.get("/v1/benchmark")
    assert first.headers["cache-control"] == "public, max-age=300"
    assert api.get("/v1/benchmark", headers={"If-None-Match": first.headers["etag"]}).status_code == 304


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


def test_if_none_match_comparison_is_weak_and_takes_lists() -> None:
    assert etag_matches('W/"a", "b"', '"a"') and etag_matches('"b"', 'W/"b"') and etag_matches("*", '"z"')
    assert not etag_matches('"a"', '"b"') and not etag_matches(None, '"a"') and not etag_matches("", '"a"')


def test_body_cache_renders_again_on_a_new_stamp_or_after_its_ttl() -> None:
    renders: list[int] = []

    def render() -> bytes:
        renders.append(1)
        return f"body {len(renders)}".encode()

    cache = BodyCache(max_entries=2, ttl_s=60)
    assert cache.recent("k") is None
    first = cache.get_or_render("k", 1, render, fresh_s=60)
    assert cache.get_or_render("k", 1, render) == first and len(renders) == 1
    assert cache.recent("k") is None, "the last check asked for no freshness"
    cache.get_or_render("k", 1, render, fresh_s=60)
    assert cache.recent("k") == first
    assert cache.get_or_render("k", 2, render)[0] == b"body 2"
    expired = BodyCache(ttl_s=0)
    expired.get_or_render("k", 1, render)
    expired.get_or_render("k", 1, render)
    assert len(renders) == 4
    for key in ("a", "b", "c"):
        cache.get_or_render(key, 1, render)
    assert len(cache._entries) == 2  # bounded: a query parameter cannot grow it without limit
    assert cache.put("p", b"x", fresh_s=60) == cache.recent("p")


async def test_a_crowd_of_pollers_gets_the_last_body_while_one_rebuild_runs() -> None:
    cache = BodyCache()
    documents = SingleFlight(cache, max_stale_s=60)
    cache.put("status", b"running 10", fresh_s=0)  # kept, and already stale
    release = threading.Event()
    builds: list[int] = []

    def slow_rebuild() -> tuple[bytes, str]:
        builds.append(1)
        release.wait(30)  # the database is slow: nobody above may wait for it
        return cache.put("status", b"running 20", fresh_s=60)

    answers = await asyncio.gather(*(documents.get("status", slow_rebuild) for _ in range(100)))
    assert {body for body, _ in answers} == {b"running 10"}
    assert len(builds) == 1, "one rebuild however many pollers"
    release.set()
    newer = await eventually_async(
        lambda: documents.get("status", slow_rebuild), until=lambda found: found[0] == b"running 20"
    )
    assert newer == cache.recent("status") and len(builds) == 1


async def test_pollers_with_nothing_recent_wait_for_one_shared_rebuild() -> None:
    cache = BodyCache()
    documents = SingleFlight(cache, max_stale_s=0.2)
    builds: list[int] = []

    def rebuild() -> tuple[bytes, str] | None:
        builds.append(1)
        time.sleep(0.05)  # every caller below arrives while this one runs
        return None  # no such evaluation: nothing is kept, each caller gets the answer

    assert await asyncio.gather(*(documents.get("missing", rebuild) for _ in range(20))) == [None] * 20
    assert len(builds) == 1
    cache.put("old", b"long stale", fresh_s=0)
    await asyncio.sleep(0.3)  # stale for longer than max_stale_s: a poller waits for the rebuild instead
    assert await documents.get("old", lambda: cache.put("old", b"new", fresh_s=60)) == cache.recent("old")
