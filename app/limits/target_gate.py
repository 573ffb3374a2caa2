"""Per-target limits: an AIMD concurrency window that 429s shrink, plus requests and tokens per minute."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiolimiter import AsyncLimiter


class AdaptiveLimit:
    """A semaphore whose size moves: halved on a rate-limit signal, grown by one per window of successes.

    Why AIMD: a 429 says the endpoint is past its capacity now; halving backs off fast, the slow additive
    climb finds the sustainable level again without oscillating. One decrease per `cooldown_s`, because the
    requests in flight when the first 429 arrives will often get 429 too and must not collapse the window.
    """

    def __init__(self, maximum: int, *, minimum: int = 1, cooldown_s: float = 1.0) -> None:
        self.maximum = max(1, maximum)
        self.minimum = max(1, min(minimum, self.maximum))
        self.limit = float(self.maximum)
        self.in_flight = 0
        self._cooldown_s = cooldown_s
        self._last_decrease = -1e9
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> None:
        if self.in_flight < int(self.limit) and not self._waiters:
            self.in_flight += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # we were granted a slot but are leaving: hand it on
            else:
                with contextlib.suppress(ValueError):  # a release may already have dropped it
                    self._waiters.remove(future)
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < int(self.limit):
            future = self._waiters.popleft()
            if not future.done():
                self.in_flight += 1
                future.set_result(None)

    def on_success(self) -> None:
        if self.limit < self.maximum:
            self.limit = min(self.maximum, self.limit + 1.0 / self.limit)
            self._wake()

    def on_rate_limited(self) -> bool:
        """Halve the window unless it was just halved; returns whether it changed."""
        now = time.monotonic()
        if now - self._last_decrease < self._cooldown_s:
            return False
        self._last_decrease = now
        self.limit = max(float(self.minimum), self.limit / 2)
        return True


class TargetGate:
    """Everything that paces calls to one target: the adaptive window and optional per-minute budgets."""

    def __init__(
        self,
        max_concurrency: int,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
    ) -> None:
        self.window = AdaptiveLimit(max_concurrency)
        self._rpm = AsyncLimiter(requests_per_minute, 60) if requests_per_minute else None
        self._tpm = AsyncLimiter(tokens_per_minute, 60) if tokens_per_minute else None
        self._tpm_max = float(tokens_per_minute or 0)

    @asynccontextmanager
    async def slot(self, estimated_tokens: int = 0) -> AsyncIterator[None]:
        """Hold one place in the window for one attempt, after the per-minute budgets allow it."""
        if self._rpm is not None:
            await self._rpm.acquire()
        if self._tpm is not None and estimated_tokens > 0:
            await self._tpm.acquire(min(float(estimated_tokens), self._tpm_max))
        await self.window.acquire()
        try:
            yield
        finally:
            self.window.release()
