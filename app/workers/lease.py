"""Prompt resume after a worker dies: arq's own per-job lock, kept short and renewed while the shard runs.

arq marks a running job with `arq:in-progress:<job id>`, set to expire after job_timeout + 10 s; only when
it expires does another worker take the job again, so a SIGKILLed worker would hold its shard for the whole
job timeout (an hour by default). Instead of a second lock of our own (a lease table plus a reaper that would
have to agree with arq about who runs what), the job shortens that same key to `lease_s` and renews it every
lease_s / 3 while the shard runs. A live worker keeps its shard; a dead one's key lapses within lease_s and
the next poll of any worker re-runs the job under its fixed id, and that run skips the items already written.
If a worker only stalls past lease_s (a long GC pause, a partition from Redis), two workers may briefly run
the same shard: items are written once by key, so the cost is repeated target calls, never a duplicate row.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix


async def renew(redis: ArqRedis, job_id: str, lease_s: float) -> None:
    """Keep the job's in-progress key alive for lease_s at a time, until cancelled."""
    key = in_progress_key_prefix + job_id
    while True:
        await redis.pexpire(key, int(lease_s * 1000))
        await asyncio.sleep(lease_s / 3)


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
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
