"""GET /v1/leaderboard?format=csv: the JSON board's rows, filters and pages as CSV, intervals as low/high columns."""

from __future__ import annotations

import csv
import io

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from bench.board import seed_board


@pytest.fixture
def deps(settings: Settings, client: TestClient) -> Runtime:
    """Four public evaluations of the whole mini library, written by the runner's finish path."""
    deps = build_runtime(settings)
    seed_board(deps, 4, seed=3, suite="full")
    assert client.app.state.board_cache.catch_up()  # type: ignore[attr-defined]
    return deps


def _csv(client: TestClient, **params: object) -> list[dict[str, str]]:
    response = client.get("/v1/leaderboard", params={**params, "format": "csv"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == 'attachment; filename="leaderboard.csv"'
    return list(csv.DictReader(io.StringIO(response.text)))


def _number(text: str) -> float | None:
    return float(text) if text else None


@pytest.mark.parametrize("params", [{}, {"country": "AU"}, {"condition": "roleplay"}, {"sort": "model"}])
def test_rows_are_the_json_boards_entries_with_their_intervals(
    client: TestClient, deps: Runtime, params: dict[str, str]
) -> None:
    entries = client.get("/v1/leaderboard", params=params).json()["entries"]
    rows = _csv(client, **params)
    assert entries and [r["evaluation_id"] for r in rows] == [e["evaluation_id"] for e in entries]
    for row, entry in zip(rows, entries, strict=True):
        assert int(row["rank"]) == entry["rank"] and row["model"] == entry["model"]
        assert _number(row["score"]) == pytest.approx(entry["score"])
        low, high = entry["score_interval"] or (None, None)
        assert (_number(row["score_low"]), _number(row["score_high"])) == pytest.approx((low, high))
        low, high = entry["pass_rate_interval"] or (None, None)
        assert (_number(row["pass_rate_low"]), _number(row["pass_rate_high"])) == pytest.approx((low, high))
        assert {k: _number(row[f"pillar_{k}"]) for k in entry["pillars"]} == pytest.approx(entry["pillars"])
        assert int(row["n_items"]) == entry["n_items"]


def test_a_page_of_the_csv_is_the_same_page_of_the_json_board(client: TestClient, deps: Runtime) -> None:
    first = client.get("/v1/leaderboard", params={"limit": 2}).json()
    second = client.get("/v1/leaderboard", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    rows = _csv(client, limit=2, cursor=first["next_cursor"])
    assert [r["evaluation_id"] for r in rows] == [e["evaluation_id"] for e in second["entries"]]
    assert len(rows) == 2


def test_an_unknown_format_is_a_422_naming_it(client: TestClient, deps: Runtime) -> None:
    response = client.get("/v1/leaderboard", params={"format": "xlsx"})
    assert response.status_code == 422 and response.json()["field"] == "format"
