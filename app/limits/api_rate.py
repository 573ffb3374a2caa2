"""Per-key request rate: so no team crowds out the rest.

The rate limit is a token bucket per API key id, chosen once at start-up. Embedded default: in process
(`RateLimiter`), which is exact because there is one API process. Scale-out (`redis_url` set): in Redis
(`app/limits/shared_api_rate.py`), so the limit holds for the whole service however many API replicas run; if
Redis does not answer, the request gets 503 rather than going unlimited."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from app.config import Settings
from app.errors import TooMany, Unavailable

UNAVAILABLE_RETRY_S = 5  # a Redis restart or failover usually takes a few seconds


class LimiterUnavailable(Exception):
    """The shared limiter could not be asked (its message is for logs; the client gets a fixed detail)."""


class Limiter(Protocol):
    """Where the per-key buckets live: this process (`RateLimiter`) or Redis (`SharedRateLimiter`)."""

    def take(self, key_id: str, *, per_minute: float, burst: int) -> float | None: ...

    def close(self) -> None: ...


@dataclass
class _Bucket:
    tokens: float
    stamp: float


@dataclass
class RateLimiter:
    """Token buckets per key id: `burst` requests at once, refilled at `per_minute` / 60 per second."""

    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key_id: str, *, per_minute: float, burst: int) -> float | None:
        """Spend one token; returns None if allowed, else the seconds until a token is free."""
        if per_minute <= 0:
            return None
        rate = per_minute / 60.0
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key_id)
            if bucket is None:
                bucket = self._buckets[key_id] = _Bucket(tokens=float(burst), stamp=now)
            bucket.tokens = min(float(burst), bucket.tokens + (now - bucket.stamp) * rate)
            bucket.stamp = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return None
            return (1.0 - bucket.tokens) / rate

    def close(self) -> None:
        """Nothing to release: the buckets go with the process."""


def enforce_rate(limiter: Limiter, key_id: str, settings: Settings) -> None:
    """Raise 429 with Retry-After when this key has spent its burst; 503 if the shared limiter is unreachable.

    Why 503 and not letting the request through: a limit that lapses whenever Redis does is no limit, and
    Retry-After tells a well-behaved client when to come back.
    """
    try:
        wait = limiter.take(key_id, per_minute=settings.rate_per_minute, burst=settings.rate_burst)
    except LimiterUnavailable as exc:
        detail = (
            f"rate limit: the shared rate limiter (Redis) is not answering; retry in {UNAVAILABLE_RETRY_S}s"
        )
        raise Unavailable(None, detail, retry_after_s=UNAVAILABLE_RETRY_S) from exc
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        detail = f"rate limit: {settings.rate_per_minute:g} requests per minute per key; retry in {seconds}s"
        raise TooMany("Authorization", detail, retry_after_s=seconds)
