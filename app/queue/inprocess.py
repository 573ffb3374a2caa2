"""The embedded default: shards run as asyncio tasks in the API process, a few at a time."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from app.queue.base import ShardState, grade_batch_job_id, shard_job_id
from app.queue.fair import head_rank, ranks
from app.runner.drain import drain
from app.runner.grade_batch import run_grade_batch
from app.runner.handback import HandedBack
from app.runner.runtime import Runtime
from app.runner.shard import run_shard
from app.runner.shard_places import Place

log = structlog.get_logger("helmbench.queue")

# After the grace for calls in flight, a stopping shard still writes what finished; then it is cancelled.
STOP_MARGIN_S = 5.0


# A queued job: what runs (given its place), its name in logs, its log fields, its subject (evaluation or batch).
_Job = tuple[Callable[[Place], Awaitable[str]], str, dict[str, Any], str]


@dataclass(frozen=True)
class _Waiting:
    rank: int
    seq: int  # the order queued: between equal ranks, the older first
    run: Callable[[Place], Awaitable[str]]
    what: str
    fields: dict[str, Any]
    subject: (
        str  # the evaluation or grade batch: a newcomer takes the spare place (app/runner/shard_places.py)
    )


class InProcessQueue:
    """Queued jobs wait here, and each free place among the process's shard places (deps.places) starts the
    lowest-ranked one (the fair share, app/queue/fair.py), so a quick run does not wait behind a big one."""

    def __init__(self, deps: Runtime):
        self._deps = deps
        self._waiting: dict[str, _Waiting] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}  # started: holding a place, or done with items
        self._taken = 0  # the last rank started: the head when nothing waits
        self._seq = itertools.count()
        self._queued = asyncio.Event()
        self._starter: asyncio.Task[None] | None = None

    async def enqueue_shards(self, evaluation_id: str, shards: int) -> int:
        head = self._head()
        return sum(
            self._queue(shard_job_id(evaluation_id, shard), rank, self._shard(evaluation_id, shard))
            for shard, rank in enumerate(ranks(head, shards))
        )

    async def requeue_shard(self, evaluation_id: str, shard: int) -> bool:
        return self._queue(
            shard_job_id(evaluation_id, shard), self._head(), self._shard(evaluation_id, shard)
        )

    def _shard(self, evaluation_id: str, shard: int) -> _Job:
        run = partial(run_shard, self._deps, evaluation_id, shard)
        return run, "shard", {"evaluation_id": evaluation_id, "shard": shard}, evaluation_id

    async def enqueue_grade_batch(self, batch_id: str, shards: int) -> int:
        head = self._head()
        return sum(
            self._queue(grade_batch_job_id(batch_id, shard), rank, self._grade(batch_id, shard))
            for shard, rank in enumerate(ranks(head, shards))
        )

    async def requeue_grade_batch(self, batch_id: str, shard: int) -> bool:
        return self._queue(grade_batch_job_id(batch_id, shard), self._head(), self._grade(batch_id, shard))

    def _grade(self, batch_id: str, shard: int) -> _Job:
        async def run(_place: Place) -> str:  # holds its place to the end
            return await run_grade_batch(self._deps, batch_id, shard)

        return run, "grade batch shard", {"batch_id": batch_id, "shard": shard}, batch_id

    async def shard_states(self, evaluation_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return self._states({shard: shard_job_id(evaluation_id, shard) for shard in shards})

    async def grade_batch_states(self, batch_id: str, shards: Sequence[int]) -> dict[int, ShardState]:
        return self._states({shard: grade_batch_job_id(batch_id, shard) for shard in shards})

    def _states(self, job_ids: dict[int, str]) -> dict[int, ShardState]:
        states: dict[int, ShardState] = {}
        for shard, job_id in job_ids.items():
            if job_id in self._tasks:
                states[shard] = "running"
            elif job_id in self._waiting:
                states[shard] = "queued"
        return states

    def _head(self) -> int:
        return head_rank((job.rank for job in self._waiting.values()), [self._taken])

    def _queue(self, job_id: str, rank: int, job: _Job) -> bool:
        """Queue the job unless it is queued or running already, or the process is stopping."""
        if job_id in self._waiting or job_id in self._tasks or self._deps.stopping.is_set():
            return False
        run, what, fields, subject = job
        self._waiting[job_id] = _Waiting(rank, next(self._seq), run, what, fields, subject)
        self._queued.set()
        if self._starter is None:
            self._starter = asyncio.create_task(self._start_jobs())
        return True

    async def _start_jobs(self) -> None:
        """Start the lowest-ranked waiting job whenever a place is free, and a newcomer's (a job of a run that
        holds no place) on the spare place while none is, until the process stops."""
        places = self._deps.places
        while not self._deps.stopping.is_set():
            self._queued.clear()  # set again by a job queued or a place given back
            job_id = self._next(newcomer=places.full)
            if job_id is None:
                await self._queued.wait()
                continue
            job = self._waiting.pop(job_id)
            place = await places.take(job.subject, on_give_back=self._queued.set)  # free or spare: no wait
            if self._deps.stopping.is_set():
                place.give_back()
                continue
            self._taken = job.rank
            self._tasks[job_id] = asyncio.create_task(self._run(job_id, job, place))

    def _next(self, *, newcomer: bool) -> str | None:
        """The lowest-ranked waiting job that can start now: any while a place is free; while none is, one of a
        run that holds no place, if the spare place is free; else None."""
        places = self._deps.places
        if newcomer and not places.spare_free:
            return None
        startable = [
            job_id for job_id, job in self._waiting.items() if not newcomer or not places.holds(job.subject)
        ]
        if not startable:
            return None
        return min(startable, key=lambda j: (self._waiting[j].rank, self._waiting[j].seq))

    async def _run(self, job_id: str, job: _Waiting, place: Place) -> None:
        try:
            outcome = await job.run(place)
            log.info(f"{job.what} finished", outcome=outcome, **job.fields)
        except HandedBack as exc:
            log.info(f"{job.what} handed back", reason=str(exc), **job.fields)
        except Exception:  # what is not written runs again (app/runner/reconcile.py queues it)
            log.exception(f"{job.what} failed; it will run again", **job.fields)
        finally:
            place.give_back()
            self._tasks.pop(job_id, None)

    async def drop(self, job_ids: Sequence[str]) -> int:
        """Forget the jobs still waiting for a place; a running one stops at its next look at the database."""
        return sum(self._waiting.pop(job_id, None) is not None for job_id in job_ids)

    async def depth(self) -> int:
        return len(self._waiting) + len(self._tasks)

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        """Stop as a worker does: no new jobs or items, calls in flight finish within stop_grace_s, the rest go back.

        What is not written stays pending in the database; the next start runs it.
        """
        self._deps.stopping.set()
        self._waiting.clear()
        if self._starter is not None:
            self._starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starter
        await drain(list(self._tasks.values()), self._deps.settings.stop_grace_s + STOP_MARGIN_S)
        await self._deps.targets.aclose()
