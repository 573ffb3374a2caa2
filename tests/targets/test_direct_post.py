"""A target call on our own transport goes without an httpx Request and Response (`post_capped`): the same
request arrives and the same reply, failure and cap come back as through httpx."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from app.net.call_failed import CallFailed
from app.net.client import GuardedAiohttpTransport, make_client
from app.net.ssrf import Allowlist
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.http import HttpTarget
from app.targets.retry import RetryPolicy

POLICY = RetryPolicy(max_retries=0, budget_s=5.0, base_delay_s=0.01, max_delay_s=0.05)
REPLY = {"choices": [{"message": {"content": "I'm here with you."}}], "usage": {"total_tokens": 7}}


@pytest.fixture
async def target() -> AsyncIterator[tuple[str, list[dict[str, object]]]]:
    """A loopback chat endpoint; what each request carried is kept. The model name says how to answer."""
    seen: list[dict[str, object]] = []

    async def chat(request: web.Request) -> web.StreamResponse:
        body = json.loads(await request.read())
        seen.append({"headers": dict(request.headers), "body": body})
        model = body["model"]
        if model == "busy":
            return web.json_response({"error": "slow down"}, status=429, headers={"Retry-After": "7"})
        if model == "big":
            return web.Response(body=b"x" * 50_000, content_type="application/json")
        if model == "gzip":
            return web.Response(
                body=gzip.compress(json.dumps(REPLY).encode()),
                headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
            )
        return web.json_response(REPLY)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1", seen
    await runner.cleanup()


async def _call(base: str, model: str) -> tuple[str, dict[str, object] | None]:
    client = make_client(
        max_connections=4, timeout=5, allowlist=Allowlist.parse("127.0.0.0/8"), max_response_bytes=1 << 20
    )
    async with client:
        config = TargetConfig(kind="openai_chat", base_url=base, model=model, api_key="k1")
        adapter = make_adapter(client, config, POLICY, 10_000)
        assert isinstance(adapter, HttpTarget)
        return await adapter.attempt_once([{"role": "user", "content": "café"}])


async def test_the_request_and_the_reply_cross_whole(
    target: tuple[str, list[dict[str, object]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_httpx_request(*args: object) -> None:
        raise AssertionError("the call went through an httpx Request")

    monkeypatch.setattr(GuardedAiohttpTransport, "handle_async_request", no_httpx_request)
    base, seen = target
    assert await _call(base, "m") == ("I'm here with you.", {"total_tokens": 7})
    headers, body = seen[0]["headers"], seen[0]["body"]
    assert isinstance(headers, dict) and headers["Authorization"] == "Bearer k1"
    assert headers["Accept-Encoding"] == "identity" and headers["Content-Type"] == "application/json"
    assert body == {"model": "m", "messages": [{"role": "user", "content": "café"}]}


async def test_a_rate_limit_keeps_its_retry_after(target: tuple[str, list[dict[str, object]]]) -> None:
    with pytest.raises(CallFailed) as failed:
        await _call(target[0], "busy")
    assert failed.value.error_class == "rate_limited" and failed.value.retry_after == 7
    assert "slow down" in (failed.value.body or "")


async def test_a_reply_past_the_adapters_cap_is_a_bad_response(
    target: tuple[str, list[dict[str, object]]],
) -> None:
    with pytest.raises(CallFailed) as failed:
        await _call(target[0], "big")
    assert failed.value.error_class == "bad_response" and "larger than 10000" in str(failed.value)


async def test_a_compressed_reply_is_still_decoded(target: tuple[str, list[dict[str, object]]]) -> None:
    assert await _call(target[0], "gzip") == ("I'm here with you.", {"total_tokens": 7})
