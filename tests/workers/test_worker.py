"""arq's Worker as `helmbench worker` runs it: a job's lock lasts the lease, not the job timeout; a poll that fails
on Redis is retried rather than ending the process; a first signal lets running jobs finish and takes no new one,
a second cancels what is left."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import uuid
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from arq import create_pool
from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix
from arq.worker import func

from app.queue.arq_queue import redis_settings
from app.workers.worker import ShardWorker
from tests.redis_proxy import CuttableRedis
from tests.waits import eventually_async

pytestmark = pytest.mark.redis
LEASE_S = 2.0


class Jobs:
    """What the test's jobs saw: each starts, waits until released, and notes how it ended."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started: list[str] = []
        self.ended: dict[str, str] = {}

    async def hold(self, ctx: dict[str, Any], name: str) -> str:
        self.started.append(name)
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ended[name] = "cancelled"
            raise
        self.ended[name] = "told to stop" if ctx["deps"].stopping.is_set() else "finished"
        return name


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[ArqRedis]:
    pool = await create_pool(redis_settings(redis_url))
    yield pool
    await pool.aclose()


@pytest.fixture
async def start(redis: ArqRedis) -> AsyncIterator[Callable[..., Any]]:
    """Start a ShardWorker on its own queue (through `url` if given); stopped and its keys deleted afterwards."""
    made: list[tuple[ShardWorker, asyncio.Task[None]]] = []
    queue = f"helmbench:test:{uuid.uuid4().hex[:8]}"

    def starting(jobs: Jobs, url: str) -> tuple[ShardWorker, asyncio.Task[None], str]:
        worker = ShardWorker(
            lease_s=LEASE_S,
            stop_grace_s=30,
            functions=[func(jobs.hold, name="hold")],
            redis_settings=redis_settings(url),
            queue_name=queue,
            job_timeout=300,
            poll_delay=0.05,
            keep_result=0,
            ctx={"deps": SimpleNamespace(stopping=asyncio.Event())},
        )
        task = asyncio.create_task(worker.async_run())
        made.append((worker, task))
        return worker, task, queue

    yield starting
    for worker, task in made:
        await worker.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await redis.delete(*[k async for k in redis.scan_iter(match=f"*{queue}*")], queue)


async def test_a_running_job_s_lock_lasts_the_lease_not_the_job_timeout(
    start: Callable[..., Any], redis: ArqRedis, redis_url: str
) -> None:
    jobs = Jobs()
    _, _, queue = start(jobs, redis_url)
    job = await redis.enqueue_job("hold", "a", _queue_name=queue, _job_id=f"{queue}:a")
    assert job is not None
    await eventually_async(lambda: jobs.started, what="the job to start")
    ttl_ms = await redis.pttl(in_progress_key_prefix + f"{queue}:a")
    assert 0 < ttl_ms <= LEASE_S * 1000, "a killed worker's job is free again after a lease, not an hour"
    jobs.release.set()
    await eventually_async(lambda: jobs.ended, what="the job to finish")


async def test_a_poll_failing_on_redis_is_retried_and_jobs_run_once_it_is_back(
    start: Callable[..., Any], redis: ArqRedis, redis_url: str
) -> None:
    proxy = CuttableRedis(redis_url)
    try:
        jobs = Jobs()
        jobs.release.set()
        worker, task, queue = start(jobs, proxy.url)
        await eventually_async(lambda: worker._pool is not None, what="the worker to connect")
        proxy.cut()
        await eventually_async(lambda: worker._poll_failures, what="a poll to fail")
        assert not task.done(), "arq alone would have ended the process here"
        proxy.start()
        await redis.enqueue_job("hold", "after", _queue_name=queue, _job_id=f"{queue}:after")
        await eventually_async(lambda: jobs.ended, what="the job queued after the outage to run")
        assert jobs.ended == {"after": "finished"} and worker._poll_failures == 0
        # arq's close cancels a job task still writing its result (our function has returned by now, arq's
        # bookkeeping may not have): wait for it, as the process's own stop would.
        await eventually_async(
            lambda: all(t.done() for t in worker.tasks.values()), what="the job's task to end"
        )
        await worker.close()  # while its Redis is still reachable
    finally:
        proxy.close()


async def test_a_first_signal_lets_running_jobs_finish_and_takes_no_new_one(
    start: Callable[..., Any], redis: ArqRedis, redis_url: str
) -> None:
    jobs = Jobs()
    worker, task, queue = start(jobs, redis_url)
    await redis.enqueue_job("hold", "running", _queue_name=queue, _job_id=f"{queue}:running")
    await eventually_async(lambda: jobs.started, what="the job to start")
    worker.stop_gracefully(signal.SIGTERM)
    await redis.enqueue_job("hold", "later", _queue_name=queue, _job_id=f"{queue}:later")
    jobs.release.set()
    await eventually_async(lambda: task.done(), what="the worker to stop once its job ended")
    assert jobs.ended == {"running": "told to stop"} and jobs.started == ["running"]
    assert await redis.zscore(queue, f"{queue}:later") is not None, "left queued for another worker"


async def test_a_second_signal_cancels_what_is_left(
    start: Callable[..., Any], redis: ArqRedis, redis_url: str
) -> None:
    jobs = Jobs()
    worker, task, queue = start(jobs, redis_url)
    await redis.enqueue_job("hold", "stuck", _queue_name=queue, _job_id=f"{queue}:stuck")
    await eventually_async(lambda: jobs.started, what="the job to start")
    worker.stop_gracefully(signal.SIGTERM)
    worker.stop_gracefully(signal.SIGTERM)
    await eventually_async(lambda: task.done(), what="the worker to stop at once")
    assert jobs.ended == {"stuck": "cancelled"}
