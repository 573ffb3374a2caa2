"""Whether an evaluation was cancelled, asked of the database once per poll period per process, not per shard.

Every shard a process runs polls for its evaluation's cancellation every CANCEL_POLL_SECONDS (app/runner/shard.py:
`_watch`). A worker runs several shards of one evaluation at once, and each poll was a session and a query in a
thread: ~2.5% of a worker's CPU per call at C = 256 (py-spy). Polls of one evaluation made within a period of the
first now share its answer (and its failure): a cancel is seen at most one period later than before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class CancelPolls:
    def __init__(self, period_s: float) -> None:
        self._period_s = period_s
        self._polls: dict[str, tuple[float, asyncio.Future[bool]]] = {}

    async def cancelled(self, evaluation_id: str, poll: Callable[[], bool]) -> bool:
        """`poll()` (blocking, run in a thread) unless a poll of this evaluation began less than a period ago in
        this event loop; then that poll's answer."""
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        last = self._polls.get(evaluation_id)
        if last is None or now - last[0] >= self._period_s or last[1].get_loop() is not loop:
            self._forget_old(now)
            task = asyncio.ensure_future(asyncio.to_thread(poll))
            # Its failure is read here too: a watcher cancelled while the poll is out stops listening to it
            # (asyncio.shield drops its callback), and a failure nobody read would be reported as unretrieved.
            task.add_done_callback(_read_failure)
            last = self._polls[evaluation_id] = (now, task)
        # shielded: a shard whose watcher is cancelled must not cancel the poll the others wait on
        return await asyncio.shield(last[1])

    def _forget_old(self, now: float) -> None:
        for evaluation_id in [k for k, (at, _) in self._polls.items() if now - at >= self._period_s]:
            del self._polls[evaluation_id]


def _read_failure(task: asyncio.Future[bool]) -> None:
    if not task.cancelled():
        task.exception()
