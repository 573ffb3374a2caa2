"""The embedded default: shards run as asyncio tasks in the API process, a few at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

import structlog

from app.queue.base import ShardState, grade_batch_job_id, shard_job_id
from app.runner.drain import drain
from app.runner.grade_batch import run_grade_batch
from app.runner.handback import HandedBack
from app.runner.places import Place
from app.runner.runtime import Runtime
from app.runner.shard import run_shard

log = structlog.get_logger("helmbench.queue")

# After the grace for calls in flight, a stopping shard still writes what finished; then it is cancelled.
STOP_MARGIN_S = 5.0


class InProcessQueue:
    """Jobs start as tasks at once and wait for one of the process's shard places (deps.places)."""

    def __init__(self, deps: Runtime):
        self._deps = deps
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._running: set[str] = set()

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        added = 0
        for shard in range(shards):
            added += await self.requeue_shard(evaluation_id, shard)
        return added

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        return self._start(
            shard_job_id(evaluation_id, shard),
            partial(run_shard, self._deps, evaluation_id, shard),
            "shard",
            evaluation_id=evaluation_id,
            shard=shard,
        )

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        added = 0
        for shard in range(shards):
            added += await self.requeue_grade_batch(batch_id, shard)
        return added

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool:
        return self._start(
            grade_batch_job_id(batch_id, shard),
            lambda _place: run_grade_batch(self._deps, batch_id, shard),  # holds its place to the end
            "grade batch shard",
            batch_id=batch_id,
            shard=shard,
        )

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return self._states({shard: shard_job_id(evaluation_id, shard) for shard in shards})

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return self._states({shard: grade_batch_job_id(batch_id, shard) for shard in shards})

    def _states(self, job_ids: dict[int, str]) -> dict[int, ShardState]:
        return {
            shard: "running" if job_id in self._running else "queued"
            for shard, job_id in job_ids.items()
            if job_id in self._tasks
        }

    def _start(self, job_id: str, run: Callable[[Place], Awaitable[str]], what: str, **fields: Any) -> bool:
        """Start the job as a task unless it is queued or running already, or the process is stopping."""
        if job_id in self._tasks or self._deps.stopping.is_set():
            return False
        self._tasks[job_id] = asyncio.create_task(self._run(job_id, run, what, fields))
        return True

    async def _run(
        self, job_id: str, run: Callable[[Place], Awaitable[str]], what: str, fields: dict[str, Any]
    ) -> None:
        place: Place | None = None
        try:
            place = await self._deps.places.take()
            if self._deps.stopping.is_set():
                return
            self._running.add(job_id)
            outcome = await run(place)
            log.info(f"{what} finished", outcome=outcome, **fields)
        except HandedBack as exc:
            log.info(f"{what} handed back", reason=str(exc), **fields)
        except Exception:  # what is not written runs again (app/runner/reconcile.py queues it)
            log.exception(f"{what} failed; it will run again", **fields)
        finally:
            if place is not None:
                place.give_back()
            self._running.discard(job_id)
            self._tasks.pop(job_id, None)

    async def drop(self, job_ids: Sequence[str]) -> int:
        """Cancel the tasks still waiting for a place; a running one stops at its next look at the database."""
        waiting = [self._tasks[j] for j in job_ids if j in self._tasks and j not in self._running]
        for task in waiting:
            task.cancel()
        return len(waiting)

    async def depth(self) -> int:
        return len(self._tasks)

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        """Stop as a worker does: no new items, calls in flight finish within stop_grace_s, the rest go back.

        What is not written stays pending in the database; the next start runs it.
        """
        self._deps.stopping.set()
        await drain(list(self._tasks.values()), self._deps.settings.stop_grace_s + STOP_MARGIN_S)
        await self._deps.targets.aclose()
