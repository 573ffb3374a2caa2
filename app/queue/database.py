"""The embedded default's queue: jobs are rows in the database, run by a local worker process (app/workers/local.py).

The API only writes rows and serves: runs and grading use another process's event loop and the machine's other
core. Rows are durable, so a job survives the API's or the worker's restart; a held job's lease lapses when its
holder dies, and the next claim resumes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from sqlalchemy import Engine

from app.queue.base import ShardState, grade_batch_job_id, shard_job_id
from app.store import jobs as job_store

SHARD = "shard"
GRADE = "grade"


class QueueNotReady(RuntimeError):
    """Rows can be queued, but no process takes them yet."""


class DatabaseQueue:
    def __init__(
        self,
        engine: Engine,
        consumers_ready: Callable[[], bool] = lambda: True,
        on_queued: Callable[[], None] = lambda: None,
    ):
        """`consumers_ready`: whether a process that takes these rows is up (`helmbench serve`'s local workers);
        `on_queued`: called once rows were added, so those processes claim them at once instead of polling."""
        self._engine = engine
        self._consumers_ready = consumers_ready
        self._on_queued = on_queued

    async def _enqueue(self, jobs: list[tuple[str, str, str, int]]) -> int:
        added = await asyncio.to_thread(job_store.enqueue_jobs, engine=self._engine, jobs=jobs)
        if added:
            self._on_queued()
        return added

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        return await self._enqueue(
            [(shard_job_id(evaluation_id, s), SHARD, evaluation_id, s) for s in range(shards)]
        )

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return await self._states({shard_job_id(evaluation_id, s): s for s in shards})

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        """A row still there is queued or held (or lapsed, and the next claim takes it): only a gone one is added."""
        return bool(await self._enqueue([(shard_job_id(evaluation_id, shard), SHARD, evaluation_id, shard)]))

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        return await self._enqueue(
            [(grade_batch_job_id(batch_id, s), GRADE, batch_id, s) for s in range(shards)]
        )

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return await self._states({grade_batch_job_id(batch_id, s): s for s in shards})

    async def _states(self, ids: dict[str, int]) -> dict[int, ShardState]:
        states = await asyncio.to_thread(job_store.job_states, engine=self._engine, job_ids=list(ids))
        return {ids[job_id]: state for job_id, state in states.items()}

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool:
        """As requeue_shard, for one line range of a grade batch."""
        return bool(await self._enqueue([(grade_batch_job_id(batch_id, shard), GRADE, batch_id, shard)]))

    async def drop(self, job_ids: Sequence[str]) -> int:
        """Rows no worker holds are deleted (the erase deletes them too, in its own transaction)."""
        return await asyncio.to_thread(job_store.drop_waiting, engine=self._engine, job_ids=list(job_ids))

    async def depth(self) -> int:
        return await asyncio.to_thread(job_store.job_count, engine=self._engine)

    async def ping(self) -> None:
        """Ready when a local worker can take jobs: a run queued before that waits until one has started."""
        if not self._consumers_ready():
            raise QueueNotReady("no local worker ready yet (it is starting)")

    async def close(self) -> None:
        return None
