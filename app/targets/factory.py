"""Build the adapter for a target's kind."""

from __future__ import annotations

import httpx

from app.targets.base import TargetAdapter, TargetConfig
from app.targets.openai_chat import OpenAIChatTarget
from app.targets.retry import RetryPolicy

KINDS = ("openai_chat",)


def make_adapter(client: httpx.AsyncClient, config: TargetConfig, policy: RetryPolicy,
                 max_reply_bytes: int) -> TargetAdapter:
    if config.kind == "openai_chat":
        return OpenAIChatTarget(client, config, policy, max_reply_bytes)
    raise ValueError(f"unknown target kind {config.kind!r}; known: {', '.join(KINDS)}")
