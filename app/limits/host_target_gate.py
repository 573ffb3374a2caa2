"""A target's concurrency cap shared by the local worker processes of one machine, through small files.

Why: with N local workers (embedded default, no Redis) each process used to keep a fixed 1/N of a target's
`max_concurrency`, so a run used all of it only while its shards were spread over every worker: a one-shard run
(the quick suite) and the last shard of a large one ran at 1/N. Now the cap is one count across the processes.
Each process keeps its part of the count in a row of the target's file under `var_dir/gates/`, and changes it
under an exclusive `flock`: a read and a write of a few hundred bytes, microseconds beside a call's milliseconds.

A process owns its row by holding an exclusive `flock` on that row's lock file for its lifetime. The kernel drops
it when the process dies, however it dies. So a row whose lock file anyone can lock belongs to no live process:
a process that finds the cap full looks (at most every SWEEP_S) for rows with slots whose lock it can take, and
zeroes them, and whoever takes a row zeroes it too. Slots a killed worker held come back within a sweep; until
then they count as held: the cap is never passed, it is at worst under-used for a moment.

Fair shares: a process that already holds its share (the cap over the processes that want slots) leaves a slot
another process is waiting for to that process, so the worker that started first cannot keep the whole cap.
Slots freed in another process send no signal; a process with callers waiting looks again every few ms, and a
process using its slots looks at least every SETTLE_S, when it gives back those it no longer uses.

The per-minute budgets stay split 1/N (app/runner/sessions.py `local_share`): they are paced by time, not held.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import math
import os
import re
import struct
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

from app.limits.target_gate import TargetGate

MAX_ROWS = 64  # local worker processes one machine's files can hold (Settings.local_workers is capped to it)
_ROW = struct.Struct("<qq")  # slots held, callers waiting
_ROWS = struct.Struct(f"<{2 * MAX_ROWS}q")
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")
FIRST_POLL_S = 0.002
LAST_POLL_S = 0.02
SETTLE_S = 0.01  # how long a freed slot stays this process's before it goes back to the file
SWEEP_S = 0.25  # how often a process that finds the cap full looks for rows of processes that have died


class HostRows:
    """This process's row in every target file under `folder`: the row is its own while it lives."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._row: int | None = None
        self._row_fd: int | None = None
        self._targets: dict[str, HostSlots] = {}

    @property
    def row(self) -> int:
        """The first row no live process holds, taken on first use and kept until `close`."""
        if self._row is None:
            rows = self.folder / "rows"
            rows.mkdir(parents=True, exist_ok=True)
            for row in range(MAX_ROWS):
                fd = _lock_row(rows, row)
                if fd is not None:
                    self._row, self._row_fd = row, fd
                    break
            else:
                raise RuntimeError(f"all {MAX_ROWS} rows under {rows} are held by live processes")
        assert self._row is not None
        return self._row

    def slots(self, target_id: str) -> HostSlots:
        """The target's shared count, as this process sees it (one per target, whatever its config)."""
        slots = self._targets.get(target_id)
        if slots is None:
            name = (
                target_id
                if _SAFE_NAME.fullmatch(target_id)
                else hashlib.sha256(target_id.encode()).hexdigest()
            )
            path = self.folder / f"{name}.slots"
            slots = self._targets[target_id] = HostSlots(path, self.row, self.folder / "rows")
        return slots

    def close(self) -> None:
        """Give the row up (process shutdown), its counts zeroed first (a dead owner's are swept instead)."""
        for slots in self._targets.values():
            slots.close()
        self._targets = {}
        if self._row_fd is not None:
            os.close(self._row_fd)
        self._row, self._row_fd = None, None


def _lock_row(rows: Path, row: int) -> int | None:
    """An exclusive lock on the row's lock file (its fd), or None if a live process holds the row."""
    fd = os.open(rows / f"{row}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class HostSlots:
    """One target's cap across the machine's processes; callers of this process queue here for their slot.

    A slot a call frees stays this process's for a moment (idle): the next call takes it with no file access,
    and the idle ones go back to the file within SETTLE_S (with each look at the file). Without this, two file
    accesses per call made a worker wait whenever the other held the lock and the scheduler had paused it. The
    cap is never passed: an idle slot is still counted as held.
    """

    def __init__(self, path: Path, row: int, rows: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._row = row
        self._rows = rows  # the row lock files
        self._swept_at = 0.0
        self._held = 0  # counted in our row: in use, or idle
        self._idle = 0
        self._others_waiting = 0  # processes waiting for slots, as of our last look at the file
        self._cap = 1  # the cap callers asked for last (a target edited mid-run has sessions with two)
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._poller: asyncio.Task[None] | None = None
        self._settler: asyncio.TimerHandle | None = None
        with self._locked():
            self._write(0, 0)  # what a dead owner of this row held

    @property
    def held(self) -> int:
        return self._held

    @property
    def in_use(self) -> int:
        return self._held - self._idle

    @contextlib.contextmanager
    def _locked(self) -> Iterator[tuple[int, ...]]:
        """Every row's (held, waiting), flattened, read under the file's lock (held while the block runs)."""
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            yield _ROWS.unpack(os.pread(self._fd, _ROWS.size, 0).ljust(_ROWS.size, b"\0"))
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _write(self, held: int, waiting: int) -> None:
        os.pwrite(self._fd, _ROW.pack(held, waiting), self._row * _ROW.size)

    def _share(self, cap: int) -> int:
        """How many slots this process may use: all of `cap`, or its share while others wait."""
        return math.ceil(cap / (1 + self._others_waiting)) if self._others_waiting else cap

    def _refresh(self) -> None:
        """Look at the file: give the idle slots back and take what our waiting callers may have, in one locked
        step; tell the others how many of ours still wait."""
        cap = self._cap
        with self._locked() as rows:
            self._held -= self._idle
            self._idle = 0
            want = len(self._waiters)
            take = self._takeable(rows, cap, want)
            if take < want:  # the cap or our share is short: are all the processes counted in it alive?
                dead = self._sweep(rows)
                if dead:
                    take = self._takeable(rows, cap, want, dead)
            self._held += take
            self._write(self._held, want - take)
        self._idle = take
        self._use_idle()

    def _takeable(self, rows: tuple[int, ...], cap: int, want: int, dead: tuple[int, ...] = ()) -> int:
        """How many of `want` slots we may take, counting every other row but the `dead` ones."""
        others = (self._row, *dead)
        held_by_others = sum(rows[0::2]) - sum(rows[2 * r] for r in others)
        self._others_waiting = sum(1 for waiting in rows[1::2] if waiting) - sum(
            1 for r in others if rows[2 * r + 1]
        )
        return max(0, min(want, cap - self._held - held_by_others, self._share(cap) - self._held))

    def _sweep(self, rows: tuple[int, ...]) -> tuple[int, ...]:
        """Zero the rows that count slots or callers for an owner that has died (at most every SWEEP_S; under the
        file's lock); returns them."""
        now = time.monotonic()
        if now - self._swept_at < SWEEP_S:
            return ()
        self._swept_at = now
        dead = []
        for row in range(MAX_ROWS):
            if row == self._row or not (rows[2 * row] or rows[2 * row + 1]):
                continue
            fd = _lock_row(self._rows, row)
            if fd is None:
                continue  # alive
            try:
                os.pwrite(self._fd, _ROW.pack(0, 0), row * _ROW.size)
                dead.append(row)
            finally:
                os.close(fd)
        return tuple(dead)

    def _use_idle(self) -> None:
        """Hand idle slots to waiting callers, within our share."""
        share = self._share(self._cap)
        while self._waiters and self._idle and self.in_use < share:
            future = self._waiters.popleft()
            if not future.done():  # (cancelled while queued)
                self._idle -= 1
                future.set_result(None)
        if self._idle:
            self._settle_soon()

    def _settle_soon(self) -> None:
        if self._settler is None:
            self._settler = asyncio.get_running_loop().call_later(SETTLE_S, self._settle)

    def _settle(self) -> None:
        self._settler = None
        self._refresh()

    async def acquire(self, cap: int) -> None:
        """One slot of `cap` across the machine; waits its turn behind this process's earlier callers."""
        self._cap = cap
        if not self._waiters and self._idle and self.in_use < self._share(cap):
            self._idle -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        self._use_idle()
        if not future.done():
            self._refresh()
        if not future.done():
            self._poll()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(cap)  # granted as we left: hand it on
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(future)
            raise

    def release(self, cap: int) -> None:
        self._cap = cap
        self._idle += 1
        self._use_idle()
        if self._waiters:
            self._poll()

    def _poll(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._look_again())

    async def _look_again(self) -> None:
        """While callers wait, look for slots the other processes freed, backing off to LAST_POLL_S."""
        delay = FIRST_POLL_S
        while self._waiters:
            await asyncio.sleep(delay)
            before = len(self._waiters)
            self._refresh()
            delay = FIRST_POLL_S if len(self._waiters) < before else min(delay * 2, LAST_POLL_S)

    def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        if self._settler is not None:
            self._settler.cancel()
        with contextlib.suppress(OSError), self._locked():
            self._held = self._idle = 0
            self._write(0, 0)
        os.close(self._fd)


class HostTargetGate(TargetGate):
    """A TargetGate whose cap holds across this machine's local workers; the AIMD window stays per process."""

    def __init__(
        self,
        slots: HostSlots,
        max_concurrency: int,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
    ) -> None:
        super().__init__(max_concurrency, requests_per_minute, tokens_per_minute)
        self._slots = slots
        self._cap = max(1, max_concurrency)

    @asynccontextmanager
    async def slot(self, estimated_tokens: int = 0) -> AsyncIterator[None]:
        async with super().slot(estimated_tokens):
            await self._slots.acquire(self._cap)
            try:
                yield
            finally:
                self._slots.release(self._cap)
