"""The API's per-key request rate in Redis (scale-out mode): one bucket per key for every API replica.

Same algorithm and script as the workers' target budgets (`app/limits/gcra.py`), with the in-process
bucket's schedule: `rate_burst` at once, then one every 60 / `rate_per_minute` seconds. The auth dependency is
sync (FastAPI runs it in its threadpool), so this uses redis-py's sync client, whose connection pool is
thread-safe. Short socket timeouts and one reconnect (for a pooled connection Redis closed) bound the time a
request can wait on Redis to about a second; past that, the key's check fails as `LimiterUnavailable` (503).
"""

from __future__ import annotations

import structlog
from redis import Redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.retry import Retry

from app.limits.api_rate import LimiterUnavailable
from app.limits.gcra import GCRA_LUA, Pace, limits_key, wait_seconds

CONNECT_TIMEOUT_S = 0.5
SOCKET_TIMEOUT_S = 1.0
log = structlog.get_logger("helmbench.ratelimit")


class SharedRateLimiter:
    """Per-key buckets in Redis under the deployment's queue name; the `Limiter` of scale-out mode."""

    def __init__(self, redis: Redis, namespace: str) -> None:
        self.redis = redis
        self.namespace = namespace
        self._gcra = redis.register_script(GCRA_LUA)

    @classmethod
    def from_url(cls, url: str, namespace: str) -> SharedRateLimiter:
        """A client that gives up within about a second, so a lost Redis is a quick 503, never a hung request."""
        redis = Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=SOCKET_TIMEOUT_S,
            retry=Retry(NoBackoff(), 1),
            retry_on_error=[RedisConnectionError],  # not timeouts: those already took their time
        )
        return cls(redis, namespace)

    def key(self, key_id: str) -> str:
        return limits_key(self.namespace, "api-key", key_id)

    def take(self, key_id: str, *, per_minute: float, burst: int) -> float | None:
        """Spend one request; None if allowed, else the seconds until one is free."""
        if per_minute <= 0:
            return None
        try:
            reply = self._gcra(keys=[self.key(key_id)], args=Pace.per_minute(per_minute, burst).args())
        except (RedisError, OSError) as exc:
            log.warning("rate limiter unavailable", error=type(exc).__name__)
            raise LimiterUnavailable(f"Redis: {type(exc).__name__}") from exc
        wait = wait_seconds(reply)
        return wait if wait > 0 else None

    def close(self) -> None:
        self.redis.close()
