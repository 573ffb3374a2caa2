"""GET /v1/leaderboard: filters, paging with an opaque cursor, revalidation, and a board that follows the store."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.scoring.leaderboard import BoardQuery
from app.services.results import leaderboard
from bench.board import seed_board


@pytest.fixture
def deps(settings: Settings, client: TestClient) -> Runtime:
    """Five public evaluations of the whole mini library, written by the runner's finish path."""
    deps = build_runtime(settings)
    seed_board(deps, 5, seed=2, suite="full")
    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]
    return deps


def board(client: TestClient, **params: object) -> dict:
    response = client.get("/v1/leaderboard", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_pages_follow_the_cursor_through_the_whole_ranked_board(client: TestClient, deps: Runtime) -> None:
    seen, cursor = [], None
    while True:
        body = board(client, limit=2, **({"cursor": cursor} if cursor else {}))
        assert len(body["entries"]) <= 2 and body["total"] == 5
        seen += body["entries"]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert [e["rank"] for e in seen] == [1, 2, 3, 4, 5]
    assert [e["score"] for e in seen] == sorted((e["score"] for e in seen), reverse=True)
    assert len({e["evaluation_id"] for e in seen}) == 5


def test_a_cursor_we_did_not_issue_is_a_400_naming_cursor(client: TestClient, deps: Runtime) -> None:
    response = client.get("/v1/leaderboard", params={"cursor": "%%%not-ours"})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["field"] == "cursor"


def test_filtered_boards_equal_the_board_computed_now(client: TestClient, deps: Runtime) -> None:
    with Session(deps.engine) as session:
        for params in ({"country": "AU"}, {"condition": "roleplay"}, {"suite": "full"}):
            served = board(client, **params, limit=1000)
            now = leaderboard(
                session=session, library=deps.library, benchmark_version=None, query=BoardQuery(**params)
            )
            assert served["entries"] == [e.model_dump(mode="json") for e in now.entries], params
    roleplay = {e["evaluation_id"]: e["n_items"] for e in board(client, condition="roleplay")["entries"]}
    whole = {e["evaluation_id"]: e["n_items"] for e in board(client)["entries"]}
    assert roleplay and all(roleplay[k] < whole[k] for k in roleplay)


def test_an_unknown_country_is_a_problem_naming_it(client: TestClient, deps: Runtime) -> None:
    response = client.get("/v1/leaderboard", params={"country": "XX"})
    assert response.status_code == 422 and response.json()["field"] == "country"


def test_the_board_revalidates_and_changes_when_an_evaluation_finishes(
    client: TestClient, deps: Runtime
) -> None:
    first = client.get("/v1/leaderboard", params={"country": "AU"})
    etag = first.headers["ETag"]
    again = client.get("/v1/leaderboard", params={"country": "AU"}, headers={"If-None-Match": etag})
    assert again.status_code == 304
    (added,) = seed_board(deps, 1, seed=3, suite="full")
    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]  # rendered in the background
    changed = client.get("/v1/leaderboard", params={"country": "AU"}, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json()["total"] == 6 and added in {e["evaluation_id"] for e in changed.json()["entries"]}
