"""Stopping the shards a process runs: the same steps for the in-process queue and the local worker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection


async def drain(tasks: Collection[asyncio.Task[None]], timeout_s: float) -> None:
    """Let running shard tasks finish within `timeout_s` (calls in flight end, rows are written, jobs handed
    back), then cancel what is left and wait until each has unwound."""
    if tasks:
        await asyncio.wait(tasks, timeout=timeout_s)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task
