"""A fresh schema on SQLite (and, for contracts the database enforces, PostgreSQL), and the rows most store
functions need: a team, its target, an evaluation of it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel

from app.config import Settings
from app.store.db import make_engine
from app.store.models import Evaluation, Target, Team

T = TypeVar("T")


def schema(settings: Settings) -> Engine:
    engine = make_engine(settings)
    SQLModel.metadata.create_all(engine)
    return engine


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """Both databases: for guarded updates, concurrent claims and unique keys, which each enforces itself."""
    if request.param == "sqlite":
        settings = Settings(var_dir=tmp_path)
    else:
        settings = Settings(var_dir=tmp_path, database_url=request.getfixturevalue("postgres_url"))
    made = schema(settings)
    yield made
    made.dispose()


@pytest.fixture
def postgres(tmp_path: Path, postgres_url: str) -> Iterator[Engine]:
    """PostgreSQL only: for what only it does (row locks, COPY)."""
    made = schema(Settings(var_dir=tmp_path, database_url=postgres_url))
    yield made
    made.dispose()


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    """SQLite only: for contracts that do not depend on the database."""
    made = schema(Settings(var_dir=tmp_path))
    yield made
    made.dispose()


def add_team(session: Session, name: str = "team") -> Team:
    team = Team(name=name)
    session.add(team)
    session.flush()
    return team


def add_target(session: Session, team: Team, name: str = "bot") -> Target:
    target = Target(team_id=team.id, name=name, kind="openai", base_url="http://127.0.0.1:9/v1", model="m")
    session.add(target)
    session.flush()
    return target


def add_evaluation(session: Session, team: Team, target: Target, **fields: Any) -> Evaluation:
    values: dict[str, Any] = {
        "team_id": team.id,
        "target_id": target.id,
        "target_name": target.name,
        "model": target.model,
        "suite": "quick",
        "benchmark_version": "v1",
        "total": 2,
    }
    ev = Evaluation(**(values | fields))
    session.add(ev)
    session.flush()
    return ev


def seed(engine: Engine, **fields: Any) -> tuple[str, str, str]:
    """A committed team, target and evaluation; their ids."""
    with Session(engine) as session:
        team = add_team(session)
        target = add_target(session, team)
        ev = add_evaluation(session, team, target, **fields)
        ids = (team.id, target.id, ev.id)
        session.commit()
    return ids


def item_row(evaluation_id: str, idx: int, **fields: Any) -> dict[str, Any]:
    """An evaluation_item row as the runner writes it (every row of one write has the same columns)."""
    row: dict[str, Any] = {
        "evaluation_id": evaluation_id,
        "key": f"k{idx}",
        "idx": idx,
        "scenario_id": "P1-B1-S1",
        "condition_id": "P1-B1-S1-C1",
        "user_context_id": None,
        "perturbation_id": "P1-B1-S1-PT1",
        "repeat": 0,
        "item_kind": "matrix",
        "messages": [],
        "checks": {},
        "reasons": [],
        "attempts": 1,
        "reply": None,
        "verdict": None,
        "error_class": None,
    }
    return row | fields


def at_once(fn: Callable[[], T], n: int) -> list[T]:
    """`fn` in `n` threads released together (racing for one row, key or lock): each one's result, and the first
    error any of them raised."""
    start = threading.Barrier(n)

    def run() -> T:
        start.wait()
        return fn()

    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(run) for _ in range(n)]
    return [future.result() for future in futures]
