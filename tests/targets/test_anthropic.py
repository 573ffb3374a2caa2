"""Anthropic Messages: system prompt moved to `system`, x-api-key and version headers, text blocks joined."""

from __future__ import annotations

import json

import httpx
import respx

from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

MESSAGES = [
    {"role": "system", "content": "Be kind."},
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "hi"},
    {"role": "user", "content": "again"},
]


@respx.mock
async def test_request_shape_and_reply(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    route = respx.post("https://api.anthropic.com/v1/messages").mock(
        return_value=httpx.Response(
            200,
            json={
                "content": [
                    {"type": "text", "text": "Hello "},
                    {"type": "tool_use", "id": "t"},
                    {"type": "text", "text": "again."},
                ],
                "usage": {"input_tokens": 9, "output_tokens": 3},
            },
        )
    )
    config = TargetConfig(
        kind="anthropic_messages",
        base_url="https://api.anthropic.com/v1",
        model="claude-x",
        api_key="ak",
        params={"temperature": 0},
    )
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert (
        reply.ok and reply.text == "Hello again." and reply.usage == {"input_tokens": 9, "output_tokens": 3}
    )
    sent = route.calls.last.request
    body = json.loads(sent.content)
    assert body["system"] == "Be kind." and body["model"] == "claude-x" and body["max_tokens"] == 1024
    assert body["messages"] == MESSAGES[1:] and body["temperature"] == 0
    assert sent.headers["x-api-key"] == "ak" and sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers


@respx.mock
async def test_no_text_block_is_bad_response(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    respx.post("https://api.anthropic.com/v1/messages").mock(
        return_value=httpx.Response(200, json={"content": [{"type": "tool_use"}]})
    )
    config = TargetConfig(
        kind="anthropic_messages", base_url="https://api.anthropic.com/v1", model="c", max_tokens=50
    )
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.error_class == "bad_response"


@respx.mock
async def test_overloaded_529_is_retried(client: httpx.AsyncClient, fast_policy: RetryPolicy) -> None:
    route = respx.post("https://api.anthropic.com/v1/messages").mock(
        side_effect=[
            httpx.Response(529, json={"type": "error"}),
            httpx.Response(200, json={"content": [{"type": "text", "text": "ok"}]}),
        ]
    )
    config = TargetConfig(kind="anthropic_messages", base_url="https://api.anthropic.com/v1", model="c")
    reply = await make_adapter(client, config, fast_policy, 100_000).complete(MESSAGES)
    assert reply.text == "ok" and reply.attempts == 2 and route.call_count == 2
