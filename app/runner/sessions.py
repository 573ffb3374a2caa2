"""One HTTP client and one limit gate per target per process, shared by every shard that calls that target.

Why shared: per-target concurrency and per-minute budgets are promises to the team; two shards of one
evaluation (or two evaluations of one target) in the same worker must not each take the full allowance.
In scale-out mode (`redis_url` set) the gate keeps its cap and budgets in Redis, so all worker processes
together stay within them (app/limits/shared_target_gate.py); one Redis client per process serves every target.
Embedded with several local workers, the cap is counted in files the workers share (app/limits/host_target_gate.py)
and each keeps 1/N of the per-minute budgets. Embedded with one, the gate is local: the process is the whole service.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

import httpx

from app.config import Settings
from app.limits.host_target_gate import HostRows, HostSlots, HostTargetGate
from app.limits.shared_target_gate import RedisLimits, SharedTargetGate
from app.limits.target_gate import TargetGate
from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.targets.base import TargetAdapter, TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

LINGER_S = 30.0


@dataclass
class TargetSession:
    client: httpx.AsyncClient
    gate: TargetGate
    adapter: TargetAdapter
    users: int = 0
    closer: asyncio.TimerHandle | None = None


@dataclass
class TargetSessions:
    """Reference-counted sessions keyed by target id and its config; the last shard out closes the client."""

    sessions: dict[tuple[str, str], TargetSession] = field(default_factory=dict)
    shared: RedisLimits | None = None
    host: HostRows | None = None

    def _host_slots(self, target_id: str, settings: Settings) -> HostSlots | None:
        """The target's cap as counted across this machine's local workers; None unless there are several."""
        if settings.redis_url is not None or local_workers(settings) <= 1:
            return None
        if self.host is None:
            self.host = HostRows(settings.var_dir / "gates")
        return self.host.slots(target_id)

    def _shared_limits(self, settings: Settings) -> RedisLimits | None:
        """The process's handle on the shared limits, made on first use; None when embedded."""
        if settings.redis_url is None:
            return None
        if self.shared is None:
            self.shared = RedisLimits.from_url(settings.redis_url, settings.queue_name)
        return self.shared

    @asynccontextmanager
    async def use(
        self, target_id: str, config: TargetConfig, settings: Settings
    ) -> AsyncIterator[TargetSession]:
        key = (target_id, repr(config))  # a target edited mid-run gets a fresh session
        session = self.sessions.get(key)
        if session is None:
            limits = self._shared_limits(settings)
            host = self._host_slots(target_id, settings)
            session = self.sessions[key] = open_session(target_id, config, settings, limits, host)
        if session.closer is not None:
            session.closer.cancel()
            session.closer = None
        session.users += 1
        try:
            yield session
        finally:
            session.users -= 1
            if session.users == 0:
                # Linger: the next shard of the same evaluation usually starts a moment later, and a new
                # client would open a fresh pool: a TCP (often TLS) handshake per connection.
                session.closer = asyncio.get_running_loop().call_later(
                    LINGER_S, lambda: asyncio.ensure_future(self._close_idle(key))
                )

    async def _close_idle(self, key: tuple[str, str]) -> None:
        session = self.sessions.get(key)
        if session is not None and session.users == 0:
            del self.sessions[key]
            await session.client.aclose()

    async def aclose(self) -> None:
        """Close every client and the Redis one (process shutdown)."""
        sessions, self.sessions = self.sessions, {}
        for session in sessions.values():
            if session.closer is not None:
                session.closer.cancel()
            await session.client.aclose()
        shared, self.shared = self.shared, None
        if shared is not None:
            await shared.aclose()
        host, self.host = self.host, None
        if host is not None:
            host.close()


def open_session(
    target_id: str,
    config: TargetConfig,
    settings: Settings,
    limits: RedisLimits | None = None,
    host: HostSlots | None = None,
) -> TargetSession:
    """A guarded client with a pool the size of the target's concurrency, its gate, and its adapter.

    With `limits` the gate is shared through Redis under the target's id; with `host`, its cap is shared with
    the machine's other local workers; without either, it is this process's own.
    """
    if limits is None:
        config = local_share(config, settings)
    client = make_client(
        max_connections=config.max_concurrency,
        timeout=config.timeout_s,
        allowlist=Allowlist.parse(settings.target_allowlist),
        max_response_bytes=settings.max_reply_bytes,
    )
    gate: TargetGate
    if host is not None:
        gate = HostTargetGate(
            host, config.max_concurrency, config.requests_per_minute, config.tokens_per_minute
        )
    elif limits is None:
        gate = TargetGate(config.max_concurrency, config.requests_per_minute, config.tokens_per_minute)
    else:
        gate = SharedTargetGate(
            limits,
            target_id,
            config.max_concurrency,
            config.requests_per_minute,
            config.tokens_per_minute,
            lease_s=settings.shard_lease_s,
        )
    policy = RetryPolicy(max_retries=settings.max_retries, budget_s=settings.retry_budget_s)
    adapter = make_adapter(client, config, policy, settings.max_reply_bytes, gate)
    return TargetSession(client=client, gate=gate, adapter=adapter)


def local_workers(settings: Settings) -> int:
    """How many processes of this machine call targets side by side without Redis (1: the API or one worker)."""
    return settings.local_workers if settings.local_worker else 1


def local_share(config: TargetConfig, settings: Settings) -> TargetConfig:
    """This process's part of a target's per-minute budgets: all of them, or 1/N with N local worker processes.

    The concurrency cap stays whole: the local workers count it together (app/limits/host_target_gate.py). The
    budgets are paced by time, not held, so each worker keeps an equal share and together they never pass what
    the team set.
    """
    n = local_workers(settings)
    if n <= 1:
        return config

    def part(value: int | None) -> int | None:
        return None if value is None else max(1, value // n)

    return replace(
        config,
        requests_per_minute=part(config.requests_per_minute),
        tokens_per_minute=part(config.tokens_per_minute),
    )
