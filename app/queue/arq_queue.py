"""Scale-out: the API enqueues shard jobs to Redis; `helmbench worker` processes run them.

Redis may lose the queue (a restart without persistence, a failover to an empty replica); the database keeps
every evaluation, and the reconciler (app/runner/reconcile.py) asks `shard_states` which shards of a running one
are still queued or held, and `requeue_shard`s the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.constants import in_progress_key_prefix, job_key_prefix, result_key_prefix
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.queue.base import QueueUnavailable, ShardState, grade_batch_job_id, shard_job_id

SHARD_JOB = "run_shard_job"
GRADE_BATCH_JOB = "grade_batch_job"
REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)


def redis_settings(url: str) -> RedisSettings:
    """arq's connection, retrying a dropped connection a few times with backoff before a call fails."""
    settings = RedisSettings.from_dsn(url)
    settings.retry_on_error = [RedisConnectionError, RedisTimeoutError]
    settings.retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=5)
    return settings


class ArqQueue:
    def __init__(self, pool: ArqRedis, queue_name: str):
        self._pool = pool
        self._queue_name = queue_name

    @classmethod
    async def connect(cls, redis_url: str, queue_name: str) -> ArqQueue:
        pool = await create_pool(redis_settings(redis_url), default_queue_name=queue_name)
        return cls(pool, queue_name)

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        added = 0
        try:
            for shard in range(shards):
                job = await self._pool.enqueue_job(
                    SHARD_JOB, evaluation_id, shard, _job_id=shard_job_id(evaluation_id, shard)
                )
                added += job is not None
        except REDIS_ERRORS as exc:
            raise QueueUnavailable(f"Redis: {type(exc).__name__}: {exc}") from exc
        return added

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return await self._states({shard: shard_job_id(evaluation_id, shard) for shard in shards})

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return await self._states({shard: grade_batch_job_id(batch_id, shard) for shard in shards})

    async def _states(self, job_ids: dict[int, str]) -> dict[int, ShardState]:
        """Held: arq's in-progress key (a live worker renews it every lease/3). Queued: the job and its place."""
        async with self._pool.pipeline(transaction=False) as pipe:
            for job_id in job_ids.values():
                pipe.exists(in_progress_key_prefix + job_id)
                pipe.exists(job_key_prefix + job_id)
                pipe.zscore(self._queue_name, job_id)
            replies = await pipe.execute()
        states: dict[int, ShardState] = {}
        for i, shard in enumerate(job_ids):
            held, job, score = replies[3 * i : 3 * i + 3]
            if held:
                states[shard] = "running"
            elif job and score is not None:
                states[shard] = "queued"
        return states

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        """Clear what is left of an earlier job (its result, or a job without its place) and queue it anew."""
        if await self.shard_states(evaluation_id, [shard]):
            return False
        return await self._enqueue_anew(SHARD_JOB, shard_job_id(evaluation_id, shard), evaluation_id, shard)

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool:
        """As requeue_shard, for one line range of a grade batch."""
        if await self.grade_batch_states(batch_id, [shard]):
            return False
        return await self._enqueue_anew(GRADE_BATCH_JOB, grade_batch_job_id(batch_id, shard), batch_id, shard)

    async def _enqueue_anew(self, function: str, job_id: str, owner_id: str, shard: int) -> bool:
        await self._pool.delete(job_key_prefix + job_id, result_key_prefix + job_id)
        job = await self._pool.enqueue_job(function, owner_id, shard, _job_id=job_id)
        return job is not None

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        added = 0
        try:
            for shard in range(shards):
                job_id = grade_batch_job_id(batch_id, shard)
                job = await self._pool.enqueue_job(GRADE_BATCH_JOB, batch_id, shard, _job_id=job_id)
                added += job is not None
        except REDIS_ERRORS as exc:
            raise QueueUnavailable(f"Redis: {type(exc).__name__}: {exc}") from exc
        return added

    async def drop(self, job_ids: Sequence[str]) -> int:
        """Take waiting jobs off the queue and delete their definitions; one in progress runs on and finds its
        subject gone. Jobs carry only ids, but nothing about a deleted subject is left to run."""
        dropped = 0
        try:
            for job_id in job_ids:
                if await self._pool.exists(in_progress_key_prefix + job_id):
                    continue
                dropped += int(await self._pool.zrem(self._queue_name, job_id))
                await self._pool.delete(job_key_prefix + job_id, result_key_prefix + job_id)
        except REDIS_ERRORS as exc:
            raise QueueUnavailable(f"Redis: {type(exc).__name__}: {exc}") from exc
        return dropped

    async def depth(self) -> int:
        return int(await self._pool.zcard(self._queue_name))

    async def ping(self) -> None:
        await self._pool.ping()

    async def close(self) -> None:
        await self._pool.aclose()
