"""Leaderboard entries always carry a score and a finish time, and the OpenAPI document says so."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import Session, SQLModel, create_engine

from app.benchmark.loader import load_library
from app.services.results import leaderboard
from app.store.models import Evaluation


def _nullable(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", []) + schema.get("oneOf", [])
    types = schema.get("type")
    return (
        schema.get("nullable") is True
        or types == "null"
        or (isinstance(types, list) and "null" in types)
        or any(_nullable(o) for o in options)
    )


def test_openapi_marks_score_and_finished_at_required_and_not_nullable(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    entry = schemas["LeaderboardEntry"]
    for name in ("score", "finished_at"):
        assert name in entry["required"], name
        assert not _nullable(entry["properties"][name]), (name, entry["properties"][name])
    assert _nullable(entry["properties"]["pass_rate"])  # the helper does see a nullable field


def _evaluation(name: str, summary: dict[str, Any] | None, finished_at: datetime | None) -> Evaluation:
    return Evaluation(
        team_id="team_x",
        target_id="tg_x",
        target_name=name,
        model="m",
        suite="full",
        visibility="public",
        status="succeeded",
        benchmark_version="hb-test",
        summary=summary,
        finished_at=finished_at,
    )


def test_an_evaluation_without_a_headline_score_or_finish_time_is_left_off(mini_data_dir: Path) -> None:
    engine = create_engine("sqlite://")
    SQLModel.metadata.create_all(engine)
    now = datetime.now(UTC)
    scored = {"headline": {"score": 0.8}, "overall": {"pass_rate": 0.9}, "n_items": 10}
    with Session(engine) as session:
        session.add(_evaluation("ranked", scored, now))
        session.add(_evaluation("second", {**scored, "headline": {"score": 0.5}}, now))
        session.add(_evaluation("nothing gradable", {"headline": {"score": None}, "n_items": 3}, now))
        session.add(_evaluation("never finished", scored, None))
        session.commit()
        board = leaderboard(session=session, library=load_library(mini_data_dir), benchmark_version="hb-test")
    assert [(e.rank, e.target_name, e.score) for e in board.entries] == [
        (1, "ranked", 0.8),
        (2, "second", 0.5),
    ]
    assert all(e.finished_at is not None for e in board.entries)
