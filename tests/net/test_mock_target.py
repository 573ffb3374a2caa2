"""The benchmark's mock target answers like an OpenAI endpoint and injects the faults it is configured for."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from bench.mock_target import MockConfig, running_mock

CHAT = {"model": "m1", "messages": [{"role": "user", "content": "hello there"}]}


async def _post(config: MockConfig, timeout: float = 5) -> tuple[httpx.Response, dict[str, int]]:
    async with running_mock(config) as base, httpx.AsyncClient(base_url=base, timeout=timeout) as client:
        response = await client.post("/v1/chat/completions", json=CHAT)
        stats = (await client.get("/stats")).json()
    return response, stats


async def test_ok_reply_is_openai_shaped() -> None:
    response, stats = await _post(MockConfig(latency=0.0))
    body = response.json()
    assert response.status_code == 200 and body["object"] == "chat.completion" and body["model"] == "m1"
    assert body["choices"][0]["message"]["role"] == "assistant" and body["choices"][0]["message"]["content"]
    assert body["usage"]["prompt_tokens"] == 2
    assert {k: stats[k] for k in ("requests", "ok", "max_in_flight")} == {
        "requests": 1,
        "ok": 1,
        "max_in_flight": 1,
    }
    assert 0 < stats["first_request_at"] <= stats["last_answer_at"]


async def test_stats_report_the_most_requests_served_at_once() -> None:
    async with running_mock(MockConfig(latency=0.2)) as base, httpx.AsyncClient(base_url=base) as client:
        await asyncio.gather(*(client.post("/v1/chat/completions", json=CHAT) for _ in range(5)))
        await client.post("/v1/chat/completions", json=CHAT)  # alone: the peak stays
        stats = (await client.get("/stats")).json()
    assert stats["requests"] == 6 and stats["max_in_flight"] == 5
    # six requests each held 0.2 s, five of them at once: ~1.2 s in flight over ~0.4 s, three at a time on average
    seconds = stats["last_answer_at"] - stats["first_request_at"]
    assert stats["in_flight_seconds"] >= 6 * 0.2 and seconds >= 2 * 0.2
    assert 2 <= stats["in_flight_seconds"] / seconds <= 5


async def test_429_carries_retry_after() -> None:
    response, _ = await _post(MockConfig(latency=0.0, rate_429=1.0, retry_after=7))
    assert response.status_code == 429 and response.headers["retry-after"] == "7"


async def test_5xx_fault() -> None:
    response, stats = await _post(MockConfig(latency=0.0, rate_5xx=1.0))
    assert response.status_code in (500, 502, 503) and stats["5xx"] == 1


async def test_malformed_body_does_not_parse() -> None:
    response, _ = await _post(MockConfig(latency=0.0, rate_malformed=1.0))
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    with pytest.raises(json.JSONDecodeError):
        response.json()


async def test_timeout_fault_outlasts_client_timeout() -> None:
    with pytest.raises(httpx.TimeoutException):
        await _post(MockConfig(latency=0.0, rate_timeout=1.0, timeout_seconds=5), timeout=0.3)


async def test_bad_request_rejected() -> None:
    async with running_mock(MockConfig(latency=0.0)) as base, httpx.AsyncClient(base_url=base) as client:
        response = await client.post("/v1/chat/completions", json={"model": "m"})
    assert response.status_code == 400


def test_rates_over_one_rejected() -> None:
    with pytest.raises(ValueError):
        MockConfig(rate_5xx=0.6, rate_429=0.6)


async def test_rates_are_roughly_honoured() -> None:
    config = MockConfig(latency=0.0, rate_5xx=0.25, rate_429=0.25, seed=1)
    async with running_mock(config) as base, httpx.AsyncClient(base_url=base) as client:
        codes = [(await client.post("/v1/chat/completions", json=CHAT)).status_code for _ in range(200)]
    assert (
        25 <= codes.count(429) <= 75 and 25 <= sum(c >= 500 for c in codes) <= 75 and codes.count(200) >= 60
    )
