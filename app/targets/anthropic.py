"""Anthropic Messages adapter: the system prompt goes in `system`, the reply is the joined text blocks."""

from __future__ import annotations

from typing import Any

import httpx

from app.targets.base import TargetConfig
from app.targets.http import HttpJsonTarget
from app.targets.limits import TargetGate
from app.targets.retry import RetryPolicy

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024  # the Messages API requires max_tokens; this fits any reply a scenario expects


class AnthropicMessagesTarget(HttpJsonTarget):
    def __init__(
        self,
        client: httpx.AsyncClient,
        config: TargetConfig,
        policy: RetryPolicy,
        max_reply_bytes: int,
        gate: TargetGate | None = None,
    ):
        super().__init__(client, config, policy, max_reply_bytes, gate)
        base = config.base_url.rstrip("/")
        self.url = base if base.endswith("/messages") else base + "/messages"
        self.headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        if config.api_key:
            self.headers["x-api-key"] = config.api_key
        self.headers.update(config.headers)

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
        body: dict[str, Any] = {**self._config.params, "model": self._config.model, "messages": turns}
        body.setdefault("max_tokens", self._config.max_tokens or DEFAULT_MAX_TOKENS)
        if system:
            body["system"] = system
        return body

    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list of blocks")
        texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if not texts:
            raise KeyError("no text block in content")
        usage = data.get("usage")
        return "".join(texts), usage if isinstance(usage, dict) else None
