"""A store of public finished evaluations on the real library, seeded by the runner's own finish path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.runner.runtime import Runtime, build_runtime
from app.store.migrate import upgrade
from bench.board import board_library, seed_board


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
