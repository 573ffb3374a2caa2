"""Each target kind builds its own adapter and calls its own endpoint; an unknown kind is refused by name."""

from __future__ import annotations

import httpx
import pytest
import respx

from app.limits.target_gate import TargetGate
from app.targets.anthropic import AnthropicMessagesTarget
from app.targets.base import TargetConfig
from app.targets.factory import KINDS, make_adapter
from app.targets.http_json import GenericJsonTarget
from app.targets.openai_chat import OpenAIChatTarget
from app.targets.retry import RetryPolicy

HI = [{"role": "user", "content": "hi"}]
CONFIGS = {
    "openai_chat": (
        TargetConfig(kind="openai_chat", base_url="https://oa.example.com/v1", model="m", api_key="k"),
        "https://oa.example.com/v1/chat/completions",
        {"choices": [{"message": {"role": "assistant", "content": "hello"}}]},
        OpenAIChatTarget,
    ),
    "anthropic_messages": (
        TargetConfig(kind="anthropic_messages", base_url="https://an.example.com/v1", model="c", api_key="k"),
        "https://an.example.com/v1/messages",
        {"content": [{"type": "text", "text": "hello"}]},
        AnthropicMessagesTarget,
    ),
    "http_json": (
        TargetConfig(
            kind="http_json",
            base_url="https://product.example.com/chat",
            model="p",
            request_template={"input": "{{last_user}}"},
            reply_pointer="/answer",
        ),
        "https://product.example.com/chat",
        {"answer": "hello"},
        GenericJsonTarget,
    ),
}


def test_every_known_kind_is_covered_here() -> None:
    assert set(KINDS) == set(CONFIGS)


@pytest.mark.parametrize("kind", KINDS)
@respx.mock
async def test_each_kind_builds_its_adapter_and_calls_its_endpoint(
    kind: str, client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    config, url, answer, adapter_type = CONFIGS[kind]
    route = respx.post(url).mock(return_value=httpx.Response(200, json=answer))
    adapter = make_adapter(client, config, fast_policy, 100_000)
    assert isinstance(adapter, adapter_type)
    reply = await adapter.complete(HI)
    assert reply.ok and reply.text == "hello" and route.call_count == 1


def test_an_unknown_kind_is_refused_naming_the_known_ones(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    config = TargetConfig(kind="carrier_pigeon", base_url="https://x.example.com", model="m")
    with pytest.raises(
        ValueError, match="unknown target kind 'carrier_pigeon'; known: openai_chat, anthropic_messages"
    ):
        make_adapter(client, config, fast_policy, 100_000)


@respx.mock
async def test_adapters_given_one_gate_share_its_window(
    client: httpx.AsyncClient, fast_policy: RetryPolicy
) -> None:
    """Shards calling one target in a process pace together: a rate limit one of them meets narrows the shared
    window; an adapter built without the gate paces itself alone."""
    config, url, answer, _ = CONFIGS["openai_chat"]
    limited = httpx.Response(429, headers={"retry-after": "0"})
    respx.post(url).mock(
        side_effect=[limited, httpx.Response(200, json=answer), limited, httpx.Response(200, json=answer)]
    )
    gate = TargetGate(8)
    shared = make_adapter(client, config, fast_policy, 100_000, gate)
    alone = make_adapter(client, config, fast_policy, 100_000)
    assert (await shared.complete(HI)).ok
    narrowed = gate.window.limit
    assert narrowed < 8
    assert (await alone.complete(HI)).ok
    assert gate.window.limit == narrowed
