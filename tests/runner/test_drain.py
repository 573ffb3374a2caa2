"""Stopping a process's shards: work that ends within the grace period is left to finish, the rest is cancelled
and unwound before drain returns."""

from __future__ import annotations

import asyncio

from app.runner.drain import drain


async def test_tasks_that_finish_within_the_grace_period_complete_and_are_not_cancelled() -> None:
    written: list[int] = []

    async def shard(n: int) -> None:
        await asyncio.sleep(0)
        written.append(n)

    tasks = [asyncio.create_task(shard(n)) for n in range(3)]
    await drain(tasks, timeout_s=30)
    assert sorted(written) == [0, 1, 2]
    assert all(t.done() and not t.cancelled() for t in tasks)


async def test_a_task_that_overstays_is_cancelled_and_its_cleanup_has_run_when_drain_returns() -> None:
    started, cleaned = asyncio.Event(), asyncio.Event()

    async def hanging() -> None:
        started.set()
        try:
            await asyncio.Event().wait()  # never set: a call that does not come back
        finally:
            cleaned.set()

    async def quick() -> None:
        await started.wait()

    stuck, done = asyncio.create_task(hanging()), asyncio.create_task(quick())
    await drain([stuck, done], timeout_s=0.01)
    assert stuck.cancelled() and cleaned.is_set()
    assert done.done() and not done.cancelled()


async def test_no_tasks_returns_at_once() -> None:
    await drain([], timeout_s=30)
