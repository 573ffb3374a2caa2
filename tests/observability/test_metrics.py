"""What an operator scraping /metrics reads about a target: attempts by outcome, retries, latency of the calls
that succeeded, and nothing left in flight once the calls are over."""

from __future__ import annotations

import uuid

import httpx
import respx
from prometheus_client import REGISTRY

from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

MESSAGES = [{"role": "user", "content": "hello"}]


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _config() -> TargetConfig:
    """A target of its own, so counts other tests left on the shared registry do not mix in."""
    return TargetConfig(
        kind="openai_chat",
        base_url="https://api.example.com/v1",
        model="m",
        label=f"t-{uuid.uuid4().hex[:8]}",
    )


async def test_a_retried_call_counts_each_attempt_by_outcome_and_the_retry() -> None:
    config = _config()
    label = config.label
    with respx.mock:
        respx.post(f"{config.base_url}/chat/completions").mock(
            side_effect=[
                httpx.Response(503),
                httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]}),
            ]
        )
        async with httpx.AsyncClient() as client:
            target = make_adapter(client, config, RetryPolicy(max_retries=2, base_delay_s=0.001), 10_000)
            reply = await target.complete(MESSAGES)
    assert reply.text == "ok"
    assert _value("helmbench_target_attempts_total", target=label, outcome="ok") == 1
    failed = {
        s.labels["outcome"]: s.value
        for metric in REGISTRY.collect()
        if metric.name == "helmbench_target_attempts"
        for s in metric.samples
        if s.labels.get("target") == label and s.labels["outcome"] != "ok" and s.name.endswith("_total")
    }
    assert sum(failed.values()) == 1  # the 503, under its error class
    assert _value("helmbench_target_retries_total", target=label) == 1
    assert _value("helmbench_target_request_seconds_count", target=label) == 1  # successes only
    assert _value("helmbench_target_in_flight", target=label) == 0


async def test_a_target_that_never_answers_well_has_no_latency_and_no_ok() -> None:
    config = _config()
    with respx.mock:
        respx.post(f"{config.base_url}/chat/completions").mock(return_value=httpx.Response(400))
        async with httpx.AsyncClient() as client:
            target = make_adapter(client, config, RetryPolicy(max_retries=3, base_delay_s=0.001), 10_000)
            reply = await target.complete(MESSAGES)
    assert reply.error_class is not None and reply.attempts == 1  # a 4xx is final: no retry
    assert _value("helmbench_target_attempts_total", target=config.label, outcome="ok") == 0
    assert _value("helmbench_target_retries_total", target=config.label) == 0
    assert _value("helmbench_target_request_seconds_count", target=config.label) == 0
