"""What dashboards poll: ETag → 304, Cache-Control, a leaderboard re-rendered on change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.http.caching import etag_matches
from app.main import create_app
from tests.waits import eventually, settled
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


def test_if_none_match_comparison_is_weak_and_takes_lists() -> None:
    assert etag_matches('W/"a", "b"', '"a"') and etag_matches('"b"', 'W/"b"') and etag_matches("*", '"z"')
    assert not etag_matches('"a"', '"b"') and not etag_matches(None, '"a"') and not etag_matches("", '"a"')
