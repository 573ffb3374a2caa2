"""The Redis queue of the scale-out: a shard's job id is fixed, so a repeated enqueue queues nothing twice; it
tells queued shards from held ones for the reconciler, queues a lost one again, and says so when Redis is away."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator

import pytest
from arq.constants import in_progress_key_prefix, job_key_prefix, result_key_prefix

from app.queue.arq_queue import ArqQueue
from app.queue.base import QueueUnavailable, grade_batch_job_id, shard_job_id
from tests.redis_proxy import CuttableRedis

pytestmark = pytest.mark.redis


@pytest.fixture
async def queue(redis_url: str) -> AsyncIterator[ArqQueue]:
    """A queue under its own name; every key it made is deleted afterwards."""
    name = f"helmbench:test:{uuid.uuid4().hex[:8]}"
    queue = await ArqQueue.connect(redis_url, name)
    yield queue
    pool = queue._pool
    keys = [k async for k in pool.scan_iter(match="arq:*ev_t*")] + [name]
    await pool.delete(*keys)
    await queue.close()


def new_id() -> str:
    return f"ev_t{uuid.uuid4().hex[:12]}"


async def test_arq_queue_refuses_a_second_enqueue_of_the_same_shard(redis_url: str) -> None:
    queue_name = f"helmbench:test:{uuid.uuid4().hex[:8]}"
    queue = await ArqQueue.connect(redis_url, queue_name)
    evaluation_id = f"ev_{uuid.uuid4().hex[:12]}"
    try:
        assert await queue.enqueue_shards(evaluation_id, 3) == 3
        assert await queue.enqueue_shards(evaluation_id, 3) == 0
        assert await queue.depth() == 3
    finally:
        pool = queue._pool
        await pool.delete(queue_name, *[f"arq:job:{evaluation_id}:shard:{i}" for i in range(3)])
        await queue.close()


async def test_queued_and_held_shards_are_told_apart_and_absent_ones_are_neither(queue: ArqQueue) -> None:
    evaluation_id = new_id()
    await queue.enqueue_shards(evaluation_id, 2)
    await queue._pool.set(in_progress_key_prefix + shard_job_id(evaluation_id, 1), b"1", px=10_000)
    assert await queue.shard_states(evaluation_id, [0, 1, 2]) == {0: "queued", 1: "running"}
    assert await queue.requeue_shard(evaluation_id, 0) is False, "queued already"
    assert await queue.requeue_shard(evaluation_id, 1) is False, "a live worker holds it"


async def test_a_shard_redis_lost_is_queued_again_even_with_an_old_result_left(queue: ArqQueue) -> None:
    evaluation_id = new_id()
    await queue.enqueue_shards(evaluation_id, 2)
    job_id = shard_job_id(evaluation_id, 1)
    await queue._pool.zrem(queue._queue_name, job_id)  # its place in the queue is gone (a failover)
    await queue._pool.set(result_key_prefix + job_id, b"an earlier run's result")  # arq would refuse it
    assert await queue.shard_states(evaluation_id, [0, 1]) == {0: "queued"}
    assert await queue.requeue_shard(evaluation_id, 1) is True
    assert await queue.shard_states(evaluation_id, [0, 1]) == {0: "queued", 1: "queued"}
    assert await queue._pool.exists(result_key_prefix + job_id) == 0 and await queue.depth() == 2


async def test_shards_of_a_run_queued_later_interleave_with_a_big_one_s(queue: ArqQueue) -> None:
    """arq takes the lowest score that is due: the fair ranks, not the time queued, order the big and the small
    run's shards; one a worker holds (it stays in the set until it ends) is passed over for the head."""
    big, small = new_id(), new_id()
    await queue.enqueue_shards(big, 5)
    await queue._pool.set(in_progress_key_prefix + shard_job_id(big, 0), b"1", px=10_000)
    await queue.enqueue_shards(small, 2)
    due = await queue._pool.zrangebyscore(queue._queue_name, "-inf", time.time() * 1000)
    order = [job_id.decode() for job_id in due]
    rounds = [order[:1], sorted(order[1:3]), sorted(order[3:5]), order[5:]]  # equal ranks: either first
    assert rounds == [
        [shard_job_id(big, 0)],
        sorted([shard_job_id(big, 1), shard_job_id(small, 0)]),
        sorted([shard_job_id(big, 2), shard_job_id(small, 1)]),
        [shard_job_id(big, 3), shard_job_id(big, 4)],
    ]


async def test_a_grade_batch_s_jobs_are_keyed_apart_from_shards(queue: ArqQueue) -> None:
    batch_id = new_id()
    assert await queue.enqueue_grade_batch(batch_id, 2) == 2
    assert await queue.enqueue_grade_batch(batch_id, 2) == 0
    assert await queue.shard_states(batch_id, [0, 1]) == {}, "the same id's shards are other jobs"
    assert await queue.grade_batch_states(batch_id, [0, 1]) == {0: "queued", 1: "queued"}
    await queue._pool.delete(job_key_prefix + grade_batch_job_id(batch_id, 0))
    assert await queue.grade_batch_states(batch_id, [0, 1]) == {1: "queued"}, "a place without its job"
    assert await queue.requeue_grade_batch(batch_id, 0) is True


async def test_redis_away_is_queue_unavailable_and_back_it_takes_jobs(redis_url: str) -> None:
    proxy = CuttableRedis(redis_url)
    queue = await ArqQueue.connect(proxy.url, f"helmbench:test:{uuid.uuid4().hex[:8]}")
    evaluation_id = new_id()
    try:
        await queue.ping()
        proxy.cut()
        with pytest.raises(QueueUnavailable, match="Redis"):
            await queue.enqueue_shards(evaluation_id, 1)
        proxy.start()
        assert await queue.enqueue_shards(evaluation_id, 1) == 1
        await queue._pool.delete(queue._queue_name, job_key_prefix + shard_job_id(evaluation_id, 0))
    finally:
        await queue.close()
        proxy.close()
