"""The embedded default's queue of rows: a repeated enqueue queues nothing twice, a held job reads as running
until its holder's lease lapses, only a finished job is queued again, and the jobs outlive the process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import SQLModel

from app.config import Settings
from app.queue.base import shard_job_id
from app.queue.database import DatabaseQueue, QueueNotReady
from app.store import jobs as job_store
from app.store.db import make_engine


def schema(settings: Settings) -> Engine:
    engine = make_engine(settings)
    SQLModel.metadata.create_all(engine)
    return engine


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    made = schema(Settings(var_dir=tmp_path, database_url=url))
    yield made
    made.dispose()


async def test_a_repeated_enqueue_queues_nothing_twice(engine: Engine) -> None:
    queue = DatabaseQueue(engine)
    assert await queue.enqueue_shards("ev_1", 3) == 3
    assert await queue.enqueue_shards("ev_1", 3) == 0
    assert await queue.enqueue_grade_batch("ev_1", 2) == 2, "a batch's jobs are keyed apart from shards"
    assert await queue.depth() == 5
    assert await queue.shard_states("ev_1", [0, 1, 2, 3]) == {0: "queued", 1: "queued", 2: "queued"}
    assert await queue.grade_batch_states("ev_1", [0, 1, 2]) == {0: "queued", 1: "queued"}


async def test_a_held_job_runs_until_its_lease_lapses_then_it_reads_as_queued(engine: Engine) -> None:
    queue = DatabaseQueue(engine)
    await queue.enqueue_shards("ev_1", 2)
    live = job_store.claim_job(engine=engine, holder="worker-a", lease_s=60)
    dead = job_store.claim_job(engine=engine, holder="worker-b", lease_s=-1)  # its holder died a lease ago
    assert live is not None and dead is not None
    states = await queue.shard_states("ev_1", [0, 1])
    assert states == {live.shard: "running", dead.shard: "queued"}, "a lapsed lease is the next claim's"
    assert await queue.requeue_shard("ev_1", live.shard) is False
    assert await queue.requeue_shard("ev_1", dead.shard) is False, "still a row: the next claim resumes it"


async def test_only_a_job_whose_row_is_gone_is_queued_again(engine: Engine) -> None:
    queue = DatabaseQueue(engine)
    await queue.enqueue_grade_batch("gb_1", 1)
    claimed = job_store.claim_job(engine=engine, holder="worker-a", lease_s=60)
    assert claimed is not None
    job_store.finish_job(engine=engine, job_id=claimed.id, holder="worker-a")
    assert await queue.grade_batch_states("gb_1", [0]) == {} and await queue.depth() == 0
    assert await queue.requeue_grade_batch("gb_1", 0) is True
    assert await queue.requeue_grade_batch("gb_1", 0) is False
    assert await queue.grade_batch_states("gb_1", [0]) == {0: "queued"}


async def test_queued_jobs_outlive_the_process_that_queued_them(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path)
    first = schema(settings)
    await DatabaseQueue(first).enqueue_shards("ev_1", 2)
    await DatabaseQueue(first).close()
    first.dispose()
    again = make_engine(settings)  # as a restarted API or worker opens it
    try:
        queue = DatabaseQueue(again)
        await queue.ping()
        claimed = job_store.claim_job(engine=again, holder="restarted", lease_s=60)
        assert claimed is not None and claimed.id == shard_job_id("ev_1", 0) and claimed.kind == "shard"
        assert await queue.depth() == 2
    finally:
        again.dispose()


async def test_the_queue_is_ready_only_once_a_local_worker_takes_its_rows(tmp_path: Path) -> None:
    engine = schema(Settings(var_dir=tmp_path))
    workers_ready = False
    queue = DatabaseQueue(engine, consumers_ready=lambda: workers_ready)
    try:
        assert await queue.enqueue_shards("ev_1", 1) == 1, "a run can be queued while the worker starts"
        with pytest.raises(QueueNotReady, match="no local worker ready"):
            await queue.ping()
        workers_ready = True
        await queue.ping()
    finally:
        engine.dispose()
