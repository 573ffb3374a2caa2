"""The public endpoints: health, readiness, the catalogue and the leaderboard answer without a key; bad
parameters are refused as problem+json naming the parameter; an unpublished evaluation is not found."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app


@pytest.fixture
def anonymous(settings: Settings) -> Iterator[TestClient]:
    """The embedded default with no key at all: what a dashboard or a load balancer sees."""
    with TestClient(create_app(settings)) as client:
        yield client


def test_health_and_readiness_answer_without_a_key(anonymous: TestClient) -> None:
    assert anonymous.get("/healthz").json() == {"status": "ok"}
    ready = anonymous.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "database": "ok", "queue": "ok"}


def test_the_catalogue_and_an_empty_leaderboard_are_public_and_revalidate(anonymous: TestClient) -> None:
    benchmark = anonymous.get("/v1/benchmark")
    assert benchmark.status_code == 200 and benchmark.headers["etag"]
    again = anonymous.get("/v1/benchmark", headers={"If-None-Match": benchmark.headers["etag"]})
    assert again.status_code == 304
    board = anonymous.get("/v1/leaderboard")
    assert board.status_code == 200, board.text


@pytest.mark.parametrize(("params", "field"), [({"limit": 0}, "limit"), ({"limit": 1001}, "limit")])
def test_out_of_range_parameters_are_refused_naming_them(
    anonymous: TestClient, params: dict[str, int], field: str
) -> None:
    response = anonymous.get("/v1/leaderboard", params=params)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["field"] == field


def test_an_unknown_evaluation_has_no_public_results_or_report(anonymous: TestClient) -> None:
    for path in ("/v1/leaderboard/ev_nope/results", "/v1/leaderboard/ev_nope/report"):
        response = anonymous.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("application/problem+json")
