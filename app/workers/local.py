"""The local worker: on the embedded default, the process that runs shards and grade batches for the API.

`helmbench serve` starts `local_workers` of these (app/workers/local_process.py) so runs and grading never share
the API's event loop or its core. It claims jobs from the database (app/store/jobs.py) under a lease it renews
every second, runs each with the same job functions an arq worker runs (`run_shard`, `run_grade_batch`), and
deletes a finished job's row. SIGTERM or SIGINT: no new jobs, running shards take no new items, calls in flight
get stop_grace_s, and each job is handed back (claimable at once) with what it wrote kept; a second signal cancels
what is left. SIGKILL: the leases lapse after shard_lease_s and the next claim (the restarted worker's) resumes the
jobs, skipping the items written. A worker whose parent died (serve SIGKILLed) stops the same way, not orphaned.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import structlog

from app.config import Settings
from app.lease_timing import renew_every_s
from app.queue.database import SHARD
from app.runner.drain import drain
from app.runner.grade_batch import run_grade_batch
from app.runner.handback import HandedBack
from app.runner.leased import holder_id
from app.runner.runtime import Runtime, build_runtime, freeze_startup_heap, warm_up
from app.runner.shard import run_shard
from app.runner.shard_places import Place
from app.store import jobs as job_store
from app.store.jobs import Claimed
from app.store.retry import db_call

POLL_S = 0.5
FAILED_JOB_DEFER_S = 2.0  # a job that failed waits this long before it is claimed again
READY = b"READY"  # printed once the signal handlers are in place: from then on WAKE_SIGNAL is safe to send
WAKE_SIGNAL = signal.SIGUSR1
STOP_MARGIN_S = 10.0  # after the grace for calls: writing the finished rows and handing the jobs back
T = TypeVar("T")
log = structlog.get_logger("helmbench.worker")


class LocalWorker:
    def __init__(self, deps: Runtime, holder: str | None = None) -> None:
        self.deps = deps
        self.holder = holder or holder_id()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()

    async def _db(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        return await db_call(self.deps.settings.db_retry_s, fn, engine=self.deps.engine, **kwargs)

    def wake(self) -> None:
        """Jobs were just queued (`helmbench serve` sends SIGUSR1): claim now, not at the next poll."""
        self._wake.set()

    def stop(self) -> None:
        """Take no new job; running ones finish their calls in flight and hand the rest back. Twice: at once."""
        if self.deps.stopping.is_set():
            for task in self.tasks.values():
                task.cancel()
            return
        log.info(
            "stopping: no new jobs; running ones hand back what they cannot finish", jobs=len(self.tasks)
        )
        self.deps.stopping.set()
        self._wake.set()

    async def run(self, watch_parent: bool = False) -> None:
        """Claim and run jobs while one of the process's shard places (worker_max_jobs) is free, until stopped;
        then drain."""
        parent = os.getppid()
        while not self.deps.stopping.is_set():
            if watch_parent and os.getppid() != parent:
                log.warning("the serving process is gone; stopping")
                self.stop()
                break
            self._wake.clear()
            claimed = None
            places = self.deps.places
            # A shard that handed out its last item made room already; when none did, the spare place takes a
            # newcomer (a run none of whose shards is held anywhere), so a quick run never waits for a big one's.
            if not places.full or places.spare_free:
                try:
                    claimed = await db_call(
                        0,
                        job_store.claim_job,
                        engine=self.deps.engine,
                        holder=self.holder,
                        lease_s=self.deps.settings.shard_lease_s,
                        newcomer=places.full,
                    )
                except Exception as exc:  # the database is away: the next poll tries again
                    log.warning("claim failed", error=f"{type(exc).__name__}: {exc}"[:300])
            if claimed is not None:
                place = await places.take(claimed.subject_id, on_give_back=self._wake.set)  # free: no wait
                self.tasks[claimed.id] = asyncio.create_task(self._run(claimed, place))
                continue  # a free place may take the next job at once
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_S)
        await self._drain()

    async def _drain(self) -> None:
        await drain(list(self.tasks.values()), self.deps.settings.stop_grace_s + STOP_MARGIN_S)

    async def _run(self, job: Claimed, place: Place) -> None:
        """Run one job under its lease; finished: its row goes; handed back or failed: claimable again. A shard
        gives its place back when it has handed out its last item, a grade batch when it ends."""
        fields = {"job_id": job.id, "shard": job.shard}
        renewing = asyncio.create_task(self._renew(job.id))
        release_after: float | None = 0.0  # None: the job is finished
        try:
            if job.kind == SHARD:
                outcome = await run_shard(self.deps, job.subject_id, job.shard, place)
            else:
                outcome = await run_grade_batch(self.deps, job.subject_id, job.shard)
            release_after = None
            log.info("job finished", outcome=outcome, **fields)
        except HandedBack as exc:
            log.info("job handed back", reason=str(exc), **fields)
        except Exception:  # what is not written runs again: the job is claimable after a short wait
            log.exception("job failed; it will run again", **fields)
            release_after = FAILED_JOB_DEFER_S
        finally:
            place.give_back()
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            try:
                if release_after is None:
                    await self._db(job_store.finish_job, job_id=job.id, holder=self.holder)
                else:
                    await self._db(
                        job_store.release_job, job_id=job.id, holder=self.holder, delay_s=release_after
                    )
            except Exception as exc:  # the lease lapses instead, and the job is claimed again after it
                log.warning(
                    "could not settle the job's row", error=f"{type(exc).__name__}: {exc}"[:300], **fields
                )
            self.tasks.pop(job.id, None)
            self._wake.set()

    async def _renew(self, job_id: str) -> None:
        lease_s = self.deps.settings.shard_lease_s
        while True:
            await asyncio.sleep(renew_every_s(lease_s))
            try:
                held = await asyncio.to_thread(
                    job_store.renew_job,
                    engine=self.deps.engine,
                    job_id=job_id,
                    holder=self.holder,
                    lease_s=lease_s,
                )
            except Exception as exc:  # the next renewal, a second later, tries again
                log.warning("lease renewal failed", job_id=job_id, error=f"{type(exc).__name__}: {exc}"[:200])
                continue
            if not held:  # another claimer took it after our lease lapsed: both runs write each item once
                log.warning("lease lost to another claimer", job_id=job_id)


async def serve_jobs(settings: Settings, watch_parent: bool = True) -> None:
    """The process's life: build what jobs need, run until a signal (or the parent's death), clean up."""
    from app.services.regressions import check_for_regressions

    deps = build_runtime(settings, on_settled=check_for_regressions)
    worker = LocalWorker(deps)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, worker.stop)
    loop.add_signal_handler(WAKE_SIGNAL, worker.wake)
    freeze_startup_heap()
    log.info("local worker started", pid=os.getpid(), max_jobs=settings.worker_max_jobs)
    sys.stdout.buffer.write(
        READY + b"\n"
    )  # `helmbench serve` reads it: its /readyz then says the queue is served
    sys.stdout.flush()
    warming = asyncio.create_task(asyncio.to_thread(warm_up, deps))
    try:
        await worker.run(watch_parent=watch_parent)
    finally:
        await warming
        await deps.targets.aclose()
        deps.engine.dispose()
    log.info("local worker stopped")


def main() -> None:
    import uvloop

    from app.observability.logging import configure_logging

    settings = Settings()
    configure_logging(settings.log_level)
    if settings.local_worker_nice and hasattr(os, "nice"):
        os.nice(settings.local_worker_nice)  # the API, which users wait on, gets a busy machine's CPU first
    uvloop.run(serve_jobs(settings))


if __name__ == "__main__":
    main()
