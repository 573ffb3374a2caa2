"""Replies graded in turns: those that arrive close together are graded one after another.

Why: the rules' grade is some 40% of a worker's CPU per call and runs through a few hundred kilobytes of code
and lexicon tables. Graded as each reply arrived, between one call's HTTP read and the next call's send, it cost
0.28 ms a reply in a worker (C = 256, the real full suite, `time.thread_time` around `Grader.grade`) against
0.20 ms in a loop that grades the same items alone, and 0.29 ms in that loop with some other work between grades:
the CPU's caches held someone else's state. In turns it costs 0.25 ms, and the worker's CPU per call fell 10%
(the event loop's and the client's work is bunched too). A reply waits here 10 ms at most, far below any
target's latency, and the replies awaiting a grade stay bounded by the shard's grading slots.
"""

from __future__ import annotations

import asyncio

TURN_SIZE = 32  # replies graded in one turn at most
TURN_WAIT_S = 0.01  # how long the first reply of a turn waits for others


class GradingTurns:
    """`await turns.wait()` returns when the caller's turn comes: once `size` callers wait, or `wait_s` after
    the first of them began to. Callers of one turn resume one after another, in the order they came."""

    def __init__(self, size: int = TURN_SIZE, wait_s: float = TURN_WAIT_S) -> None:
        self._size = size
        self._wait_s = wait_s
        self._waiting: list[asyncio.Future[None]] = []
        self._timer: asyncio.Handle | None = None

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        self._waiting.append(turn)
        if len(self._waiting) == self._size:
            # Full: the turn starts in the loop's next pass, so this caller goes last, as it came.
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_soon(self._start)
        elif self._timer is None:
            self._timer = loop.call_later(self._wait_s, self._start)
        await turn

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiting, self._waiting = self._waiting, []
        for turn in waiting:
            if not turn.done():  # a cancelled caller has left
                turn.set_result(None)
