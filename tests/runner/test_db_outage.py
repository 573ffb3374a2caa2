"""A shard on PostgreSQL through an outage: short ones are ridden out, long ones fail the shard loudly."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import func
from sqlmodel import Session, select
from structlog.testing import capture_logs

from app.config import Settings
from app.runner.shard import run_shard
from app.store.db import make_engine
from app.store.models import EvaluationItem
from bench.harness import create_evaluation, make_deps, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from bench.tcp_proxy import CuttablePostgres
from tests.waits import eventually_async

pytestmark = pytest.mark.postgres


def _settings(tmp_path: Path, database_url: str, **extra: object) -> Settings:
    return Settings(
        var_dir=tmp_path / "var",
        database_url=database_url,
        target_allowlist="127.0.0.0/8",
        shard_size=200,
        **extra,  # type: ignore[arg-type]
    )


async def _until_written(postgres_url: str, evaluation_id: str, count: int) -> None:
    """Wait until the store holds `count` items, read past the proxy."""
    engine = make_engine(Settings(database_url=postgres_url))
    where = EvaluationItem.evaluation_id == evaluation_id

    def written_now() -> int:
        with Session(engine) as session:
            return session.exec(select(func.count()).select_from(EvaluationItem).where(where)).one()

    try:
        await eventually_async(written_now, lambda n: n >= count, what=f"{count} items written", timeout=60)
    finally:
        engine.dispose()


async def test_a_shard_rides_out_an_outage_and_writes_each_item_once(
    tmp_path: Path, postgres_url: str
) -> None:
    proxy = CuttablePostgres(postgres_url)
    deps = make_deps(_settings(tmp_path, proxy.url, db_retry_s=60), synthetic_library(4, 25))
    try:
        async with running_mock(MockConfig(latency=0.02)) as base:
            evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
            with capture_logs() as logs:
                shard = asyncio.create_task(run_shard(deps, evaluation.id, 0))
                await _until_written(postgres_url, evaluation.id, 10)
                proxy.cut()
                await eventually_async(
                    lambda: any(e["event"] == "database call failed; retrying" for e in logs)
                )
                proxy.restore()
                outcome = await shard
            await deps.targets.aclose()
        result = written(deps, evaluation.id)
    finally:
        proxy.close()
        deps.engine.dispose()
    assert "evaluation succeeded" in outcome
    assert result.rows == result.distinct_keys == result.answered == 100


async def test_a_write_that_keeps_failing_fails_the_shard_and_a_rerun_completes_it(
    tmp_path: Path, postgres_url: str
) -> None:
    proxy = CuttablePostgres(postgres_url)
    deps = make_deps(_settings(tmp_path, proxy.url, db_retry_s=0.5), synthetic_library(4, 25))
    try:
        async with running_mock(MockConfig(latency=0.02)) as base:
            evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
            shard = asyncio.create_task(run_shard(deps, evaluation.id, 0))
            await _until_written(postgres_url, evaluation.id, 10)
            proxy.cut()
            with pytest.raises(sa_exc.OperationalError):
                await shard  # loud: raised to the queue, which runs the shard again
            proxy.restore()
            outcome = await run_shard(deps, evaluation.id, 0)
            await deps.targets.aclose()
        result = written(deps, evaluation.id)
    finally:
        proxy.close()
        deps.engine.dispose()
    assert "evaluation succeeded" in outcome
    assert result.rows == result.distinct_keys == result.answered == 100
