"""What every adapter returns: a reply that is ok or carries one error class, with a reason that hides the key."""

from __future__ import annotations

import dataclasses
from typing import get_args

import httpx
import pytest
import respx

from app.net.call_failed import CallFailed, ErrorClass
from app.targets.base import TargetConfig, TargetReply
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

URL = "https://bot.example.com/v1"
KEY = "sk-target-secret"
HI = [{"role": "user", "content": "hi"}]


def test_a_reply_is_ok_exactly_when_it_has_no_error_class() -> None:
    good = TargetReply(text="hello", latency_ms=12.0, attempts=1)
    bad = TargetReply(
        text=None, latency_ms=12.0, attempts=3, error_class="timeout", error="no answer within 60s"
    )
    assert good.ok and not bad.ok
    assert good.tokens == 0 and good.usage is None  # the runner sets tokens for budgets


def test_a_failed_attempt_tells_the_retry_loop_what_to_do() -> None:
    failed = CallFailed("rate_limited", "HTTP 429", retryable=True, retry_after=2.5)
    assert (failed.error_class, failed.retryable, failed.retry_after, str(failed)) == (
        "rate_limited",
        True,
        2.5,
        "HTTP 429",
    )
    assert "simulator_error" in get_args(ErrorClass)  # the simulator's faults are never the target's


def test_a_config_is_a_frozen_value_compared_by_its_fields() -> None:
    config = TargetConfig(kind="openai_chat", base_url=URL, model="m")
    assert config == TargetConfig(kind="openai_chat", base_url=URL, model="m")
    assert (config.label, config.max_concurrency, config.timeout_s) == ("target", 16, 60.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.model = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("response", "error_class"),
    [
        (httpx.Response(401, json={"error": f"bad key {KEY}"}), "target_error"),
        (httpx.Response(500), "target_error"),
        (httpx.Response(429), "rate_limited"),
        (httpx.Response(200, text="not json"), "bad_response"),
        (httpx.Response(200, json={"choices": []}), "bad_response"),
    ],
)
@respx.mock
async def test_a_failed_call_returns_its_error_class_and_a_reason_without_the_key(
    response: httpx.Response, error_class: str, client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    respx.post(f"{URL}/chat/completions").mock(return_value=response)
    config = TargetConfig(kind="openai_chat", base_url=URL, model="m", api_key=KEY)
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(HI)
    assert not reply.ok and reply.text is None and reply.error_class == error_class
    assert reply.error and KEY not in reply.error and reply.attempts >= 1
