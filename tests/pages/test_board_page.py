"""The HTML board: the JSON board's ranking, pages of rows with links built from the query, revalidation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.pages import views
from app.runner.runtime import build_runtime
from bench.board import seed_board
from tests.pages.test_router import rows


def names(board: list[list[str]]) -> list[str]:
    return [r[1].split()[0] for r in board]


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        seed_board(build_runtime(settings), 5, seed=4, suite="full")
        assert test_client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]
        yield test_client


def test_the_page_ranks_as_the_json_board_with_and_without_a_country(client: TestClient) -> None:
    for params in ({}, {"country": "AU"}, {"condition": "roleplay"}):
        html = client.get("/", params=params).text
        entries = client.get("/v1/leaderboard", params=params).json()["entries"]
        assert names(rows(html)) == [e["target_name"] for e in entries]
        assert [r[0] for r in rows(html)] == [str(e["rank"]) for e in entries]
        for row, entry in zip(rows(html), entries, strict=True):
            for cell, pillar in zip(row[4:6], ("P1", "P4"), strict=True):
                value = entry["pillars"].get(pillar)  # the same pillar figure and fallback on both boards
                # a score prints on 0–100 without %, a pass rate standing in for one with % and says so
                if value is None:
                    assert cell.startswith("—"), cell
                    continue
                if (
                    pillar in entry["pillar_basis"]
                ):  # the JSON says it is a pass rate; the page prints it as one
                    assert cell.startswith(f"{value * 100:.0f}%") and "pass rate" in cell, (cell, value)
                else:
                    assert cell.startswith(f"{value * 100:.1f}") and "%" not in cell, (cell, value)


def test_pages_of_rows_link_to_each_other_keeping_the_filters(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    first = client.get("/", params={"sort": "pass_rate", "order": "asc", "country": "AU", "stray": "x"}).text
    second = client.get("/", params={"sort": "pass_rate", "order": "asc", "country": "AU", "page": 2}).text
    assert [r[0] for r in rows(first)] and len(rows(first)) == len(rows(second)) == 2
    assert not set(names(rows(first))) & set(names(rows(second)))
    assert (
        'href="/?country=AU&amp;sort=pass_rate&amp;order=asc&amp;page=2"' in first and "Page 1 of 3" in first
    )
    assert 'rel="prev" href="/?country=AU&amp;sort=pass_rate&amp;order=asc&amp;page=1"' in second
    assert "stray" not in first  # links come from the query, never from the request


def test_the_page_revalidates_with_its_etag(client: TestClient) -> None:
    page = client.get("/", params={"country": "AU"})
    assert page.headers["content-type"].startswith("text/html")
    etag = page.headers["ETag"]
    assert client.get("/", params={"country": "AU"}, headers={"If-None-Match": etag}).status_code == 304
    seed_board(build_runtime(client.app.state.helmbench.deps.settings), 1, seed=8, suite="full")  # type: ignore[attr-defined]
    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]
    changed = client.get("/", params={"country": "AU"}, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and len(rows(changed.text)) == 6
