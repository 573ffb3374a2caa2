"""The embedded default: shards run as asyncio tasks in the API process, a few at a time."""

from __future__ import annotations

import asyncio

import structlog

from app.queue.base import shard_job_id
from app.runner.deps import EngineDeps
from app.runner.shard import run_shard

log = structlog.get_logger("helmbench.queue")


class InProcessQueue:
    def __init__(self, deps: EngineDeps, max_jobs: int):
        self._deps = deps
        self._slots = asyncio.Semaphore(max_jobs)
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        added = 0
        for shard in range(shards):
            job_id = shard_job_id(evaluation_id, shard)
            if job_id in self._tasks:
                continue
            self._tasks[job_id] = asyncio.create_task(self._run(job_id, evaluation_id, shard))
            added += 1
        return added

    async def _run(self, job_id: str, evaluation_id: str, shard: int) -> None:
        async with self._slots:
            try:
                outcome = await run_shard(self._deps, evaluation_id, shard)
                log.info("shard finished", evaluation_id=evaluation_id, shard=shard, outcome=outcome)
            except Exception:
                log.exception("shard crashed", evaluation_id=evaluation_id, shard=shard)
            finally:
                self._tasks.pop(job_id, None)

    async def depth(self) -> int:
        return len(self._tasks)

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        await self._deps.targets.aclose()
