"""Scale-out: the API enqueues shard jobs to Redis; `helmbench worker` processes run them.

Redis may lose the queue (a restart without persistence, a failover to an empty replica); the database keeps
every evaluation, and the reconciler (app/runner/reconcile.py) asks `shard_states` which shards of a running one
are still queued or held, and `requeue_shard`s the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.constants import in_progress_key_prefix, job_key_prefix, result_key_prefix
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.queue.base import QueueUnavailable, ShardState, grade_batch_job_id, shard_job_id
from app.queue.fair import head_rank, ranks
from app.redis_connection import report_resets_as_lost

SHARD_JOB = "run_shard_job"
GRADE_BATCH_JOB = "grade_batch_job"
REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
# A job's place in arq's queue (a sorted set read lowest score first, up to now) is RANK_BASE_MS + its fair rank
# (app/queue/fair.py): a score long past, so it is due at once and the lowest rank is taken first. arq's own
# re-queues (a retry deferred, a job cut off at shutdown) score now + defer, behind every ranked job, as they
# queued behind every older job before.
RANK_BASE_MS = 1_000_000_000_000  # 2001-09-09
RANK_CEILING_MS = RANK_BASE_MS + 100_000_000_000
HEAD_SCAN = 64  # ranked jobs looked at for the head (a held job keeps its place in the set until it ends)
JOB_EXPIRES = timedelta(days=1)  # arq's default; its own default counts from the score, here long past


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
        await report_resets_as_lost(pool)
        return cls(pool, queue_name)

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        return await self._enqueue_all(
            SHARD_JOB, evaluation_id, [shard_job_id(evaluation_id, shard) for shard in range(shards)]
        )

    async def _enqueue_all(self, function: str, owner_id: str, job_ids: list[str]) -> int:
        """Queue jobs 0..n-1 of one owner, one fair round apart; one already queued or running is left as is."""
        added = 0
        try:
            head = await self._head()
            for shard, (job_id, rank) in enumerate(zip(job_ids, ranks(head, len(job_ids)), strict=True)):
                added += await self._enqueue_ranked(function, job_id, owner_id, shard, rank)
        except REDIS_ERRORS as exc:
            raise QueueUnavailable(f"Redis: {type(exc).__name__}: {exc}") from exc
        return added

    async def _enqueue_ranked(self, function: str, job_id: str, owner_id: str, shard: int, rank: int) -> bool:
        due = datetime.fromtimestamp((RANK_BASE_MS + rank) / 1000, tz=UTC)
        job = await self._pool.enqueue_job(
            function, owner_id, shard, _job_id=job_id, _defer_until=due, _expires=JOB_EXPIRES
        )
        return job is not None

    async def _head(self) -> int:
        """The rank taken next: the lowest ranked job no worker holds (held ones stay in the set until they end)."""
        entries = await self._pool.zrangebyscore(
            self._queue_name, RANK_BASE_MS, RANK_CEILING_MS, start=0, num=HEAD_SCAN, withscores=True
        )
        if not entries:
            return 0
        async with self._pool.pipeline(transaction=False) as pipe:
            for job_id, _ in entries:
                pipe.exists(in_progress_key_prefix + job_id.decode())
            held = await pipe.execute()
        rank = [int(score - RANK_BASE_MS) for _, score in entries]
        return head_rank([r for r, h in zip(rank, held, strict=True) if not h], rank)

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
        """Ranked at the head: a lost job is the next one taken."""
        await self._pool.delete(job_key_prefix + job_id, result_key_prefix + job_id)
        return await self._enqueue_ranked(function, job_id, owner_id, shard, await self._head())

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        return await self._enqueue_all(
            GRADE_BATCH_JOB, batch_id, [grade_batch_job_id(batch_id, shard) for shard in range(shards)]
        )

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
