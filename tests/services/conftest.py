"""A store of public finished evaluations on the real library, seeded by the runner's own finish path; and a
runtime on the mini library with evaluations whose items are written as the runner writes them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.benchmark.items import expand_suite
from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.services.grade_batches import ingest
from app.store.items import insert_items
from app.store.migrate import upgrade
from app.store.models import GradeBatch, Target, Team
from bench.board import board_library, seed_board
from tests.store.conftest import add_evaluation, add_target, add_team, item_row


def board_deps(root: Path, evaluations: int, seed: int, database_url: str | None = None) -> Runtime:
    """Real library with a suite over several countries and personas; `evaluations` finished public ones."""
    settings = Settings(
        var_dir=root / "var", data_dir=board_library(root), database_url=database_url, redis_url=None
    )
    upgrade(settings)
    deps = build_runtime(settings)
    seed_board(deps, evaluations, seed=seed)
    return deps


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    """Read-only for the tests that share it: seven evaluations, each with its own verdicts."""
    return board_deps(tmp_path_factory.mktemp("board"), evaluations=7, seed=5)


@pytest.fixture
def growing(tmp_path: Path) -> Runtime:
    """Two evaluations, for a test that adds more."""
    return board_deps(tmp_path, evaluations=2, seed=9)


@pytest.fixture
def growing_on_postgres(tmp_path: Path, postgres_url: str) -> Iterator[Runtime]:
    """The same, on PostgreSQL (scale-out: several API replicas read one board stamp)."""
    deps = board_deps(tmp_path, evaluations=2, seed=9, database_url=postgres_url)
    yield deps
    deps.engine.dispose()  # pooled connections closed, not left for the collector


CRISIS = "P1-B1-S1-PT1"  # the mini library's one crisis message; every other item is a control


def add_owner(engine: Engine, name: str = "team") -> tuple[str, str]:
    """A committed team and its target; their ids."""
    with Session(engine) as session:
        team = add_team(session, name)
        target = add_target(session, team)
        session.commit()
        return team.id, target.id


def add_run(
    deps: Runtime, team_id: str, target_id: str, *, misses_crisis: bool = False, **fields: Any
) -> str:
    """An evaluation of the full suite with every item written as the runner grades a careful bot (crisis
    escalated, controls answered plainly) or, with misses_crisis, one that fails every crisis item."""
    specs = list(expand_suite(deps.library, "full"))
    # the items' kind as the suite the evaluation names would have stored it
    kind = deps.library.suites[fields.get("suite", "full")].kind
    with Session(deps.engine) as session:
        team, target = session.get(Team, team_id), session.get(Target, target_id)
        assert team is not None and target is not None
        values = {"suite": "full", "benchmark_version": deps.library.version, "total": len(specs)}
        evaluation_id = add_evaluation(session, team, target, **(values | fields)).id
        session.commit()
    rows = []
    for spec in specs:
        crisis = spec.perturbation_id == CRISIS
        passed = not (crisis and misses_crisis)
        rows.append(
            item_row(
                evaluation_id,
                spec.index,
                key=spec.key,
                scenario_id=spec.scenario_id,
                condition_id=spec.condition_id,
                user_context_id=spec.user_context_id,
                perturbation_id=spec.perturbation_id,
                repeat=spec.repeat,
                item_kind=kind,
                messages=[{"role": "user", "content": "(benchmark message)"}],
                reply="(reply)",
                verdict="PASS" if passed else "FAIL",
                checks={"escalates": crisis and passed},
                reasons=[] if passed else ["no pointer to human help"],
            )
        )
    insert_items(engine=deps.engine, rows=rows)
    return evaluation_id


async def chunks_of(body: bytes, size: int) -> AsyncIterator[bytes]:
    """An upload as the client's bytes arrive: `size` at a time, cut anywhere (inside lines too)."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


async def upload(deps: Runtime, team_id: str, lines: list[str], chunk_bytes: int = 7) -> GradeBatch:
    """A JSONL upload stored as POST /v1/grade/batches stores it, queued and not yet graded."""
    body = "\n".join(lines).encode()
    return await ingest(
        chunks=chunks_of(body, chunk_bytes), engine=deps.engine, settings=deps.settings, team_id=team_id
    )
