"""Scale-out: the API enqueues shard jobs to Redis; `helmbench worker` processes run them."""

from __future__ import annotations

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings

from app.queue.base import shard_job_id

QUEUE_NAME = "helmbench:queue"
SHARD_JOB = "run_shard_job"


class ArqQueue:
    def __init__(self, pool: ArqRedis, queue_name: str = QUEUE_NAME):
        self._pool = pool
        self._queue_name = queue_name

    @classmethod
    async def connect(cls, redis_url: str, queue_name: str = QUEUE_NAME) -> ArqQueue:
        pool = await create_pool(RedisSettings.from_dsn(redis_url), default_queue_name=queue_name)
        return cls(pool, queue_name)

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        added = 0
        for shard in range(shards):
            job = await self._pool.enqueue_job(
                SHARD_JOB, evaluation_id, shard, _job_id=shard_job_id(evaluation_id, shard)
            )
            added += job is not None
        return added

    async def depth(self) -> int:
        return int(await self._pool.zcard(self._queue_name))

    async def ping(self) -> None:
        await self._pool.ping()

    async def close(self) -> None:
        await self._pool.aclose()
