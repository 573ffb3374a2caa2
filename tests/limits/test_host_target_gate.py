"""A target's cap counted across one machine's local workers: whole for one, shared by many, back when one dies."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from app.limits.host_target_gate import HostRows, HostSlots
from tests.waits import eventually_async


class Holders:
    """Callers of one process taking slots of one target and keeping them until `finish` lets some go."""

    def __init__(self, slots: HostSlots, cap: int, tally: list[int] | None = None) -> None:
        self.slots, self.cap = slots, cap
        self.holding = 0
        self.tally = tally if tally is not None else [0, 0]  # held by every process now, and the peak
        self._finish = asyncio.Semaphore(0)
        self._changed = asyncio.Condition()

    async def call(self) -> None:
        await self.slots.acquire(self.cap)
        try:
            await self._count(+1)
            await self._finish.acquire()
        finally:
            self.slots.release(self.cap)
            await self._count(-1)

    async def _count(self, step: int) -> None:
        async with self._changed:
            self.holding += step
            self.tally[0] += step
            self.tally[1] = max(self.tally[1], self.tally[0])
            self._changed.notify_all()

    def finish(self, n: int) -> None:
        for _ in range(n):
            self._finish.release()

    async def until(self, holding: int) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.holding == holding)


async def test_one_process_alone_uses_the_whole_cap(tmp_path: Path) -> None:
    """The point of counting together: a run on one worker (a one-shard suite) is not cut to 1/N."""
    rows = HostRows(tmp_path)
    one = Holders(rows.slots("target-1"), cap=6)
    calls = [asyncio.create_task(one.call()) for _ in range(10)]
    await one.until(6)
    await asyncio.sleep(0.05)  # the four others keep waiting: the cap holds
    assert one.holding == 6
    one.finish(10)
    await asyncio.gather(*calls)
    assert one.tally[1] == 6 and one.slots.in_use == 0
    # Slots it no longer uses go back to the file soon after: another worker then has all of them.
    other = HostRows(tmp_path)
    await asyncio.wait_for(asyncio.gather(*(other.slots("target-1").acquire(6) for _ in range(6))), 5)
    assert one.slots.held == 0
    rows.close()
    other.close()


async def test_two_processes_never_pass_the_cap_and_each_gets_its_share(tmp_path: Path) -> None:
    first, second = HostRows(tmp_path), HostRows(tmp_path)  # two local workers: two rows
    assert {first.row, second.row} == {0, 1}
    tally = [0, 0]
    a = Holders(first.slots("target-1"), cap=6, tally=tally)
    b = Holders(second.slots("target-1"), cap=6, tally=tally)
    a_calls = [asyncio.create_task(a.call()) for _ in range(10)]
    await a.until(6)  # the first worker took everything while alone
    b_calls = [asyncio.create_task(b.call()) for _ in range(10)]
    await asyncio.sleep(0.05)
    assert b.holding == 0  # nothing is free, and nothing is taken from a caller that holds it
    # Three of the first worker's calls end: its own waiting callers could take their slots, but it holds its
    # share (6 over 2 workers that want slots), so they go to the second worker.
    a.finish(3)
    await b.until(3)
    await asyncio.sleep(0.05)
    assert (a.holding, b.holding) == (3, 3)
    a.finish(10)
    b.finish(10)
    await asyncio.gather(*a_calls, *b_calls)
    assert tally == [0, 6]  # the two together never passed the cap
    assert a.slots.in_use == b.slots.in_use == 0
    first.close()
    second.close()


async def test_a_cancelled_waiter_leaves_no_slot_behind(tmp_path: Path) -> None:
    rows = HostRows(tmp_path)
    slots = rows.slots("target-1")
    await slots.acquire(1)
    waiter = asyncio.create_task(slots.acquire(1))
    await asyncio.sleep(0.01)
    waiter.cancel()
    slots.release(1)
    await asyncio.gather(waiter, return_exceptions=True)
    assert slots.in_use == 0
    await asyncio.wait_for(slots.acquire(1), 5)  # the slot is free for the next caller
    slots.release(1)
    rows.close()


@asynccontextmanager
async def another_worker(script: str, folder: Path) -> AsyncIterator[tuple[subprocess.Popen[str], str]]:
    """A process running `script` on the gate files in `folder`: yields it and the first line it prints."""
    worker = subprocess.Popen(
        [sys.executable, "-c", script, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert worker.stdout is not None
    try:
        yield worker, await asyncio.to_thread(worker.stdout.readline)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        worker.stdout.close()


def kill(worker: subprocess.Popen[str]) -> None:
    worker.send_signal(signal.SIGKILL)
    worker.wait()


HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from app.limits.host_target_gate import HostRows

    async def main():
        rows = HostRows(Path(sys.argv[1]))
        slots = rows.slots("target-1")
        for _ in range(4):
            await slots.acquire(4)
        print(rows.row, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


async def test_slots_of_a_killed_worker_come_back_and_its_row_is_taken_again(tmp_path: Path) -> None:
    async with another_worker(HOLDER, tmp_path) as (worker, line):
        dead_row = int(line)  # it holds the whole cap of 4
        survivor = HostRows(tmp_path)
        waiting = asyncio.create_task(survivor.slots("target-1").acquire(4))
        await asyncio.sleep(0.5)  # two sweeps: its owner is alive, so its slots stay counted
        assert not waiting.done()
        kill(worker)
        await asyncio.wait_for(waiting, 5)  # the next sweep finds its row's lock free and zeroes the row
        assert survivor.slots("target-1").held == 1
        replacement = HostRows(tmp_path)
        assert replacement.row == dead_row  # the dead worker's row serves the next process
        survivor.close()
        replacement.close()


WAITER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from app.limits.host_target_gate import HostRows

    async def main():
        rows = HostRows(Path(sys.argv[1]))
        waiting = asyncio.create_task(rows.slots("target-1").acquire(4))
        await asyncio.sleep(0.05)  # its first look at the file has said it waits
        print(rows.row, flush=True)
        await waiting

    asyncio.run(main())
    """
)


async def test_a_killed_worker_that_was_waiting_does_not_keep_a_share(tmp_path: Path) -> None:
    """A dead worker's waiting callers would halve the survivor's share for good if nobody looked."""
    survivor = HostRows(tmp_path)
    mine = Holders(survivor.slots("target-1"), cap=4)
    first = [asyncio.create_task(mine.call()) for _ in range(4)]
    await mine.until(4)
    async with another_worker(WAITER, tmp_path) as (worker, _):  # it waits for a slot: it wants its share
        kill(worker)
    mine.finish(4)
    await asyncio.gather(*first)
    await eventually_async(lambda: mine.slots.held, lambda held: held == 0, what="the idle slots to go back")
    again = [asyncio.create_task(mine.call()) for _ in range(4)]
    await asyncio.wait_for(mine.until(4), 5)  # all four again, not the half a live waiter would leave us
    mine.finish(4)
    await asyncio.gather(*again)
    survivor.close()
