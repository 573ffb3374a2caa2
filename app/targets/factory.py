"""Build the adapter for a target's kind."""

from __future__ import annotations

import httpx

from app.limits.target_gate import TargetGate
from app.targets.anthropic import AnthropicMessagesTarget
from app.targets.base import TargetAdapter, TargetConfig
from app.targets.http import HttpTarget
from app.targets.http_json import GenericJsonTarget
from app.targets.openai_chat import OpenAIChatTarget
from app.targets.retry import RetryPolicy

ADAPTERS: dict[str, type[HttpTarget]] = {
    "openai_chat": OpenAIChatTarget,
    "anthropic_messages": AnthropicMessagesTarget,
    "http_json": GenericJsonTarget,
}
KINDS = tuple(ADAPTERS)


def make_adapter(
    client: httpx.AsyncClient,
    config: TargetConfig,
    policy: RetryPolicy,
    max_reply_bytes: int,
    gate: TargetGate | None = None,
) -> TargetAdapter:
    """The adapter for config.kind; `gate` is shared by every shard calling this target in this process."""
    try:
        adapter = ADAPTERS[config.kind]
    except KeyError:
        raise ValueError(f"unknown target kind {config.kind!r}; known: {', '.join(KINDS)}") from None
    return adapter(client, config, policy, max_reply_bytes, gate)
