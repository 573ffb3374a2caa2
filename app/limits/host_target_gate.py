"""A target's concurrency cap shared by the local worker processes of one machine, through small files.

Why: with N local workers (embedded default, no Redis) each process used to keep a fixed 1/N of a target's
`max_concurrency`, so a run used all of it only while its shards were spread over every worker: a one-shard run
(the quick suite) and the last shard of a large one ran at 1/N. Now the cap is one count across the processes.
Each process keeps its part of the count in a row of the target's file under `var_dir/gates/`, and changes it
under an exclusive `flock`: a read and a write of a few hundred bytes, microseconds beside a call's milliseconds.

A process owns its row by holding an exclusive `flock` on that row's lock file for its lifetime. The kernel drops
it when the process dies, however it dies, so whoever takes the row next knows its count belonged to a dead
process and zeroes it: slots a killed worker held come back when `helmbench serve` starts its replacement (at
once, unless it keeps crashing). Until then they count as held: the cap is never passed, it is at worst
under-used for a moment.

Fair shares: a process that already holds its share (the cap over the processes that want slots) leaves a slot
another process is waiting for to that process, so the worker that started first cannot keep the whole cap.
Slots freed in another process send no signal; a process with callers waiting looks again every few ms.

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
                fd = os.open(rows / f"{row}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
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
            slots = self._targets[target_id] = HostSlots(path, self.row)
        return slots

    def close(self) -> None:
        """Give the row up (process shutdown): slots still counted in it are zeroed by its next owner."""
        for slots in self._targets.values():
            slots.close()
        self._targets = {}
        if self._row_fd is not None:
            os.close(self._row_fd)
        self._row, self._row_fd = None, None


class HostSlots:
    """One target's cap across the machine's processes; callers of this process queue here for their slot."""

    def __init__(self, path: Path, row: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._row = row
        self._held = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._poller: asyncio.Task[None] | None = None
        with self._locked():
            self._write(0, 0)  # what a dead owner of this row held

    @property
    def held(self) -> int:
        return self._held

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

    def _exchange(self, give: int, cap: int) -> int:
        """Give `give` slots back and take what this process's waiting callers may have, in one locked step;
        returns how many were taken. Also tells the others how many of ours still wait."""
        want = len(self._waiters)
        with self._locked() as rows:
            self._held -= give
            mine = 2 * self._row
            held_by_others = sum(rows[0::2]) - rows[mine]
            others_waiting = sum(1 for waiting in rows[1::2] if waiting) - (1 if rows[mine + 1] else 0)
            free = cap - self._held - held_by_others
            share = math.ceil(cap / (1 + others_waiting)) if others_waiting else cap
            take = max(0, min(want, free, share - self._held))
            self._held += take
            self._write(self._held, want - take)
        return take

    async def acquire(self, cap: int) -> None:
        """One slot of `cap` across the machine; waits its turn behind this process's earlier callers."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        self._grant(self._exchange(0, cap))
        if not future.done():
            self._poll(cap)
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
        self._grant(self._exchange(1, cap))
        if self._waiters:
            self._poll(cap)

    def _grant(self, n: int) -> None:
        while n and self._waiters:
            future = self._waiters.popleft()
            if future.done():  # cancelled while queued
                continue
            future.set_result(None)
            n -= 1
        if n:  # every caller we took them for has left
            self._exchange(n, 0)

    def _poll(self, cap: int) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._look_again(cap))

    async def _look_again(self, cap: int) -> None:
        """While callers wait, look for slots the other processes freed, backing off to LAST_POLL_S."""
        delay = FIRST_POLL_S
        while self._waiters:
            await asyncio.sleep(delay)
            before = len(self._waiters)
            self._grant(self._exchange(0, cap))
            delay = FIRST_POLL_S if len(self._waiters) < before else min(delay * 2, LAST_POLL_S)

    def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        with contextlib.suppress(OSError), self._locked():
            self._held = 0
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
