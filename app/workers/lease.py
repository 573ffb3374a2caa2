"""Prompt resume after a worker dies: arq's own per-job lock, kept short and renewed while the shard runs.

arq marks a running job with `arq:in-progress:<job id>`; only when it expires does another worker take the job
again. Our worker (app/workers/worker.py) sets it to `lease_s` when it starts a job, and the job renews it every
`renew_every_s` (a second, or a third of a short lease) while the shard runs. A live worker keeps its shard; a
dead one's key lapses within lease_s and the next poll of any worker re-runs the job under its fixed id, and
that run skips the items already written. The renewal sets the key rather than extending it: if Redis came back
empty, the live holder's lock is back within one renewal, before the reconciler (which waits three) would queue
the shard again.
If a worker only stalls past lease_s (a long GC pause, a partition from Redis), two workers may briefly run
the same shard: items are written once by key, so the cost is repeated target calls, never a duplicate row.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix

from app.lease_timing import renew_every_s
from app.queue.arq_queue import REDIS_ERRORS

log = structlog.get_logger("helmbench.worker")


async def renew(redis: ArqRedis, job_id: str, lease_s: float) -> None:
    """Keep the job's in-progress key alive for lease_s at a time, until cancelled; Redis errors are waited out."""
    key = in_progress_key_prefix + job_id
    while True:
        try:
            await redis.set(key, b"1", px=int(lease_s * 1000))
        except REDIS_ERRORS as exc:  # the next renewal, a second later, tries again
            log.warning("lease renewal failed", job_id=job_id, error=f"{type(exc).__name__}: {exc}"[:200])
        await asyncio.sleep(renew_every_s(lease_s))


@asynccontextmanager
async def held(redis: ArqRedis | None, job_id: str | None, lease_s: float) -> AsyncIterator[None]:
    """Hold the shard's lease for the duration of the block (a no-op outside an arq job)."""
    if redis is None or job_id is None:
        yield
        return
    task = asyncio.create_task(renew(redis, job_id, lease_s))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
