"""Bounded retries with exponential backoff and full jitter, honouring Retry-After."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.targets.base import CallFailed, TargetReply


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    budget_s: float = 120.0
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay_s * 3)
        return random.uniform(0, min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1)))


async def call_with_retries(
    attempt_once: Callable[[], Awaitable[tuple[str, dict[str, Any] | None]]], policy: RetryPolicy
) -> TargetReply:
    """Runs attempts until one succeeds, a failure is final, or the count or time budget is spent."""
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            text, usage = await attempt_once()
            return TargetReply(text=text, usage=usage, attempts=attempt,
                               latency_ms=(time.monotonic() - started) * 1000)
        except CallFailed as failure:
            elapsed = time.monotonic() - started
            wait = policy.delay(attempt, failure.retry_after)
            # Why we stop: a 4xx other than 429 will not change on retry; past the budget, a slow endpoint
            # must not hold a whole evaluation hostage.
            if not failure.retryable or attempt > policy.max_retries or elapsed + wait > policy.budget_s:
                return TargetReply(text=None, attempts=attempt, latency_ms=elapsed * 1000,
                                   error_class=failure.error_class, error=str(failure)[:500])
            await asyncio.sleep(wait)
