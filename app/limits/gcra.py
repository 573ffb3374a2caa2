"""GCRA in Redis: the one rate-limit algorithm every process shares, whatever it paces.

Two callers, one script: the workers' per-target budgets (`app/limits/shared_target_gate.py`, async client) and the
API's per-key request rate (`app/limits/shared_api_rate.py`, sync client). Each registers `GCRA_LUA` on its own
client and keeps its own failure policy; this module holds only the algorithm, its arguments and the key names.

A bucket is a single key holding its theoretical arrival time (TAT, ms on Redis's clock, the one clock all
machines agree on). It expires once the bucket would be full again, so an idle key leaves nothing behind.
"""

from __future__ import annotations

from dataclasses import dataclass

# KEYS[1] theoretical arrival time (ms); ARGV emission interval (ms per unit of cost), window (ms: capacity x
# interval, how far ahead of now the schedule may run), cost. 0 if granted, else the ms to wait.
GCRA_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval, window, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + cost * interval
local wait = new_tat - window - now
if wait > 0 then
  return math.ceil(wait)
end
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now) + 1)
return 0
"""


@dataclass(frozen=True)
class Pace:
    """A GCRA schedule: one unit of cost every `interval_ms`, at most `window_ms / interval_ms` units at once."""

    interval_ms: float
    window_ms: float

    @classmethod
    def per_period(cls, amount: float, period_ms: float) -> Pace:
        """`amount` per period, all of it at once when saved up: aiolimiter.AsyncLimiter(amount, period)."""
        return cls(interval_ms=period_ms / amount, window_ms=period_ms)

    @classmethod
    def per_minute(cls, rate: float, burst: int) -> Pace:
        """`rate` a minute, `burst` at once: the token bucket of app/limits/api_rate.py.RateLimiter."""
        interval = 60_000 / rate
        return cls(interval_ms=interval, window_ms=burst * interval)

    def args(self, cost: float = 1) -> list[float]:
        """ARGV for GCRA_LUA."""
        return [self.interval_ms, self.window_ms, cost]


def wait_seconds(reply: int | bytes | str) -> float:
    """The script's reply in seconds: 0 if granted, else how long until it could be."""
    return int(reply) / 1000


def limits_key(namespace: str, *parts: str) -> str:
    """A limit's key under the deployment's queue name, so deployments sharing one Redis never share limits."""
    return ":".join((namespace, "limits", *parts))
