"""One poll per key per period, shared by every caller in the event loop that asks within it.

Why: many tasks of one process follow the same row. A worker runs several shards of one evaluation, each
watching for its cancellation every CANCEL_POLL_SECONDS (app/runner/shard.py: `_watch`); each poll was a session and
a query in a thread, ~2.5% of a worker's CPU per call at C = 256 (py-spy). The API streams an evaluation's progress
to every dashboard following it (app/services/events.py), a read per stream per poll. Calls for one key within a
period of the first now share its answer, and its failure: what they see is at most one period older.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class SharedPolls(Generic[T]):
    def __init__(self, period_s: float) -> None:
        self._period_s = period_s
        self._polls: dict[Hashable, tuple[float, asyncio.Future[T]]] = {}

    async def get(self, key: Hashable, poll: Callable[[], T]) -> T:
        """`poll()` (blocking, run in a thread) unless a poll of this key began less than a period ago in this
        event loop; then that poll's answer."""
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        last = self._polls.get(key)
        if last is None or now - last[0] >= self._period_s or last[1].get_loop() is not loop:
            self._forget_old(now)
            task = asyncio.ensure_future(asyncio.to_thread(poll))
            # Its failure is read here too: a caller cancelled while the poll is out stops listening to it
            # (asyncio.shield drops its callback), and a failure nobody read would be reported as unretrieved.
            task.add_done_callback(_read_failure)
            last = self._polls[key] = (now, task)
        # shielded: a caller that is cancelled must not cancel the poll the others wait on
        return await asyncio.shield(last[1])

    def _forget_old(self, now: float) -> None:
        for key in [k for k, (at, _) in self._polls.items() if now - at >= self._period_s]:
            del self._polls[key]


def _read_failure(task: asyncio.Future[T]) -> None:
    if not task.cancelled():
        task.exception()
