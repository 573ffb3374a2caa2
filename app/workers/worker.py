"""arq's Worker, made to outlast Redis trouble and to stop gracefully.

Three changes, each for a failure arq leaves open:
- A poll that fails on Redis (a restart, a failover, a dropped connection) is logged and retried with backoff;
  arq would end the process. The job slots a half-started job took are given back from the tasks really running.
- A started job's lock lasts `lease_s` (renewed by the job, app/workers/lease.py), not job_timeout + 10 s, so a
  worker killed between starting a job and renewing its lock holds it for a lease, not an hour.
- SIGTERM (or SIGINT) stops taking jobs and tells running shards to take no new item; calls in flight get
  stop_grace_s to finish, their rows are written, and each shard hands its remaining items back to the queue at
  once (its lock deleted, its job queued again). A second signal, or the deadline, cancels what is left, which
  arq queues again too. Target slots are released as each attempt ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
from typing import Any

import structlog
from arq.worker import Worker

log = structlog.get_logger("helmbench.worker")

POLL_BACKOFF_MAX_S = 5.0
STOP_MARGIN_S = 10.0  # after the grace for calls: writing the finished rows and handing the shards back


class ShardWorker(Worker):
    def __init__(self, *, lease_s: float, stop_grace_s: float, **options: Any) -> None:
        super().__init__(**{**options, "handle_signals": False})
        self.in_progress_timeout_s = lease_s
        self._stop_grace_s = stop_grace_s
        self._stopping = False
        self._poll_failures = 0
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._add_signal_handler(signum, self.stop_gracefully)

    async def _poll_iteration(self) -> None:
        try:
            await super()._poll_iteration()
        except Exception as exc:
            self._poll_failures += 1
            self._resync_job_slots()
            wait = min(POLL_BACKOFF_MAX_S, 0.2 * 2**self._poll_failures) * random.uniform(0.5, 1.0)
            log.warning(
                "queue poll failed; retrying",
                error=f"{type(exc).__name__}: {exc}"[:300],
                failures=self._poll_failures,
                retry_in_s=round(wait, 2),
            )
            await asyncio.sleep(wait)
        else:
            self._poll_failures = 0

    def _resync_job_slots(self) -> None:
        """Count the jobs really running again: a start cut short by Redis must not keep its slot forever."""
        running = sum(not task.done() for task in self.tasks.values())
        self.job_counter = running
        self.sem = asyncio.Semaphore(max(0, self.max_jobs - running))

    def stop_gracefully(self, signum: signal.Signals) -> None:
        if self._stopping:  # asked twice: stop now
            self.handle_sig(signum)
            return
        self._stopping = True
        self.allow_pick_jobs = False
        deps = self.ctx.get("deps")
        if deps is not None:
            deps.stopping.set()
        log.info(
            "stopping: no new shards; running ones hand back what they cannot finish", signal=signum.name
        )
        self.loop.create_task(self._stop_when_drained(signum))

    async def _stop_when_drained(self, signum: signal.Signals) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._sleep_until_tasks_complete(), self._stop_grace_s + STOP_MARGIN_S)
        self.handle_sig(signum)  # cancels what is left (arq queues it again) and ends the poll loop
