"""Bounded retries with exponential backoff and full jitter, honouring Retry-After."""

from __future__ import annotations

import email.utils
import random
import time
from asyncio import sleep
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.net.call_failed import CallFailed
from app.targets.base import TargetReply


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    budget_s: float = 120.0
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Retry-After wins (plus up to 10% jitter so a burst of 429s does not return in lockstep)."""
        if retry_after is not None:
            wait = min(max(retry_after, 0.0), self.max_delay_s * 3)
            return wait + random.uniform(0, wait * 0.1)
        return random.uniform(0, min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1)))


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from Retry-After (delta-seconds or an HTTP date); None if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else time.time()
    return max((when - datetime.fromtimestamp(current, UTC)).total_seconds(), 0.0)


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
            return TargetReply(
                text=text, usage=usage, attempts=attempt, latency_ms=(time.monotonic() - started) * 1000
            )
        except CallFailed as failure:
            elapsed = time.monotonic() - started
            wait = policy.delay(attempt, failure.retry_after)
            # Why we stop: a 4xx other than 429 will not change on retry; past the budget, a slow endpoint
            # must not hold a whole evaluation hostage.
            if not failure.retryable or attempt > policy.max_retries or elapsed + wait > policy.budget_s:
                return TargetReply(
                    text=None,
                    attempts=attempt,
                    latency_ms=elapsed * 1000,
                    error_class=failure.error_class,
                    error=str(failure)[:500],
                )
            await sleep(wait)
