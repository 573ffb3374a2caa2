"""Retries: bounded in count and in total time, Retry-After honoured (seconds or HTTP date), 4xx final."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import respx

from app.net.call_failed import CallFailed
from app.targets import retry
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy, call_with_retries, parse_retry_after

URL = "https://api.example.com/v1/chat/completions"
CONFIG = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
MESSAGES = [{"role": "user", "content": "hello"}]


async def test_stops_after_max_retries_with_the_last_error_class() -> None:
    calls = 0

    async def always_5xx() -> tuple[str, None]:
        nonlocal calls
        calls += 1
        raise CallFailed("target_error", "HTTP 503", retryable=True)

    reply = await call_with_retries(always_5xx, RetryPolicy(max_retries=2, base_delay_s=0.001))
    assert (
        calls == 3
        and reply.attempts == 3
        and reply.error_class == "target_error"
        and reply.error == "HTTP 503"
    )


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The retry waits asked for, recorded instead of slept, so a test reads the schedule, not a clock."""
    asked: list[float] = []
    sleep = asyncio.sleep

    async def recorded(seconds: float) -> None:
        asked.append(seconds)
        await sleep(0)

    monkeypatch.setattr(retry, "sleep", recorded)  # this module's waits only, not other tasks'
    return asked


async def test_total_time_budget_stops_retries_before_a_long_wait(waits: list[float]) -> None:
    async def rate_limited() -> tuple[str, None]:
        raise CallFailed("rate_limited", "429", retryable=True, retry_after=30)

    reply = await call_with_retries(rate_limited, RetryPolicy(max_retries=10, budget_s=5))
    assert waits == [] and reply.attempts == 1 and reply.error_class == "rate_limited"


@respx.mock
async def test_retry_after_is_waited_then_success(client: httpx.AsyncClient, waits: list[float]) -> None:
    route = respx.post(URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "1"}),
            httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]}),
        ]
    )
    policy = RetryPolicy(max_retries=3, base_delay_s=0.001)
    reply = await make_adapter(client, CONFIG, policy, 10_000).complete(MESSAGES)
    assert reply.text == "ok" and reply.attempts == 2 and route.call_count == 2
    assert len(waits) == 1 and 1.0 <= waits[0] <= 1.1  # Retry-After: 1 plus at most 10% jitter


def test_retry_after_forms() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:40 GMT", now) == 20.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now) == 0.0  # in the past: go now
    assert parse_retry_after("soon", now) is None and parse_retry_after(None, now) is None


def test_backoff_is_jittered_exponential_and_capped() -> None:
    policy = RetryPolicy(base_delay_s=1, max_delay_s=4)
    for attempt, cap in ((1, 1), (2, 2), (3, 4), (8, 4)):
        delays = [policy.delay(attempt, None) for _ in range(200)]
        assert all(0 <= d <= cap for d in delays) and max(delays) > cap * 0.8
