"""OpenAI chat completions: URL forms, auth and params on the wire, reply and usage, errors as item errors."""

from __future__ import annotations

import json

import httpx
import respx

from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

MESSAGES = [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "hello"}]


def ok(text: str = "hi there") -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        },
    )


@respx.mock
async def test_sends_model_messages_params_auth_and_reads_reply(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    route = respx.post("https://api.example.com/v1/chat/completions").mock(return_value=ok())
    config = TargetConfig(
        kind="openai_chat",
        base_url="https://api.example.com/v1",
        model="m1",
        api_key="sk-1",
        headers={"X-Team": "a"},
        params={"temperature": 0.2},
        max_tokens=300,
    )
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.ok and reply.text == "hi there" and reply.attempts == 1
    assert reply.usage == {"prompt_tokens": 5, "completion_tokens": 2}
    sent = route.calls.last.request
    body = json.loads(sent.content)
    assert body == {"temperature": 0.2, "model": "m1", "messages": MESSAGES, "max_tokens": 300}
    assert sent.headers["authorization"] == "Bearer sk-1" and sent.headers["x-team"] == "a"


@respx.mock
async def test_azure_style_url_is_used_as_given(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    url = "https://x.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-06-01"
    route = respx.post(url).mock(return_value=ok())
    config = TargetConfig(kind="openai_chat", base_url=url, model="d1")
    assert (await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)).ok
    assert route.called


@respx.mock
async def test_4xx_is_final_without_retry(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    route = respx.post("https://api.example.com/v1/chat/completions").mock(
        return_value=httpx.Response(401, json={"error": "bad key"})
    )
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.error_class == "target_error" and "401" in (reply.error or "")
    assert reply.attempts == 1 and route.call_count == 1


@respx.mock
async def test_non_json_and_wrong_shape_are_bad_response_items(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    respx.post("https://api.example.com/v1/chat/completions").mock(
        side_effect=[
            httpx.Response(200, text="<html>oops</html>"),
            httpx.Response(200, json={"choices": []}),
            httpx.Response(200, json={"choices": [{"message": {"content": None}}]}),
            httpx.Response(200, text='{"choices": [{"mess'),
        ]
    )
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.error_class == "bad_response" and reply.attempts == 4 and reply.text is None


@respx.mock
async def test_too_large_reply_is_an_item_error_not_retried(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    route = respx.post("https://api.example.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, content=b"x" * 5000)
    )
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    reply = await make_adapter(client, config, fast_policy, 1000).complete(MESSAGES)
    assert reply.error_class == "bad_response" and "larger" in (reply.error or "")
    assert route.call_count == 1


@respx.mock
async def test_timeout_is_classified_and_retried(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    route = respx.post("https://api.example.com/v1/chat/completions").mock(
        side_effect=[httpx.ReadTimeout("slow"), ok("late but fine")]
    )
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m")
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.ok and reply.text == "late but fine" and reply.attempts == 2 and route.call_count == 2


@respx.mock
async def test_a_reply_json_only_python_reads_is_still_a_reply(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    """Replies are decoded by orjson, which refuses NaN and UTF-16; such a reply still reads as json.loads reads it."""
    body = (
        '{"choices": [{"message": {"role": "assistant", "content": "caf\\u00e9"}}], "usage": {"cost": NaN}}'
    )
    route = respx.post("https://api.example.com/v1/chat/completions")
    config = TargetConfig(kind="openai_chat", base_url="https://api.example.com/v1", model="m1")
    adapter = make_adapter(client, config, fast_policy, 100_000)
    for raw in (body.encode(), body.encode("utf-16")):
        route.mock(
            return_value=httpx.Response(200, content=raw, headers={"content-type": "application/json"})
        )
        reply = await adapter.complete(MESSAGES)
        assert reply.ok and reply.text == "café" and reply.attempts == 1
        assert reply.usage is not None and reply.usage["cost"] != reply.usage["cost"]  # NaN
