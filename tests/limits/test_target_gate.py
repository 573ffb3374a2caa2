"""Per-target limits: the concurrency window holds, 429s halve it (once per cooldown), successes regrow it."""

from __future__ import annotations

import asyncio
import time

import httpx
import respx

from app.limits.target_gate import AdaptiveLimit, TargetGate
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy


async def test_window_bounds_in_flight_calls() -> None:
    gate = TargetGate(3)
    peak = 0

    async def call() -> None:
        nonlocal peak
        async with gate.slot():
            peak = max(peak, gate.window.in_flight)
            await asyncio.sleep(0.01)

    await asyncio.gather(*(call() for _ in range(20)))
    assert peak == 3 and gate.window.in_flight == 0


def test_aimd_halves_once_per_cooldown_and_regrows() -> None:
    limit = AdaptiveLimit(16, cooldown_s=60)
    assert limit.on_rate_limited() and limit.limit == 8
    assert not limit.on_rate_limited() and limit.limit == 8  # the rest of the burst does not collapse it
    for _ in range(200):
        limit.on_success()
    assert limit.limit == 16


async def test_cancelled_waiter_does_not_leak_a_slot() -> None:
    limit = AdaptiveLimit(1)
    await limit.acquire()
    waiter = asyncio.create_task(limit.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    limit.release()
    assert limit.in_flight == 0
    await asyncio.wait_for(limit.acquire(), 1)


async def test_requests_per_minute_paces_calls() -> None:
    gate = TargetGate(10, requests_per_minute=120)  # 2 a second once the initial burst is spent
    started = time.monotonic()
    for _ in range(124):
        async with gate.slot():
            pass
    assert time.monotonic() - started >= 1.5


@respx.mock
async def test_429_responses_shrink_the_shared_window() -> None:
    respx.post("https://api.example.com/v1/chat/completions").mock(
        side_effect=[
            httpx.Response(429),
            httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]}),
        ]
    )
    gate = TargetGate(32)
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    async with httpx.AsyncClient() as client:
        adapter = make_adapter(client, config, RetryPolicy(base_delay_s=0.001), 10_000, gate)
        reply = await adapter.complete([{"role": "user", "content": "hi"}])
    assert reply.ok and reply.attempts == 2
    assert 16 <= gate.window.limit < 17  # halved by the 429, then one additive step from the success
