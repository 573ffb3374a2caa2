"""The embedded default's worker: it claims queued jobs from the database, runs them, and removes each finished
job's row; stopped mid-run it hands its job back with what it wrote kept, and the next worker finishes it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from app.config import Settings
from app.queue.database import DatabaseQueue
from app.runner.runtime import Runtime
from app.store.models import QueuedJob
from app.workers import local
from app.workers.local import LocalWorker
from bench.harness import create_evaluation, make_deps, written
from bench.mock_target import MockConfig, running_mock
from bench.synthetic import synthetic_library
from tests.waits import eventually_async


def deps_for(tmp_path: Path, **settings: object) -> Runtime:
    base = {"var_dir": tmp_path / "var", "target_allowlist": "127.0.0.0/8", "shard_size": 5}
    return make_deps(Settings(**(base | settings)), synthetic_library(2, 5))  # 10 items, 2 shards


async def close(*all_deps: Runtime) -> None:
    """What serve_jobs does on its way out: the target clients closed, the engine disposed."""
    for deps in all_deps:
        await deps.targets.aclose()
        deps.engine.dispose()


def job_rows(deps: Runtime) -> list[QueuedJob]:
    with Session(deps.engine) as session:
        return list(session.exec(select(QueuedJob)).all())


async def test_queued_shards_are_run_once_and_their_rows_removed(tmp_path: Path) -> None:
    deps = deps_for(tmp_path)
    worker = LocalWorker(deps, holder="worker-a")
    async with running_mock(MockConfig(latency=0.01)) as base:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        assert await DatabaseQueue(deps.engine).enqueue_shards(evaluation.id, evaluation.shards) == 2
        running = asyncio.create_task(worker.run())
        await eventually_async(lambda: job_rows(deps), lambda rows: rows == [], what="both jobs to finish")
        worker.stop()
        await running
    result = written(deps, evaluation.id)
    await close(deps)
    assert result.status == "succeeded" and result.rows == result.distinct_keys == 10
    assert worker.tasks == {}


async def test_jobs_queued_while_the_worker_waits_are_claimed_when_it_is_woken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "POLL_S", 3600.0)  # without the wake, the second run would wait an hour
    deps = deps_for(tmp_path)
    worker = LocalWorker(deps, holder="worker-a")
    queue = DatabaseQueue(deps.engine, on_queued=worker.wake)
    running = asyncio.create_task(worker.run())
    async with running_mock(MockConfig(latency=0.01)) as base:
        for _ in range(2):  # the second is queued once the worker has gone back to waiting
            evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
            await queue.enqueue_shards(evaluation.id, evaluation.shards)
            await eventually_async(lambda: job_rows(deps), lambda rows: rows == [], what="the run's jobs")
            await eventually_async(lambda: worker.tasks, lambda tasks: tasks == {}, what="the worker to idle")
        worker.stop()
        await running
    result = written(deps, evaluation.id)
    await close(deps)
    assert result.status == "succeeded" and result.rows == 10


async def test_the_next_shard_starts_while_the_last_calls_of_the_one_before_are_out(tmp_path: Path) -> None:
    deps = deps_for(tmp_path, worker_max_jobs=1, request_timeout_s=600.0)
    worker = LocalWorker(deps, holder="worker-a")
    # The 5th call on is held: shard 0 hands out its 5th item and waits for its reply.
    async with running_mock(MockConfig(hold_after=4)) as base, httpx.AsyncClient(base_url=base) as mock:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=4)
        await DatabaseQueue(deps.engine).enqueue_shards(evaluation.id, evaluation.shards)
        running = asyncio.create_task(worker.run())
        # one shard at a time takes items, yet both have calls out at the target (4 slots: shard 0's 5th item
        # and 3 of shard 1's)
        await eventually_async(lambda: worker.tasks, lambda tasks: len(tasks) == 2, what="shard 1 to start")
        await eventually_async(
            lambda: mock.get("/stats"), lambda r: r.json().get("held", 0) == 4, what="the target's 4 slots"
        )
        await mock.post("/release")
        await eventually_async(lambda: job_rows(deps), lambda rows: rows == [], what="both jobs to finish")
        worker.stop()
        await running
    result = written(deps, evaluation.id)
    await close(deps)
    assert result.status == "succeeded" and result.rows == result.distinct_keys == 10


async def test_a_stopped_worker_hands_its_job_back_and_the_next_one_finishes_it(tmp_path: Path) -> None:
    deps = deps_for(tmp_path, stop_grace_s=0)
    first = LocalWorker(deps, holder="worker-a")
    async with running_mock(MockConfig(latency=0.01, hold_after=3)) as base, httpx.AsyncClient() as mock:
        evaluation = create_evaluation(deps, base_url=base + "/v1", concurrency=2)
        await DatabaseQueue(deps.engine).enqueue_shards(evaluation.id, evaluation.shards)
        running = asyncio.create_task(first.run())
        await eventually_async(
            lambda: mock.get(base + "/stats"),
            lambda stats: stats.json().get("held", 0) >= 1,
            what="a call to be held mid-run",
        )
        first.stop()
        await running  # calls in flight were cut off after the grace, and the job handed back
        rows = job_rows(deps)
        assert rows and all(row.holder is None for row in rows), "claimable at once by any worker"
        assert written(deps, evaluation.id).status == "running"
        await mock.post(base + "/release")
        second = deps_for(tmp_path)  # the next start, on the same database
        again = LocalWorker(second, holder="worker-b")
        resumed = asyncio.create_task(again.run())
        await eventually_async(lambda: job_rows(second), lambda rows: rows == [], what="the jobs to finish")
        again.stop()
        await resumed
    result = written(second, evaluation.id)
    await close(deps, second)
    assert result.status == "succeeded" and result.rows == result.distinct_keys == 10


async def test_a_worker_stopped_before_it_starts_claims_nothing(tmp_path: Path) -> None:
    deps = deps_for(tmp_path)
    await DatabaseQueue(deps.engine).enqueue_shards("ev_never", 2)
    worker = LocalWorker(deps)
    worker.stop()
    await worker.run()
    assert [row.holder for row in job_rows(deps)] == [None, None] and worker.tasks == {}
    await close(deps)
